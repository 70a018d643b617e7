"""The k-d tree: exact (equal to scipy's cKDTree and to brute force), well formed, and
visiting almost every leaf in high dimension."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial import cKDTree

from mmir_lib.ann.kdtree import KDTree, SearchCounts
from mmir_lib.vision.matching import nearest_neighbours


@pytest.mark.parametrize("dim", [2, 8, 32])
@pytest.mark.parametrize("k", [1, 5])
def test_equal_to_scipy_ckdtree(dim, k):
    """Random points (no ties): the same indices, distances within 1e-12."""
    rng = np.random.default_rng(dim)
    points, queries = rng.random((1000, dim)), rng.random((100, dim))
    distances, indices = KDTree(points).query(queries, k=k)
    reference_d, reference_i = cKDTree(points).query(queries, k=k)
    reference_d, reference_i = reference_d.reshape(100, k), reference_i.reshape(100, k)  # scipy squeezes k = 1
    assert np.array_equal(indices, reference_i)
    np.testing.assert_allclose(distances, reference_d, rtol=0, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_equal_to_brute_force_with_ties(data):
    """Integer coordinates (many equal distances, duplicate points): the same answer as a
    full sort, ties broken by the smaller index."""
    dim = data.draw(st.integers(1, 4))
    points = data.draw(arrays(np.int64, (data.draw(st.integers(1, 60)), dim), elements=st.integers(-4, 4)))
    queries = data.draw(arrays(np.int64, (data.draw(st.integers(1, 5)), dim), elements=st.integers(-5, 5)))
    k = data.draw(st.integers(1, len(points)))
    leaf_size = data.draw(st.integers(1, 8))
    distances, indices = KDTree(points, leaf_size=leaf_size).query(queries, k=k)
    expected_d, expected_i = nearest_neighbours(queries, points, k=k)
    assert np.array_equal(indices, expected_i)
    np.testing.assert_allclose(distances, expected_d, atol=1e-12)


@pytest.mark.parametrize("leaf_size", [1, 16, 500])
def test_tree_is_well_formed(leaf_size):
    points = np.random.default_rng(7).normal(size=(500, 3)) * [1.0, 10.0, 0.1]
    tree = KDTree(points, leaf_size=leaf_size)
    assert np.array_equal(np.sort(tree.order), np.arange(500))  # a permutation
    leaves = tree.split_axis < 0
    assert np.all(tree.end[leaves] - tree.start[leaves] <= leaf_size)
    starts, ends = np.sort(tree.start[leaves]), np.sort(tree.end[leaves])
    assert starts[0] == 0 and np.array_equal(starts[1:], ends[:-1]) and ends[-1] == 500  # leaves tile 0..n
    for node in np.flatnonzero(~leaves):
        left, right = tree.children[node]
        axis, value = tree.split_axis[node], tree.split_value[node]
        assert tree.start[left] == tree.start[node] and tree.end[left] == tree.start[right]
        assert tree.end[right] == tree.end[node]
        assert abs((tree.end[left] - tree.start[left]) - (tree.end[right] - tree.start[right])) <= 1  # median
        left_points = points[tree.order[tree.start[left]:tree.end[left]]]
        right_points = points[tree.order[tree.start[right]:tree.end[right]]]
        assert left_points[:, axis].max() <= value <= right_points[:, axis].min()
        spread = np.ptp(points[tree.order[tree.start[node]:tree.end[node]]], axis=0)
        assert spread[axis] == spread.max()  # the axis of largest spread
    members = [points[tree.order[s:e]] for s, e in zip(tree.start, tree.end)]
    assert all(np.array_equal(m.min(axis=0), lo) and np.array_equal(m.max(axis=0), hi)
               for m, lo, hi in zip(members, tree.lower, tree.upper))  # tight bounding boxes


def test_curse_of_dimensionality():
    """In 2-D a query scans a couple of leaves; in 64-D it scans (nearly) all of them."""
    rng = np.random.default_rng(8)
    fractions = {}
    for dim in (2, 64):
        tree = KDTree(rng.random((2000, dim)))
        _, _, counts = tree.query(rng.random((50, dim)), k=1, return_counts=True)
        assert isinstance(counts, SearchCounts) and np.all(counts.points >= counts.leaves)
        fractions[dim] = counts.leaves.mean() / tree.n_leaves
    assert fractions[2] < 0.05 and fractions[64] > 0.95


def test_best_bin_first_trades_recall_for_work():
    rng = np.random.default_rng(9)
    points, queries = rng.random((1000, 16)), rng.random((60, 16))
    tree = KDTree(points)
    exact = tree.query(queries)[1][:, 0]
    recalls, work = [], []
    for max_leaves in (1, 4, 16, tree.n_leaves):
        _, indices, counts = tree.query(queries, max_leaves=max_leaves, return_counts=True)
        assert counts.leaves.max() <= max_leaves
        recalls.append(np.mean(indices[:, 0] == exact))
        work.append(counts.points.mean())
    assert recalls == sorted(recalls) and recalls[0] < 0.5 and recalls[-1] == 1.0  # a larger budget never hurts
    assert work == sorted(work) and work[0] <= tree.leaf_size


def test_identical_points_make_one_leaf():
    tree = KDTree(np.ones((100, 3)), leaf_size=4)
    assert tree.n_nodes == 1
    distances, indices = tree.query([[1.0, 1.0, 2.0]], k=3)
    assert indices.tolist() == [[0, 1, 2]] and np.allclose(distances, 1.0)


@pytest.mark.parametrize("call, error, words", [
    (lambda: KDTree(np.ones(3)), ValueError, "points must be 2-dimensional"),
    (lambda: KDTree(np.ones((4, 2)), leaf_size=0), ValueError, "leaf_size"),
    (lambda: KDTree(np.ones((4, 2))).query(np.ones((1, 3))), ValueError, "queries must have 2 columns"),
    (lambda: KDTree(np.ones((4, 2))).query(np.ones((1, 2)), k=5), ValueError, "k must be at most"),
    (lambda: KDTree(np.ones((4, 2))).query(np.ones((1, 2)), max_leaves=0), ValueError, "max_leaves"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
