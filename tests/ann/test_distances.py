"""All pairwise Euclidean distances (shared by Chapter II.7's matching, k-d tree and LSH):
against scipy's cdist, exact for byte descriptors, never negative, and clear errors."""

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from mmir_lib.ann.distances import pairwise_distances


def test_pairwise_distances_equal_cdist():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(40, 16)), rng.normal(size=(30, 16))
    np.testing.assert_allclose(pairwise_distances(a, b), cdist(a, b), rtol=0, atol=1e-12)
    np.testing.assert_allclose(pairwise_distances(a, b, squared=True), cdist(a, b, "sqeuclidean"), rtol=1e-12)


def test_uint8_descriptors_give_exact_distances():
    """SIFT-like bytes: every term of the expansion is an exact integer in float64."""
    rng = np.random.default_rng(1)
    a = rng.integers(0, 256, (50, 128), dtype=np.uint8)
    b = rng.integers(0, 256, (60, 128), dtype=np.uint8)
    exact = ((a[:, None, :].astype(np.int64) - b[None, :, :]) ** 2).sum(axis=2)
    assert np.array_equal(pairwise_distances(a, b, squared=True), exact)
    assert np.array_equal(pairwise_distances(a, b), np.sqrt(exact))


def test_distance_of_a_row_to_itself_is_zero_not_negative():
    a = np.random.default_rng(2).normal(1e3, 1.0, size=(20, 8))  # far from the origin: cancellation
    d2 = pairwise_distances(a, a, squared=True)
    assert d2.min() >= 0 and np.abs(np.diag(d2)).max() < 1e-6


@pytest.mark.parametrize("call, error, words", [
    (lambda: pairwise_distances(np.ones((2, 3)), np.ones((2, 4))), ValueError, "a and b"),
    (lambda: pairwise_distances(np.ones(3), np.ones((2, 3))), ValueError, "a must be 2-dimensional"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
