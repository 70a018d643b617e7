"""Learning to rank, part 1: the first stage and the features of (query, document) pairs.

A learned ranker cannot afford to score every document of the collection, so it
works in a **cascade**: a cheap first stage (BM25) keeps the top k documents of each
query, and only those k *candidates* are described by feature vectors and re-ranked
by the learned model (:mod:`mmir_lib.ir.ltr`). Whatever the first stage drops, no
re-ranker can bring back: :func:`first_stage_recall` measures that ceiling.

A feature describes the query alone, the document alone, or the pair:

=========================  =====  =================================================
name                       kind   value
=========================  =====  =================================================
``query_terms``            q      number of analysed query terms |q| (repeats count)
``query_idf_sum``          q      Σ idf_t over the distinct query terms in the dictionary
``query_idf_max``          q      max idf_t over them (0 when there is none)
``log_doc_length``         d      ln(1 + dl(d))
``log_distinct_terms``     d      ln(1 + number of distinct terms of d)
``bm25``                   q, d   BM25, k1 = 1.2, b = 0.75 (:func:`~mmir_lib.ir.bm25.bm25_scores`)
``bm15``                   q, d   BM25 with b = 0: no length normalisation
``bm11``                   q, d   BM25 with b = 1: full length normalisation
``tfidf_cosine``           q, d   cosine of lnc.ltc vectors (:func:`~mmir_lib.ir.scoring.tfidf_scores`)
``query_likelihood``       q, d   log P(q | d), Dirichlet μ = 100 (:mod:`~mmir_lib.ir.query_likelihood`)
``jaccard``                q, d   |q ∩ d| / |q ∪ d| of the term sets
``matched_fraction``       q, d   fraction of the distinct query terms that d contains
``proximity``              q, d   m / w: m ≥ 2 distinct query terms matched, w the
                                  shortest window of d holding all m (0 when m < 2)
``bm25_description``       q, d   BM25 of the topic's description, when one is given
=========================  =====  =================================================

idf_t = ln(N / n_t), as in :func:`~mmir_lib.ir.scoring.idf`. The window w counts
tokens including removed stop words (positions as in
:class:`~mmir_lib.ir.positional.PositionalIndex`): it is the span from the first to
the last of the m terms, end points included, so that w = m when they stand side by
side and ``proximity`` = 1.

No feature looks at the relevance judgements: labels come from the qrels
(:func:`grades`), features only from the query, the document and the collection.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import (check_array, check_choice, check_count, check_instance, check_optional, check_str_list,
                          describe)
from .bm25 import bm25_scores
from .collection import _check_docnos_of, make_run
from .evaluation import evaluate
from .index import InvertedIndex
from .positional import PositionalIndex
from .query_likelihood import query_likelihood_scores
from .scoring import document_norms, idf, jaccard_scores, tfidf_scores
from .trec import Qrels, Run, check_qrels, check_queries, check_run

__all__ = ["FEATURE_NAMES", "QUERY_FEATURES", "DESCRIPTION_FEATURE", "RankingData", "Standardizer",
           "first_stage", "first_stage_recall", "min_window", "extract_features", "normalize_per_query", "grades"]

#: Features computed for every (query, document) pair, in column order.
FEATURE_NAMES: tuple[str, ...] = (
    "query_terms", "query_idf_sum", "query_idf_max",
    "log_doc_length", "log_distinct_terms",
    "bm25", "bm15", "bm11", "tfidf_cosine", "query_likelihood", "jaccard", "matched_fraction", "proximity",
)
#: The features that depend on the query alone (the same value for all its candidates).
QUERY_FEATURES: tuple[str, ...] = FEATURE_NAMES[:3]
#: The extra, last column when the queries come with descriptions.
DESCRIPTION_FEATURE = "bm25_description"

_K1 = 1.2
_BM25_SETTINGS = {"bm25": 0.75, "bm15": 0.0, "bm11": 1.0}  # name -> b, all with k1 = 1.2
_MU = 100.0  # Dirichlet prior of the query-likelihood feature (that of the pooling run)


@dataclass(frozen=True, eq=False)
class RankingData:
    """Feature vectors of (query, candidate document) pairs, one row per pair.

    Rows are grouped by query (in the order of the queries given to
    :func:`extract_features`) and, within a query, in first-stage rank order.

    ``X``              (n, F) float64 feature matrix
    ``qids``           (n,) str: the query of each row
    ``docnos``         (n,) str: the document of each row
    ``doc_ids``        (n,) int64: its number in the index
    ``feature_names``  F names, the columns of X
    """

    X: np.ndarray
    qids: np.ndarray
    docnos: np.ndarray
    doc_ids: np.ndarray
    feature_names: tuple[str, ...]

    def __post_init__(self) -> None:
        check_array("X", self.X, ndim=2)
        n = len(self.X)
        for name in ("qids", "docnos"):
            labels = getattr(self, name)
            if not isinstance(labels, np.ndarray) or labels.shape != (n,) or \
                    not all(isinstance(label, str) for label in labels.tolist()):
                raise TypeError(f"{name} must be a 1-D array of str, one per row of X ({n}), got {describe(labels)}")
        check_array("doc_ids", self.doc_ids, kind="int", shape=(n,), low=0)
        if not isinstance(self.feature_names, tuple):
            raise TypeError(f"feature_names must be a tuple of str, got {describe(self.feature_names)}")
        if len(check_str_list("feature_names", self.feature_names)) != self.X.shape[1]:
            raise ValueError(f"feature_names must name the {self.X.shape[1]} columns of X, "
                             f"got {len(self.feature_names)} names")

    def __len__(self) -> int:
        return len(self.qids)

    def subset(self, qids: Sequence[str]) -> "RankingData":
        """The rows of the given queries only (row order kept)."""
        qids = check_str_list("qids", qids)
        unknown = set(qids) - set(self.qids.tolist())
        if unknown:
            raise ValueError(f"qids: no rows for queries {sorted(unknown)[:5]}")
        rows = np.isin(self.qids, list(qids))
        return RankingData(self.X[rows], self.qids[rows], self.docnos[rows], self.doc_ids[rows],
                           self.feature_names)

    def column(self, name: str) -> np.ndarray:
        """The (n,) column of feature ``name``."""
        check_choice("name", name, self.feature_names)
        return self.X[:, self.feature_names.index(name)]


class Standardizer:
    """z = (x − mean) / sd, column by column, with mean and sd of the *training* rows only.

    Fitting on the training rows and applying the same shift and scale to the test
    rows keeps the test set out of training (statistics of the test queries would
    otherwise leak into the model). A constant column (sd = 0) is only centred.

    Examples
    --------
    >>> s = Standardizer().fit(np.array([[1.0, 5.0], [3.0, 5.0]]))  # means 2, 5; sds 1, 0
    >>> s.transform(np.array([[2.0, 5.0], [5.0, 6.0]])).tolist()
    [[0.0, 0.0], [3.0, 1.0]]
    """

    mean: np.ndarray
    scale: np.ndarray

    def fit(self, X: np.ndarray) -> "Standardizer":
        X = check_array("X", X, ndim=2, nonempty=True)
        self.mean = X.mean(axis=0)
        sd = X.std(axis=0)
        self.scale = np.where(sd > 0, sd, 1.0)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = check_array("X", X, ndim=2, nonempty=True)
        if not hasattr(self, "mean"):
            raise ValueError("fit the Standardizer on training rows before transforming")
        if X.shape[1] != len(self.mean):
            raise ValueError(f"X has {X.shape[1]} features, the Standardizer was fitted on {len(self.mean)}")
        return (X - self.mean) / self.scale


def first_stage(
    index: InvertedIndex,
    docnos: Sequence[str],
    queries: Mapping[str, str],
    k: int = 100,
    exclude: Mapping[str, str] | None = None,
) -> Run:
    """The cascade's first stage: the BM25 (k1 = 1.2, b = 0.75) top ``k`` of each query.

    A run ``{qid: {docno: score}}`` as :func:`~mmir_lib.ir.collection.make_run`
    returns it (``exclude`` as there); only documents containing a query term.
    """
    k = check_count("k", k, low=1)
    return make_run(index, docnos, queries, bm25_scores, depth=k, exclude=exclude)


def first_stage_recall(run: Run, qrels: Qrels, k: int | None = None) -> dict[str, float]:
    """{qid: fraction of the judged relevant documents among the run's top k}.

    Recall@k = |relevant ∩ top k| / R (grade ≥ 1 is relevant; the whole run when k
    is None). A re-ranker only reorders the first stage's candidates, so this is
    the largest recall any re-ranking of them can reach: the cascade's ceiling.
    Ranks as trec_eval orders the run; queries judged but absent from the run
    count 0.

    Examples
    --------
    >>> run = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
    >>> first_stage_recall(run, {"q1": {"d2": 1, "d3": 2, "d9": 1, "d4": 0}}, k=2)
    {'q1': 0.3333333333333333}
    """
    check_run("run", run)
    check_qrels("qrels", qrels)
    k = check_optional(check_count, "k", k, low=1)
    measure = "set_recall" if k is None else f"recall_{k}"
    results = evaluate(run, qrels, measure, missing="zero")
    return {qid: values[measure] for qid, values in results.items()}


def _check_positions(positions: object) -> list[np.ndarray]:
    """At least one term, each with a non-empty 1-D array of positions."""
    if isinstance(positions, (str, bytes, Mapping)) or not isinstance(positions, Sequence):
        raise TypeError(f"positions must be a list of arrays of token positions, got {describe(positions)}")
    if len(positions) == 0:
        raise ValueError("positions must not be empty: min_window needs at least one term")
    return [check_array(f"positions[{i}]", p, kind="int", ndim=1, nonempty=True, low=0)
            for i, p in enumerate(positions)]


def min_window(positions: Sequence[np.ndarray]) -> int:
    """Length of the shortest span of token positions holding one position of each list.

    Parameters
    ----------
    positions : m >= 1 non-empty arrays, the positions of m different terms in one
        document.

    Returns
    -------
    w = min over windows [a, b] containing every term of (b − a + 1).

    Notes
    -----
    A sweep over the merged positions, left to right, with a heap of each term's
    latest position: the window ending at position p that holds every term starts at
    the smallest of the latest positions. O(P log m) for P positions in all.

    Examples
    --------
    >>> min_window([np.array([0, 9]), np.array([5, 11])])  # 9 .. 11
    3
    >>> min_window([np.array([4])])
    1
    """
    positions = _check_positions(positions)
    events = sorted((int(p), t) for t, term_positions in enumerate(positions) for p in term_positions)
    latest: dict[int, int] = {}
    heap: list[tuple[int, int]] = []  # (latest position, term); stale entries dropped lazily
    best = None
    for p, t in events:
        latest[t] = p
        heapq.heappush(heap, (p, t))
        if len(latest) == len(positions):
            while heap[0][0] != latest[heap[0][1]]:  # an older position of a term seen again
                heapq.heappop(heap)
            width = p - heap[0][0] + 1
            best = width if best is None else min(best, width)
    return best


def _query_features(index: InvertedIndex, terms: list[str]) -> list[float]:
    known = sorted({t for t in terms if index.term_id(t) is not None})
    term_idf = idf(index.df[[index.term_id(t) for t in known]], index.num_docs) if known else np.zeros(0)
    return [float(len(terms)), float(term_idf.sum()), float(term_idf.max(initial=0.0))]


def _check_candidates(docnos: list[str], queries: Mapping[str, str], run: Run,
                      descriptions: Mapping[str, str] | None) -> None:
    """Every query has candidates in the run, all of them documents of the collection
    (and a description, when descriptions are given)."""
    missing = [qid for qid in queries if qid not in run]
    if missing:
        raise ValueError(f"run has no candidates for queries {missing[:5]}")
    if descriptions is not None and not set(queries) <= set(descriptions):
        raise ValueError(f"descriptions lack queries {sorted(set(queries) - set(descriptions))[:5]}")
    known = set(docnos)
    for qid in queries:
        unknown = [d for d in run[qid] if d not in known]
        if unknown:
            raise ValueError(f"run, query {qid!r}: docnos {unknown[:3]} are not in the collection")


def extract_features(
    index: InvertedIndex,
    docnos: Sequence[str],
    texts: Sequence[str],
    queries: Mapping[str, str],
    run: Run,
    descriptions: Mapping[str, str] | None = None,
) -> RankingData:
    """The feature vector of every (query, candidate) pair of a first-stage run.

    Parameters
    ----------
    index : InvertedIndex with an analyzer (the collection's)
    docnos : N docnos, one per document of the index
    texts : N texts, the documents as they were indexed (for the positions that
        ``proximity`` needs; only the candidates are re-analysed)
    queries : {qid: query text}
    run : {qid: {docno: score}}, the candidates (e.g. :func:`first_stage`); every
        qid of ``queries`` must be in it
    descriptions : {qid: text}, optional
        When given, a last column :data:`DESCRIPTION_FEATURE` holds the BM25 score
        of the description (a second, longer statement of the need).

    Returns
    -------
    RankingData with X of shape (n, F): n = Σ_q |run[q]| rows (queries in the order
    of ``queries``, candidates in run order), F = len(FEATURE_NAMES) (+ 1).
    Columns are described in the module docstring.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> texts = ["the cat sat on the mat", "a dog and a cat", "the dog barked"]
    >>> index = InvertedIndex.from_texts(texts, Analyzer(stopwords={"the", "a", "on", "and"}))
    >>> docnos = ["d1", "d2", "d3"]
    >>> run = first_stage(index, docnos, {"q": "cat mat"}, k=10)
    >>> data = extract_features(index, docnos, texts, {"q": "cat mat"}, run)
    >>> data.X.shape, data.docnos.tolist()
    ((2, 13), ['d1', 'd2'])
    >>> # d1: cat at position 1, mat at 5 (stop words keep their places): window 5
    >>> data.column("matched_fraction").tolist(), data.column("proximity").tolist()
    ([1.0, 0.5], [0.4, 0.0])
    """
    check_instance("index", index, InvertedIndex)
    docnos = _check_docnos_of(index, docnos)
    texts = check_str_list("texts", texts)
    check_queries("queries", queries)
    check_run("run", run)
    check_optional(check_queries, "descriptions", descriptions)
    if index.analyzer is None:
        raise ValueError("index has no analyzer; build it with InvertedIndex.from_texts so that "
                         "queries and the candidates' positions are analysed as its documents were")
    if len(texts) != index.num_docs:
        raise ValueError(f"texts must have one entry per document ({index.num_docs}), got {len(texts)}")
    _check_candidates(docnos, queries, run, descriptions)
    position = {d: i for i, d in enumerate(docnos)}

    candidates = sorted({position[d] for qid in queries for d in run[qid]})
    local = {d: i for i, d in enumerate(candidates)}  # positions only for the candidates
    positional = PositionalIndex.from_texts([texts[d] for d in candidates], index.analyzer) if candidates else None
    norms = document_norms(index)
    distinct_terms = np.bincount(index.postings.indices, minlength=index.num_docs)
    names = FEATURE_NAMES + ((DESCRIPTION_FEATURE,) if descriptions is not None else ())

    blocks, row_qids, row_docs = [], [], []
    for qid, query in queries.items():
        doc_ids = np.array([position[d] for d in run[qid]], dtype=np.int64)
        terms = index.query_terms(query)
        distinct = sorted({t for t in terms if index.term_id(t) is not None})
        columns: dict[str, np.ndarray] = {}
        for name, value in zip(QUERY_FEATURES, _query_features(index, terms)):
            columns[name] = np.full(len(doc_ids), value)
        columns["log_doc_length"] = np.log1p(index.doc_lengths[doc_ids])
        columns["log_distinct_terms"] = np.log1p(distinct_terms[doc_ids])
        for name, b in _BM25_SETTINGS.items():
            columns[name] = bm25_scores(index, terms, k1=_K1, b=b)[0][doc_ids]
        columns["tfidf_cosine"] = tfidf_scores(index, terms, norms=norms)[0][doc_ids]
        columns["query_likelihood"] = query_likelihood_scores(index, terms, mu=_MU)[0][doc_ids]
        columns["jaccard"] = jaccard_scores(index, terms)[0][doc_ids]
        row_of = {local[d]: i for i, d in enumerate(doc_ids)}
        found: list[list[np.ndarray]] = [[] for _ in doc_ids]  # positions of each matched query term
        for term in distinct if row_of else ():
            for doc, term_positions in positional.postings_with_positions(term):
                if doc in row_of:
                    found[row_of[doc]].append(term_positions)
        matched = np.array([len(f) for f in found], dtype=np.float64)
        proximity = np.array([len(f) / min_window(f) if len(f) >= 2 else 0.0 for f in found])
        columns["matched_fraction"] = matched / max(len(distinct), 1)
        columns["proximity"] = proximity
        if descriptions is not None:
            columns[DESCRIPTION_FEATURE] = bm25_scores(index, descriptions[qid], k1=_K1, b=0.75)[0][doc_ids]
        blocks.append(np.column_stack([columns[name] for name in names]))
        row_qids += [qid] * len(doc_ids)
        row_docs.append(doc_ids)

    X = np.vstack(blocks) if blocks else np.zeros((0, len(names)))
    doc_ids = np.concatenate(row_docs) if row_docs else np.zeros(0, dtype=np.int64)
    return RankingData(X, np.array(row_qids, dtype=str), np.array([docnos[d] for d in doc_ids], dtype=str),
                       doc_ids, names)


def normalize_per_query(data: RankingData) -> RankingData:
    """Standardise every feature except the query features *within each query*.

    x' = (x − mean_q) / sd_q over the candidates of query q (x − mean_q when sd_q = 0).
    A BM25 score of 8 is high for a two-word query and low for a ten-word one;
    after this, a feature says how a candidate compares with the other candidates
    of the same query, which is what a ranking has to decide. It uses no label and
    no other query, so it can be applied to training and test queries alike (the
    LETOR collections ship their features normalised per query in the same spirit,
    with min-max scaling). The query features are left as they are: only they can
    tell queries apart.

    Examples
    --------
    >>> X = np.array([[2.0, 1.0, 5.0], [2.0, 3.0, 5.0], [7.0, 4.0, 0.0]])
    >>> data = RankingData(X, np.array(["a", "a", "b"]), np.array(["d1", "d2", "d3"]), np.arange(3),
    ...                    ("query_terms", "bm25", "jaccard"))
    >>> normalize_per_query(data).X.tolist()
    [[2.0, -1.0, 0.0], [2.0, 1.0, 0.0], [7.0, 0.0, 0.0]]
    """
    check_instance("data", data, RankingData)
    X = data.X.copy()
    columns = [i for i, name in enumerate(data.feature_names) if name not in QUERY_FEATURES]
    for qid in dict.fromkeys(data.qids.tolist()):
        rows = np.flatnonzero(data.qids == qid)
        block = X[np.ix_(rows, columns)]
        sd = block.std(axis=0)
        X[np.ix_(rows, columns)] = (block - block.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    return RankingData(X, data.qids, data.docnos, data.doc_ids, data.feature_names)


def grades(data: RankingData, qrels: Qrels) -> np.ndarray:
    """(n,) int64 label of each row: its grade in the qrels, 0 when unjudged.

    Treating an unjudged candidate as not relevant is trec_eval's convention; with
    pooled judgements some of them are relevant, a bias the book's chapter measures.
    """
    check_instance("data", data, RankingData)
    check_qrels("qrels", qrels)
    return np.array([qrels.get(q, {}).get(d, 0) for q, d in zip(data.qids, data.docnos)], dtype=np.int64)
