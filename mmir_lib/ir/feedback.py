"""Relevance feedback and query expansion: Rocchio, pseudo-relevance feedback, related terms.

A query and a document are both vectors with one weight per vocabulary term (V
terms); here they are rows of ``scipy.sparse.csr_array`` of shape (1, V) and (n, V).
Feedback moves the query vector. **Rocchio's** formula (Rocchio 1971; Manning et al.
2008, §9.1.1) takes the original query q₀, a set R of documents judged relevant and a
set NR judged not relevant:

    q_m = α · q₀ + β · (1/|R|) Σ_{d ∈ R} d − γ · (1/|NR|) Σ_{d ∈ NR} d,   α, β, γ >= 0,

then sets every negative weight to 0 (a negative weight cannot be matched by any
document, and the usual practice, in SMART and in Manning et al., is to drop it). An
empty R or NR simply drops its term. Optionally only the ``expansion_terms`` new
terms of highest weight are added to the original query's terms.

Two vector spaces, each a :class:`VectorSpace` (how a query and a document become
vectors, and how a query vector scores the documents):

:func:`cosine_space`
    The SMART tf-idf vector space of :mod:`mmir_lib.ir.scoring` (``ltc.ltc`` by
    default: (1 + ln tf) · ln(N/n_t), unit length), ranked by the cosine. Rocchio's
    own setting; with β = γ = 0 it ranks exactly as :func:`~mmir_lib.ir.scoring.tfidf_scores`.
:func:`bm25_space`
    A document's vector holds its BM25 term weights scaled to unit length; the query
    vector holds the query's term counts scaled to unit length; a query vector w
    scores d by Σ_t w_t · BM25(t, d). With β = 0 this is BM25 exactly (up to one
    positive factor), so feedback in this space can be compared with BM25 itself.

**Pseudo-relevance feedback** (:func:`prf_scores`) assumes that the top m documents of
a first pass are relevant, builds q_m from them (β > 0, no non-relevant set), keeps
the original terms plus the ``expansion_terms`` best new ones, and ranks again in the
same space. **Co-occurrence** expansion (:func:`related_terms`,
:func:`cooccurrence_expansion`) adds, for each query term, the terms with the highest
pointwise mutual information with it over the documents. :func:`residual_collection`
prepares the fair evaluation of feedback: documents shown to the user are removed from
the ranking and from the judgements.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse

from ..validation import (check_array, check_callable, check_choice, check_count, check_instance, check_mapping, check_number,
                          check_optional, check_probability, check_str, describe)
from .bm25 import VARIANTS, bm25_impacts
from .index import InvertedIndex
from ..ranking import top_k
from .scoring import document_norms, idf, parse_scheme, query_weights, tf_weight
from .trec import check_qrels, check_run

__all__ = [
    "document_vectors", "query_vector", "cosine_scores",
    "bm25_document_vectors", "bm25_vector_scores",
    "VectorSpace", "cosine_space", "bm25_space",
    "centroid", "rocchio", "rocchio_scores", "rocchio_search",
    "PRFQuery", "prf_query", "prf_scores", "prf_search", "added_terms",
    "RelatedTerm", "related_terms", "cooccurrence_expansion",
    "residual_collection",
]

Vector = scipy.sparse.csr_array  # (1, V) for a query, (n, V) for a set of documents


# ---- checking arguments ----------------------------------------------------------------

def _check_doc_ids(name: str, doc_ids: object, index: InvertedIndex) -> np.ndarray:
    """Document numbers as a 1-D int64 array, each in [0, N)."""
    if isinstance(doc_ids, Iterable) and not isinstance(doc_ids, (str, bytes, Mapping, np.ndarray)):
        doc_ids = list(doc_ids)  # a set, a range
    return check_array(name, doc_ids, kind="int", ndim=1, low=0, high=index.num_docs - 1)


def _check_vectors(name: str, vectors: object, n_terms: int | None = None) -> Vector:
    """``vectors`` (sparse or dense, 1-D for one vector) as a float64 CSR array (n, V), V >= 1."""
    if scipy.sparse.issparse(vectors):
        rows = scipy.sparse.csr_array(vectors, dtype=np.float64)
        if not np.isfinite(rows.data).all():
            raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
    else:
        dense = check_array(name, vectors, ndim=(1, 2))
        rows = scipy.sparse.csr_array(dense[None, :] if dense.ndim == 1 else dense)
    if rows.shape[1] == 0:
        raise ValueError(f"{name} must have at least one term (column), got shape {rows.shape}")
    if n_terms is not None and rows.shape[1] != n_terms:
        raise ValueError(f"{name} has {rows.shape[1]} columns, the query vector {n_terms}")
    rows.sum_duplicates()
    return rows


def _check_query_vector(name: str, vector: object, index: InvertedIndex) -> Vector:
    row = _check_vectors(name, vector)
    if row.shape != (1, index.num_terms):
        raise ValueError(f"{name} must be one vector of V = {index.num_terms} weights, got shape {row.shape}")
    return row


def _check_space(name: str, space: object) -> "VectorSpace":
    return check_instance(name, space, VectorSpace)


#: Largest k1 of the BM25 vector space: beyond it the weights (about tf / k1) are so small
#: that their squares underflow and a document vector can no longer be scaled to unit length.
K1_MAX = 1e6


def _check_bm25(k1: object, b: object, variant: object) -> tuple[float, float]:
    """BM25's k1 in [0, K1_MAX], b in [0, 1] and variant name."""
    check_choice("variant", variant, VARIANTS)
    return check_number("k1", k1, low=0.0, high=K1_MAX), check_probability("b", b)


def _row(term_ids: np.ndarray, weights: np.ndarray, n_terms: int) -> Vector:
    """A (1, V) row with ``weights`` at ``term_ids`` (sorted, distinct)."""
    row = scipy.sparse.csr_array((np.asarray(weights, dtype=np.float64), np.asarray(term_ids, dtype=np.int64),
                                  np.array([0, len(term_ids)])), shape=(1, n_terms))
    row.eliminate_zeros()
    return row


def _scale_rows(matrix: Vector, norms: np.ndarray) -> None:
    """Divide each row of ``matrix`` (CSR, in place) by its norm; rows of norm 0 stay 0."""
    per_entry = np.repeat(norms, np.diff(matrix.indptr))
    np.divide(matrix.data, per_entry, out=matrix.data, where=per_entry > 0)


def _read_only(*matrices) -> None:
    for m in matrices:  # shared by every caller through a cache
        for array in (m.data, m.indices, m.indptr):
            array.flags.writeable = False


def _matched(index: InvertedIndex, query: Vector) -> np.ndarray:
    """(N,) bool: documents that contain a term of positive weight in ``query``."""
    matched = np.zeros(index.num_docs, dtype=bool)
    terms = query.indices[query.data > 0]
    matched[index.postings[:, terms].indices] = True
    return matched


# ---- the tf-idf (cosine) space --------------------------------------------------------

class _Weighted(NamedTuple):
    columns: scipy.sparse.csc_array  # (N, V) the weights that score documents, one column per term
    rows: scipy.sparse.csr_array  # (N, V) the document vectors that feedback averages


def _tfidf_documents(index: InvertedIndex, scheme: str) -> _Weighted:
    doc, _ = parse_scheme(scheme)
    return _tfidf_weighted(index, doc)  # cached by the document part alone


@functools.lru_cache(maxsize=4)
def _tfidf_weighted(index: InvertedIndex, doc: str) -> _Weighted:
    postings = index.postings
    weights = tf_weight(postings.data, doc[0])
    if doc[1] == "t":
        weights = weights * np.repeat(idf(index.df, index.num_docs), np.diff(postings.indptr))
    rows = scipy.sparse.csc_array((weights, postings.indices, postings.indptr), shape=postings.shape).tocsr()
    if doc[2] == "c":
        _scale_rows(rows, document_norms(index, f"{doc}.nnn"))
    rows.eliminate_zeros()  # a term in every document has idf 0
    columns = rows.tocsc()
    _read_only(rows, columns)
    return _Weighted(columns, rows)


def document_vectors(index: InvertedIndex, doc_ids: Sequence[int] | None = None, *,
                     scheme: str = "ltc.ltc") -> Vector:
    """Document vectors weighted by the document part of a SMART ``scheme``.

    For ``ltc``: w_t(d) = (1 + ln tf_t(d)) · ln(N / n_t), then the row is divided by
    its Euclidean norm (:func:`~mmir_lib.ir.scoring.document_norms`). Uses
    :func:`~mmir_lib.ir.scoring.tf_weight` and :func:`~mmir_lib.ir.scoring.idf`.

    Parameters
    ----------
    index : InvertedIndex
    doc_ids : sequence of int, optional
        Document numbers (rows of the result, in this order); all N when omitted.
    scheme : str
        ``ddd.qqq`` as in :func:`~mmir_lib.ir.scoring.tfidf_scores`; only ``ddd`` is used.

    Returns
    -------
    scipy.sparse.csr_array of shape (len(doc_ids), V), float64.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["cat sat", "cat cat dog", "dog"], Analyzer())
    >>> toy.terms.tolist()
    ['cat', 'dog', 'sat']
    >>> document_vectors(toy, [0], scheme="ltn.ltc").toarray().round(3)  # idf(cat) = ln(3/2)
    array([[0.405, 0.   , 1.099]])
    """
    check_instance("index", index, InvertedIndex)
    doc_ids = check_optional(_check_doc_ids, "doc_ids", doc_ids, index=index)
    check_str("scheme", scheme)
    rows = _tfidf_documents(index, scheme).rows
    return rows if doc_ids is None else rows[doc_ids]


def query_vector(index: InvertedIndex, query: str | Sequence[str], *, scheme: str = "ltc.ltc") -> Vector:
    """The query as a (1, V) vector weighted by the query part of a SMART ``scheme``.

    Terms missing from the dictionary are dropped; a query with no known term gives the
    zero vector. ``ltc``: (1 + ln tf) · ln(N / n_t), unit length; ``nnc``: the term
    counts, unit length (the query of :func:`bm25_space`).

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["cat sat", "cat cat dog", "dog"], Analyzer())
    >>> query_vector(toy, "dog dog cat zebra", scheme="nnn.nnc").toarray().round(3)  # (1, 2, 0) / √5
    array([[0.447, 0.894, 0.   ]])
    """
    check_instance("index", index, InvertedIndex)
    check_str("scheme", scheme)
    term_ids, weights = query_weights(index, query, scheme)
    return _row(term_ids, weights, index.num_terms)


def _check_cosine_scheme(scheme: object) -> None:
    check_str("scheme", scheme)
    doc, _ = parse_scheme(scheme)
    if doc[2] != "c":
        raise ValueError(f"a cosine needs cosine-normalised documents (a scheme like 'ltc.ltc'), got {scheme!r}")


def cosine_scores(index: InvertedIndex, query_vector: object, *,
                  scheme: str = "ltc.ltc") -> tuple[np.ndarray, np.ndarray]:
    """cos(d, q) = d · q / (‖d‖ ‖q‖) for every document, d weighted by ``scheme``.

    ``query_vector`` is any (1, V) vector (e.g. from :func:`rocchio`), already weighted;
    only the document part of ``scheme`` is used, and it must normalise (``..c``).

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool (documents containing a term of
    positive query weight), as :func:`~mmir_lib.ir.scoring.tfidf_scores`.
    """
    check_instance("index", index, InvertedIndex)
    q = _check_query_vector("query_vector", query_vector, index)
    _check_cosine_scheme(scheme)
    with np.errstate(over="ignore", under="ignore"):
        norm = np.sqrt(np.sum(q.data**2))
    if not np.isfinite(norm) or (norm == 0 and q.nnz):  # the squares overflowed or underflowed
        norm = np.hypot.reduce(q.data)
    if norm == 0:
        return np.zeros(index.num_docs), np.zeros(index.num_docs, dtype=bool)
    columns = _tfidf_documents(index, scheme).columns
    scores = columns[:, q.indices] @ (q.data / norm)  # only the query's terms are touched
    return scores, _matched(index, q)


# ---- the BM25 space -----------------------------------------------------------------

@functools.lru_cache(maxsize=4)
def _bm25_documents(index: InvertedIndex, k1: float, b: float, variant: str) -> _Weighted:
    postings = index.postings
    columns = scipy.sparse.csc_array((bm25_impacts(index, k1, b, variant), postings.indices, postings.indptr),
                                     shape=postings.shape)
    rows = columns.tocsr()
    _scale_rows(rows, np.sqrt(rows.multiply(rows).sum(axis=1)))
    rows.eliminate_zeros()
    _read_only(rows, columns)
    return _Weighted(columns, rows)


def bm25_document_vectors(index: InvertedIndex, doc_ids: Sequence[int] | None = None, *, k1: float = 1.2,
                          b: float = 0.75, variant: str = "seed") -> Vector:
    """Each document's BM25 term weights (:func:`~mmir_lib.ir.bm25.bm25_impacts`), scaled to unit length.

    Returns
    -------
    scipy.sparse.csr_array of shape (len(doc_ids), V): row d is w(·, d) / ‖w(·, d)‖₂.
    """
    check_instance("index", index, InvertedIndex)
    doc_ids = check_optional(_check_doc_ids, "doc_ids", doc_ids, index=index)
    k1, b = _check_bm25(k1, b, variant)
    rows = _bm25_documents(index, k1, b, variant).rows
    return rows if doc_ids is None else rows[doc_ids]


def bm25_vector_scores(index: InvertedIndex, query_vector: object, *, k1: float = 1.2, b: float = 0.75,
                       variant: str = "seed") -> tuple[np.ndarray, np.ndarray]:
    """RSV(q, d) = Σ_t q_t · w(t, d): BM25 with a weight q_t on every query term.

    With q_t = the number of times t occurs in the query this is
    :func:`~mmir_lib.ir.bm25.bm25_scores`; feedback supplies other weights.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool (documents containing a term of
    positive query weight).
    """
    check_instance("index", index, InvertedIndex)
    q = _check_query_vector("query_vector", query_vector, index)
    k1, b = _check_bm25(k1, b, variant)
    columns = _bm25_documents(index, k1, b, variant).columns
    return columns[:, q.indices] @ q.data, _matched(index, q)


@dataclass(frozen=True)
class VectorSpace:
    """How a retrieval model turns queries and documents into vectors, and scores.

    ``query_vector(index, query)`` -> (1, V); ``document_vectors(index, doc_ids)`` ->
    (n, V); ``scores(index, vector)`` -> (scores (N,), matched (N,)).
    """

    name: str
    query_vector: Callable[[InvertedIndex, str | Sequence[str]], Vector]
    document_vectors: Callable[[InvertedIndex, Sequence[int]], Vector]
    scores: Callable[[InvertedIndex, object], tuple[np.ndarray, np.ndarray]]

    def __post_init__(self) -> None:
        check_str("name", self.name)
        check_callable("query_vector", self.query_vector)
        check_callable("document_vectors", self.document_vectors)
        check_callable("scores", self.scores)


def cosine_space(scheme: str = "ltc.ltc") -> VectorSpace:
    """The tf-idf vector space of a SMART ``scheme`` (documents ``..c``), ranked by the cosine."""
    _check_cosine_scheme(scheme)
    return VectorSpace(f"cosine {scheme}", functools.partial(query_vector, scheme=scheme),
                       functools.partial(document_vectors, scheme=scheme),
                       functools.partial(cosine_scores, scheme=scheme))


def bm25_space(k1: float = 1.2, b: float = 0.75, variant: str = "seed") -> VectorSpace:
    """BM25 as a vector space: queries are unit-length term counts (``nnc``), documents
    unit-length BM25 weights, and a query vector scores by :func:`bm25_vector_scores`."""
    _check_bm25(k1, b, variant)
    params = dict(k1=k1, b=b, variant=variant)
    return VectorSpace(f"BM25 k1={k1:g} b={b:g}", functools.partial(query_vector, scheme="nnn.nnc"),
                       functools.partial(bm25_document_vectors, **params),
                       functools.partial(bm25_vector_scores, **params))


# ---- Rocchio ----------------------------------------------------------------------------

def centroid(vectors: object) -> Vector:
    """The mean (1/n) Σ_i v_i of n >= 1 vectors given as the rows of an (n, V) array.

    Examples
    --------
    >>> centroid([[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]]).toarray()
    array([[0.5, 0. , 3. ]])
    """
    rows = _check_vectors("vectors", vectors)
    n = rows.shape[0]
    if n == 0:
        raise ValueError("the centroid of no vectors is undefined: pass at least one row")
    return scipy.sparse.csr_array(np.full((1, n), 1.0 / n)) @ rows


def rocchio(
    query_vector: object,
    relevant_vectors: object,
    nonrelevant_vectors: object = None,
    alpha: float = 1.0,
    beta: float = 0.75,
    gamma: float = 0.15,
    *,
    expansion_terms: int | None = None,
) -> Vector:
    """Rocchio's modified query q_m = α q₀ + β·centroid(R) − γ·centroid(NR), negatives set to 0.

    Parameters
    ----------
    query_vector : (V,) or (1, V), sparse or dense
        q₀, the original query's vector.
    relevant_vectors, nonrelevant_vectors : (n, V) sparse or dense, or None
        The vectors of the documents judged relevant (R) and not relevant (NR). An
        empty set (0 rows, or None) drops its term: with R empty, q_m = α q₀ − γ·centroid(NR).
    alpha, beta, gamma : float
        Finite and >= 0. Defaults 1, 0.75, 0.15 (Manning et al. 2008, §9.1.1).
    expansion_terms : int, optional
        Keep every term of q₀ (those still positive) and only the ``expansion_terms``
        new terms of highest weight (ties: smaller term id). All terms when omitted.

    Returns
    -------
    scipy.sparse.csr_array (1, V), float64: no negative and no stored zero weights.

    Notes
    -----
    Clipping: a negative weight would lower the score of every document containing
    the term; Rocchio's vector space has no use for it, and the standard practice
    (SMART; Manning et al. 2008) is to remove such terms from the query.

    Examples
    --------
    >>> q0 = [1.0, 0.0, 0.0]
    >>> rocchio(q0, [[0.0, 1.0, 0.0], [0.0, 0.6, 0.8]], [[0.0, 0.0, 1.0]]).toarray()
    array([[1.  , 0.6 , 0.15]])
    >>> rocchio(q0, [[0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0]], gamma=2.0).toarray()  # -2 clipped to 0
    array([[1.  , 0.75, 0.  ]])
    """
    q0 = _check_vectors("query_vector", query_vector)
    if q0.shape[0] != 1:
        raise ValueError(f"query_vector must be one vector, got {q0.shape[0]} rows")
    relevant = check_optional(_check_vectors, "relevant_vectors", relevant_vectors, n_terms=q0.shape[1])
    nonrelevant = check_optional(_check_vectors, "nonrelevant_vectors", nonrelevant_vectors, n_terms=q0.shape[1])
    alpha = check_number("alpha", alpha, low=0.0)
    beta = check_number("beta", beta, low=0.0)
    gamma = check_number("gamma", gamma, low=0.0)
    expansion_terms = check_optional(check_count, "expansion_terms", expansion_terms)
    n_terms = q0.shape[1]
    modified = alpha * q0
    for rows, weight in ((relevant, beta), (nonrelevant, -gamma)):
        if rows is not None and rows.shape[0] > 0 and weight != 0:
            modified = modified + weight * centroid(rows)
    modified = scipy.sparse.csr_array(modified)
    modified.data = np.maximum(modified.data, 0.0)  # negative weights are dropped (Notes)
    modified.eliminate_zeros()
    modified.sort_indices()
    if expansion_terms is None:
        return modified
    ids, weights = modified.indices, modified.data
    original = np.isin(ids, q0.indices[q0.data > 0])
    new = np.flatnonzero(~original)
    best_new = new[np.lexsort((ids[new], -weights[new]))[:expansion_terms]]
    keep = np.sort(np.concatenate([np.flatnonzero(original), best_new]))
    return _row(ids[keep], weights[keep], n_terms)


def rocchio_scores(
    index: InvertedIndex,
    query: str | Sequence[str],
    relevant: Sequence[int],
    nonrelevant: Sequence[int] = (),
    *,
    alpha: float = 1.0,
    beta: float = 0.75,
    gamma: float = 0.15,
    expansion_terms: int | None = None,
    space: VectorSpace | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Score every document with the Rocchio query built from judged documents.

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str terms
    relevant, nonrelevant : sequences of document numbers (disjoint; nonrelevant may be None: none)
    alpha, beta, gamma, expansion_terms : as in :func:`rocchio`
    space : VectorSpace, optional
        Default :func:`cosine_space` (``ltc.ltc``): Rocchio's classic setting.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool, as the space's scorer returns them.
    Documents used as feedback are *not* removed: see :func:`residual_collection`.
    """
    check_instance("index", index, InvertedIndex)
    relevant = _check_doc_ids("relevant", relevant, index)
    nonrelevant = check_optional(_check_doc_ids, "nonrelevant", nonrelevant, index=index)
    space = check_optional(_check_space, "space", space)
    if nonrelevant is not None and len(np.intersect1d(relevant, nonrelevant)):
        raise ValueError(f"relevant and nonrelevant must be disjoint; both hold "
                         f"{np.intersect1d(relevant, nonrelevant)[:5].tolist()}")
    nonrelevant = np.empty(0, dtype=np.int64) if nonrelevant is None else nonrelevant
    space = cosine_space() if space is None else space
    modified = rocchio(space.query_vector(index, query), space.document_vectors(index, relevant),
                       space.document_vectors(index, nonrelevant), alpha, beta, gamma,
                       expansion_terms=expansion_terms)
    return space.scores(index, modified)


def rocchio_search(index: InvertedIndex, query: str | Sequence[str], relevant: Sequence[int],
                   nonrelevant: Sequence[int] = (), k: int = 10, **params) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` documents under :func:`rocchio_scores` (keyword ``params`` as there)."""
    k = check_count("k", k, low=1)
    scores, matched = rocchio_scores(index, query, relevant, nonrelevant, **params)
    return top_k(scores, k, matched)


# ---- pseudo-relevance feedback -------------------------------------------------------------

class PRFQuery(NamedTuple):
    """The expanded query of pseudo-relevance feedback and where it came from."""

    original: Vector  #: (1, V) q₀
    expanded: Vector  #: (1, V) q_m
    feedback: np.ndarray  #: (m',) int64 the first pass's top m' <= m documents, best first


def prf_query(
    index: InvertedIndex,
    query: str | Sequence[str],
    m: int = 10,
    expansion_terms: int = 20,
    *,
    alpha: float = 1.0,
    beta: float = 0.75,
    space: VectorSpace | None = None,
) -> PRFQuery:
    """Pseudo-relevance feedback: treat the first pass's top ``m`` as relevant, expand.

    1. First pass: rank with q₀ in ``space``; the top m form the feedback set R
       (fewer when fewer documents match).
    2. q_m = α q₀ + β · centroid(R) (:func:`rocchio`; no non-relevant set: nothing
       is known to be non-relevant), keeping q₀'s terms plus the ``expansion_terms``
       new terms of highest weight.

    Parameters
    ----------
    m : int
        At least 1: m = 0 would be no feedback at all (use the first pass itself).
    expansion_terms : int
        New terms added, >= 0 (0 only re-weights the original terms).
    space : VectorSpace, optional
        Default :func:`bm25_space` (k1 = 1.2, b = 0.75).

    Returns
    -------
    PRFQuery(original, expanded, feedback)
    """
    check_instance("index", index, InvertedIndex)
    m = check_count("m", m, low=1)
    expansion_terms = check_count("expansion_terms", expansion_terms)
    alpha = check_number("alpha", alpha, low=0.0)
    beta = check_number("beta", beta, low=0.0)
    space = check_optional(_check_space, "space", space)
    space = bm25_space() if space is None else space
    original = space.query_vector(index, query)
    scores, matched = space.scores(index, original)
    feedback, _ = top_k(scores, m, matched)
    expanded = rocchio(original, space.document_vectors(index, feedback), None, alpha, beta, 0.0,
                       expansion_terms=expansion_terms)
    return PRFQuery(original, expanded, feedback)


def prf_scores(index: InvertedIndex, query: str | Sequence[str], m: int = 10, expansion_terms: int = 20,
               **params) -> tuple[np.ndarray, np.ndarray]:
    """Second pass of pseudo-relevance feedback: every document scored with the
    expanded query of :func:`prf_query` (keyword ``params`` as there), in the same space.

    With β = 0 the ranking is the first pass's (q_m = α q₀ scales every score by α).
    """
    expanded = prf_query(index, query, m, expansion_terms, **params).expanded
    space = params.get("space") or bm25_space()
    return space.scores(index, expanded)


def prf_search(index: InvertedIndex, query: str | Sequence[str], m: int = 10, expansion_terms: int = 20,
               k: int = 10, **params) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` documents under :func:`prf_scores`."""
    k = check_count("k", k, low=1)
    scores, matched = prf_scores(index, query, m, expansion_terms, **params)
    return top_k(scores, k, matched)


def added_terms(index: InvertedIndex, original: object, expanded: object) -> list[tuple[str, float]]:
    """The terms of ``expanded`` absent from ``original`` (both (1, V) vectors), as
    (term, weight) pairs, highest weight first (ties: alphabetical).

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["cat sat", "cat cat dog", "dog"], Analyzer())
    >>> added_terms(toy, [1.0, 0.0, 0.0], [1.2, 0.5, 0.5])
    [('dog', 0.5), ('sat', 0.5)]
    """
    check_instance("index", index, InvertedIndex)
    q0 = _check_query_vector("original", original, index)
    qm = _check_query_vector("expanded", expanded, index)
    new = ~np.isin(qm.indices, q0.indices[q0.data != 0]) & (qm.data != 0)
    ids, weights = qm.indices[new], qm.data[new]
    order = np.lexsort((ids, -weights))  # the dictionary is sorted: term id order is alphabetical
    return [(str(index.terms[i]), float(w)) for i, w in zip(ids[order], weights[order])]


# ---- expansion with related terms (co-occurrence) ----------------------------------------

class RelatedTerm(NamedTuple):
    term: str
    pmi: float  #: ln(N · n_tu / (n_t · n_u))
    cooccurrences: int  #: n_tu, documents containing both terms


def related_terms(index: InvertedIndex, term: str, k: int = 10, *, min_cooccurrence: int = 5) -> list[RelatedTerm]:
    """The ``k`` terms u with the highest pointwise mutual information with ``term``.

    Over documents: with n_t, n_u the documents containing t and u, and n_tu those
    containing both,

        PMI(t, u) = ln( P(t, u) / (P(t) P(u)) ) = ln( N · n_tu / (n_t · n_u) ),

    which is 0 when the two occur independently. PMI favours rare terms (a term seen
    once, beside t, gets the largest possible value, ln(N / n_t)), so only terms with
    n_tu >= ``min_cooccurrence`` are candidates (Church and Hanks 1990).

    Parameters
    ----------
    term : str
        A term of the dictionary (already analysed, e.g. ``index.analyze("ghosts")[0]``).

    Returns
    -------
    list of RelatedTerm(term, pmi, cooccurrences), best first (ties: alphabetical).

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["cat sat", "cat dog", "dog bone", "dog bone", "cat"], Analyzer())
    >>> [(r.term, round(r.pmi, 3), r.cooccurrences) for r in related_terms(toy, "dog", min_cooccurrence=1)]
    [('bone', 0.511, 2), ('cat', -0.588, 1)]
    """
    check_instance("index", index, InvertedIndex)
    check_str("term", term)
    k = check_count("k", k, low=1)
    min_cooccurrence = check_count("min_cooccurrence", min_cooccurrence, low=1)
    t = index.term_id(term)
    if t is None:
        raise ValueError(f"term {term!r} is not in the dictionary (analyse words first, e.g. index.analyze)")
    postings = index.postings
    has_term = np.zeros(index.num_docs)
    has_term[index.postings_list(term)[0]] = 1.0
    # the postings as a (V, N) 0/1 matrix times the indicator: n_tu for every u at once
    pattern = scipy.sparse.csr_array((np.ones(postings.nnz), postings.indices, postings.indptr),
                                     shape=(index.num_terms, index.num_docs))
    both = pattern @ has_term  # (V,)
    both[t] = 0
    candidates = np.flatnonzero(both >= min_cooccurrence)
    df = index.df
    pmi = np.log(index.num_docs * both[candidates] / (df[t] * df[candidates]))
    order = np.lexsort((candidates, -pmi))[:k]
    return [RelatedTerm(str(index.terms[u]), float(p), int(n))
            for u, p, n in zip(candidates[order], pmi[order], both[candidates][order])]


def cooccurrence_expansion(
    index: InvertedIndex,
    query: str | Sequence[str],
    per_term: int = 3,
    weight: float = 0.3,
    *,
    min_cooccurrence: int = 5,
    space: VectorSpace | None = None,
) -> Vector:
    """q₀ plus, for each query term t, its ``per_term`` best :func:`related_terms` u,
    each with weight ``weight`` · q₀[t] (summed when u is related to several terms).

    A global expansion: the related terms depend on the collection, not on this
    query's results. Default ``space``: :func:`bm25_space`, whose query vector is used
    as q₀. Related terms already in the query are not added again.

    Returns
    -------
    scipy.sparse.csr_array (1, V), to score with ``space.scores``.
    """
    check_instance("index", index, InvertedIndex)
    per_term = check_count("per_term", per_term, low=1)
    weight = check_number("weight", weight, low=0.0)
    min_cooccurrence = check_count("min_cooccurrence", min_cooccurrence, low=1)
    space = check_optional(_check_space, "space", space)
    space = bm25_space() if space is None else space
    q0 = space.query_vector(index, query)
    expanded = q0.toarray()[0]
    for t, w in zip(q0.indices, q0.data):
        for related in related_terms(index, str(index.terms[t]), per_term, min_cooccurrence=min_cooccurrence):
            u = index.term_id(related.term)
            if u not in q0.indices:
                expanded[u] += weight * w
    return scipy.sparse.csr_array(expanded[None, :])


# ---- evaluating feedback fairly ---------------------------------------------------------

def _check_seen(seen: object) -> None:
    """{qid: the docnos the user has seen}."""
    check_mapping("seen", seen)
    for qid, docnos in seen.items():
        if isinstance(docnos, (str, bytes, Mapping)) or not isinstance(docnos, Iterable):
            raise TypeError(f"seen[{qid!r}] must be a collection of docnos, got {describe(docnos)}")


def residual_collection(
    run: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    seen: Mapping[str, Iterable[str]],
) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, int]]]:
    """Remove the documents the user has already seen from a run and from the qrels.

    Feedback is told that some documents are relevant; ranking them first again is
    no achievement. **Residual collection** evaluation (Salton and Buckley 1990)
    removes, for each query, the documents in ``seen[qid]`` (typically the first
    pass's top k, judged by the user) from both the run and the judgements, so every
    system is measured only on documents nobody has told it about.

    Parameters
    ----------
    run : {qid: {docno: score}}
    qrels : {qid: {docno: grade}}
    seen : {qid: docnos shown to the user}; queries not in it are unchanged

    Returns
    -------
    (run, qrels) without the seen documents. A query left with no relevant document
    (grade >= 1) is dropped from the qrels: there is nothing left to find, and
    trec_eval would give it 0 for every system.

    Examples
    --------
    >>> run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0}}
    >>> qrels = {"q": {"a": 1, "c": 2}, "r": {"a": 1}}
    >>> residual_collection(run, qrels, {"q": ["a"], "r": ["a"]})
    ({'q': {'b': 2.0, 'c': 1.0}}, {'q': {'c': 2}})
    """
    check_run("run", run)
    check_qrels("qrels", qrels)
    _check_seen(seen)
    removed = {qid: set(docnos) for qid, docnos in seen.items()}
    new_run = {qid: {d: s for d, s in docs.items() if d not in removed.get(qid, ())} for qid, docs in run.items()}
    new_qrels = {}
    for qid, judgements in qrels.items():
        kept = {d: g for d, g in judgements.items() if d not in removed.get(qid, ())}
        if any(g >= 1 for g in kept.values()):
            new_qrels[qid] = kept
    return new_run, new_qrels
