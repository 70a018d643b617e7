"""Locality-sensitive hashing for Euclidean distance (p-stable LSH, Datar et al. 2004).

A k-d tree stops pruning in high dimension (:mod:`.kdtree`). LSH gives up exactness
instead: it hashes the points so that near points are likely to land in the same
bucket and far points unlikely, and compares a query only with the points of its own
buckets, its **candidates**.

**One hash.** Project x on a random direction a ~ N(0, I), shift by b ~ U[0, w), and
cut the line into intervals of width w:

    h(x) = ⌊(a · x + b) / w⌋.

The Gaussian is 2-stable: a · x − a · y is distributed as ‖x − y‖ · N(0, 1), so the
chance that x and y share an interval depends only on their distance c = ‖x − y‖
(:func:`collision_probability`):

    p(c) = 1 − 2 Φ(−w/c) − (2 / (√(2π) w/c)) · (1 − exp(−(w/c)² / 2)),

which falls from 1 at c = 0 towards 0 as c grows.

**Amplification.** One hash does not separate near from far sharply enough. A table
keys every point by K hashes at once, g(x) = (h₁(x), …, h_K(x)): a pair collides in a
table with probability p(c)^K, which makes far points rare in a bucket, and also near
ones. L independent tables bring the near ones back: a point at distance c is a
candidate of the query when it shares a bucket in at least one table, with probability

    P(c) = 1 − (1 − p(c)^K)^L          (:func:`candidate_probability`).

More hashes per key (K) means fewer candidates and lower recall; more tables (L)
means higher recall at the price of more candidates and memory.

**The index.** Each of the L tables is stored as a sorted array: the K integers of
every key are folded into one integer, E2LSH's fingerprint Σ_k r_k h_k mod P with
random r_k and the prime P = 2³¹ − 1 (two different keys share a fingerprint with
probability about 1/P, which only adds a candidate that re-ranking discards). The
points' fingerprints are sorted once; a query's bucket is then the run of equal
fingerprints that ``np.searchsorted`` finds in O(log n). The candidates from all tables
are **re-ranked** by their exact distance to the query (:func:`.distances.pairwise_distances`),
so what LSH returns is always a true distance; only a neighbour that is never a
candidate can be missed.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from ..validation import check_array, check_bool, check_count, check_memory, check_number
from .distances import pairwise_distances

__all__ = ["collision_probability", "candidate_probability", "LSHIndex"]

#: The prime of the fingerprint (2³¹ − 1): products of two numbers below it fit an int64.
PRIME = 2**31 - 1


def collision_probability(distance: object, width: float) -> np.ndarray:
    """p(c): the probability that one p-stable hash h(x) = ⌊(a·x + b)/w⌋ gives the same
    value to two points at distance c = ``distance`` (array-like, ≥ 0), for width w.

    p(c) = 1 − 2Φ(−w/c) − 2/(√(2π) w/c) · (1 − exp(−(w/c)²/2)), and p(0) = 1."""
    distance = check_array("distance", distance, kind="number", low=0).astype(np.float64)
    width = check_number("width", width, low=0.0, low_open=True)
    with np.errstate(divide="ignore", over="ignore"):  # c → 0: r → inf, and p → 1
        r = width / distance  # w / c
        p = 1.0 - 2.0 * ndtr(-r) - 2.0 / (np.sqrt(2.0 * np.pi) * r) * (1.0 - np.exp(-r**2 / 2.0))
    return np.where(distance > 0, p, 1.0)


def candidate_probability(distance: object, width: float, n_hashes: int, n_tables: int) -> np.ndarray:
    """P(c) = 1 − (1 − p(c)^K)^L: the probability that a point at distance c from the query
    shares a bucket with it in at least one of L tables keyed by K hashes."""
    n_hashes = check_count("n_hashes", n_hashes, low=1)
    n_tables = check_count("n_tables", n_tables, low=1)
    return 1.0 - (1.0 - collision_probability(distance, width) ** n_hashes) ** n_tables


class LSHIndex:
    """p-stable LSH over the rows of ``points`` (n, d): ``n_tables`` (L) tables, each keyed
    by ``n_hashes`` (K) hashes ⌊(a·x + b)/w⌋ of bucket width ``width`` (w); random
    projections drawn from ``numpy.random.default_rng(seed)``.

    A good w is of the order of the distances to the neighbours sought (Datar et al.
    suggest w ≈ 4 for data scaled so that those distances are about 1).

    Attributes
    ----------
    ``points``        (n, d) float64, the points indexed
    ``projections``   (L, K, d) float64, the directions a
    ``offsets``       (L, K) float64, the shifts b in [0, w)
    ``fingerprints``  (L, n) int64, each table's keys, sorted
    ``order``         (L, n) int64, the points in the order of their sorted keys
    """

    def __init__(self, points: object, n_tables: int = 10, n_hashes: int = 4, width: float = 4.0,
                 seed: int = 0) -> None:
        self.points = check_array("points", points, ndim=2, nonempty=True).copy()
        self.n_tables = check_count("n_tables", n_tables, low=1, high=10_000)
        self.n_hashes = check_count("n_hashes", n_hashes, low=1, high=1000)
        self.width = check_number("width", width, low=0.0, low_open=True)
        self.seed = check_count("seed", seed)
        # the projections (L, k, d) and the hash values of the points (L, n, k), float64
        check_memory("n_tables × n_hashes", self.n_tables * self.n_hashes * max(self.points.shape))
        rng = np.random.default_rng(self.seed)
        d = self.points.shape[1]
        self.projections = rng.standard_normal((self.n_tables, self.n_hashes, d))
        self.offsets = rng.uniform(0.0, self.width, (self.n_tables, self.n_hashes))
        self._multipliers = rng.integers(1, PRIME, (self.n_tables, self.n_hashes))  # r_k of the fingerprint
        keys = self._fingerprints(self.points, "points")  # (L, n)
        self.order = np.argsort(keys, axis=1, kind="stable")
        self.fingerprints = np.take_along_axis(keys, self.order, axis=1)
        for array in (self.points, self.projections, self.offsets, self.order, self.fingerprints):
            array.flags.writeable = False

    def hashes(self, x: object) -> np.ndarray:
        """h_{l,k}(x) = ⌊(a_{l,k} · x + b_{l,k}) / w⌋ for every row of ``x`` (q, d): (L, q, K) int64."""
        x = self._check_queries("x", x)
        return self._hashes(x, "x")

    def _hashes(self, x: np.ndarray, name: str) -> np.ndarray:
        projected = np.einsum("lkd,qd->lqk", self.projections, x)  # (L, q, K): a · x
        values = np.floor((projected + self.offsets[:, None, :]) / self.width)
        if np.abs(values).max(initial=0) > 2**62:  # the int64 conversion below would wrap around
            raise ValueError(f"{name} are too far from the origin for this width: hash values overflow int64")
        return values.astype(np.int64)

    def _fingerprints(self, x: np.ndarray, name: str) -> np.ndarray:
        """One integer per (table, row): Σ_k r_k h_k mod P, each term reduced mod P so that
        nothing overflows; (L, q) int64."""
        terms = (self._hashes(x, name) % PRIME) * self._multipliers[:, None, :] % PRIME  # (L, q, K), each < P
        return terms.sum(axis=2) % PRIME  # a sum of K < 2³² terms below 2³¹ fits an int64

    def _check_queries(self, name: str, x: object) -> np.ndarray:
        x = check_array(name, x, ndim=2)
        d = self.points.shape[1]
        if x.shape[1] != d:
            raise ValueError(f"{name} must have {d} columns, as the indexed points; got shape {x.shape}")
        return x

    def candidates(self, query: object) -> np.ndarray:
        """The points sharing a bucket with ``query`` (d,) in at least one table: sorted
        indices, (c,) int64."""
        query = self._check_queries("query", check_array("query", query, ndim=1)[None, :])
        return self._candidates(self._fingerprints(query, "query")[:, 0])

    def _candidates(self, keys: np.ndarray) -> np.ndarray:
        """Union over the tables of the buckets with the fingerprints ``keys`` (L,)."""
        buckets = []
        for table, key in enumerate(keys):
            first, last = np.searchsorted(self.fingerprints[table], [key, key + 1])  # run of equal keys
            buckets.append(self.order[table, first:last])
        return np.unique(np.concatenate(buckets))

    def query(self, queries: object, k: int = 1, return_counts: bool = False):
        """The ``k`` nearest candidates of each row of ``queries`` (q, d), by exact distance.

        Returns
        -------
        distances : (q, k) float64, each row non-decreasing;
        indices : (q, k) int64, rows of ``points``, ties by smaller index. When a query
            has fewer than k candidates, the missing places hold distance inf and index
            n (as scipy's cKDTree pads).
        candidates : (q,) int64, how many points each query was compared with (only with
            ``return_counts=True``; n would be brute force).
        """
        queries = self._check_queries("queries", queries)
        k = check_count("k", k, low=1)
        if k > len(self.points):
            raise ValueError(f"k must be at most the number of indexed points, {len(self.points)}; got k={k}")
        check_bool("return_counts", return_counts)
        n = len(self.points)
        keys = self._fingerprints(queries, "queries")  # (L, q)
        distances = np.full((len(queries), k), np.inf)
        indices = np.full((len(queries), k), n, dtype=np.int64)
        examined = np.zeros(len(queries), dtype=np.int64)
        for row, q in enumerate(queries):  # candidate sets differ in size from query to query
            found = self._candidates(keys[:, row])
            examined[row] = len(found)
            # measured with q moved to the origin, where ‖a‖² + ‖b‖² − 2a·b has nothing to cancel
            exact = pairwise_distances(np.zeros((1, len(q))), self.points[found] - q)[0]
            best = np.argsort(exact, kind="stable")[:k]  # found is sorted: ties keep the smaller index
            distances[row, :len(best)], indices[row, :len(best)] = exact[best], found[best]
        if return_counts:
            return distances, indices, examined
        return distances, indices

    def __repr__(self) -> str:
        n, d = self.points.shape
        return (f"LSHIndex({n:,} points in {d}-D, L={self.n_tables} tables × K={self.n_hashes} hashes, "
                f"w={self.width:g})")
