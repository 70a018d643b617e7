"""p-stable LSH: recall against brute force, recall growing with the number of tables,
the collision probability against simulation, determinism given the seed."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.lsh import LSHIndex, candidate_probability, collision_probability
from mmir_lib.vision.matching import nearest_neighbours


def _clustered(seed, n=3000, queries=200, dim=32, clusters=20):
    """Points around well-separated centres (10 apart per axis), queries from the same clusters."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 10.0, (clusters, dim))
    points = centres[rng.integers(0, clusters, n)] + rng.normal(size=(n, dim))
    queries = centres[rng.integers(0, clusters, queries)] + rng.normal(size=(queries, dim))
    return points, queries


@pytest.fixture(scope="module")
def clustered():
    points, queries = _clustered(0)
    truth = nearest_neighbours(queries, points, k=1)[1][:, 0]
    return points, queries, truth


def test_recall_at_1_on_clustered_data(clustered):
    """K = 4 hashes of width 16 (about 3 × the typical neighbour distance of 5.5), L = 20
    tables: measured recall@1 1.0 from 4.8 % of the points (0.995 to 1.0 over seeds 1-20)."""
    points, queries, truth = clustered
    distances, indices, candidates = LSHIndex(points, n_tables=20, n_hashes=4, width=16.0, seed=1).query(
        queries, k=1, return_counts=True)
    assert np.mean(indices[:, 0] == truth) >= 0.9
    assert candidates.mean() < 0.1 * len(points)  # far fewer comparisons than brute force
    found = indices[:, 0] < len(points)
    np.testing.assert_allclose(distances[found, 0],
                               np.linalg.norm(points[indices[found, 0]] - queries[found], axis=1), atol=1e-12)


def test_recall_grows_with_the_number_of_tables_and_falls_with_hashes_per_key(clustered):
    points, queries, truth = clustered
    recall, work = {}, {}
    for n_hashes, n_tables in [(4, 1), (4, 3), (4, 10), (4, 30), (8, 10)]:
        _, indices, candidates = LSHIndex(points, n_tables, n_hashes, width=16.0, seed=2).query(
            queries, k=1, return_counts=True)
        recall[n_hashes, n_tables] = np.mean(indices[:, 0] == truth)
        work[n_hashes, n_tables] = candidates.mean()
    assert recall[4, 1] < recall[4, 3] < recall[4, 10] < recall[4, 30]
    assert work[4, 1] < work[4, 3] < work[4, 10] < work[4, 30]
    assert recall[8, 10] < recall[4, 10] and work[8, 10] < work[4, 10]


def test_k_nearest_candidates_are_exact_when_all_points_are_candidates():
    """With one hash of a huge width every point shares the query's bucket: LSH is brute force."""
    points, queries = _clustered(3, n=300, queries=20, dim=8)
    distances, indices, candidates = LSHIndex(points, n_tables=1, n_hashes=1, width=1e6, seed=0).query(
        queries, k=5, return_counts=True)
    expected_d, expected_i = nearest_neighbours(queries, points, k=5)
    assert np.all(candidates == 300) and np.array_equal(indices, expected_i)
    np.testing.assert_allclose(distances, expected_d, atol=1e-12)


def test_deterministic_given_the_seed(clustered):
    points, queries, _ = clustered
    first, second = (LSHIndex(points, 5, 4, 16.0, seed=7) for _ in range(2))
    assert np.array_equal(first.fingerprints, second.fingerprints)
    for a, b in zip(first.query(queries, k=3), second.query(queries, k=3)):
        assert np.array_equal(a, b)
    assert not np.array_equal(LSHIndex(points, 5, 4, 16.0, seed=8).projections, first.projections)


def test_a_query_equal_to_a_point_always_finds_it():
    points, _ = _clustered(4, n=500, dim=16)
    index = LSHIndex(points, n_tables=3, n_hashes=12, width=1.0, seed=0)  # narrow buckets, few candidates
    distances, indices = index.query(points[:50], k=1)
    assert np.array_equal(indices[:, 0], np.arange(50)) and np.all(distances[:, 0] == 0)
    assert all(i in index.candidates(points[i]) for i in range(50))


def test_too_few_candidates_are_padded_like_ckdtree():
    index = LSHIndex([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [50.0, -50.0]], n_tables=2, n_hashes=2, width=1.0, seed=0)
    distances, indices = index.query([[0.0, 0.0], [100.0, 100.0]], k=4)
    assert indices.tolist() == [[0, 1, 2, 4], [4, 4, 4, 4]]
    assert distances[0, :3].tolist() == [0.0, 0.0, 0.0] and np.isinf(distances[0, 3]) and np.all(np.isinf(distances[1]))


@pytest.mark.parametrize("distance", [0.5, 2.0, 4.0, 8.0])
def test_collision_probability_matches_simulation(distance):
    """Two points at distance c, 4000 independent hashes of width 4: the fraction that
    collide is p(c) within 4 standard errors."""
    pair = np.zeros((2, 8))
    pair[1, 0] = distance
    hashes = LSHIndex(pair, n_tables=4000, n_hashes=1, width=4.0, seed=11).hashes(pair)  # (L, 2, 1)
    observed = np.mean(hashes[:, 0, 0] == hashes[:, 1, 0])
    p = collision_probability(distance, 4.0)
    assert abs(observed - p) < 4 * np.sqrt(p * (1 - p) / 4000)


def test_candidate_probability_matches_simulation():
    """A point at distance c is a candidate in 1 − (1 − p^K)^L of independently drawn indexes."""
    pair = np.zeros((2, 4))
    pair[1, 0] = 3.0
    trials = 400
    hits = sum(1 in LSHIndex(pair, n_tables=3, n_hashes=2, width=4.0, seed=seed).candidates(pair[0])
               for seed in range(trials))
    p = candidate_probability(3.0, 4.0, n_hashes=2, n_tables=3)
    assert abs(hits / trials - p) < 4 * np.sqrt(p * (1 - p) / trials)


@settings(max_examples=50, deadline=None)
@given(st.floats(0.0, 100.0), st.floats(0.0, 100.0), st.floats(0.1, 20.0))
def test_collision_probability_falls_with_distance(c1, c2, width):
    near, far = sorted((c1, c2))
    p_near, p_far = collision_probability([near, far], width)
    assert 0.0 <= p_far <= p_near + 1e-12 <= 1.0 + 1e-12
    assert collision_probability(0.0, width) == 1.0


@pytest.mark.parametrize("call, error, words", [
    (lambda: LSHIndex(np.ones((4, 2)), width=0.0), ValueError, "width"),
    (lambda: LSHIndex(np.ones((4, 2)), n_tables=0), ValueError, "n_tables"),
    (lambda: LSHIndex(np.ones((4, 2)), seed=-1), ValueError, "seed"),
    (lambda: LSHIndex(np.ones((4, 2))).query(np.ones((1, 3))), ValueError, "queries must have 2 columns"),
    (lambda: LSHIndex(np.ones((4, 2))).query(np.ones((1, 2)), k=5), ValueError, "k must be at most"),
    (lambda: LSHIndex(np.ones((4, 2)), width=1e-300), ValueError, "points are too far"),
    (lambda: collision_probability(-1.0, 1.0), ValueError, "distance"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
