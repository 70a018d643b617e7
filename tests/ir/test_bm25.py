import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex, VARIANTS, bm25_scores, bm25_search, saturation

TOY = ["the cat sat", "the cat sat on the cat", "a dog"]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TOY, Analyzer())


def test_hand_computed_scores(toy):
    # dl = 3, 6, 2; avdl = 11/3; "cat": n = 2 of N = 3; k1 = 1.2, b = 0.75
    k1, b, avdl = 1.2, 0.75, 11 / 3
    idf = math.log(3 / 2)
    expected = [
        1 / (k1 * (0.25 + 0.75 * 3 / avdl) + 1) * idf,
        2 / (k1 * (0.25 + 0.75 * 6 / avdl) + 2) * idf,
        0.0,
    ]
    scores, matched = bm25_scores(toy, "cat", k1=k1, b=b)
    assert scores == pytest.approx(expected, rel=1e-12)
    assert matched.tolist() == [True, True, False]


def test_hand_computed_variants(toy):
    # "dog": n = 1 of N = 3, dl = 2
    s = 1 / (1.2 * (0.25 + 0.75 * 2 / (11 / 3)) + 1)
    expected = {"seed": math.log(3), "robertson": math.log(2.5 / 1.5), "lucene": math.log(1 + 2.5 / 1.5)}
    for variant, idf in expected.items():
        scores, _ = bm25_scores(toy, ["dog"], variant=variant)
        assert scores[2] == pytest.approx(s * idf, rel=1e-12)


def test_robertson_idf_is_floored_at_zero(toy):
    # "the" is in 2 of 3 documents: log((3 - 2 + 0.5) / 2.5) < 0, floored to 0
    scores, matched = bm25_scores(toy, ["the"], variant="robertson")
    assert scores.tolist() == [0.0, 0.0, 0.0] and matched.tolist() == [True, True, False]


def test_b_one_makes_tf_relative_to_length(toy):
    scores, _ = bm25_scores(toy, "cat", k1=1.0, b=1.0)
    assert scores[0] == pytest.approx(scores[1], rel=1e-12)  # twice the tf in twice the length


def test_k1_zero_is_binary(toy):
    scores, _ = bm25_scores(toy, "cat", k1=0.0, b=0.5)
    assert scores[:2] == pytest.approx([math.log(1.5)] * 2)


def test_repeated_query_terms_count_each_time(toy):
    once, _ = bm25_scores(toy, "cat")
    twice, _ = bm25_scores(toy, "cat cat")
    assert twice == pytest.approx(2 * once)


def test_search_ranks_and_breaks_ties_by_document_number(toy):
    ids, scores = bm25_search(toy, "cat", k=5, k1=1.0, b=1.0)
    assert ids.tolist() == [0, 1]  # equal scores: document 0 first
    ids, _ = bm25_search(toy, "cat", k=1)
    assert ids.tolist() == [1]


def test_unknown_terms_give_an_empty_result(toy):
    ids, scores = bm25_search(toy, "zebra unicorn")
    assert len(ids) == 0 and len(scores) == 0


@pytest.mark.parametrize(
    "params, error, message",
    [
        (dict(k1=-0.1), ValueError, "k1"),
        (dict(k1=float("nan")), ValueError, "k1"),
        (dict(b=-0.01), ValueError, "b must"),
        (dict(b=1.5), ValueError, "b must"),
        (dict(k=0), ValueError, "k must"),
        (dict(variant="bm42"), ValueError, "variant must be one of 'seed', 'robertson', 'lucene'"),
        (dict(k1="1.2"), TypeError, "k1 must be a real number"),
        (dict(k1=True), TypeError, "k1 must be a real number"),
        (dict(b=np.float32(0.5)), None, None),
        (dict(k1=np.int64(2), k=np.int64(3)), None, None),
    ],
)
def test_bad_parameters(toy, params, error, message):
    if error is None:  # numpy scalars are numbers
        assert np.array_equal(bm25_search(toy, "cat", **params)[0],
                              bm25_search(toy, "cat", **{k: v.item() for k, v in params.items()})[0])
        return
    with pytest.raises(error, match=message):
        bm25_search(toy, "cat", **params)


@pytest.mark.parametrize("query, error", [(None, TypeError), (42, TypeError), ([1, 2], TypeError), ("", ValueError), ("  ", ValueError)])
def test_bad_queries(toy, query, error):
    with pytest.raises(error, match="query"):
        bm25_search(toy, query)


params = dict(
    k1=st.floats(0, 5), b=st.floats(0, 1), avdl=st.floats(1, 100), variant=st.sampled_from(sorted(VARIANTS)),
)


@given(tf=st.integers(0, 50), dl=st.integers(1, 500), n=st.integers(1, 99), **params)
def test_weight_never_decreases_as_tf_grows(tf, dl, n, k1, b, avdl, variant):
    weight = VARIANTS[variant]
    assert weight(tf + 1, dl, avdl, n, 100, k1, b) >= weight(tf, dl, avdl, n, 100, k1, b) - 1e-15


@given(tf=st.integers(1, 50), dl1=st.integers(1, 500), dl2=st.integers(1, 500), k1=st.floats(0, 5), avdl=st.floats(1, 100))
def test_b_zero_ignores_document_length(tf, dl1, dl2, k1, avdl):
    assert saturation(tf, dl1, avdl, k1, 0.0) == saturation(tf, dl2, avdl, k1, 0.0)


@given(tf=st.integers(0, 1000), dl=st.integers(1, 500), **params)
def test_saturation_stays_in_unit_interval(tf, dl, k1, b, avdl, variant):
    s = saturation(tf, dl, avdl, k1, b)
    assert 0.0 <= s <= 1.0 and (tf == 0) == (s == 0.0)


docs = st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=8), min_size=1, max_size=15)


@given(docs, st.lists(st.sampled_from("abcdez"), min_size=1, max_size=4), st.floats(0, 3), st.floats(0, 1))
def test_scores_equal_the_formula_summed_by_brute_force(docs, query, k1, b):
    index = InvertedIndex.from_tokens(docs)
    scores, matched = bm25_scores(index, query, k1=k1, b=b)
    n_docs, avdl = len(docs), np.mean([len(d) for d in docs])
    for d, doc in enumerate(docs):
        expected = 0.0
        for term in query:
            tf, n = doc.count(term), sum(term in x for x in docs)
            if tf:
                expected += tf / (k1 * ((1 - b) + b * len(doc) / avdl) + tf) * math.log(n_docs / n)
        assert scores[d] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert matched[d] == any(t in doc for t in query)
