"""Query likelihood: rank documents by the probability their language model gives the query.

Each document d is a bag of words with its own unigram model, smoothed towards the
collection model with a Dirichlet prior of mass μ (Zhai and Lafferty 2004):

    P(t | d) = (tf_t(d) + μ · P(t | C)) / (dl(d) + μ),     P(t | C) = cf_t / |C|

where |C| is the number of tokens in the collection. The score is the log-likelihood
of the query, log P(q | d) = Σ_{t ∈ q} log P(t | d). Query terms that never occur in
the collection have P(t | C) = 0 and are dropped (they would add −∞ to every score).

The book uses it as the third, deliberately different, system when it pools
documents for its test collection (chapter I.4); chapter I.3 derives the model.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import check_count, check_instance, check_number
from .index import InvertedIndex
from ..ranking import top_k

__all__ = ["query_likelihood_scores", "query_likelihood_search"]


def query_likelihood_scores(
    index: InvertedIndex, query: str | Sequence[str], *, mu: float = 2000.0
) -> tuple[np.ndarray, np.ndarray]:
    """log P(q | d) under Dirichlet smoothing, for every document.

    Split as Σ_t log(μ P(t|C) / (dl + μ)) (every document) plus
    Σ_t log(1 + tf / (μ P(t|C))) (only where tf > 0), so the work is the length of
    the query terms' postings lists plus one pass over N.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool (documents containing a query term).
    Documents without a query term still get a (low) finite score.
    """
    check_instance("index", index, InvertedIndex)
    mu = check_number("mu", mu, low=0, low_open=True)
    terms = [t for t in index.query_terms(query) if index.term_id(t) is not None]
    total_tokens = float(index.doc_lengths.sum())
    log_norm = np.log(index.doc_lengths + mu)
    scores = np.zeros(index.num_docs)
    matched = np.zeros(index.num_docs, dtype=bool)
    for term in terms:
        doc_ids, tf = index.postings_list(term)
        background = mu * index.cf[index.term_id(term)] / total_tokens  # μ P(t|C)
        scores += np.log(background) - log_norm
        scores[doc_ids] += np.log1p(tf / background)
        matched[doc_ids] = True
    return scores, matched


def query_likelihood_search(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params):
    """Top ``k`` documents containing a query term, under :func:`query_likelihood_scores`."""
    k = check_count("k", k, low=1)
    scores, matched = query_likelihood_scores(index, query, **params)
    return top_k(scores, k, matched)


# --- Jelinek–Mercer smoothing ------------------------------------------------------


def jelinek_mercer_scores(
    index: InvertedIndex, query: str | Sequence[str], *, lam: float = 0.1
) -> tuple[np.ndarray, np.ndarray]:
    """log P(q | d) under Jelinek–Mercer smoothing, for every document.

    Each document's maximum-likelihood model is mixed with the collection model in a
    fixed proportion λ (the weight of the collection; Zhai and Lafferty 2004):

        P(t | d) = (1 − λ) · tf_t(d) / dl(d) + λ · P(t | C),     P(t | C) = cf_t / |C|.

    Dirichlet smoothing (:func:`query_likelihood_scores`) is the same mixture with a
    weight that depends on the document's length, λ_d = μ / (dl(d) + μ). The score is
    split as Σ_t log(λ P(t|C)), the same for every document, plus
    Σ_t log(1 + (1 − λ) tf / (λ dl P(t|C))) over the documents with tf > 0: unlike
    Dirichlet's, the part every document gets has no length term. A term repeated in
    the query counts once per occurrence; query terms absent from the collection
    are dropped, as in :func:`query_likelihood_scores`.

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str
        A string is analysed with the index's analyzer; a sequence is taken as terms.
    lam : float
        λ in (0, 1]: 0 would be the unsmoothed model (log 0 for any document missing a
        query term), 1 ignores the documents (every score equal to log P(q | C)).

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool (documents containing a query term).
    Every score is a log-probability, ≤ 0; documents without a query term all get
    Σ_t log(λ P(t|C)).
    """
    check_instance("index", index, InvertedIndex)
    lam = check_number("lam", lam, low=0.0, high=1.0, low_open=True)
    terms = [t for t in index.query_terms(query) if index.term_id(t) is not None]
    total_tokens = float(index.doc_lengths.sum())
    scores = np.zeros(index.num_docs)
    matched = np.zeros(index.num_docs, dtype=bool)
    for term in terms:
        doc_ids, tf = index.postings_list(term)
        background = lam * index.cf[index.term_id(term)] / total_tokens  # λ P(t|C)
        scores += np.log(background)
        foreground = (1.0 - lam) * tf / index.doc_lengths[doc_ids]  # (1 − λ) P_ml(t|d), tf > 0 so dl > 0
        scores[doc_ids] += np.log1p(foreground / background)
        matched[doc_ids] = True
    return scores, matched


def jelinek_mercer_search(index: InvertedIndex, query: str | Sequence[str], k: int = 10, *, lam: float = 0.1):
    """Top ``k`` documents containing a query term, under :func:`jelinek_mercer_scores`."""
    check_count("k", k, low=1)
    scores, matched = jelinek_mercer_scores(index, query, lam=lam)
    return top_k(scores, k, matched)


__all__ += ["jelinek_mercer_scores", "jelinek_mercer_search"]
