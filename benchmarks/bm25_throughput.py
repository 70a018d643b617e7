"""BM25 top-10 retrieval, side by side: mmir_lib vs bm25s (numpy backend) vs rank_bm25.

Two collections, each indexed by all three libraries in this one process:

(a) every Shakespeare speech, analysed once by the book's analyzer (stop words
    removed, Porter stems); the queries are the BM25 chapter's sixteen;
(b) a seeded synthetic collection: 100,000 documents whose lengths are
    Poisson(100) (at least 1 term), every term drawn from a Zipf distribution
    (s = 1) over a vocabulary of 50,000 terms, and 1,000 queries of 3 to 5
    distinct terms drawn from the same distribution. Queries drawn like this are
    heavy with the commonest terms, whose postings lists cover most documents:
    the hard case for throughput.

All three libraries receive the same documents as lists of terms (no analyzer
runs inside the measurements) and score with the same formula: Robertson's idf,
floored at 0, with k1 = 1.2 and b = 0.75. mmir_lib and bm25s leave out the
(k1 + 1) factor; rank_bm25's BM25Okapi(epsilon=0) keeps it, so its scores are
divided by (k1 + 1) before they are compared (tests/ir/test_bm25_reference.py).

Measured for each library:

* index build: from the term lists to an index ready to answer queries. For
  mmir_lib this includes precomputing the BM25 impacts (``bm25_impacts``), since
  bm25s precomputes the same weights inside ``index``;
* top-10 retrieval, each library called the way it is meant to be called for
  top-k: ``bm25_search`` per query; bm25s ``retrieve(queries, k=10)`` on the whole
  batch, single-threaded (``n_threads=0``, its default: no thread pool); rank_bm25
  ``get_top_n`` per query;
* scoring only: a score for every document, without the top-k step.

A second table splits off the top-10 selection on (b): numpy's ``argpartition``
as bm25s calls it, on BM25 scores and on random scores of the same size, and
mmir_lib's ``top_k``.

Every timing is the best of up to three passes (a single pass when one takes more
than two seconds). rank_bm25 scans every document for every query term in Python,
so it is timed on the first 50 queries of each collection only.

Correctness is asserted, not assumed: for every timed query, each library's ten
scores equal mmir_lib's, rank by rank (to float32 precision for bm25s, which
stores float32 weights; to 1e-9 for rank_bm25), and every document it returns
has that score under mmir_lib. Only documents tied in score may come back in
another order; how many queries had exactly mmir_lib's ten documents, in
mmir_lib's order, is counted.

Run ``python benchmarks/bm25_throughput.py`` for this table alone, or
``make bench`` for every benchmark (``benchmarks/run_all.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import bm25s
import numpy as np
import rank_bm25

from mmir_lib.data import shakespeare_speeches
from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex, bm25_scores, bm25_search, top_k
from mmir_lib.ir.bm25 import bm25_impacts

from bm25_latency import QUERIES as SHAKESPEARE_QUERIES  # benchmarks/ is on sys.path when run

Terms = list[str]


@dataclass(frozen=True)
class Settings:
    """Everything that defines the benchmark; printed with the results."""

    seed: int = 2024
    num_docs: int = 100_000
    vocabulary_size: int = 50_000
    zipf_exponent: float = 1.0
    mean_doc_length: float = 100.0
    num_queries: int = 1_000
    query_terms: tuple[int, int] = (3, 5)  # inclusive range
    k: int = 10
    k1: float = 1.2
    b: float = 0.75
    rank_bm25_queries: int = 50  # rank_bm25 is timed on the first queries only
    selection_queries: int = 100  # queries of (b) for the top-10 selection table
    shakespeare_rounds: int = 25  # the 16 chapter queries, repeated for a steadier rate
    repeats: int = 3  # best of this many passes...
    pass_budget_s: float = 2.0  # ...unless a pass takes longer than this


SETTINGS = Settings()


# ---- the collections --------------------------------------------------------------------
def zipf_sampler(settings: Settings, rng: np.random.Generator) -> Callable[[int], np.ndarray]:
    """draw(size) -> term indices i in 0..V-1 with P(i) ∝ (i + 1)^(-s): index 0 is the
    commonest term. Inverse-CDF sampling: a uniform number in [0, 1) falls in term i's
    slice of the cumulative distribution with probability P(i)."""
    ranks = np.arange(1, settings.vocabulary_size + 1)
    cdf = np.cumsum(ranks ** -settings.zipf_exponent)
    cdf /= cdf[-1]
    return lambda size: np.searchsorted(cdf, rng.random(size), side="right")


def synthetic_collection(settings: Settings = SETTINGS) -> tuple[list[Terms], list[Terms]]:
    """(documents, queries) as term lists; term "w1" is the commonest, "w2" the next..."""
    rng = np.random.default_rng(settings.seed)
    draw = zipf_sampler(settings, rng)
    vocabulary = [f"w{r}" for r in range(1, settings.vocabulary_size + 1)]
    lengths = np.maximum(rng.poisson(settings.mean_doc_length, settings.num_docs), 1)
    term_ranks = draw(int(lengths.sum())).tolist()
    ends = np.cumsum(lengths).tolist()
    documents = [[vocabulary[r] for r in term_ranks[end - n:end]] for end, n in zip(ends, lengths.tolist())]
    queries = []
    low, high = settings.query_terms
    for n_terms in rng.integers(low, high + 1, settings.num_queries):
        query: list[str] = []
        while len(query) < n_terms:  # distinct terms, in the order drawn
            term = vocabulary[int(draw(1)[0])]
            if term not in query:
                query.append(term)
        queries.append(query)
    return documents, queries


def shakespeare_collection(settings: Settings = SETTINGS) -> tuple[list[Terms], list[Terms]]:
    """(analysed speeches, analysed chapter queries repeated ``shakespeare_rounds`` times)."""
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    documents = [analyzer(s.text) for s in shakespeare_speeches()]
    return documents, [analyzer(q) for q in SHAKESPEARE_QUERIES] * settings.shakespeare_rounds


# ---- timing -------------------------------------------------------------------------------
def best_time(fn: Callable[[], object], settings: Settings = SETTINGS) -> tuple[float, object]:
    """(seconds of the fastest pass, result of the last pass)."""
    best, result = float("inf"), None
    for _ in range(settings.repeats):
        start = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        if elapsed > settings.pass_budget_s:
            break
    return best, result


# ---- the three libraries, called as each is meant to be called --------------------------------
Ranking = tuple[np.ndarray, np.ndarray]  # (doc ids, scores), best first


class MmirLib:
    name = "mmir_lib"

    def __init__(self, documents: list[Terms], settings: Settings):
        self.params = dict(k1=settings.k1, b=settings.b, variant="robertson")
        self.index = InvertedIndex.from_tokens(documents)
        bm25_impacts(self.index, **self.params)  # the precomputed weights, as bm25s does

    def search(self, queries: list[Terms], k: int) -> list[Ranking]:
        return [bm25_search(self.index, q, k=k, **self.params) for q in queries]

    def score(self, queries: list[Terms]) -> None:
        for q in queries:
            bm25_scores(self.index, q, **self.params)

    def scores_of(self, query: Terms) -> np.ndarray:
        """The score of every document (for the check)."""
        return bm25_scores(self.index, query, **self.params)[0]

    def postings(self, query: Terms) -> int:
        """How many postings the query's terms have: the work of term-at-a-time scoring."""
        return sum(int(self.index.df[t]) for t in map(self.index.term_id, query) if t is not None)


class Bm25s:
    name = "bm25s (numpy)"

    def __init__(self, documents: list[Terms], settings: Settings):
        self.retriever = bm25s.BM25(k1=settings.k1, b=settings.b, method="robertson", backend="numpy")
        self.retriever.index(documents, show_progress=False)

    def search(self, queries: list[Terms], k: int) -> list[Ranking]:
        results = self.retriever.retrieve(queries, k=k, n_threads=0, show_progress=False)
        return list(zip(results.documents, results.scores))

    def score(self, queries: list[Terms]) -> None:
        for q in queries:
            self.retriever.get_scores(q)


class RankBm25:
    name = "rank_bm25"

    def __init__(self, documents: list[Terms], settings: Settings):
        self.okapi = rank_bm25.BM25Okapi(documents, k1=settings.k1, b=settings.b, epsilon=0.0)
        self.doc_numbers = list(range(len(documents)))
        self.scale = settings.k1 + 1  # BM25Okapi keeps the (k1 + 1) numerator

    def search(self, queries: list[Terms], k: int) -> list[Ranking]:
        rankings = []
        for q in queries:
            ids = np.array(self.okapi.get_top_n(q, self.doc_numbers, n=k))  # documents, no scores
            rankings.append((ids, None))
        return rankings

    def score(self, queries: list[Terms]) -> None:
        for q in queries:
            self.okapi.get_scores(q)

    def scores_of(self, query: Terms, doc_ids: np.ndarray) -> np.ndarray:
        """The scores of some documents, divided by (k1 + 1) (for the check)."""
        return np.array(self.okapi.get_batch_scores(query, doc_ids.tolist())) / self.scale


# ---- the check ------------------------------------------------------------------------------
def check_same_top_k(ours: Ranking, our_scores: np.ndarray, theirs: Ranking, rtol: float) -> bool:
    """Assert that ``theirs`` is a correct top-k under mmir_lib's scores; True when it also
    has exactly our documents in our order (it may differ only among tied documents).

    ``our_scores`` holds mmir_lib's score for every document.
    """
    our_ids, our_top = ours
    their_ids, their_top = np.asarray(theirs[0]), np.asarray(theirs[1], dtype=np.float64)
    # mmir_lib ranks matched documents only; the others may fill up a short ranking with 0s
    assert len(their_ids) >= len(our_ids) and not their_top[len(our_ids):].any(), their_top
    their_ids, their_top = their_ids[:len(our_ids)], their_top[:len(our_ids)]
    # the scores they report are ours, rank by rank...
    np.testing.assert_allclose(their_top, our_top, rtol=rtol, atol=1e-12)
    # ...and so are our scores of the documents they return
    np.testing.assert_allclose(our_scores[their_ids], our_top, rtol=rtol, atol=1e-12)
    return bool(np.array_equal(their_ids, our_ids))


def compare(collection: str, documents: list[Terms], queries: list[Terms],
            settings: Settings) -> tuple[list[dict], MmirLib]:
    """Build, time and check the three libraries on one collection: one row each, and
    mmir_lib's index."""
    rows, ours, reference = [], None, None
    for library, num_queries, rtol in [(MmirLib, len(queries), 0.0), (Bm25s, len(queries), 1e-5),
                                       (RankBm25, settings.rank_bm25_queries, 1e-9)]:
        timed = queries[:num_queries]
        build, system = best_time(lambda: library(documents, settings), settings)
        search, rankings = best_time(lambda: system.search(timed, settings.k), settings)
        scoring, _ = best_time(lambda: system.score(timed), settings)
        if library is MmirLib:
            ours, reference = system, rankings
        if library is RankBm25:  # get_top_n returns no scores: ask for them apart, untimed
            rankings = [(ids, system.scores_of(q, ids)) for q, (ids, _) in zip(timed, rankings)]
        same_order = sum(check_same_top_k(expected, ours.scores_of(q), theirs, rtol)
                         for q, expected, theirs in zip(timed, reference, rankings))
        rows.append({
            "collection": collection,
            "library": library.name,
            "build_s": build,
            "top10_ms": 1e3 * search / len(timed),
            "scoring_ms": 1e3 * scoring / len(timed),
            "queries_timed": len(timed),
            "same_order": same_order,
        })
    postings = float(np.mean([ours.postings(q) for q in queries]))
    return [{**row, "postings_per_query": postings} for row in rows], ours


def selection(ours: MmirLib, queries: list[Terms], settings: Settings) -> list[dict]:
    """Choosing the 10 best of one score per document, three ways, on the same queries:
    numpy's selection as bm25s calls it (float32 scores of every document), the same on
    random scores, and mmir_lib's ``top_k`` (float64 scores of the matched documents)."""
    scored = [bm25_scores(ours.index, q, **ours.params) for q in queries[:settings.selection_queries]]
    as_bm25s = [scores.astype(np.float32) for scores, _ in scored]
    rng = np.random.default_rng(settings.seed)
    random = [rng.random(len(scores), dtype=np.float32) for scores in as_bm25s]
    k = settings.k
    ways = [
        ("np.argpartition(scores, -k) on BM25 scores, as bm25s does",
         lambda: [np.argpartition(s, -k) for s in as_bm25s]),
        ("np.argpartition(scores, -k) on random scores (all distinct)",
         lambda: [np.argpartition(s, -k) for s in random]),
        ("mmir_lib top_k(scores, k, matched) on BM25 scores",
         lambda: [top_k(s, k, m) for s, m in scored]),
    ]
    rows = []
    for name, select in ways:
        seconds, _ = best_time(select, settings)
        rows.append({"selection of the top 10": name, "time per query": f"{1e3 * seconds / len(scored):.3f} ms"})
    return rows


def main(settings: Settings = SETTINGS) -> dict[str, list[dict]]:
    """Two tables of rows: "retrieval" ((a) then (b)) and "selection" (on (b))."""
    retrieval, _ = compare("(a) Shakespeare speeches", *shakespeare_collection(settings), settings)
    documents, queries = synthetic_collection(settings)
    more, ours = compare("(b) synthetic Zipf", documents, queries, settings)
    return {"retrieval": retrieval + more, "selection": selection(ours, queries, settings)}


def markdown(rows: Sequence[dict]) -> str:
    """One markdown table per collection, with times relative to mmir_lib's."""
    tables = []
    for collection in dict.fromkeys(r["collection"] for r in rows):
        mine = [r for r in rows if r["collection"] == collection]
        base = next(r for r in mine if r["library"] == MmirLib.name)
        lines = [f"**{collection}**, {base['postings_per_query']:,.0f} postings per query on average",
                 "",
                 "| library | build (s) | × mmir_lib | top-10 (ms) | queries/s | × mmir_lib | scoring (ms) "
                 "| same order |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|"]
        for r in mine:
            lines.append(
                f"| {r['library']} | {r['build_s']:.2f} | {r['build_s'] / base['build_s']:.1f} "
                f"| {r['top10_ms']:.3f} | {1e3 / r['top10_ms']:,.0f} | {r['top10_ms'] / base['top10_ms']:.1f} "
                f"| {r['scoring_ms']:.3f} | {r['same_order']}/{r['queries_timed']} |")
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


def describe(settings: Settings = SETTINGS) -> str:
    """The exact settings, one line."""
    return ", ".join(f"{name}={value}" for name, value in asdict(settings).items())


if __name__ == "__main__":
    from report import markdown_table

    tables = main()
    print(f"{describe()}\n\n{markdown(tables['retrieval'])}\n\n{markdown_table(tables['selection'])}")
