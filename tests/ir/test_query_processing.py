"""TAAT, DAAT, MaxScore and WAND: the same top k as brute force, bit for bit, and
work counts that add up."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.data import shakespeare_speeches
from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex, VARIANTS, bm25_search
from mmir_lib.ir.query_processing import (
    ALGORITHMS,
    CollectionStatistics,
    TermPostings,
    daat_top_k,
    maxscore_top_k,
    scored_postings,
    taat_top_k,
    wand_top_k,
)

TOY = ["a b", "a", "a", "a c", "a", "b"]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TOY, Analyzer())


def _total_postings(index, query):
    return sum(len(index.postings_list(t)[0]) for t in index.query_terms(query))


# ---- hand-traced cases ------------------------------------------------------------------


def test_taat_counts_every_posting_and_accumulator(toy):
    result = taat_top_k(toy, "a b c", k=2)
    # postings: a -> 0,1,2,3,4; b -> 0,5; c -> 3: 8 postings, 6 distinct documents
    assert (result.work.postings_scored, result.work.postings_skipped) == (8, 0)
    assert result.work.accumulators_touched == 6 and result.work.heap_insertions == 0


def test_daat_heap_insertions_hand_traced(toy):
    # N = 6, avdl = 8/6. a is in 5 documents (idf ln 1.2), b in 2 (ln 3), c in 1 (ln 6).
    # Scores in document order: d0 (a+b) is best so far; d1, d2 are shorter "a"-only
    # documents that lose to d0 but do not beat it; d3 (a+c) beats d0; d4 ("a") loses;
    # d5 ("b") loses to d3. With k = 1: insertions at d0 and d3 only.
    result = daat_top_k(toy, "a b c", k=1)
    assert result.doc_ids.tolist() == [3]
    assert result.work.heap_insertions == 2
    assert (result.work.postings_scored, result.work.postings_skipped, result.work.accumulators_touched) == (8, 0, 6)


def test_maxscore_and_wand_skip_hand_traced(toy):
    # Bounds: u_a < u_b < u_c. After d0 enters (θ = score of d0 > u_a), "a" becomes
    # non-essential: the a-only documents 1, 2 and 4 are never candidates.
    for search in (maxscore_top_k, wand_top_k):
        result = search(toy, "a b c", k=1)
        assert result.doc_ids.tolist() == [3]
        assert result.work.postings_skipped == 4  # a@1, a@2, a@4 and b@5
        assert result.work.postings_scored == 4  # a@0, b@0, a@3, c@3
        assert result.work.heap_insertions == 2


def test_scored_postings_are_the_bm25_weights(toy):
    lists = scored_postings(toy, "c a")
    assert [p.term for p in lists] == ["c", "a"]  # query order
    scores = np.zeros(toy.num_docs)
    for p in lists:
        scores[p.doc_ids] += p.weights
    ids, best = bm25_search(toy, "c a", k=6)
    assert np.array_equal(scores[ids], best)
    assert lists[0].upper_bound == pytest.approx(float(lists[0].weights.max()))


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_unknown_terms_give_an_empty_result(toy, name):
    result = ALGORITHMS[name](toy, "zebra", k=3)
    assert len(result.doc_ids) == 0 and len(result.scores) == 0
    assert result.work.postings_scored == 0


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
def test_repeated_query_terms_count_twice(toy, name):
    result = ALGORITHMS[name](toy, ["c", "c"], k=1)
    once = ALGORITHMS[name](toy, ["c"], k=1)
    assert result.scores[0] == 2 * once.scores[0]


def test_global_statistics_change_the_weights(toy):
    own = CollectionStatistics.of(toy)
    assert own.avdl == toy.avdl  # exactly: both are (integer total) / N
    same = taat_top_k(toy, "a b", k=6, statistics=own)
    assert np.array_equal(same.scores, bm25_search(toy, "a b", k=6)[1])
    bigger = CollectionStatistics(own.num_docs * 10, own.total_length * 10, dict(own.df))
    lists = scored_postings(toy, "b", statistics=bigger)
    # n_t unchanged, N ten times larger: idf ln(60/2) instead of ln(6/2)
    ratio = np.log(30) / np.log(3)
    assert lists[0].weights == pytest.approx(scored_postings(toy, "b")[0].weights * ratio)


def test_combine_adds_the_counts():
    a = CollectionStatistics(3, 10, {"x": 1, "y": 2})
    b = CollectionStatistics(5, 6, {"y": 4})
    c = CollectionStatistics.combine([a, b])
    assert (c.num_docs, c.total_length, dict(c.df), c.avdl) == (8, 16, {"x": 1, "y": 6}, 2.0)


# ---- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(k=0), ValueError, "k must"),
        (dict(k=2.5), TypeError, "k must"),
        (dict(k=True), TypeError, "k must"),
        (dict(k1=-1.0), ValueError, "k1"),
        (dict(b=2.0), ValueError, "b must"),
        (dict(variant="bm42"), ValueError, "variant must be one of"),
        (dict(k1="1.2"), TypeError, "k1 must be a real number"),
        (dict(statistics={"num_docs": 6}), TypeError, "statistics must be a CollectionStatistics"),
        (dict(query=None), TypeError, "query"),
        (dict(query=""), ValueError, "query"),
    ],
)
def test_bad_input(toy, name, kwargs, error, message):
    args = {"query": "a b", "k": 3, **kwargs}
    with pytest.raises(error, match=message):
        ALGORITHMS[name](toy, args.pop("query"), **args)


def test_statistics_that_cannot_be_global_are_refused(toy):
    too_small = CollectionStatistics(6, 8, {"a": 2})  # but "a" is in 5 documents here
    with pytest.raises(ValueError, match="n_t = 2 for 'a'"):
        scored_postings(toy, "a", statistics=too_small)


# ---- every algorithm equals brute force, on random collections ----------------------

documents = st.lists(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=9), min_size=1, max_size=40)
queries = st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None)
@given(docs=documents, query=queries, k=st.integers(1, 12), variant=st.sampled_from(sorted(VARIANTS)),
       k1=st.sampled_from([0.0, 0.5, 1.2, 3.0]), b=st.sampled_from([0.0, 0.75, 1.0]))
def test_all_algorithms_equal_brute_force(docs, query, k, variant, k1, b):
    index = InvertedIndex.from_tokens(docs)
    params = dict(k1=k1, b=b, variant=variant)
    expected_ids, expected_scores = bm25_search(index, query, k=k, **params)
    total = _total_postings(index, query)
    insertions = set()
    for name, search in ALGORITHMS.items():
        result = search(index, query, k, **params)
        assert result.doc_ids.tolist() == expected_ids.tolist(), name
        assert result.scores.tolist() == expected_scores.tolist(), name  # bit for bit
        assert result.work.postings_scored + result.work.postings_skipped == total, name
        if name != "taat":
            insertions.add(result.work.heap_insertions)
    # a document enters the heap only if it beats θ, and pruning only removes documents
    # that cannot: so the three DAAT methods make exactly the same insertions
    assert len(insertions) == 1


@settings(max_examples=60, deadline=None)
@given(docs=documents, query=queries, k=st.integers(1, 5))
def test_pruning_never_does_more_work_than_daat(docs, query, k):
    index = InvertedIndex.from_tokens(docs)
    daat = daat_top_k(index, query, k)
    assert daat.work.postings_skipped == 0
    for search in (maxscore_top_k, wand_top_k):
        work = search(index, query, k).work
        assert work.postings_scored <= daat.work.postings_scored
        assert work.accumulators_touched <= daat.work.accumulators_touched


# ---- and on the real collection ----------------------------------------------------------

REAL_QUERIES = [
    "murder sleep", "a horse my kingdom for a horse", "sweet love", "crown king england",
    "ghost father revenge", "storm sea shipwreck island", "love", "lord good sir come",
    "now is the winter of our discontent made glorious summer by this sun of york",
    "friends romans countrymen lend me your ears",
]


@pytest.fixture(scope="module")
def shakespeare():
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    return InvertedIndex.from_texts((s.text for s in shakespeare_speeches()), analyzer)


@pytest.mark.parametrize("k", [1, 10, 100])
def test_real_corpus_top_k_equals_brute_force(shakespeare, k):
    skipped = 0
    for query in REAL_QUERIES:
        ids, scores = bm25_search(shakespeare, query, k=k)
        for name, search in ALGORITHMS.items():
            result = search(shakespeare, query, k)
            assert np.array_equal(result.doc_ids, ids) and np.array_equal(result.scores, scores), (name, query)
            if name in ("maxscore", "wand"):
                skipped += result.work.postings_skipped
    assert skipped > 0  # early termination actually skips on real queries


def test_collection_statistics_are_checked():
    with pytest.raises(ValueError, match="num_docs must be >= 1"):  # once a ZeroDivisionError in avdl
        CollectionStatistics(0, 0, {})
    with pytest.raises(ValueError, match=r"df\['cat'\] must be >= 0"):
        CollectionStatistics(3, 10, {"cat": -1})
    with pytest.raises(ValueError, match=r"df\['cat'\] must be <= 3"):
        CollectionStatistics(3, 10, {"cat": 4})
    with pytest.raises(ValueError, match="total_length must be at least every n_t"):
        CollectionStatistics(3, 1, {"cat": 2})
    with pytest.raises(TypeError, match="num_docs must be an int"):
        CollectionStatistics(3.0, 10, {})
    with pytest.raises(TypeError, match=r"parts\[1\] must be a CollectionStatistics"):
        CollectionStatistics.combine([CollectionStatistics(1, 1), {"num_docs": 1}])
    assert CollectionStatistics(np.int64(3), np.int64(9), {"cat": np.int64(2)}).avdl == 3.0


def test_statistics_smaller_than_the_index_are_refused():
    index = InvertedIndex.from_tokens([["a", "b"], ["a"], ["c"]])
    with pytest.raises(ValueError, match="statistics describe a smaller collection"):
        scored_postings(index, ["a"], statistics=CollectionStatistics(2, 3, {"a": 2}))


def test_term_postings_are_checked():
    with pytest.raises(ValueError, match="doc_ids must be strictly increasing"):
        TermPostings("a", np.array([2, 1]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match="weights must hold one weight per posting"):
        TermPostings("a", np.array([1, 2]), np.array([0.5]))
    with pytest.raises(ValueError, match="weights must hold values >= 0"):
        TermPostings("a", np.array([1]), np.array([-0.5]))
