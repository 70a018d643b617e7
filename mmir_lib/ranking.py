"""Top-k selection with a deterministic tie rule, shared by the parts of the book that rank:
Part I's retrieval models rank documents by score, Part III's word vectors rank words
by cosine (nearest neighbours, analogies).

Ranking rule used everywhere in the book: higher score first; among equal scores,
the document that comes first in the collection (smaller document number) first.
This makes every ranking reproducible. Beware that trec_eval, which re-sorts a run
by itself, breaks ties the other way (by document id, descending); the evaluation
chapter shows what that does to the metrics.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array, check_count, check_optional

__all__ = ["top_k"]


def top_k(scores: np.ndarray, k: int, candidates: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` best documents by score, ties broken by smaller document number.

    Parameters
    ----------
    scores : (N,) float array
        A finite score for every document (NaN cannot be ranked).
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
    scores = check_array("scores", scores, ndim=1)  # finite: a NaN cannot be ranked
    k = check_count("k", k, low=1)
    candidates = check_optional(check_array, "candidates", candidates, kind="bool")
    if candidates is not None and candidates.shape != scores.shape:
        raise ValueError(f"candidates must have the shape of scores, {scores.shape}, got {candidates.shape}")
    ids = np.arange(len(scores)) if candidates is None else np.flatnonzero(candidates)
    pool = scores[ids]
    if len(pool) > k:  # keep only documents that reach a lower bound on the k-th best (Notes)
        block_best = pool[: len(pool) // k * k].reshape(k, -1).max(axis=1)
        keep = pool >= block_best.min()
        ids, pool = ids[keep], pool[keep]
    order = np.argsort(-pool, kind="stable")[:k]  # stable: equal scores stay in document order
    return ids[order].astype(np.int64), pool[order]
