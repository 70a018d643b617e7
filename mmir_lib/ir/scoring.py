"""Scoring before BM25: Jaccard overlap, tf-idf weights and the vector space model.

Notation as in the book: tf = tf_t(d) the frequency of term t in document d, n_t the
number of documents containing t, N the number of documents.

The **vector space model** represents a document and a query as vectors with one
weight per vocabulary term and ranks documents by the cosine of the angle between
them. Weighting schemes are named with the three-letter SMART codes (Salton and
Buckley 1988), one letter each for term frequency, document frequency and
normalisation:

=======  ===================================  ======================================
letter   meaning                              weight
=======  ===================================  ======================================
``n``    natural tf                            tf
``l``    logarithmic tf                        1 + ln tf   (0 when tf = 0)
``b``    boolean tf                            1 if tf > 0
``n``    no idf                                1
``t``    idf                                   ln(N / n_t)
``n``    no normalisation                      w
``c``    cosine normalisation                  w / ‖w‖₂
=======  ===================================  ======================================

A ranking scheme is written ``ddd.qqq`` (document weights, query weights); the
default ``lnc.ltc`` is the one Manning et al. (2008, §6.4.3) use as their example.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

from ..validation import check_array, check_choice, check_count, check_instance, check_optional, check_str, check_str_list
from .index import InvertedIndex
from ..ranking import top_k

__all__ = ["jaccard", "jaccard_scores", "tf_weight", "idf", "parse_scheme", "document_norms",
           "query_weights", "tfidf_scores", "tfidf_search"]

_TF = ("n", "l", "b")
_DF = ("n", "t")
_NORM = ("n", "c")


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """J(A, B) = |A ∩ B| / |A ∪ B| for the sets of terms of two texts (0 when both are empty).

    >>> jaccard(["ides", "of", "march"], ["march", "hare"])
    0.25
    """
    a, b = set(check_str_list("a", a)), set(check_str_list("b", b))
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def jaccard_scores(index: InvertedIndex, query: str | Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Jaccard coefficient between the query's term set and every document's term set.

    |q ∩ d| is counted from the postings of the distinct query terms; |d| is the
    number of distinct terms of d (its number of postings), so
    |q ∪ d| = |q| + |d| − |q ∩ d|.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool, as :func:`~mmir_lib.ir.bm25.bm25_scores`.
    """
    check_instance("index", index, InvertedIndex)
    terms = set(index.query_terms(query))
    overlap = np.zeros(index.num_docs, dtype=np.int64)
    for term in terms:
        overlap[index.postings_list(term)[0]] += 1
    distinct_terms = np.bincount(index.postings.indices, minlength=index.num_docs)
    union = len(terms) + distinct_terms - overlap
    scores = np.divide(overlap, union, out=np.zeros(index.num_docs), where=union > 0)
    return scores, overlap > 0


def tf_weight(tf, scheme: str = "l") -> np.ndarray:
    """Term-frequency weight: ``n`` tf, ``l`` 1 + ln tf (0 for tf = 0), ``b`` 1 if tf > 0.

    >>> tf_weight([0, 1, 10]).round(3).tolist()
    [0.0, 1.0, 3.303]
    """
    tf = check_array("tf", tf, kind="number", low=0)
    check_choice("scheme", scheme, _TF)
    tf = np.asarray(tf, dtype=np.float64)
    if scheme == "n":
        return tf
    if scheme == "l":
        return np.where(tf > 0, 1.0 + np.log(np.maximum(tf, 1.0)), 0.0)
    return (tf > 0).astype(np.float64)


def idf(df, n_docs: int) -> np.ndarray:
    """Inverse document frequency ln(N / n_t) (Spärck Jones 1972), for 1 <= n_t <= N.

    >>> float(idf(1, 100).round(3)), float(idf(100, 100))
    (4.605, 0.0)
    """
    n_docs = check_count("n_docs", n_docs, low=1)
    df = check_array("df", df, kind="number", low=1, high=n_docs)
    return np.log(n_docs / np.asarray(df, dtype=np.float64))


def parse_scheme(scheme: str) -> tuple[str, str]:
    """Split a SMART code ``ddd.qqq`` into its document and query parts, checking each letter.

    >>> parse_scheme("lnc.ltc")
    ('lnc', 'ltc')
    """
    check_str("scheme", scheme)
    parts = scheme.split(".")
    if len(parts) != 2 or any(len(p) != 3 or p[0] not in _TF or p[1] not in _DF or p[2] not in _NORM
                              for p in parts):
        raise ValueError(f"scheme must look like 'lnc.ltc' (SMART tf, df, norm letters "
                         f"for documents '.' query), got {scheme!r}")
    return parts[0], parts[1]


def document_norms(index: InvertedIndex, scheme: str = "lnc.ltc") -> np.ndarray:
    """‖d‖₂ of every document's weight vector under the document part of ``scheme``.

    Returns
    -------
    (N,) float64. Computing it touches every posting, so compute it once and pass it
    to :func:`tfidf_scores` for repeated queries.
    """
    check_instance("index", index, InvertedIndex)
    doc, _ = parse_scheme(scheme)
    weights = tf_weight(index.postings.data, doc[0])
    if doc[1] == "t":
        column_idf = idf(index.df, index.num_docs)
        weights = weights * np.repeat(column_idf, np.diff(index.postings.indptr))
    squares = np.bincount(index.postings.indices, weights=weights**2, minlength=index.num_docs)
    return np.sqrt(squares)


def query_weights(
    index: InvertedIndex, query: str | Sequence[str], scheme: str = "lnc.ltc"
) -> tuple[np.ndarray, np.ndarray]:
    """The query's weight vector under the query part of ``scheme``, as (term ids, weights).

    Terms absent from the dictionary are dropped (they would only change ‖q‖, which is
    the same for every document); repeats raise the query tf.

    Returns
    -------
    term_ids : (m,) int64, sorted, and weights : (m,) float64; m = 0 when no query
    term is in the dictionary.
    """
    check_instance("index", index, InvertedIndex)
    _, qry = parse_scheme(scheme)
    counts = Counter(t for t in index.query_terms(query) if index.term_id(t) is not None)
    terms = sorted(counts)  # the dictionary is sorted, so the term ids are too
    term_ids = np.array([index.term_id(t) for t in terms], dtype=np.int64)
    weights = tf_weight([counts[t] for t in terms], qry[0])
    if qry[1] == "t" and terms:
        weights = weights * idf(index.df[term_ids], index.num_docs)
    if qry[2] == "c":
        norm = np.linalg.norm(weights)
        weights = weights / norm if norm > 0 else weights
    return term_ids, weights


def tfidf_scores(
    index: InvertedIndex,
    query: str | Sequence[str],
    *,
    scheme: str = "lnc.ltc",
    norms: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Vector space score d · q, with d and q weighted by the SMART ``scheme``.

    With cosine normalisation on both sides (``..c.. c``) the score is
    cos(d, q) = d · q / (‖d‖ ‖q‖).

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str terms (repeats raise the query tf)
    scheme : str
        ``ddd.qqq`` SMART code, e.g. ``lnc.ltc`` (default), ``ltc.ltc``, ``nnn.nnn``.
    norms : (N,) float64, optional
        :func:`document_norms` for the same scheme, to avoid recomputing them.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool (documents containing a query term).
    """
    check_instance("index", index, InvertedIndex)
    doc, _ = parse_scheme(scheme)
    norms = check_optional(check_array, "norms", norms, ndim=1, shape=(index.num_docs,), low=0)
    term_ids, q_weights = query_weights(index, query, scheme)
    scores = np.zeros(index.num_docs)
    matched = np.zeros(index.num_docs, dtype=bool)
    indptr, doc_ids = index.postings.indptr, index.postings.indices
    for t, q_weight in zip(term_ids, q_weights):
        postings = slice(indptr[t], indptr[t + 1])
        d_weight = tf_weight(index.postings.data[postings], doc[0])
        if doc[1] == "t":
            d_weight = d_weight * idf(index.df[t], index.num_docs)
        scores[doc_ids[postings]] += d_weight * q_weight
        matched[doc_ids[postings]] = True
    if doc[2] == "c":
        norms = document_norms(index, scheme) if norms is None else norms
        np.divide(scores, norms, out=scores, where=norms > 0)
    return scores, matched


def tfidf_search(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params):
    """Top ``k`` documents under :func:`tfidf_scores` (ties: smaller document number)."""
    k = check_count("k", k, low=1)
    scores, matched = tfidf_scores(index, query, **params)
    return top_k(scores, k, matched)
