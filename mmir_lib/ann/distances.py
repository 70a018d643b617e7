"""Euclidean distances between two sets of vectors, all at once.

The rows of ``a`` (n, d) and ``b`` (m, d) (SIFT descriptors in Part II, embeddings in
Part VI) give n × m distances from one matrix product, by expanding the square:

    ‖a_i − b_j‖² = ‖a_i‖² + ‖b_j‖² − 2 a_i · b_j,        D² = ‖a‖²·1ᵀ + 1·‖b‖²ᵀ − 2 a bᵀ.

This is how brute-force matchers (OpenCV's BFMatcher, scikit-learn, faiss) compute
distances: the costly part, a bᵀ, is a matrix product that BLAS runs at full speed.
Subtracting large, nearly equal numbers can lose digits, so a tiny negative D² is
clipped to 0 before the square root (for integer descriptors, such as SIFT's bytes,
every term is an exact integer in float64 and nothing is lost).

Unlike the indexes of this package, which work in float32 as faiss does, these
distances are float64: Chapter II.7's matching, k-d tree and LSH re-ranking use them.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_bool

__all__ = ["check_descriptors", "pairwise_distances"]


def check_descriptors(a: object, b: object, a_name: str = "a", b_name: str = "b") -> tuple[np.ndarray, np.ndarray]:
    """Two 2-D arrays of descriptors (float or integer, e.g. uint8) with the same number
    of columns, as float64."""
    a = check_array(a_name, a, ndim=2)
    b = check_array(b_name, b, ndim=2)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"{a_name} and {b_name} must have the same number of columns (the dimension d); "
                         f"{a_name} has shape {a.shape}, {b_name} has {b.shape}")
    return a, b


def pairwise_distances(a: object, b: object, squared: bool = False) -> np.ndarray:
    """D[i, j] = ‖a_i − b_j‖, the Euclidean distance of every row of ``a`` to every row of ``b``.

    Computed as ‖a_i‖² + ‖b_j‖² − 2 a_i · b_j (one matrix product), clipped at 0
    before the square root; inputs with entries beyond 1e±120 are scaled by a power of
    two first, so that distances of 1e200 come out finite (only D² beyond 1.8e308 is inf).

    Parameters
    ----------
    a : (n, d) and b : (m, d) array-like, float or integer (uint8 descriptors are
        converted to float64).
    squared : return D² (no square root), as k-means needs.

    Returns
    -------
    (n, m) float64.

    >>> pairwise_distances([[0, 0], [3, 4]], [[0, 0]])
    array([[0.],
           [5.]])
    """
    a, b = check_descriptors(a, b)
    check_bool("squared", squared)
    # Entries beyond 2^±400 (1e±120) would make ‖a‖² overflow to inf (or underflow to 0):
    # both sides are divided by one power of two first (exact), the distances multiplied back.
    peak = max(np.abs(a).max(initial=0.0), np.abs(b).max(initial=0.0))
    shift = int(np.frexp(peak)[1]) if peak > 0 and abs(int(np.frexp(peak)[1])) > 400 else 0
    if shift:
        a, b = np.ldexp(a, -shift), np.ldexp(b, -shift)
    d2 = (a * a).sum(axis=1)[:, None] + (b * b).sum(axis=1)[None, :] - 2.0 * (a @ b.T)  # (n, m)
    np.maximum(d2, 0.0, out=d2)  # rounding can leave -1e-15 where the distance is 0
    if not shift:
        return d2 if squared else np.sqrt(d2, out=d2)
    with np.errstate(over="ignore"):  # a squared distance beyond 1.8e308 has no float64: inf
        return np.ldexp(d2, 2 * shift) if squared else np.ldexp(np.sqrt(d2, out=d2), shift)
