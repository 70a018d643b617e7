"""k-means: scikit-learn's Lloyd from the same start as the reference; Lloyd's invariants
(inertia never rises, labels are the nearest centres) as properties; k-means++ and
empty clusters."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans

from mmir_lib.kmeans import KMeansResult, assign, kmeans, kmeans_plus_plus


def _blobs(seed, n=600, k=5, dim=8, spread=10.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, spread, (k, dim))
    return centres[rng.integers(0, k, n)] + rng.normal(size=(n, dim))


@pytest.mark.parametrize("seed, k, dim", [(0, 3, 2), (1, 5, 8), (2, 8, 32)])
@pytest.mark.parametrize("start", ["k-means++", "random"])
@pytest.mark.parametrize("tol", [0.0, 1e-4])
def test_equal_to_scikit_learn_from_the_same_centres(seed, k, dim, start, tol):
    """Measured: identical labels and iteration counts, inertia within 1e-14 relative."""
    points = _blobs(seed, k=k, dim=dim)
    rng = np.random.default_rng(seed)
    if start == "k-means++":
        init = kmeans_plus_plus(points, k, seed)
    else:
        init = points[rng.choice(len(points), k, replace=False)]
    ours = kmeans(points, k, init=init, tol=tol, max_iter=100)
    reference = KMeans(n_clusters=k, init=init, n_init=1, algorithm="lloyd", tol=tol, max_iter=100).fit(points)
    assert np.array_equal(ours.labels, reference.labels_)
    np.testing.assert_allclose(ours.inertia, reference.inertia_, rtol=1e-9)
    np.testing.assert_allclose(ours.centres, reference.cluster_centers_, rtol=0, atol=1e-9)
    assert ours.iterations == reference.n_iter_ and ours.converged


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_lloyd_invariants(data):
    """Inertia never rises; the final labels are the nearest centres and the inertia is
    their sum of squared distances."""
    n, dim = data.draw(st.integers(2, 40)), data.draw(st.integers(1, 4))
    points = data.draw(arrays(np.float64, (n, dim), elements=st.integers(-50, 50).map(float), unique=False))
    k = data.draw(st.integers(1, n))
    result = kmeans(points, k, seed=data.draw(st.integers(0, 100)), tol=0.0)
    history = result.inertia_history
    assert len(history) == result.iterations
    assert np.all(np.diff(history) <= 1e-9 * (1 + history[:-1]))
    assert result.inertia <= history[-1] * (1 + 1e-12) + 1e-9
    assert np.array_equal(result.labels, assign(points, result.centres))
    np.testing.assert_allclose(result.inertia, ((points - result.centres[result.labels]) ** 2).sum(),
                               rtol=1e-9, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_assign_is_the_argmin(data):
    dim = data.draw(st.integers(1, 5))
    points = data.draw(arrays(np.float64, (data.draw(st.integers(0, 30)), dim), elements=st.floats(-1e3, 1e3)))
    centres = data.draw(arrays(np.float64, (data.draw(st.integers(1, 6)), dim), elements=st.floats(-1e3, 1e3)))
    labels = assign(points, centres)
    distances = cdist(points, centres, "sqeuclidean")
    chosen = distances[np.arange(len(points)), labels]
    assert np.all(chosen <= distances.min(axis=1) * (1 + 1e-9) + 1e-6)


def test_kmeans_plus_plus_spreads_the_centres():
    """Five clusters 100 apart: D² sampling puts one centre in each (a point in an
    already-covered cluster has about 10⁻⁴ of the weight of one in a new cluster)."""
    rng = np.random.default_rng(0)
    centres = np.arange(5)[:, None] * np.array([[100.0, 0.0]])
    points = centres[np.repeat(np.arange(5), 50)] + rng.normal(size=(250, 2))
    for seed in range(10):
        chosen = kmeans_plus_plus(points, 5, seed)
        assert sorted(assign(chosen, centres).tolist()) == [0, 1, 2, 3, 4]
        assert all(any(np.array_equal(c, p) for p in points) for c in chosen)  # centres are data points
    assert np.array_equal(kmeans_plus_plus(points, 5, seed=3), kmeans_plus_plus(points, 5, seed=3))


def test_kmeans_plus_plus_with_fewer_distinct_points_than_k():
    points = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5)
    chosen = kmeans_plus_plus(points, 4, seed=0)
    assert chosen.shape == (4, 2) and {tuple(c) for c in chosen} == {(0.0, 0.0), (1.0, 1.0)}


def test_an_empty_cluster_takes_its_point_out_of_the_old_mean():
    """The issue's case: the second centre is empty; 11 (the farthest) moves to it and
    leaves the first cluster, whose mean is then (0 + 1 + 10) / 3, as in scikit-learn."""
    points, init = np.array([[0.0], [1.0], [10.0], [11.0]]), np.array([[0.0], [0.0]])
    ours = kmeans(points, 2, init=init, max_iter=1)
    reference = KMeans(n_clusters=2, init=init, n_init=1, algorithm="lloyd", max_iter=1).fit(points)
    np.testing.assert_allclose(ours.centres.ravel(), [11 / 3, 11.0], rtol=1e-15)
    np.testing.assert_allclose(ours.centres, reference.cluster_centers_, rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_equal_to_scikit_learn_with_empty_clusters(data):
    """Random points, and initial centres of which some are copies of another (a copy never
    wins a tie, so its cluster is empty) or lie far outside the data: scikit-learn's Lloyd
    from the same centres gives the same labels, iterations and centres to float rounding."""
    n, dim = data.draw(st.integers(4, 40)), data.draw(st.integers(1, 3))
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(n, dim)) * rng.choice([1.0, 10.0], size=dim)
    k = data.draw(st.integers(2, min(n, 6)))
    kinds = data.draw(st.lists(st.sampled_from(["point", "copy", "far"]), min_size=k, max_size=k))
    kinds[0] = "point"
    init = np.empty((k, dim))
    for j, kind in enumerate(kinds):
        if kind == "point":
            init[j] = points[rng.integers(n)]
        elif kind == "copy":
            init[j] = init[rng.integers(j)]
        else:
            init[j] = rng.normal(size=dim) * 1e3
    max_iter = data.draw(st.integers(1, 30))
    ours = kmeans(points, k, init=init, tol=0.0, max_iter=max_iter)
    reference = KMeans(n_clusters=k, init=init, n_init=1, algorithm="lloyd", tol=0.0, max_iter=max_iter).fit(points)
    assert np.array_equal(ours.labels, reference.labels_)
    assert ours.iterations == reference.n_iter_
    np.testing.assert_allclose(ours.centres, reference.cluster_centers_, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(ours.inertia, reference.inertia_, rtol=1e-9, atol=1e-9)


def test_assign_breaks_exact_ties_towards_the_smaller_index():
    """The issue's case: distances 2.25, 12.25, 2.25, and the same far from the origin."""
    centres = np.array([[3.5], [-1.5], [0.5]])
    assert assign([[2.0]], centres).tolist() == [0]
    assert assign([[2.0 + 2**30]], centres + 2**30).tolist() == [0]


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_assign_is_the_first_argmin_of_the_float_distances(data):
    """On halves of small integers every distance is exact, so ties are exact in real
    arithmetic and in floats; anywhere, the label is the first argmin of
    fl(Σ (x − c)²), the distances the docstring defines."""
    dim = data.draw(st.integers(1, 4))
    halves = st.integers(-40, 40).map(lambda v: v / 2)
    scale = data.draw(st.sampled_from([1.0, 1e-3, 2.0**20]))
    offset = data.draw(st.sampled_from([0.0, 1e6]))
    points = data.draw(arrays(np.float64, (data.draw(st.integers(1, 30)), dim), elements=halves)) * scale + offset
    centres = data.draw(arrays(np.float64, (data.draw(st.integers(1, 8)), dim), elements=halves)) * scale + offset
    difference = points[:, None, :] - centres[None, :, :]
    distances = np.einsum("ijk,ijk->ij", difference, difference)
    assert np.array_equal(assign(points, centres), np.argmin(distances, axis=1))


def test_an_empty_cluster_is_moved_to_the_farthest_point():
    points = _blobs(5, n=300, k=3, dim=2)
    far_away = np.vstack([points[:2], [[1e4, 1e4]]])  # the third centre attracts no point
    result = kmeans(points, 3, init=far_away, max_iter=1)
    d2_own = ((points - far_away[assign(points, far_away)]) ** 2).sum(axis=1)
    # (to rounding: the algorithm works on centred points and adds their mean back)
    np.testing.assert_allclose(result.centres[2], points[np.argmax(d2_own)], rtol=0, atol=1e-12)
    full = kmeans(points, 3, init=far_away)
    assert len(np.unique(full.labels)) == 3 and full.converged
    reference = kmeans(points, 3, seed=0)
    np.testing.assert_allclose(full.inertia, reference.inertia, rtol=1e-9)  # the same three blobs found


def test_result_record_and_seeded_inits():
    points = _blobs(6)
    first, second = kmeans(points, 5, seed=4), kmeans(points, 5, seed=4)
    assert isinstance(first, KMeansResult) and np.array_equal(first.centres, second.centres)
    assert "k=5 centres in 8-D" in repr(first)
    assert kmeans(points, 5, init="random", seed=4).centres.shape == (5, 8)


@pytest.mark.parametrize("call, error, words", [
    (lambda: kmeans(np.ones((3, 2)), 4), ValueError, "k must be at most the number of points"),
    (lambda: kmeans_plus_plus(np.ones((3, 2)), 4), ValueError, "k must be at most"),
    (lambda: kmeans(np.ones((3, 2)), 2, init=np.ones((2, 3))), ValueError, "init must have shape"),
    (lambda: kmeans(np.ones((3, 2)), 2, init="forgy"), ValueError, "init must be one of"),
    (lambda: kmeans(np.ones((3, 2)), 2, tol=-1.0), ValueError, "tol"),
    (lambda: assign(np.ones((3, 2)), np.ones((2, 3))), ValueError, "points and centres"),
    (lambda: assign(np.ones((3, 2)), np.ones((0, 2))), ValueError, "centres must hold at least one"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


@pytest.mark.parametrize("offset", [0.0, 1e8, -3e8])
def test_far_from_the_origin(offset):
    """Points near |x| ~ 1e8: the expansion ‖x‖² + ‖c‖² − 2 x·c without centring rounds a
    squared distance of 1 to 0 (‖x‖² ≈ 1e16 has no digit left for it); centred, every
    distance is exact here."""
    points = offset + np.array([[0.0, 0.0], [1.0, 0.0], [10.0, 0.0], [11.0, 0.0], [0.0, 1.0]])
    result = kmeans(points, 2, init=points[[0, 2]], tol=0.0)
    assert np.array_equal(result.labels, [0, 0, 1, 1, 0])
    np.testing.assert_allclose(result.centres - offset, [[1 / 3, 1 / 3], [10.5, 0.0]], atol=1e-7)
    assert result.inertia == pytest.approx(4 / 3 + 1 / 2, rel=1e-6)  # three points around (1/3, 1/3), two around 10.5
    np.testing.assert_allclose(result.inertia, ((points - result.centres[result.labels]) ** 2).sum(), rtol=1e-6)
    assert np.array_equal(assign(points, points[[0, 1]]), [0, 1, 1, 1, 0])  # a distance of 1 against one of 0
    chosen = kmeans_plus_plus(points, 5, seed=0)  # D² = 0 only where a point already is a centre
    assert len(np.unique(chosen, axis=0)) == 5
