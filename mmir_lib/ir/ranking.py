"""Top-k selection with a deterministic tie rule.

Ranking rule used everywhere in the book: higher score first; among equal scores,
the document that comes first in the collection (smaller document number) first.
This makes every ranking reproducible. Beware that trec_eval, which re-sorts a run
by itself, breaks ties the other way (by document id, descending); the evaluation
chapter shows what that does to the metrics.
"""

from __future__ import annotations

import numpy as np

__all__ = ["top_k"]


def top_k(scores: np.ndarray, k: int, candidates: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best documents by score, ties broken by smaller document number.

    Parameters
    ----------
    scores : (N,) float array
        A score for every document.
    k : int
        How many to return, k >= 1. Fewer come back when fewer are candidates.
    candidates : (N,) bool array, optional
        Only these documents may be returned (for example, those that contain at
        least one query term). All documents when omitted.

    Returns
    -------
    doc_ids : (m,) int64, m = min(k, number of candidates)
    doc_scores : (m,) float64, non-increasing

    Notes
    -----
    ``np.argpartition`` finds the k-th best score in O(N); only documents scoring at
    least that much are sorted, so the cost is O(N + m log m) rather than O(N log N).
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be a 1-D array, got shape {scores.shape}")
    ids = np.arange(len(scores)) if candidates is None else np.flatnonzero(candidates)
    if len(ids) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    pool = scores[ids]
    if k < len(ids):
        kth_best = np.partition(pool, len(pool) - k)[len(pool) - k]
        keep = pool >= kth_best  # every document tied with the k-th is kept here...
        ids, pool = ids[keep], pool[keep]
    order = np.lexsort((ids, -pool))[:k]  # ...and the tie rule decides which survive
    return ids[order].astype(np.int64), pool[order]
