"""The book's test collection: Shakespeare's speeches, 40 topics, pooled graded judgements.

No classic test collection can be installed offline, so the book builds its own, the
way TREC does (chapter ir/04 tells the story):

* **documents**: the 30,050 speeches of :func:`mmir_lib.data.shakespeare_speeches`,
  identified by their ``doc_id`` (``play:act.scene.nnn``), the docno of the qrels;
* **topics**: 40 information needs (``testcollection/topics.txt``, TREC format), each
  with a title (the query), a description and a narrative saying what is relevant;
* **pool**: for every topic, the union of the top :data:`POOL_DEPTH` speeches of the
  four runs of :func:`pooling_runs` (BM25, tf-idf cosine and query likelihood on the
  title, and BM25 on title + description), under both tie rules the book meets
  (:func:`pooled_documents`);
* **judgements**: every pooled speech graded 0 (not relevant), 1 (relevant) or 2
  (highly relevant) by an assessor who read it against the topic's narrative, blind
  to the systems (``testcollection/qrels.txt``; the assessor's one-line reason for
  each grade is in ``testcollection/judgements.tsv``). Unjudged speeches are
  treated as not relevant, as trec_eval does.

The judging protocol, and who the assessors were, is in
``testcollection/README.md``.

The **Lee corpus** (:func:`mmir_lib.data.lee_corpus`) is the second collection, judged by
people outside this project: 50 news articles whose 1,225 pairs were rated for
similarity by students on a 1-5 scale (mean rating / 5 in the data, 0.2 ... 1.0).
:func:`lee_collection` turns it into a retrieval test collection: each article is a
query against the other 49, with grades from the mean human rating
(:data:`LEE_GRADES`). Its judgements are complete: every pair is judged.
"""

from __future__ import annotations

import csv
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from ..data import lee_corpus, shakespeare_speeches
from ..validation import (check_callable, check_count, check_instance, check_mapping, check_optional, describe,
                          check_str_list)
from .bm25 import bm25_scores
from .index import InvertedIndex
from .query_likelihood import query_likelihood_scores
from ..ranking import top_k
from .scoring import document_norms, tfidf_scores
from .text import ENGLISH_STOP_WORDS, Analyzer
from .trec import Qrels, Run, Topic, check_qrels, check_queries, read_qrels, read_topics, run_rankings

__all__ = ["COLLECTION_DIR", "POOL_DEPTH", "LEE_GRADES", "topics", "qrels", "judgement_reasons",
           "shakespeare_index", "description_query", "make_run", "pooling_runs", "pool",
           "pooled_documents", "unjudged", "lee_collection"]

COLLECTION_DIR = Path(__file__).resolve().parent.parent / "testcollection"
POOL_DEPTH = 20

# Words that every description uses to phrase the request ("Find speeches in which a
# character ..."), removed before a description is used as a query, as TREC groups do.
_REQUEST_WORDS = frozenset({"find", "speeches", "speech", "character", "characters", "someone", "such"})


def topics() -> list[Topic]:
    """The 40 topics, in order (qids "1" … "40")."""
    return read_topics(COLLECTION_DIR / "topics.txt")


def _round3_rows() -> list[dict[str, str]]:
    with open(COLLECTION_DIR / "judgements_round3.tsv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def qrels(rounds: int = 2) -> Qrels:
    """Graded judgements {qid: {docno: 0, 1 or 2}} of the first ``rounds`` judging rounds:
    2 (the default, what Parts I to V use) gives every speech of the lexical pool, 3 adds
    the third round's. No judgement of an earlier round changes in a later one."""
    rounds = check_count("rounds", rounds, low=2, high=3)
    judged = read_qrels(COLLECTION_DIR / "qrels.txt")
    if rounds == 3:
        for row in _round3_rows():
            judged.setdefault(row["qid"], {})[row["docno"]] = int(row["grade"])
    return judged


def judgement_reasons(rounds: int = 2) -> dict[tuple[str, str], str]:
    """{(qid, docno): the assessor's one-line reason for the grade}, rounds as in :func:`qrels`."""
    rounds = check_count("rounds", rounds, low=2, high=3)
    with open(COLLECTION_DIR / "judgements.tsv", newline="", encoding="utf-8") as f:
        reasons = {(row["qid"], row["docno"]): row["reason"]
                   for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)}
    if rounds == 3:
        reasons.update({(row["qid"], row["docno"]): row["reason"] for row in _round3_rows()})
    return reasons


@functools.lru_cache(maxsize=1)
def shakespeare_index() -> tuple[list[str], InvertedIndex]:
    """(docnos, index) of all speeches with the book's standard analyzer (stop words
    removed, Snowball stemming), the index every Part I chapter evaluates on."""
    speeches = shakespeare_speeches()
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    return [s.doc_id for s in speeches], InvertedIndex.from_texts([s.text for s in speeches], analyzer)


def description_query(topic: Topic) -> str:
    """Title + description, without the words that only phrase the request."""
    check_instance("topic", topic, Topic)
    words = re.findall(r"[A-Za-z']+", topic.description)
    return topic.title + " " + " ".join(w for w in words if w.lower() not in _REQUEST_WORDS)


Scorer = Callable[[InvertedIndex, str], tuple[np.ndarray, np.ndarray]]


def _check_docnos_of(index: InvertedIndex, docnos: object) -> list[str]:
    """``docnos`` as a list: one distinct str per document of ``index``."""
    docnos = check_str_list("docnos", docnos)
    if len(docnos) != index.num_docs:
        raise ValueError(f"docnos has {len(docnos)} entries, the index {index.num_docs} documents")
    if len(set(docnos)) != len(docnos):
        seen: set[str] = set()
        duplicate = next(d for d in docnos if d in seen or seen.add(d))
        raise ValueError(f"docnos must be distinct, {duplicate!r} names two documents")
    return docnos


def _check_excluded(name: str, exclude: object, *, docnos: Sequence[str]) -> Mapping[str, str]:
    """A mapping {qid: docno} whose docnos are among ``docnos``."""
    check_mapping(name, exclude)
    known = set(docnos)
    for qid, docno in exclude.items():
        if not isinstance(docno, str) or docno not in known:
            raise ValueError(f"{name}[{qid!r}] must be one of the docnos, got {describe(docno)}")
    return exclude


def make_run(
    index: InvertedIndex,
    docnos: Sequence[str],
    queries: Mapping[str, str],
    scorer: Scorer,
    depth: int = 1000,
    exclude: Mapping[str, str] | None = None,
) -> Run:
    """A TREC run: the top ``depth`` documents of each query under ``scorer``.

    Parameters
    ----------
    index : InvertedIndex
    docnos : sequence of str, one per document of the index
    queries : {qid: query text}
    scorer : function (index, query) -> (scores (N,), matched (N,) bool),
        e.g. ``bm25_scores`` or ``lambda ix, q: tfidf_scores(ix, q, norms=norms)``
    depth : int
        Documents kept per query (only matched ones; ties -> smaller document number).
    exclude : {qid: docno}, optional
        A document never to return for that query (the query document itself when
        documents are used as queries, as in :func:`lee_collection`).

    Returns
    -------
    {qid: {docno: score}}, each query's documents inserted best first (ties: smaller
    document number); a query that matches nothing is present with no documents.
    """
    check_instance("index", index, InvertedIndex)
    docnos = _check_docnos_of(index, docnos)
    check_queries("queries", queries)
    check_callable("scorer", scorer)
    depth = check_count("depth", depth, low=1)
    exclude = check_optional(_check_excluded, "exclude", exclude, docnos=docnos)
    position = {d: i for i, d in enumerate(docnos)} if exclude else {}
    run: Run = {}
    for qid, query in queries.items():
        scores, matched = scorer(index, query)
        if exclude and qid in exclude:
            matched = matched.copy()
            matched[position[exclude[qid]]] = False
        doc_ids, doc_scores = top_k(scores, depth, matched)
        run[qid] = {docnos[d]: float(s) for d, s in zip(doc_ids, doc_scores)}
    return run


def pooling_runs(depth: int = POOL_DEPTH) -> dict[str, Run]:
    """The four runs whose top ``depth`` documents form the judged pool.

    ``bm25-title`` (BM25, k1 = 1.2, b = 0.75), ``tfidf-title`` (lnc.ltc cosine),
    ``ql-title`` (query likelihood, Dirichlet μ = 100, about eight average speech
    lengths) on the topic titles, and ``bm25-desc`` (BM25 on :func:`description_query`).
    """
    depth = check_count("depth", depth, low=1)
    docnos, index = shakespeare_index()
    all_topics = topics()
    titles = {t.qid: t.title for t in all_topics}
    descriptions = {t.qid: description_query(t) for t in all_topics}
    norms = document_norms(index)
    return {
        "bm25-title": make_run(index, docnos, titles, bm25_scores, depth),
        "tfidf-title": make_run(index, docnos, titles, lambda ix, q: tfidf_scores(ix, q, norms=norms), depth),
        "ql-title": make_run(index, docnos, titles, lambda ix, q: query_likelihood_scores(ix, q, mu=100.0), depth),
        "bm25-desc": make_run(index, docnos, descriptions, bm25_scores, depth),
    }


def pool(runs: Mapping[str, Run], depth: int = POOL_DEPTH) -> dict[str, set[str]]:
    """{qid: the union of the first ``depth`` docnos of every run, ranked as trec_eval
    ranks them} (score descending, ties by docno descending)."""
    check_mapping("runs", runs)
    depth = check_count("depth", depth, low=1)
    rankings = [run_rankings(f"runs[{name!r}]", run) for name, run in runs.items()]  # each run checked once
    pooled: dict[str, set[str]] = {}
    for ranked in rankings:
        for qid, ranking in ranked.items():
            pooled.setdefault(qid, set()).update(ranking[:depth])
    return pooled


def pooled_documents(depth: int = POOL_DEPTH) -> dict[str, set[str]]:
    """The judged pool: {qid: docnos}, for the four :func:`pooling_runs`.

    Scores often tie (two short speeches with one query term each score the same), and
    the two tie rules of this book then pick different documents at the cut:

    1. the ``depth`` speeches each run returns when asked for ``depth`` (ties to the
       smaller document number, like every ranking in :mod:`mmir_lib`): judged first,
       1,580 speeches;
    2. the first ``depth`` of each run to depth 1000 as trec_eval orders it (ties to
       the larger docno): 62 more speeches, judged in a second round, so that the top
       ``depth`` of every pooled run is judged whichever way its ties are broken.
    """
    depth = check_count("depth", depth, low=1)
    return _pool_both_orders(pooling_runs(1000), depth)


def _pool_both_orders(runs: Mapping[str, Run], depth: int) -> dict[str, set[str]]:
    """:func:`pool` under trec_eval's order, joined with each run's first ``depth`` in its
    own insertion order (= :func:`mmir_lib.ranking.top_k`'s order, ties to the smaller
    document number)."""
    pooled = pool(runs, depth)
    for run in runs.values():
        for qid, doc_scores in run.items():
            pooled[qid].update(list(doc_scores)[:depth])
    return pooled


def unjudged(runs: Mapping[str, Run], judged: Mapping[str, Mapping[str, int]], depth: int = POOL_DEPTH
             ) -> dict[str, list[str]]:
    """{qid: sorted docnos} in the first ``depth`` of any of ``runs`` and not in ``judged``.

    "The first ``depth``" is taken under both tie rules, as in :func:`pooled_documents`:
    trec_eval's order (ties by docno descending) and the run's own insertion order (the
    order :func:`mmir_lib.ranking.top_k` returns), so that the top ``depth`` of every run is
    judged whichever way its ties are broken. Queries with nothing unjudged are left out.
    """
    check_mapping("runs", runs)
    check_qrels("judged", judged)
    depth = check_count("depth", depth, low=1)
    pooled = _pool_both_orders(runs, depth)
    missing = {qid: sorted(d for d in docnos if d not in judged.get(qid, {})) for qid, docnos in pooled.items()}
    return {qid: missing[qid] for qid in sorted(missing, key=_qid_order) if missing[qid]}


def _qid_order(qid: str) -> tuple:
    """Numeric qids in numeric order ("2" before "10"), others after, alphabetically."""
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


# Grade from the mean human similarity s of a pair (s = mean rating / 5): at least 0.7
# (mean rating >= 3.5 of 5) is highly relevant, at least 0.5 (mean rating >= 2.5, the
# middle of the scale) relevant, anything lower not relevant.
LEE_GRADES = ((0.7, 2), (0.5, 1))


def lee_collection() -> tuple[list[str], InvertedIndex, dict[str, str], Qrels]:
    """The Lee corpus as a retrieval test collection with complete graded judgements.

    Returns
    -------
    docnos : ["lee01", ..., "lee50"]
    index : InvertedIndex of the 50 articles (the book's standard analyzer)
    queries : {qid: article text}, qid = the article's own docno; only the 48 articles
        that have at least one relevant partner (two have none, and a query without
        relevant documents has no recall, AP or nDCG to measure)
    qrels : {qid: {docno: grade}} for all 49 other articles, graded by
        :data:`LEE_GRADES`. Pass ``exclude={q: q for q in queries}`` to
        :func:`make_run` so that no article retrieves itself.
    """
    lee = lee_corpus()
    docnos = [f"lee{i + 1:02d}" for i in range(len(lee.documents))]
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    index = InvertedIndex.from_texts(lee.documents, analyzer)
    qrels: Qrels = {}
    for i, qid in enumerate(docnos):
        grades = {docno: next((g for threshold, g in LEE_GRADES if lee.similarity[i, j] >= threshold), 0)
                  for j, docno in enumerate(docnos) if j != i}
        if any(grades.values()):
            qrels[qid] = grades
    queries = {qid: lee.documents[docnos.index(qid)] for qid in qrels}
    return docnos, index, queries, qrels
