"""The inverted-file index (IVF): search only the cells near the query.

A **coarse quantizer** cuts the space into ``nlist`` cells, the Voronoi cells of
centroids c_1 … c_nlist learnt by k-means (:mod:`mmir_lib.kmeans`, on a training sample).
Each vector goes into the **inverted list** of its nearest centroid,

    list(x) = argmin_j ‖x − c_j‖²        (ties: the smaller j),

as a document goes into the postings of its terms in Part I. A query is compared with the
nlist centroids first (exactly, :mod:`.exact`), then only with the vectors of its
``nprobe`` nearest lists; the k best of those are its answer. Work per query: about
nlist + nprobe · n / nlist distances instead of n; a true neighbour is missed when it lies
in a cell that is not probed, so recall grows with nprobe and is exact at nprobe = nlist.

With the same centroids, the lists and the answers are those of faiss's ``IndexIVFFlat``
(whose quantizer ranks the centroids by squared L2, or by inner product for metric "ip").

Layout: the lists are one permutation of the vector ids sorted by list (stable, so each
list holds its ids in increasing order) and ``offsets`` (nlist + 1,): list j is
``order[offsets[j]:offsets[j + 1]]``, the vectors stored in that order, contiguous.
Searching goes list by list: the queries that probe a list are scored against its
vectors in one matrix product, the k best of each kept; each query then keeps the k best
of its nprobe · k.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..kmeans import kmeans
from ..validation import check_count
from ._checks import as_vectors, check_k, check_metric
from .exact import _search, squared_norms
from .topk import _top_k

__all__ = ["IVFFlat", "train_coarse_quantizer"]

def train_coarse_quantizer(vectors: object, nlist: int, max_iter: int = 20, seed: int = 0) -> np.ndarray:
    """nlist centroids (nlist, d) float32 of ``vectors`` (n, d), by :func:`mmir_lib.kmeans.kmeans`
    (k-means++ start, ``max_iter`` Lloyd rounds, ``seed``)."""
    vectors = as_vectors("vectors", vectors)
    nlist = check_count("nlist", nlist, low=1)
    if nlist > len(vectors):
        raise ValueError(f"nlist must be at most the number of training vectors, {len(vectors)}; got {nlist}")
    result = kmeans(vectors.astype(np.float64), nlist, max_iter=check_count("max_iter", max_iter, low=1),
                    seed=check_count("seed", seed))
    return result.centres.astype(np.float32)


class IVFFlat:
    """An inverted-file index over full vectors (module notes).

    Parameters
    ----------
    centroids : (nlist, d) the coarse quantizer's centroids (from
        :func:`train_coarse_quantizer`, or faiss's ``index.quantizer`` for a cross-check).
    metric : "l2" (squared Euclidean, smaller is nearer) or "ip" (inner product).
    """

    def __init__(self, centroids: object, metric: str = "l2"):
        self.metric = check_metric(metric)
        self.centroids = as_vectors("centroids", centroids)
        self.nlist, self.d = self.centroids.shape
        self.vectors = np.zeros((0, self.d), dtype=np.float32)  # stored list by list
        self.ids = np.zeros(0, dtype=np.int64)  # the original id of each stored row
        self.offsets = np.zeros(self.nlist + 1, dtype=np.int64)

    def __repr__(self) -> str:
        return f"IVFFlat(nlist={self.nlist}, d={self.d}, metric={self.metric!r}, {len(self.ids):,} vectors)"

    @property
    def ntotal(self) -> int:
        """The number of vectors stored."""
        return len(self.ids)

    def list_sizes(self) -> np.ndarray:
        """(nlist,) the number of vectors in each inverted list."""
        return np.diff(self.offsets)

    def assign(self, vectors: object) -> np.ndarray:
        """list(x): the nearest centroid of each of ``vectors`` (n, d), (n,) int64."""
        vectors = as_vectors("vectors", vectors, dim=self.d)
        return _search(self.centroids, vectors, 1, self.metric)[1][:, 0]

    def add(self, vectors: object) -> "IVFFlat":
        """Add ``vectors`` (n, d), with ids ntotal … ntotal + n − 1, to their lists; returns self."""
        vectors = as_vectors("vectors", vectors, dim=self.d)
        lists = _search(self.centroids, vectors, 1, self.metric)[1][:, 0]
        self.ids, self.vectors, self.offsets = _regroup(self.ids, self.vectors, self.offsets, lists, vectors)
        self._sq = squared_norms(self.vectors)
        return self

    def search(self, queries: object, k: int, nprobe: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The k best of the vectors in each query's ``nprobe`` nearest lists.

        ``queries`` (q, d). Returns (scores or squared distances (q, k) float32, ids (q, k)
        int64), best first, ties by the smaller id; a query whose lists hold fewer than k
        vectors gets id −1 (distance +inf, or score −inf) in the empty places, as faiss.
        """
        queries, k, nprobe = _check_search(self, queries, k, nprobe)
        probes = _search(self.centroids, queries, nprobe, self.metric)[1]  # (q, nprobe)
        scores, ids = self._scan(queries, probes, k)
        if self.metric == "l2":
            distances = np.maximum(squared_norms(queries)[:, None] - scores, 0)
            scores = np.where(ids >= 0, distances, np.float32(np.inf)).astype(np.float32)
        return scores, ids

    def _scan(self, queries: np.ndarray, probes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Scores (larger is nearer: q·x, or 2 q·x − ‖x‖²) and ids of the k best in the
        probed lists (:func:`_scan_lists`), each list's vectors scored in one matrix product."""
        def score(j: int, rows: np.ndarray, first: int, last: int) -> np.ndarray:
            scores = queries[rows] @ self.vectors[first:last].T  # (pairs, list size)
            if self.metric == "l2":
                scores *= 2
                scores -= self._sq[first:last]
            return scores

        return _scan_lists(probes, k, self.offsets, self.ids, score)


def _check_search(index, queries: object, k: int, nprobe: int) -> tuple[np.ndarray, int, int]:
    """The checks of an inverted-file index's ``search`` (IVFFlat, IVFPQ): vectors added,
    queries (q, d) of the index's dimension, 1 ≤ k ≤ ntotal, 1 ≤ nprobe ≤ nlist."""
    if index.ntotal == 0:
        raise ValueError(f"the index is empty: add vectors before searching ({type(index).__name__}.add)")
    queries = as_vectors("queries", queries, dim=index.d)
    k = check_k(k, index.ntotal)
    nprobe = check_count("nprobe", nprobe, low=1)
    if nprobe > index.nlist:
        raise ValueError(f"nprobe must be at most the number of lists, nlist = {index.nlist}; got {nprobe}")
    return queries, k, nprobe


def _regroup(ids: np.ndarray, stored: np.ndarray, offsets: np.ndarray, lists: np.ndarray,
             new: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverted lists after adding rows ``new`` (n, ...) to ``lists`` (n,), with ids
    ntotal … ntotal + n − 1: the ids, stored rows and offsets (nlist + 1,) of the new
    layout (module notes). Shared by every IVF index (full vectors, or PQ codes)."""
    nlist = len(offsets) - 1
    all_lists = np.concatenate([np.repeat(np.arange(nlist), np.diff(offsets)), lists])
    all_ids = np.concatenate([ids, np.arange(len(ids), len(ids) + len(lists))])
    all_stored = np.concatenate([stored, new])
    order = np.argsort(all_lists, kind="stable")
    return (all_ids[order], np.ascontiguousarray(all_stored[order]),
            np.concatenate([[0], np.cumsum(np.bincount(all_lists, minlength=nlist))]))


def _scan_lists(probes: np.ndarray, k: int, offsets: np.ndarray, ids: np.ndarray,
                score: Callable[[int, np.ndarray, int, int], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The k best (score, id) of each query over its probed lists, ``probes`` (q, nprobe).

    List by list: the queries that probe list j (``rows``, one per (query, probe) pair)
    are scored against its stored rows ``first:last`` by ``score(j, rows, first, last)``
    ((pairs, last − first) float32, larger is nearer), the k best of each kept; then each
    query keeps the k best of its nprobe · k. Shared by every IVF index."""
    q, nprobe = probes.shape
    pair_scores = np.full((q * nprobe, k), -np.inf, dtype=np.float32)  # one row per (query, probe)
    pair_ids = np.full((q * nprobe, k), -1, dtype=np.int64)
    order = np.argsort(probes.ravel(), kind="stable")  # the pairs, list by list
    bounds = np.concatenate([[0], np.cumsum(np.bincount(probes.ravel(), minlength=len(offsets) - 1))])
    for j in np.flatnonzero(np.diff(bounds)):
        first, last = offsets[j], offsets[j + 1]
        if first == last:
            continue
        pairs = order[bounds[j]:bounds[j + 1]]
        scores = score(int(j), pairs // nprobe, first, last)
        kept = min(k, last - first)  # stored positions: within a list, increasing ids
        pair_scores[pairs, :kept], pair_ids[pairs, :kept] = _top_k(scores, None, kept, offset=first)
    pair_ids = np.where(pair_ids >= 0, ids[pair_ids], -1)
    return _top_k(pair_scores.reshape(q, nprobe * k), pair_ids.reshape(q, nprobe * k), k)
