"""Exact k nearest neighbours, as blocked matrix products.

For queries Q (q, d) and a collection X (n, d), every score of every pair is one matrix
product:

* inner product ("ip"): s(q, x) = q · x, larger is nearer; all of them S = Q Xᵀ (q, n);
* squared Euclidean distance ("l2"): ‖q − x‖² = ‖q‖² + ‖x‖² − 2 q · x, smaller is nearer;
  its ranking needs only 2 q · x − ‖x‖², again Q Xᵀ plus a row vector.

The cost is q · n · d multiply-adds, and it is the whole cost: a matrix product runs near
the processor's peak (BLAS), which is why brute force is hard to beat below a few
million vectors. S does not fit in memory for q = 1,000 and n = 400,000 (1.6 GB in
float32), so X is read in blocks of ``block`` rows: each block's scores go through
:func:`.topk.top_k` and are merged with the k best so far.

Results: (distances or scores (q, k) float32, ids (q, k) int64), best first; ties by the
smaller id (:mod:`.topk`). The "l2" distances returned are squared, computed as faiss does,
‖q‖² + ‖x‖² − 2 q · x in float32 (clipped at 0), so they agree with ``IndexFlatL2`` to float32
rounding and the ids are the same except where two distances are within that rounding.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_count
from ._checks import as_vectors, check_k, check_metric
from .topk import _update

__all__ = ["exact_search"]

#: Rows of X per block: a (q, block) float32 score matrix of 1,000 queries is 64 MB.
BLOCK = 16_384


def squared_norms(x: np.ndarray) -> np.ndarray:
    """‖x_i‖² of each row of a float32 (n, d) array, (n,) float32."""
    return np.einsum("ij,ij->i", x, x)


def _search(base: np.ndarray, queries: np.ndarray, k: int, metric: str, block: int = BLOCK,
            base_sq: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`exact_search` without checks (float32 C-contiguous arrays)."""
    if metric == "l2" and base_sq is None:
        base_sq = squared_norms(base)
    if k == 1:
        scores, ids = _nearest(base, queries, metric, block, base_sq)
    else:
        best = None
        for start in range(0, len(base), block):
            best = _update(best, _block_scores(base, queries, start, block, metric, base_sq), start, k)
        scores, ids = best
    if metric == "ip":
        return scores, ids
    inner = np.einsum("qd,qkd->qk", queries, base[ids])  # q · x of the k found, as faiss forms the distance
    distances = squared_norms(queries)[:, None] + base_sq[ids] - 2 * inner
    return np.maximum(distances, 0, out=distances), ids


def _block_scores(base: np.ndarray, queries: np.ndarray, start: int, block: int, metric: str,
                  base_sq: np.ndarray | None) -> np.ndarray:
    """Scores (q, block) float32 of the queries against base[start:start + block], larger is
    nearer: q · x, or 2 q · x − ‖x‖² for "l2" (‖q‖² is the same for every x)."""
    scores = queries @ base[start:start + block].T
    if metric == "l2":
        scores *= 2
        scores -= base_sq[start:start + block]
    return scores


def _nearest(base: np.ndarray, queries: np.ndarray, metric: str, block: int,
             base_sq: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The best score and id, (q, 1) each, for k = 1 (assigning vectors to centroids or
    codewords): an argmax per block instead of a top-k selection; the same result as
    :func:`_update` (the first of equal scores is the smaller id, and a later block
    replaces only a strictly better one)."""
    best_scores = np.full(len(queries), -np.inf, dtype=np.float32)
    best_ids = np.zeros(len(queries), dtype=np.int64)
    rows = np.arange(len(queries))
    for start in range(0, len(base), block):
        scores = _block_scores(base, queries, start, block, metric, base_sq)
        found = np.argmax(scores, axis=1)
        better = scores[rows, found] > best_scores
        best_scores[better], best_ids[better] = scores[rows, found][better], found[better] + start
    return best_scores[:, None], best_ids[:, None]


def exact_search(base: object, queries: object, k: int, metric: str = "ip",
                 block: int = BLOCK) -> tuple[np.ndarray, np.ndarray]:
    """The k nearest of ``base`` (n, d) to each of ``queries`` (q, d), exactly.

    ``metric`` "ip": largest q · x first, returns (scores (q, k), ids (q, k));
    "l2": smallest ‖q − x‖² first, returns (squared distances (q, k), ids (q, k)).
    float32 throughout; ``block`` rows of base per matrix product (module notes).
    """
    metric = check_metric(metric)
    base = as_vectors("base", base)
    queries = as_vectors("queries", queries, dim=base.shape[1], of="the dimension of base")
    k = check_k(k, len(base))
    block = check_count("block", block, low=1)
    return _search(base, queries, k, metric, block)
