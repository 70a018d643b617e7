"""Matching descriptors: nearest neighbours, Lowe's ratio test and cross-checking.

Two images give two sets of descriptors, the rows of ``a`` (n, d) and ``b`` (m, d)
(SIFT: d = 128). A match pairs a row of ``a`` with the row of ``b`` nearest to it in
Euclidean distance. All n × m distances come from one matrix product
(:func:`mmir_lib.ann.distances.pairwise_distances`, shared with the vector indexes of
Part VI).

Every descriptor has a nearest neighbour, even one whose keypoint is not in the other
image at all. Lowe's **ratio test** (2004, §7.1) keeps a match only when the nearest
neighbour is clearly nearer than the second nearest:

    keep i → j₁   when   d₁ < ratio · d₂        (ratio ≈ 0.8),

because a correct match stands out from the crowd, while for a wrong one the nearest
is just one of many similar distances. **Cross-checking** (OpenCV's ``crossCheck``)
keeps i → j only when i is also the nearest neighbour of j among the rows of ``a``:
a mutual nearest neighbour.

Ties are broken by the smaller index, so every result is reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..ann.distances import check_descriptors, pairwise_distances
from ..validation import check_array, check_bool, check_count, check_number

__all__ = ["nearest_neighbours", "Matches", "ratio_test", "cross_check"]


def _k_smallest(distances: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k smallest entries of each row of an (n, m) distance matrix, nearest first,
    ties by smaller column: (distances (n, k), columns (n, k))."""
    n, m = distances.shape
    if k < m:
        columns = np.argpartition(distances, k - 1, axis=1)[:, :k]  # the k smallest, in no order
        # A distance tied with the k-th may have been left out in favour of a larger index:
        # those (rare) rows are sorted in full instead.
        kth = np.take_along_axis(distances, columns, axis=1).max(axis=1)
        tied = (distances <= kth[:, None]).sum(axis=1) > k
        if tied.any():
            columns[tied] = np.argsort(distances[tied], axis=1, kind="stable")[:, :k]
    else:
        columns = np.broadcast_to(np.arange(m), (n, m))
    columns = np.sort(columns, axis=1)  # by index, so that the stable sort below keeps ties in index order
    nearest = np.take_along_axis(distances, columns, axis=1)
    order = np.argsort(nearest, axis=1, kind="stable")
    return np.take_along_axis(nearest, order, axis=1), np.take_along_axis(columns, order, axis=1)


def nearest_neighbours(a: object, b: object, k: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` rows of ``b`` nearest to each row of ``a``, by brute force.

    Returns
    -------
    distances : (n, k) float64, each row non-decreasing;
    indices : (n, k) int64, rows of ``b``; among equal distances the smaller index first.
    (The order of scipy's ``cKDTree.query`` and scikit-learn's ``kneighbors``.)

    >>> nearest_neighbours([[0.0], [2.9]], [[3.0], [1.0], [0.0]], k=2)[1]
    array([[2, 1],
           [0, 1]])
    """
    a, b = check_descriptors(a, b)
    k = check_count("k", k, low=1)
    if k > len(b):
        raise ValueError(f"k must be at most the number of rows of b, {len(b)}; got k={k}")
    return _k_smallest(pairwise_distances(a, b), k)


@dataclass(frozen=True)
class Matches:
    """Matches i → j between the rows of two descriptor arrays, one entry per match.

    ``query``            (p,) int64, row of ``a``
    ``train``            (p,) int64, row of ``b`` nearest to it
    ``distance``         (p,) float64, d₁ = ‖a_query − b_train‖
    ``second_distance``  (p,) float64, d₂, the distance to the second-nearest row of ``b``
                         (inf when ``b`` has one row)

    (``query``/``train`` as in OpenCV's ``DMatch``.)
    """

    query: np.ndarray
    train: np.ndarray
    distance: np.ndarray
    second_distance: np.ndarray

    def __len__(self) -> int:
        return len(self.query)

    def __repr__(self) -> str:
        shown = ", ".join(f"{i}→{j}" for i, j in zip(self.query[:4], self.train[:4]))
        return f"Matches({len(self)} matches: {shown}{', ...' if len(self) > 4 else ''})"

    @property
    def pairs(self) -> np.ndarray:
        """(p, 2) int64: rows (query, train), for indexing keypoints."""
        return np.column_stack([self.query, self.train])

    @property
    def ratio(self) -> np.ndarray:
        """(p,) d₁ / d₂, the quantity the ratio test thresholds (inf where d₂ = 0)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.second_distance > 0, self.distance / self.second_distance, np.inf)


def _two_nearest(distances: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(j₁, d₁, d₂) for every row of an (n, m) distance matrix; d₂ = inf when m = 1."""
    nearest, columns = _k_smallest(distances, min(2, distances.shape[1]))
    second = nearest[:, 1] if nearest.shape[1] > 1 else np.full(len(nearest), np.inf)
    return columns[:, 0], nearest[:, 0], second


def _mutual(distances: np.ndarray, j1: np.ndarray) -> np.ndarray:
    """(n,) bool: row i is the nearest row of ``a`` to its nearest row j₁ of ``b``."""
    if len(j1) == 0:
        return np.zeros(0, dtype=bool)
    backward = np.argmin(distances, axis=0)  # (m,): for each row of b, its nearest row of a
    return backward[j1] == np.arange(len(j1))


def ratio_test(a: object, b: object, ratio: float = 0.8, mutual: bool = False) -> Matches:
    """Lowe's nearest-neighbour distance ratio test: keep i → j₁ when d₁ < ratio · d₂.

    d₁ and d₂ are the distances from row i of ``a`` to its nearest and second-nearest
    rows of ``b``. A match with d₂ = 0 (two identical rows in ``b``) is never kept.
    With ``mutual``, also require i → j₁ to be a mutual nearest neighbour
    (:func:`cross_check`).

    Parameters
    ----------
    a : (n, d), b : (m, d) descriptors, m >= 2.
    ratio : in (0, 1]; Lowe used 0.8, which removed 90 % of his false matches and
        fewer than 5 % of the correct ones.

    Returns
    -------
    :class:`Matches`, in the order of the rows of ``a``.
    """
    a, b = check_descriptors(a, b)
    ratio = check_number("ratio", ratio, low=0.0, low_open=True, high=1.0)
    check_bool("mutual", mutual)
    if len(b) < 2:
        raise ValueError(f"b must have at least 2 rows for the ratio test (a nearest and a second nearest), "
                         f"got shape {b.shape}")
    distances = pairwise_distances(a, b)
    j1, d1, d2 = _two_nearest(distances)
    keep = d1 < ratio * d2
    if mutual:
        keep &= _mutual(distances, j1)
    i = np.flatnonzero(keep)
    return Matches(i, j1[i], d1[i], d2[i])


def cross_check(a: object, b: object) -> Matches:
    """Mutual nearest neighbours: keep i → j when j is the nearest row of ``b`` to a_i and
    i the nearest row of ``a`` to b_j (OpenCV's ``BFMatcher(crossCheck=True)``).

    Returns :class:`Matches` in the order of the rows of ``a`` (``second_distance`` is
    filled in for comparison with the ratio test; inf when ``b`` has one row).
    """
    a, b = check_descriptors(a, b)
    if len(b) == 0:
        raise ValueError(f"b must have at least one row to match against, got shape {b.shape}")
    distances = pairwise_distances(a, b)
    j1, d1, d2 = _two_nearest(distances)
    i = np.flatnonzero(_mutual(distances, j1))
    return Matches(i, j1[i], d1[i], d2[i])
