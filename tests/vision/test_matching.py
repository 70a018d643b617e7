"""Descriptor matching: neighbours against a full sort (distances: tests/ann/test_distances.py),
the ratio test and cross-checking against their definitions (and OpenCV's BFMatcher)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

from mmir_lib.vision.matching import Matches, cross_check, nearest_neighbours, ratio_test


@st.composite
def _small_int_points(draw, max_a=8, max_b=12):
    """(a, b) with integer coordinates in a small range: many exactly equal distances (ties)."""
    d = draw(st.integers(1, 4))
    n, m = draw(st.integers(0, max_a)), draw(st.integers(1, max_b))
    a = draw(arrays(np.int64, (n, d), elements=st.integers(-3, 3)))
    b = draw(arrays(np.int64, (m, d), elements=st.integers(-3, 3)))
    return a, b


def _brute_force(a, b, k):
    """The k nearest rows of b by a full sort on (distance, index), from scipy's cdist."""
    distances = cdist(a, b)
    order = np.array([np.lexsort((np.arange(len(b)), row))[:k] for row in distances], dtype=np.int64)
    order = order.reshape(len(a), k)
    return np.take_along_axis(distances, order, axis=1), order


@settings(max_examples=60, deadline=None)
@given(_small_int_points(), st.integers(1, 12))
def test_nearest_neighbours_equal_a_full_sort(data, k):
    a, b = data
    k = min(k, len(b))
    distances, indices = nearest_neighbours(a, b, k)
    expected_d, expected_i = _brute_force(a, b, k)
    assert indices.shape == (len(a), k) and np.all(np.diff(distances, axis=1) >= 0)
    assert np.array_equal(indices, expected_i)  # ties (frequent here): the smaller index first
    np.testing.assert_allclose(distances, expected_d, atol=1e-12)


def test_nearest_neighbours_agree_with_scikit_learn():
    rng = np.random.default_rng(3)
    a, b = rng.normal(size=(100, 32)), rng.normal(size=(500, 32))
    reference_d, reference_i = NearestNeighbors(n_neighbors=5, algorithm="brute").fit(b).kneighbors(a)
    distances, indices = nearest_neighbours(a, b, k=5)
    assert np.array_equal(indices, reference_i)
    np.testing.assert_allclose(distances, reference_d, atol=1e-12)


def _transformed_pair(rng, n=200, outliers=100, d=32, noise=0.05):
    """b = a shuffled and perturbed, plus rows of a that have no counterpart in b."""
    b = rng.normal(size=(n, d))
    permutation = rng.permutation(n)
    a = np.vstack([b[permutation] + noise * rng.normal(size=(n, d)), rng.normal(size=(outliers, d))])
    truth = np.concatenate([permutation, np.full(outliers, -1)])  # the correct match of each row of a
    return a, b, truth


def test_ratio_test_keeps_true_matches_and_drops_outliers():
    a, b, truth = _transformed_pair(np.random.default_rng(4))
    matches = ratio_test(a, b, ratio=0.8)
    correct = truth[matches.query] == matches.train
    assert correct.mean() >= 0.99  # what survives is right
    assert correct.sum() >= 0.95 * np.sum(truth >= 0)  # and nearly every true match survives
    nearest = nearest_neighbours(a, b, k=1)[1][:, 0]
    assert np.mean(truth == nearest) < 0.7  # plain nearest neighbour matches every outlier too


@settings(max_examples=40, deadline=None)
@given(_small_int_points(), st.floats(0.05, 1.0), st.floats(0.05, 1.0))
def test_ratio_test_is_its_definition_and_grows_with_the_ratio(data, r1, r2):
    a, b = data
    if len(b) < 2:
        return
    distances, indices = nearest_neighbours(a, b, k=2)
    small, large = ratio_test(a, b, min(r1, r2)), ratio_test(a, b, max(r1, r2))
    keep = distances[:, 0] < min(r1, r2) * distances[:, 1]
    assert np.array_equal(small.query, np.flatnonzero(keep))
    assert np.array_equal(small.train, indices[keep, 0])
    np.testing.assert_allclose(small.second_distance, distances[keep, 1], atol=1e-12)
    assert set(small.query) <= set(large.query)


def _mutual_by_definition(a, b):
    d = cdist(a, b)
    if len(a) == 0:
        return []
    forward, backward = d.argmin(axis=1), d.argmin(axis=0)
    return [(i, j) for i, j in enumerate(forward) if backward[j] == i]


@settings(max_examples=40, deadline=None)
@given(_small_int_points())
def test_cross_check_keeps_mutual_nearest_neighbours(data):
    a, b = data
    matches = cross_check(a, b)
    assert [tuple(p) for p in matches.pairs.tolist()] == _mutual_by_definition(a, b)


def test_mutual_ratio_test_is_ratio_test_and_cross_check():
    a, b, _ = _transformed_pair(np.random.default_rng(5), noise=0.5)
    both = ratio_test(a, b, 0.9, mutual=True)
    def pairs(matches):
        return {tuple(p) for p in matches.pairs.tolist()}
    assert pairs(both) == pairs(ratio_test(a, b, 0.9)) & pairs(cross_check(a, b)) and len(both) > 0


def test_cross_check_equals_opencv_bfmatcher():
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(6)
    a, b, _ = _transformed_pair(rng, noise=0.5)
    a, b = a.astype(np.float32), b.astype(np.float32)  # OpenCV matches float32 descriptors
    reference = sorted((m.queryIdx, m.trainIdx) for m in cv2.BFMatcher(cv2.NORM_L2, crossCheck=True).match(a, b))
    assert [tuple(p) for p in cross_check(a, b).pairs.tolist()] == reference


def test_matches_record():
    matches = ratio_test([[0.0], [5.0]], [[0.1], [4.0], [9.0]], ratio=0.8)
    assert isinstance(matches, Matches) and len(matches) == 2
    assert matches.pairs.tolist() == [[0, 0], [1, 1]]
    np.testing.assert_allclose(matches.ratio, [0.1 / 4.0, 1.0 / 4.0])
    assert "2 matches: 0→0, 1→1" in repr(matches)


def test_a_duplicated_train_row_never_passes_the_ratio_test():
    assert len(ratio_test([[1.0, 1.0]], [[1.0, 1.0], [1.0, 1.0], [3.0, 0.0]], ratio=1.0)) == 0


@pytest.mark.parametrize("call, error, words", [
    (lambda: nearest_neighbours(np.ones((2, 3)), np.ones((2, 3)), k=3), ValueError, "k must be at most"),
    (lambda: nearest_neighbours(np.ones((2, 3)), np.ones((2, 3)), k=0), ValueError, "k must be >= 1"),
    (lambda: ratio_test(np.ones((2, 3)), np.ones((2, 3)), ratio=0.0), ValueError, "ratio"),
    (lambda: ratio_test(np.ones((2, 3)), np.ones((2, 3)), ratio=1.5), ValueError, "ratio"),
    (lambda: ratio_test(np.ones((2, 3)), np.ones((1, 3))), ValueError, "b must have at least 2 rows"),
    (lambda: ratio_test(np.ones((2, 3)), np.ones((2, 3)), mutual=1), TypeError, "mutual"),
    (lambda: cross_check(np.ones((2, 3)), np.ones((0, 3))), ValueError, "b must have at least one row"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
