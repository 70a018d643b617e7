"""Top-k selection with a deterministic tie rule.

Ranking rule used everywhere in the book: higher score first; among equal scores,
the document that comes first in the collection (smaller document number) first.
This makes every ranking reproducible. Beware that trec_eval, which re-sorts a run
by itself, breaks ties the other way (by document id, descending); the evaluation
chapter shows what that does to the metrics.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check_k", "top_k"]


def check_k(k: int) -> None:
    """Raise TypeError unless ``k`` is an int, ValueError unless k >= 1."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")


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
    Finding the k best of N scores needs no full sort. A cheap lower bound on the
    k-th best score comes first: cut the scores into k blocks and take each block's
    maximum. These are k different documents, so at least k documents score at
    least the smallest of the k maxima, and a document below it cannot be in the top
    k. Typically only a few dozen documents pass (every one tied with the bound
    does too), and only they are sorted: O(N + m log m) work for m survivors rather
    than O(N log N). (``np.partition`` finds the exact k-th score in O(N) on paper,
    but numpy 2.4's introselect runs more than ten times slower when most scores are
    equal, as when most documents score 0: a common case for BM25.)
    """
    check_k(k)
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1:
        raise ValueError(f"scores must be a 1-D array, got shape {scores.shape}")
    if candidates is not None and np.shape(candidates) != scores.shape:
        raise ValueError(f"candidates must have the shape of scores {scores.shape}, got {np.shape(candidates)}")
    ids = np.arange(len(scores)) if candidates is None else np.flatnonzero(candidates)
    pool = scores[ids]
    if np.isnan(pool).any():
        raise ValueError("scores must not contain NaN: a NaN cannot be ranked")
    if len(pool) > k:  # keep only documents that reach a lower bound on the k-th best (Notes)
        block_best = pool[: len(pool) // k * k].reshape(k, -1).max(axis=1)
        keep = pool >= block_best.min()
        ids, pool = ids[keep], pool[keep]
    order = np.argsort(-pool, kind="stable")[:k]  # stable: equal scores stay in document order
    return ids[order].astype(np.int64), pool[order]
