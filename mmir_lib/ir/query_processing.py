"""Top-k query processing over an inverted index: four algorithms, one answer.

All four return exactly the top ``k`` of :func:`mmir_lib.ir.bm25.bm25_search` (same
documents, same order, same float64 scores, ties broken by the smaller document
number); they differ in *how much work* they do, which each reports in a
:class:`WorkCounts`:

* :func:`taat_top_k`, term at a time: one postings list after the other, each
  weight added into an accumulator with one slot per document;
* :func:`daat_top_k`, document at a time: one cursor per postings list, all moved
  forward together; each document is scored completely, then offered to a
  min-heap holding the best k so far;
* :func:`maxscore_top_k`, DAAT with early termination (Turtle and Flood, 1995):
  terms whose score upper bounds cannot lift a document into the heap stop
  generating candidates and are only probed;
* :func:`wand_top_k`, DAAT with early termination (Broder et al., 2003): cursors
  sorted by document; a pivot document is scored only if the upper bounds of the
  lists that reach it can beat the heap.

Scores
------
A document's score is RSV(q, d) = Σ_{t ∈ q} w_t(d), one BM25 term weight per query
term (a repeated query term counts each time), with the variant functions of
:data:`mmir_lib.ir.bm25.VARIANTS`. A posting's weight does not depend on the query,
so it is precomputed once per index and parameter setting: the *impacts* of
:func:`mmir_lib.ir.bm25.bm25_impacts`, the very numbers that ``bm25_scores`` adds.
(Production engines store such impacts, usually quantised, in the index. The work
counts below count what each algorithm *reads and adds* at query time.) A shard
scoring with global statistics computes its weights with the same variant function
and the same array layout (one n_t per posting), so they too are bit-for-bit those
of a single index over the whole collection.

Floating-point addition is not associative: w1 + w2 + w3 summed in another order
can differ in the last bit, enough to swap two documents with nearly equal scores.
So every algorithm here computes a candidate's final score the same way brute force
does: starting from 0.0 and adding the weights **in query-term order**. Upper
bounds (for pruning) may be summed in any order; a document is pruned only when its
bound, inflated by a relative margin of 1e-9 (far above the ~1e-15 relative error
of summing a few terms), does not exceed the heap's threshold. Pruning is therefore
safe, and the final scores are identical to brute force.

Tie rule
--------
The heap orders entries by (score, −doc): its root is the lowest score and, among
equal scores, the *largest* document number, i.e. the entry that ranks last under
the book's rule. DAAT visits documents in increasing order, so a newcomer that only
ties with the root never displaces it: a document enters a full heap only with a
score strictly above the threshold θ = the root's score.

Work counts
-----------
``postings_scored``      postings whose weight was added to some (partial) score
``postings_skipped``     the other postings of the query terms' lists, never scored;
                         ``scored + skipped`` = the total length of the lists
``heap_insertions``      pushes onto (or replacements in) the top-k heap
``accumulators_touched`` documents that received a (partial) score: accumulator
                         slots used by TAAT, candidate documents evaluated by DAAT
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..validation import (check_array, check_choice, check_count, check_instance, check_mapping, check_number,
                          check_optional, check_probability, check_str, check_str_list, describe)
from .bm25 import VARIANTS, bm25_impacts
from .index import InvertedIndex
from ..ranking import top_k

__all__ = [
    "CollectionStatistics",
    "TermPostings",
    "WorkCounts",
    "QueryResult",
    "scored_postings",
    "taat_top_k",
    "daat_top_k",
    "maxscore_top_k",
    "wand_top_k",
    "ALGORITHMS",
]

#: Bounds are inflated by this factor before they are compared with the threshold, so
#: that rounding in a sum of upper bounds can never prune a document that belongs in
#: the top k (see the module docstring).
_ROUNDING_MARGIN = 1.0 + 1e-9


@dataclass(frozen=True)
class CollectionStatistics:
    """The statistics BM25 needs besides tf and dl: N, the total length, and n_t.

    ``num_docs`` N, ``total_length`` Σ_d dl(d) (an int, so that sums over shards are
    exact), ``df`` term -> n_t (only the terms that will be scored need to be there).
    ``avdl`` = total_length / N, which equals ``InvertedIndex.avdl`` to the last bit.
    """

    num_docs: int
    total_length: int
    df: Mapping[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_docs", check_count("num_docs", self.num_docs, low=1))
        object.__setattr__(self, "total_length", check_count("total_length", self.total_length))
        check_mapping("df", self.df)
        for term, n in self.df.items():
            check_str("df's terms", term, allow_empty=True)
            check_count(f"df[{term!r}]", n, high=self.num_docs)
        if self.df and max(self.df.values()) > self.total_length:
            raise ValueError(f"total_length must be at least every n_t of df (a document that contains a term "
                             f"has length >= 1), got {self.total_length} < {max(self.df.values())}")

    @property
    def avdl(self) -> float:
        return self.total_length / self.num_docs

    @classmethod
    def of(cls, index: InvertedIndex, terms: Sequence[str] | None = None) -> "CollectionStatistics":
        """The statistics of ``index``, with n_t for ``terms`` (all terms when omitted).

        >>> from mmir_lib.ir import Analyzer, InvertedIndex
        >>> toy = InvertedIndex.from_texts(["the cat sat", "the cat sat on the cat", "a dog"], Analyzer())
        >>> CollectionStatistics.of(toy, ["cat", "zebra"])
        CollectionStatistics(num_docs=3, total_length=11, df={'cat': 2, 'zebra': 0})
        """
        check_instance("index", index, InvertedIndex)
        terms = check_optional(check_str_list, "terms", terms)
        if terms is None:
            df = dict(zip(index.terms.tolist(), index.df.tolist()))
        else:
            df = {t: len(index.postings_list(t)[0]) for t in terms}
        return cls(index.num_docs, int(index.doc_lengths.sum()), df)

    @classmethod
    def combine(cls, parts: Sequence["CollectionStatistics"]) -> "CollectionStatistics":
        """Global statistics of a collection split into ``parts``: every count is a sum.

        >>> a = CollectionStatistics(3, 11, {"cat": 2})
        >>> b = CollectionStatistics(2, 5, {"cat": 1, "dog": 2})
        >>> CollectionStatistics.combine([a, b])
        CollectionStatistics(num_docs=5, total_length=16, df={'cat': 3, 'dog': 2})
        """
        if isinstance(parts, (str, bytes)) or not isinstance(parts, Sequence):
            raise TypeError(f"parts must be a list of CollectionStatistics, got {describe(parts)}")
        if not parts:
            raise ValueError("parts must hold at least one CollectionStatistics to combine")
        for i, part in enumerate(parts):
            check_instance(f"parts[{i}]", part, CollectionStatistics)
        df: dict[str, int] = {}
        for part in parts:
            for term, n in part.df.items():
                df[term] = df.get(term, 0) + n
        return cls(sum(p.num_docs for p in parts), sum(p.total_length for p in parts), df)


@dataclass(frozen=True)
class TermPostings:
    """One query term's postings list with the BM25 weight of every posting.

    ``doc_ids`` (n_t,) int, increasing; ``weights`` (n_t,) float64, all >= 0.
    """

    term: str
    doc_ids: np.ndarray
    weights: np.ndarray

    def __post_init__(self) -> None:
        check_str("term", self.term, allow_empty=True)
        doc_ids = check_array("doc_ids", self.doc_ids, kind="int", ndim=1, nonempty=True, low=0)
        weights = check_array("weights", self.weights, ndim=1, low=0)
        if np.any(np.diff(doc_ids) <= 0):
            raise ValueError("doc_ids must be strictly increasing (a postings list)")
        if len(weights) != len(doc_ids):
            raise ValueError(f"weights must hold one weight per posting: {len(doc_ids)} doc_ids, {len(weights)} weights")
        object.__setattr__(self, "doc_ids", doc_ids)
        object.__setattr__(self, "weights", weights)

    @property
    def upper_bound(self) -> float:
        """max_d w_t(d): no document can get more than this from the term."""
        return float(self.weights.max())


@dataclass
class WorkCounts:
    """What one query cost (see the module docstring for each count's meaning)."""

    postings_scored: int = 0
    postings_skipped: int = 0
    heap_insertions: int = 0
    accumulators_touched: int = 0


@dataclass(frozen=True)
class QueryResult:
    """The top k: ``doc_ids`` (m,) int64 and ``scores`` (m,) float64, best first,
    m <= k; and the ``work`` it took."""

    doc_ids: np.ndarray
    scores: np.ndarray
    work: WorkCounts


def scored_postings(
    index: InvertedIndex,
    query: str | Sequence[str],
    *,
    k1: float = 1.2,
    b: float = 0.75,
    variant: str = "seed",
    statistics: CollectionStatistics | None = None,
) -> list[TermPostings]:
    """The query's postings lists with a BM25 weight for every posting, in query order.

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str
        Analysed as in :func:`~mmir_lib.ir.bm25.bm25_scores`. A repeated term gives
        one entry per occurrence; a term with no postings in ``index`` gives none.
    k1, b, variant
        As in :func:`~mmir_lib.ir.bm25.bm25_scores`.
    statistics : CollectionStatistics, optional
        N, avdl and n_t to score with. Default: the index's own. A shard of a larger
        collection passes the *global* statistics here.

    Returns
    -------
    list of TermPostings

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["the cat sat", "the cat sat on the cat", "a dog"], Analyzer())
    >>> [(p.term, p.doc_ids.tolist(), p.weights.round(3).tolist()) for p in scored_postings(toy, "cat dog")]
    [('cat', [0, 1], [0.199, 0.215]), ('dog', [2], [0.613])]
    """
    check_instance("index", index, InvertedIndex)
    k1 = check_number("k1", k1, low=0)
    b = check_probability("b", b)
    check_choice("variant", variant, VARIANTS)
    check_optional(check_instance, "statistics", statistics, kind=CollectionStatistics)
    if statistics is not None and (statistics.num_docs < index.num_docs
                                   or statistics.total_length < index.doc_lengths.sum()):
        raise ValueError(f"statistics describe a smaller collection (N = {statistics.num_docs}, "
                         f"total length {statistics.total_length}) than this index holds")
    terms = index.query_terms(query)
    impacts = bm25_impacts(index, k1, b, variant)
    lists = []
    for term in terms:
        t = index.term_id(term)
        if t is None:
            continue
        postings = slice(index.postings.indptr[t], index.postings.indptr[t + 1])
        doc_ids = index.postings.indices[postings]
        if statistics is None:
            weights = impacts[postings]
        else:
            df = statistics.df.get(term, 0)
            if df < len(doc_ids):
                raise ValueError(f"statistics give n_t = {df} for {term!r} (or none), fewer than the "
                                 f"{len(doc_ids)} documents of this index that contain it")
            # laid out as bm25_impacts lays out a whole index: one n_t per posting
            weights = VARIANTS[variant](index.postings.data[postings], index.doc_lengths[doc_ids],
                                        statistics.avdl, np.full(len(doc_ids), df, dtype=np.int64),
                                        statistics.num_docs, k1, b)
        lists.append(TermPostings(term, doc_ids, weights))
    return lists


def _query_sum(contributions: list[tuple[int, float]]) -> float:
    """Σ of (term position, weight) pairs added in query-term order, from 0.0."""
    score = 0.0
    for _, w in sorted(contributions):
        score += w
    return score


class _TopKHeap:
    """A min-heap of (score, −doc) holding the best k documents seen so far."""

    def __init__(self, k: int, work: WorkCounts):
        self.k, self.work, self.entries = k, work, []

    @property
    def threshold(self) -> float:
        """θ: the score a newcomer must beat, −inf until the heap is full."""
        return self.entries[0][0] if len(self.entries) == self.k else -np.inf

    def offer(self, doc: int, score: float) -> bool:
        """Insert ``doc`` if it ranks above the current k-th; say whether it did."""
        entry = (score, -doc)
        if len(self.entries) < self.k:
            heapq.heappush(self.entries, entry)
        elif entry > self.entries[0]:
            heapq.heapreplace(self.entries, entry)
        else:
            return False
        self.work.heap_insertions += 1
        return True

    def result(self) -> QueryResult:
        best = sorted(self.entries, reverse=True)  # score descending, then doc ascending
        doc_ids = np.array([-d for _, d in best], dtype=np.int64)
        scores = np.array([s for s, _ in best], dtype=np.float64)
        return QueryResult(doc_ids, scores, self.work)


def _finish(heap: _TopKHeap, lists: list[TermPostings]) -> QueryResult:
    heap.work.postings_skipped = sum(len(p.doc_ids) for p in lists) - heap.work.postings_scored
    return heap.result()


def taat_top_k(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params) -> QueryResult:
    """Term at a time: accumulate every postings list into an array, then select.

    For each query term in turn, ``acc[d] += w_t(d)`` for every posting (d, tf) of
    the term (one vectorised step per list). Then the top ``k`` of the touched
    accumulators are selected with :func:`~mmir_lib.ranking.top_k` (a partial
    sort, no heap). Memory: one accumulator per document. Keyword ``params``: k1, b,
    variant, statistics (see :func:`scored_postings`).

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["the cat sat", "the cat sat on the cat", "a dog"], Analyzer())
    >>> result = taat_top_k(toy, "cat dog", k=2)
    >>> result.doc_ids.tolist(), result.work
    ([2, 1], WorkCounts(postings_scored=3, postings_skipped=0, heap_insertions=0, accumulators_touched=3))
    """
    k = check_count("k", k, low=1)
    lists = scored_postings(index, query, **params)
    work = WorkCounts()
    acc = np.zeros(index.num_docs, dtype=np.float64)
    touched = np.zeros(index.num_docs, dtype=bool)
    for p in lists:
        acc[p.doc_ids] += p.weights  # query-term order, as bm25_scores
        touched[p.doc_ids] = True
        work.postings_scored += len(p.doc_ids)
    work.accumulators_touched = int(touched.sum())
    doc_ids, scores = top_k(acc, k, touched)
    return QueryResult(doc_ids, scores, work)


class _Cursor:
    """A position in one postings list, as plain Python lists (fast to step in a loop)."""

    END = float("inf")

    def __init__(self, position: int, postings: TermPostings):
        self.position = position  # of the term in the query: fixes the summation order
        self.docs = postings.doc_ids.tolist()
        self.weights = postings.weights.tolist()
        self.upper_bound = postings.upper_bound
        self.i = 0

    @property
    def doc(self):
        return self.docs[self.i] if self.i < len(self.docs) else self.END

    def next(self) -> None:
        self.i += 1

    def seek(self, target: int) -> None:
        """Move to the first posting with doc >= target (binary search, as skip
        pointers would let an engine jump without decoding the postings in between)."""
        self.i = bisect.bisect_left(self.docs, target, lo=self.i)


def _cursors(lists: list[TermPostings]) -> list[_Cursor]:
    return [_Cursor(position, p) for position, p in enumerate(lists)]


def daat_top_k(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params) -> QueryResult:
    """Document at a time: move all cursors together, score each document once.

    The next document to score is the smallest document under any cursor; every
    cursor positioned on it contributes its weight (added in query-term order) and
    moves on. The complete score is offered to a size-k min-heap. Memory: one cursor
    per term and k heap entries, whatever N is. Keyword ``params`` as in
    :func:`taat_top_k`.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["the cat sat", "the cat sat on the cat", "a dog"], Analyzer())
    >>> result = daat_top_k(toy, "cat dog", k=2)
    >>> result.doc_ids.tolist(), result.work
    ([2, 1], WorkCounts(postings_scored=3, postings_skipped=0, heap_insertions=3, accumulators_touched=3))
    """
    k = check_count("k", k, low=1)
    lists = scored_postings(index, query, **params)
    cursors = _cursors(lists)
    heap = _TopKHeap(k, WorkCounts())
    while cursors:
        doc = min(c.doc for c in cursors)
        if doc == _Cursor.END:
            break
        score = 0.0
        for c in cursors:  # cursors are in query-term order
            if c.doc == doc:
                score += c.weights[c.i]
                c.next()
                heap.work.postings_scored += 1
        heap.work.accumulators_touched += 1
        heap.offer(doc, score)
    return _finish(heap, lists)


def maxscore_top_k(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params) -> QueryResult:
    """DAAT with MaxScore early termination (Turtle and Flood, 1995).

    Sort the terms by their upper bound u_t, smallest first. Once the heap is full
    with threshold θ, the longest prefix of that order whose bounds sum to at most θ
    are **non-essential**: a document containing only those terms cannot enter the
    heap. Candidates are therefore taken from the essential lists only. For each
    candidate the essential weights are added; then the non-essential lists are
    probed from the largest bound down (each cursor *seeks* to the candidate,
    skipping the postings in between), and the candidate is abandoned as soon as its
    partial score plus the bounds still unprobed cannot beat θ. Exact: returns the
    same top k as :func:`daat_top_k`. Keyword ``params`` as in :func:`taat_top_k`.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["a b", "a", "a", "a c", "a", "b"], Analyzer())
    >>> result = maxscore_top_k(toy, "a b c", k=1)
    >>> result.doc_ids.tolist(), result.work.postings_scored, result.work.postings_skipped
    ([3], 4, 4)
    >>> daat_top_k(toy, "a b c", k=1).work.postings_scored  # DAAT scores all 8 postings
    8
    """
    k = check_count("k", k, low=1)
    lists = scored_postings(index, query, **params)
    by_bound = sorted(_cursors(lists), key=lambda c: c.upper_bound)
    # prefix[j] = sum of the j smallest bounds: what the first j terms can give at most
    prefix = [0.0]
    for c in by_bound:
        prefix.append(prefix[-1] + c.upper_bound)
    heap = _TopKHeap(k, WorkCounts())
    n_nonessential = 0
    while n_nonessential < len(by_bound):
        essential = by_bound[n_nonessential:]
        doc = min(c.doc for c in essential)
        if doc == _Cursor.END:
            break
        contributions = []
        for c in essential:
            if c.doc == doc:
                contributions.append((c.position, c.weights[c.i]))
                c.next()
        heap.work.postings_scored += len(contributions)
        heap.work.accumulators_touched += 1
        partial = sum(w for _, w in contributions)
        for j in range(n_nonessential - 1, -1, -1):  # largest non-essential bound first
            # best case: the partial score plus the bounds of terms 0..j, still unprobed
            # (only sums of non-negative numbers, so the rounding margin covers them)
            if (partial + prefix[j + 1]) * _ROUNDING_MARGIN <= heap.threshold:
                break  # even the best case cannot enter the heap: abandon the candidate
            c = by_bound[j]
            c.seek(doc)
            if c.doc == doc:
                contributions.append((c.position, c.weights[c.i]))
                heap.work.postings_scored += 1
                partial += c.weights[c.i]
        else:
            if heap.offer(doc, _query_sum(contributions)):
                theta = heap.threshold
                while (n_nonessential < len(by_bound)
                       and prefix[n_nonessential + 1] * _ROUNDING_MARGIN <= theta):
                    n_nonessential += 1
    return _finish(heap, lists)


def wand_top_k(index: InvertedIndex, query: str | Sequence[str], k: int = 10, **params) -> QueryResult:
    """DAAT with WAND early termination (Broder et al., 2003).

    Keep the cursors sorted by their current document. Walk that order adding upper
    bounds until the sum exceeds the threshold θ: the cursor where this happens is
    the **pivot**, and no document before the pivot's document can beat θ (the
    lists that could reach it are too weak). If the first cursor already sits on
    the pivot document, score it completely and offer it to the heap; otherwise
    seek one of the cursors before the pivot (the one with the largest bound) to the
    pivot document, skipping everything in between. When no prefix of bounds can
    exceed θ, stop. Exact: returns the same top k as :func:`daat_top_k`. Keyword
    ``params`` as in :func:`taat_top_k`.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer, InvertedIndex
    >>> toy = InvertedIndex.from_texts(["a b", "a", "a", "a c", "a", "b"], Analyzer())
    >>> result = wand_top_k(toy, "a b c", k=1)
    >>> result.doc_ids.tolist(), result.work.postings_scored, result.work.postings_skipped
    ([3], 4, 4)
    """
    k = check_count("k", k, low=1)
    lists = scored_postings(index, query, **params)
    cursors = _cursors(lists)
    heap = _TopKHeap(k, WorkCounts())
    while True:
        cursors.sort(key=lambda c: (c.doc, c.position))
        theta, reach, pivot = heap.threshold, 0.0, None
        for r, c in enumerate(cursors):
            if c.doc == _Cursor.END:
                break
            reach += c.upper_bound
            if reach * _ROUNDING_MARGIN > theta:
                pivot = r
                break
        if pivot is None:
            break  # no document left can beat θ
        pivot_doc = cursors[pivot].doc
        if cursors[0].doc == pivot_doc:
            contributions = []
            for c in cursors:
                if c.doc != pivot_doc:
                    break  # sorted: the rest are further on
                contributions.append((c.position, c.weights[c.i]))
                c.next()
            heap.work.postings_scored += len(contributions)
            heap.work.accumulators_touched += 1
            heap.offer(pivot_doc, _query_sum(contributions))
        else:
            lagging = [c for c in cursors[:pivot] if c.doc < pivot_doc]
            max(lagging, key=lambda c: c.upper_bound).seek(pivot_doc)
    return _finish(heap, lists)


#: Algorithm name -> function, all with the signature ``(index, query, k, **params)``.
ALGORITHMS = {"taat": taat_top_k, "daat": daat_top_k, "maxscore": maxscore_top_k, "wand": wand_top_k}
