"""BM25F: hand-computed scores, the two identities that tie it to BM25, and bad input.

No trusted library implements BM25F (bm25s and rank_bm25 have one text per document),
so the cross-check is an identity: with a single field of weight 1, BM25F must equal
the BM25 of :mod:`mmir_lib.ir.bm25`, which is itself checked against bm25s and
rank_bm25 (tests/ir/test_bm25_reference.py).
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex, VARIANTS, bm25_scores
from mmir_lib.ir.bm25f import FieldedIndex, bm25f_scores, bm25f_search

TEXT = ["cat sat", "cat cat dog", "dog"]
TITLE = ["cat", "dog", "bird dog"]


@pytest.fixture(scope="module")
def toy():
    return FieldedIndex.from_texts({"text": TEXT, "title": TITLE}, Analyzer())


def test_hand_computed_scores(toy):
    # text lengths 2, 3, 1 (avdl 2); title lengths 1, 1, 2 (avdl 4/3).
    # "cat" is in documents 0 and 1 (in some field): n = 2 of N = 3.
    # weights text 1, title 2; b text 0.5, title 1; k1 = 1.2.
    # doc 0: text tf 1, B = 0.5 + 0.5·2/2 = 1; title tf 1, B = 1/(4/3) = 0.75
    #        tf~ = 1/1 + 2·1/0.75 = 11/3
    # doc 1: text tf 2, B = 0.5 + 0.5·3/2 = 1.25; tf~ = 2/1.25 = 1.6
    idf = math.log(3 / 2)
    expected = [(11 / 3) / (1.2 + 11 / 3) * idf, 1.6 / (1.2 + 1.6) * idf, 0.0]
    scores, matched = bm25f_scores(toy, "cat", weights={"text": 1, "title": 2}, b={"text": 0.5, "title": 1.0}, k1=1.2)
    assert scores == pytest.approx(expected, rel=1e-12)
    assert matched.tolist() == [True, True, False]


def test_idf_counts_every_field_even_unweighted_ones(toy):
    # "bird" is only in document 2's title: with the title unweighted nothing scores.
    assert toy.df("bird") == 1 and toy.df("cat") == 2 and toy.df("owl") == 0
    scores, matched = bm25f_scores(toy, "bird", weights={"text": 1.0})
    assert not scores.any() and not matched.any()
    # "cat" is in document 0's title and in the text of documents 0 and 1. Searching
    # the title alone, n_t is still 2 (the combined document), not 1: idf = ln(3/2).
    scores, matched = bm25f_scores(toy, "cat", weights={"title": 1.0}, b=0.0, k1=1.0)
    assert scores == pytest.approx([0.5 * math.log(1.5), 0.0, 0.0], rel=1e-12)
    assert matched.tolist() == [True, False, False]


def test_search_ranks_and_breaks_ties_by_document_number(toy):
    ids, scores = bm25f_search(toy, "dog", weights={"title": 1.0}, b=0.0)
    assert ids.tolist() == [1, 2]  # tf~ = 1 in both titles: a tie, document 1 first
    assert scores[0] == scores[1] > 0
    ids, _ = bm25f_search(toy, "cat", k=1)
    assert ids.tolist() == [0]


def test_repeated_query_terms_count_each_time(toy):
    once, _ = bm25f_scores(toy, "cat")
    twice, _ = bm25f_scores(toy, "cat cat")
    assert twice == pytest.approx(2 * once, rel=1e-15)


def test_unknown_terms_give_an_empty_result(toy):
    ids, scores = bm25f_search(toy, "zebra")
    assert len(ids) == 0 and len(scores) == 0


def test_a_field_may_be_empty_everywhere():
    index = FieldedIndex.from_tokens({"text": [["a", "b"], ["b"]], "notes": [[], []]})
    scores, _ = bm25f_scores(index, ["a"], b=0.5)
    single, _ = bm25_scores(InvertedIndex.from_tokens([["a", "b"], ["b"]]), ["a"], b=0.5)
    assert scores == pytest.approx(single, rel=1e-12)


# ---- the identities ----------------------------------------------------------------

documents = st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=8), min_size=1, max_size=12)
queries = st.lists(st.sampled_from("abcdez"), min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(documents, queries, st.floats(0, 3), st.floats(0, 1), st.sampled_from(sorted(VARIANTS)))
def test_one_field_of_weight_one_is_bm25(docs, query, k1, b, variant):
    plain = InvertedIndex.from_tokens(docs)
    expected, expected_matched = bm25_scores(plain, query, k1=k1, b=b, variant=variant)
    scores, matched = bm25f_scores(FieldedIndex({"body": plain}), query, k1=k1, b=b, variant=variant)
    # the same formula in a different order of operations: equal up to rounding
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=0)
    np.testing.assert_array_equal(matched, expected_matched)


fielded = st.integers(1, 10).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.sampled_from("abcd"), max_size=6), min_size=n, max_size=n),
    st.lists(st.lists(st.sampled_from("abcd"), max_size=3), min_size=n, max_size=n),
))
positive = st.floats(0.05, 5)


@settings(max_examples=80, deadline=None)
@given(fielded, queries, positive, positive, st.floats(0, 3), st.floats(0, 1), st.sampled_from(sorted(VARIANTS)))
def test_doubling_a_weight_is_writing_the_field_twice_when_b_is_zero(fields, query, w_body, w_title, k1, b_title, variant):
    body, title = fields
    params = dict(k1=k1, b={"body": 0.0, "title": b_title}, variant=variant)
    doubled, doubled_matched = bm25f_scores(FieldedIndex.from_tokens({"body": body, "title": title}), query,
                                            weights={"body": 2 * w_body, "title": w_title}, **params)
    written_twice = FieldedIndex.from_tokens({"body": [d + d for d in body], "title": title})
    scores, matched = bm25f_scores(written_twice, query, weights={"body": w_body, "title": w_title}, **params)
    # 2·w·tf and w·(2·tf) round identically (a factor 2 is exact), so equality is exact
    np.testing.assert_array_equal(scores, doubled)
    np.testing.assert_array_equal(matched, doubled_matched)


@settings(max_examples=40, deadline=None)
@given(fielded, queries, positive, st.floats(0, 1))
def test_a_term_in_two_fields_counts_once_in_the_saturation(fields, query, k1, b):
    # Writing every body term into the title too, with weights 1/2 each and b = 0,
    # gives the same pseudo tf as the body alone with weight 1: BM25F merges before
    # saturating (a sum of per-field BM25 scores would not).
    body, _ = fields
    alone, _ = bm25f_scores(FieldedIndex.from_tokens({"body": body}), query, k1=k1, b=0.0)
    split, _ = bm25f_scores(FieldedIndex.from_tokens({"body": body, "title": body}), query,
                            weights={"body": 0.5, "title": 0.5}, k1=k1, b=0.0)
    np.testing.assert_allclose(split, alone, rtol=1e-12, atol=0)


def test_one_field_is_bm25_on_the_real_collection():
    from mmir_lib.ir import collection

    _, index = collection.shakespeare_index()
    single = FieldedIndex({"text": index})
    for topic in collection.topics()[:10]:
        for k1, b in [(1.2, 0.75), (0.5, 0.0), (2.0, 1.0)]:
            expected, _ = bm25_scores(index, topic.title, k1=k1, b=b)
            scores, _ = bm25f_scores(single, topic.title, k1=k1, b=b)
            np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=0, err_msg=topic.title)


# ---- bad input -----------------------------------------------------------------------

@pytest.mark.parametrize(
    "params, error, message",
    [
        (dict(weights={"text": -1.0}), ValueError, r"weights\['text'\] must be >= 0"),
        (dict(weights={"text": float("nan")}), ValueError, r"weights\['text'\] must be finite"),
        (dict(weights={"text": True}), TypeError, r"weights\['text'\] must be a real number"),
        (dict(weights={"text": 0.0, "title": 0.0}), ValueError, "weights must give at least one field a weight > 0"),
        (dict(weights={"body": 1.0}), ValueError, "unknown field 'body' in weights"),
        (dict(weights=[1.0, 2.0]), TypeError, "weights must be a mapping"),
        (dict(b=1.5), ValueError, "b must be <= 1"),
        (dict(b=-0.1), ValueError, "b must be >= 0"),
        (dict(b={"text": 0.5, "title": 2.0}), ValueError, r"b\['title'\] must be <= 1"),
        (dict(b={"text": 0.5}), ValueError, "b gives no value for field 'title'"),
        (dict(b={"text": 0.5, "title": 0.5, "body": 0.5}), ValueError, "unknown field 'body' in b"),
        (dict(k1=-1.0), ValueError, "k1 must be >= 0"),
        (dict(k1=float("inf")), ValueError, "k1 must be"),
        (dict(variant="bm42"), ValueError, "variant must be one of"),
        (dict(k=0), ValueError, "k must"),
    ],
)
def test_bad_parameters(toy, params, error, message):
    with pytest.raises(error, match=message):
        bm25f_search(toy, "cat", **params)


def test_b_only_needed_for_weighted_fields(toy):
    scores, _ = bm25f_scores(toy, "cat", weights={"text": 1.0}, b={"text": 0.5})
    assert scores[0] > 0


@pytest.mark.parametrize("query, error", [(None, TypeError), (42, TypeError), ("", ValueError)])
def test_bad_queries(toy, query, error):
    with pytest.raises(error, match="query"):
        bm25f_scores(toy, query)


def test_not_a_fielded_index():
    with pytest.raises(TypeError, match="index must be a FieldedIndex"):
        bm25f_scores(InvertedIndex.from_tokens([["a"]]), ["a"])


def test_mismatched_document_counts():
    with pytest.raises(ValueError, match="document counts differ: 'text' 3, 'title' 2"):
        FieldedIndex.from_texts({"text": TEXT, "title": TITLE[:2]}, Analyzer())


def test_bad_fields():
    with pytest.raises(ValueError, match="at least one field"):
        FieldedIndex({})
    with pytest.raises(TypeError, match=r"fields\['text'\] must be an InvertedIndex"):
        FieldedIndex({"text": [["a"]]})
    with pytest.raises(TypeError, match="fields must be keyed by field names"):
        FieldedIndex({"": InvertedIndex.from_tokens([["a"]])})
    with pytest.raises(TypeError, match="fields must be a mapping"):
        FieldedIndex.from_texts(["a b"], Analyzer())
    with pytest.raises(ValueError, match="same analyzer"):
        FieldedIndex({"text": InvertedIndex.from_texts(["a"], Analyzer()),
                      "title": InvertedIndex.from_texts(["a"], Analyzer(stem=True))})


def test_fields_are_read_only(toy):
    with pytest.raises(TypeError):
        toy.fields["extra"] = toy.fields["text"]
