"""Okapi BM25 and its variants, scored term-at-a-time over an inverted index.

Notation (as in the book): a query q is a list of terms t; tf = tf_t(d) is the
frequency of t in document d; dl = dl(d) its length and avdl the average length;
N the number of documents and n_t the number that contain t; k1 >= 0 and
b in [0, 1] are the two parameters.

Every variant shares the saturating, length-normalised term frequency

    S(tf, dl) = tf / (k1 · ((1 − b) + b · dl / avdl) + tf)

and differs only in its idf factor. One function per variant, chosen by name from
:data:`VARIANTS` (the layout of bm25s's ``scoring.py``):

==============  ========================================  =======================
name            idf                                        source
==============  ========================================  =======================
``seed``        log(N / n_t)                               the book's lecture notes
``robertson``   log((N − n_t + 0.5) / (n_t + 0.5)), ≥ 0    Robertson et al. (1994)
``lucene``      log(1 + (N − n_t + 0.5) / (n_t + 0.5))     Lucene ≥ 8
==============  ========================================  =======================

The classic presentation multiplies S by (k1 + 1). That constant makes a term's
weight tend to idf · (k1 + 1) instead of idf as tf grows, and scales every score by
the same factor, so the ranking is unchanged; it is left out here, as in Lucene and
bm25s. The Robertson idf is negative for a term in more than half the documents; it
is floored at 0 (as bm25s and rank_bm25 do) so that such a term never lowers a score.
Following Kamphuis et al. (2020), "Which BM25 do you mean?".
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..validation import (check_array, check_broadcast, check_choice, check_count, check_instance, check_number,
                          check_probability)
from .index import InvertedIndex
from ..ranking import top_k

__all__ = [
    "saturation",
    "bm25_seed",
    "bm25_robertson",
    "bm25_lucene",
    "VARIANTS",
    "bm25_impacts",
    "bm25_scores",
    "bm25_search",
]


def _check_term_statistics(tf, dl, df, n_docs) -> tuple[np.ndarray, int]:
    """N >= 1 and n_t (array-like, each in [1, N]) for an idf, as (float64 array, int);
    tf, dl and n_t must broadcast together (their values are checked by :func:`saturation`)."""
    n_docs = check_count("n_docs", n_docs, low=1)
    df = check_array("df", df, kind="number", low=1, high=n_docs).astype(np.float64)
    check_broadcast(df=df, tf=check_array("tf", tf, kind="number"), dl=check_array("dl", dl, kind="number"))
    return df, n_docs


def saturation(tf, dl, avdl: float, k1: float, b: float):
    """S = tf / (k1·((1 − b) + b·dl/avdl) + tf): tf saturation with length normalisation.

    Grows from 0 (tf = 0) towards 1 (tf → ∞); k1 sets how fast (k1 = 0: any tf
    gives 1), b how much a long document is penalised (b = 0: not at all; b = 1:
    tf is measured relative to dl/avdl). Works element-wise on arrays.
    """
    tf = check_array("tf", tf, kind="number", low=0)
    dl = check_array("dl", dl, kind="number", low=0)
    avdl = check_number("avdl", avdl, low=0, low_open=True)
    k1 = check_number("k1", k1, low=0)
    b = check_probability("b", b)
    check_broadcast(tf=tf, dl=dl)
    tf = np.asarray(tf, dtype=np.float64)
    norm = k1 * ((1.0 - b) + b * np.asarray(dl, dtype=np.float64) / avdl)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(tf > 0, tf / (norm + tf), 0.0)


def bm25_seed(tf, dl, avdl, df, n_docs, k1, b):
    """Term weight of the lecture notes: S(tf, dl) · log(N / n_t), for 1 <= n_t <= N."""
    df, n_docs = _check_term_statistics(tf, dl, df, n_docs)
    return saturation(tf, dl, avdl, k1, b) * np.log(n_docs / df)


def bm25_robertson(tf, dl, avdl, df, n_docs, k1, b):
    """Term weight with the Robertson-Spärck Jones idf (no relevance information),
    floored at 0: S(tf, dl) · max(0, log((N − n_t + 0.5) / (n_t + 0.5))), for 1 <= n_t <= N."""
    df, n_docs = _check_term_statistics(tf, dl, df, n_docs)
    idf = np.log(np.maximum((n_docs - df + 0.5) / (df + 0.5), 1.0))
    return saturation(tf, dl, avdl, k1, b) * idf


def bm25_lucene(tf, dl, avdl, df, n_docs, k1, b):
    """Term weight with Lucene's always-positive idf: S(tf, dl) · log(1 + (N − n_t + 0.5) / (n_t + 0.5)),
    for 1 <= n_t <= N."""
    df, n_docs = _check_term_statistics(tf, dl, df, n_docs)
    return saturation(tf, dl, avdl, k1, b) * np.log1p((n_docs - df + 0.5) / (df + 0.5))


#: Variant name -> term-weight function, all with the signature
#: ``(tf, dl, avdl, df, n_docs, k1, b) -> weight``.
VARIANTS = {"seed": bm25_seed, "robertson": bm25_robertson, "lucene": bm25_lucene}


def bm25_impacts(index: InvertedIndex, k1: float = 1.2, b: float = 0.75, variant: str = "seed") -> np.ndarray:
    """weight(t, d) for every posting of the index, in the postings' own order.

    A BM25 weight depends only on (tf, dl, n_t) and the parameters, never on the
    query, so it can be computed once per posting and stored beside the tf: an
    *impact* (the idea behind impact-ordered indexes, and what bm25s calls eager
    scoring). Computed once per (index, k1, b, variant) and cached (the last four).

    Returns
    -------
    (P,) float64, P = number of postings; entry i belongs to document
    ``index.postings.indices[i]`` and to the term whose column holds position i.
    """
    check_instance("index", index, InvertedIndex)
    k1 = check_number("k1", k1, low=0)
    b = check_probability("b", b)
    check_choice("variant", variant, VARIANTS)
    return _impacts(index, k1, b, variant)


@functools.lru_cache(maxsize=4)
def _impacts(index: InvertedIndex, k1: float, b: float, variant: str) -> np.ndarray:
    """:func:`bm25_impacts` for checked arguments, cached."""
    postings = index.postings
    if postings.nnz == 0:  # every document empty: no weight to compute (and avdl = 0)
        return np.empty(0, dtype=np.float64)
    df_per_posting = np.repeat(index.df, np.diff(postings.indptr))
    impacts = VARIANTS[variant](postings.data, index.doc_lengths[postings.indices], index.avdl,
                                df_per_posting, index.num_docs, k1, b)
    impacts.flags.writeable = False  # shared by every caller through the cache
    return impacts


def bm25_scores(
    index: InvertedIndex,
    query: str | Sequence[str],
    *,
    k1: float = 1.2,
    b: float = 0.75,
    variant: str = "seed",
) -> tuple[np.ndarray, np.ndarray]:
    """RSV(q, d) = Σ_{t ∈ q} weight(t, d) for every document, term at a time.

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str
        A string is analysed with the index's analyzer; a sequence is taken as the
        query's terms. A term repeated in the query counts once per occurrence.
    k1, b : float
        k1 >= 0, 0 <= b <= 1.
    variant : {"seed", "robertson", "lucene"}

    Returns
    -------
    scores : (N,) float64
        0 for documents that contain no query term.
    matched : (N,) bool
        True for documents containing at least one query term; query terms missing
        from the dictionary contribute nothing.

    Notes
    -----
    Term-at-a-time: for each query term, its postings list gives the documents that
    contain it, and their weights (precomputed by :func:`bm25_impacts`) are added to
    an accumulator array in one vectorised step. Work is proportional to the total
    length of the query terms' postings lists, not to N.
    """
    check_instance("index", index, InvertedIndex)
    k1 = check_number("k1", k1, low=0)
    b = check_probability("b", b)
    check_choice("variant", variant, VARIANTS)
    terms = index.query_terms(query)
    impacts = bm25_impacts(index, k1, b, variant)
    scores = np.zeros(index.num_docs, dtype=np.float64)
    matched = np.zeros(index.num_docs, dtype=bool)
    indptr, doc_ids = index.postings.indptr, index.postings.indices
    for term in terms:
        t = index.term_id(term)
        if t is None:
            continue
        postings = slice(indptr[t], indptr[t + 1])
        docs = doc_ids[postings]
        np.add.at(scores, docs, impacts[postings])  # scores[docs] += impacts[postings], in one pass
        matched[docs] = True
    return scores, matched


def bm25_search(
    index: InvertedIndex,
    query: str | Sequence[str],
    k: int = 10,
    **params,
) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` documents for ``query`` under BM25 (keyword ``params`` as in
    :func:`bm25_scores`).

    Only documents that contain at least one query term are ranked, so a query
    whose terms are all unknown returns two empty arrays. Ties are broken by
    document number (see :mod:`mmir_lib.ranking`).

    Returns
    -------
    doc_ids : (m,) int64 and scores : (m,) float64, with m <= k.
    """
    k = check_count("k", k, low=1)
    scores, matched = bm25_scores(index, query, **params)
    return top_k(scores, k, matched)
