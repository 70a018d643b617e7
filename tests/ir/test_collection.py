"""The book's test collection: well formed, and its pool is what the code computes today."""

from collections import Counter

import pytest

from mmir_lib.data import shakespeare_speeches
from mmir_lib.ir import collection
from mmir_lib.ir.trec import read_topics


@pytest.fixture(scope="module")
def qrels():
    return collection.qrels()


def test_forty_topics_with_all_fields():
    topics = collection.topics()
    assert [t.qid for t in topics] == [str(i) for i in range(1, 41)]
    for t in topics:
        assert t.title and len(t.description) > 40 and "Highly relevant" in t.narrative, t.qid
    assert len({t.title for t in topics}) == 40


def test_judgements_are_graded_speeches(qrels):
    docnos = {s.doc_id for s in shakespeare_speeches()}
    grades = Counter(g for judged in qrels.values() for g in judged.values())
    assert set(grades) == {0, 1, 2}
    assert grades == {0: 981, 1: 465, 2: 213}  # the statistics the book and README quote
    assert all(d in docnos for judged in qrels.values() for d in judged)
    assert all(sum(g > 0 for g in judged.values()) >= 2 for judged in qrels.values())


def test_every_judgement_has_its_reason(qrels):
    reasons = collection.judgement_reasons()
    assert set(reasons) == {(q, d) for q, judged in qrels.items() for d in judged}
    assert all(r.strip() for r in reasons.values())


def test_every_pooled_speech_is_judged(qrels):
    """If the analyzer, the parser or a scorer changes, the pool changes: then the new
    documents must be judged, not silently counted as non-relevant."""
    runs = collection.pooling_runs()
    assert set(runs) == {"bm25-title", "tfidf-title", "ql-title", "bm25-desc"}
    assert all(len(docs) <= collection.POOL_DEPTH for run in runs.values() for docs in run.values())
    first_round = collection.pool(runs)  # depth-20 runs: every document is in the pool
    pooled = collection.pooled_documents()
    assert all(first_round[q] <= pooled[q] for q in pooled)
    assert sum(map(len, pooled.values())) - sum(map(len, first_round.values())) == 62
    judged = {q: set(docs) for q, docs in qrels.items()}
    assert all(pooled[q] <= judged[q] for q in pooled)
    # 17 speeches judged before revision 1 left the pool when the collection changed
    # (mmir_lib/testcollection/README.md); their judgements are kept, as TREC keeps every
    # judgement when a pool is extended
    assert sum(len(judged[q] - pooled[q]) for q in judged) == 17


def test_description_query_drops_request_words():
    topic = read_topics(["<top>", "<num> Number: 9", "<title> dreams", "<desc> Description:",
                         "Find speeches in which a character tells a dream.", "</top>"])[0]
    assert collection.description_query(topic) == "dreams in which a tells a dream"


def test_make_run_checks_docnos():
    docnos, index = collection.shakespeare_index()
    with pytest.raises(ValueError, match="docnos"):
        collection.make_run(index, docnos[:-1], {"1": "poison"}, lambda ix, q: (None, None))


def test_lee_collection_grades_follow_the_human_means():
    from mmir_lib.data import lee_corpus

    docnos, index, queries, qrels = collection.lee_collection()
    similarity = lee_corpus().similarity
    assert index.num_docs == 50 and len(queries) == 48 and set(queries) == set(qrels)
    for qid, judged in qrels.items():
        i = docnos.index(qid)
        assert len(judged) == 49 and qid not in judged
        for docno, grade in judged.items():
            s = similarity[i, docnos.index(docno)]
            assert grade == (2 if s >= 0.7 else 1 if s >= 0.5 else 0)
    # symmetric ratings give symmetric grades
    assert all(qrels[a][b] == qrels[b][a] for a in qrels for b in qrels if a != b)


def test_make_run_excludes_the_query_document():
    from mmir_lib.ir import bm25_scores

    docnos, index, queries, _ = collection.lee_collection()
    run = collection.make_run(index, docnos, queries, bm25_scores, depth=5)
    assert sum(q in docs for q, docs in run.items()) > 40  # an article's best match is itself
    run = collection.make_run(index, docnos, queries, bm25_scores, depth=5, exclude={q: q for q in queries})
    assert all(q not in docs and len(docs) == 5 for q, docs in run.items())


@pytest.mark.parametrize("function", [collection.pooling_runs, collection.pooled_documents])
@pytest.mark.parametrize("depth, error", [(0, ValueError), (2.5, TypeError), (True, TypeError), (None, TypeError)])
def test_pool_depth_is_checked_before_any_work(function, depth, error):
    with pytest.raises(error, match="depth"):
        function(depth)


def test_make_run_refuses_duplicate_docnos_and_unknown_excluded_documents():
    docnos, index, queries, _ = collection.lee_collection()
    duplicated = [docnos[0]] + docnos[:-1]
    with pytest.raises(ValueError, match="docnos must be distinct, 'lee01' names two documents"):
        collection.make_run(index, duplicated, queries, collection.bm25_scores)
    with pytest.raises(ValueError, match=r"exclude\['lee01'\] must be one of the docnos"):
        collection.make_run(index, docnos, queries, collection.bm25_scores, exclude={"lee01": "lee99"})
