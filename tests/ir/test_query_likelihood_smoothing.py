"""Jelinek–Mercer smoothing (mmir_lib.ir.query_likelihood.jelinek_mercer_scores).

Hand-computed scores on a toy index; a cross-check against a direct computation
over the dense term-document matrix (no decomposition into a matching and a
non-matching part); properties that follow from the formula: log-probabilities
≤ 0 that sum to 1 over the vocabulary, the limits λ → 0 and λ → 1, Dirichlet as
a length-dependent λ, and invariances of the ranking.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import InvertedIndex
from mmir_lib.ir.query_likelihood import (
    jelinek_mercer_scores, jelinek_mercer_search, query_likelihood_scores,
)

# dl = 3, 2, 4; |C| = 9; cf: a 3, b 3, c 2, d 1
TOY = [["a", "b", "a"], ["b", "c"], ["a", "b", "c", "d"]]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_tokens(TOY)


def dense_scores(index, terms, lam):
    """log P(q | d) straight from the formula, on the dense (N, V) tf matrix."""
    tf = index.postings.toarray().astype(np.float64)  # (N, V)
    dl = tf.sum(axis=1, keepdims=True)  # (N, 1)
    p_ml = np.divide(tf, dl, out=np.zeros_like(tf), where=dl > 0)
    p_c = tf.sum(axis=0) / tf.sum()  # (V,)
    p = (1 - lam) * p_ml + lam * p_c  # (N, V)
    columns = [index.term_id(t) for t in terms if index.term_id(t) is not None]
    return np.log(p[:, columns]).sum(axis=1)


def test_hand_computed_scores(toy):
    lam = 0.2
    p_c = {"a": 3 / 9, "b": 3 / 9, "c": 2 / 9}
    expected = [
        math.log(0.8 * 2 / 3 + lam * p_c["a"]) + math.log(0.8 * 0 / 3 + lam * p_c["c"]),
        math.log(0.8 * 0 / 2 + lam * p_c["a"]) + math.log(0.8 * 1 / 2 + lam * p_c["c"]),
        math.log(0.8 * 1 / 4 + lam * p_c["a"]) + math.log(0.8 * 1 / 4 + lam * p_c["c"]),
    ]
    scores, matched = jelinek_mercer_scores(toy, ["a", "c"], lam=lam)
    assert scores == pytest.approx(expected, rel=1e-12)
    assert matched.tolist() == [True, True, True]


def test_exact_rational_arithmetic(toy):
    # the probabilities as exact fractions, the logarithm taken once at the end
    lam = Fraction(1, 4)
    probability = Fraction(1)
    for term in ["b", "d", "b"]:  # document 2: dl = 4, tf(b) = tf(d) = 1; cf(b) = 3, cf(d) = 1
        cf, tf = {"b": 3, "d": 1}[term], 1
        probability *= (1 - lam) * Fraction(tf, 4) + lam * Fraction(cf, 9)
    scores, _ = jelinek_mercer_scores(toy, ["b", "d", "b"], lam=0.25)
    assert scores[2] == pytest.approx(math.log(probability), rel=1e-13)


def test_unmatched_documents_and_unknown_terms(toy):
    scores, matched = jelinek_mercer_scores(toy, ["d", "zebra"], lam=0.5)  # "zebra" is not in the collection
    assert matched.tolist() == [False, False, True]
    assert scores[0] == scores[1] == pytest.approx(math.log(0.5 / 9))
    assert scores[2] == pytest.approx(math.log(0.5 / 4 + 0.5 / 9))
    empty, nothing = jelinek_mercer_scores(toy, [], lam=0.5)
    assert empty.tolist() == [0.0, 0.0, 0.0] and not nothing.any()  # log P(empty query) = log 1


def test_query_string_is_analysed_like_a_term_list():
    from mmir_lib.ir import Analyzer

    index = InvertedIndex.from_texts(["The horses ran", "a horse", "kingdom come"], Analyzer())
    as_text, _ = jelinek_mercer_scores(index, "Horses!", lam=0.3)
    as_terms, _ = jelinek_mercer_scores(index, index.analyze("Horses!"), lam=0.3)
    np.testing.assert_array_equal(as_text, as_terms)


def test_an_empty_document_gets_the_background_score():
    index = InvertedIndex.from_tokens([["a", "b"], [], ["b"]])
    scores, matched = jelinek_mercer_scores(index, ["a"], lam=0.3)
    assert np.isfinite(scores).all() and not matched[1]
    assert scores[1] == pytest.approx(math.log(0.3 / 3))


collections = st.lists(st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=12), min_size=1, max_size=8)
queries = st.lists(st.sampled_from("abcdefgxy"), min_size=1, max_size=5)
lams = st.floats(min_value=1e-3, max_value=1.0)


@settings(max_examples=200, deadline=None)
@given(collections, queries, lams)
def test_equals_the_dense_computation(documents, query, lam):
    index = InvertedIndex.from_tokens(documents)
    scores, matched = jelinek_mercer_scores(index, query, lam=lam)
    np.testing.assert_allclose(scores, dense_scores(index, query, lam), rtol=1e-10, atol=1e-12)
    expected_matched = np.array([any(t in doc for t in query) for doc in documents])
    np.testing.assert_array_equal(matched, expected_matched)


@settings(max_examples=100, deadline=None)
@given(collections, lams)
def test_a_distribution_over_the_vocabulary(documents, lam):
    # P(t | d) sums to 1 over the vocabulary, so each single-term score is a log-probability <= 0
    index = InvertedIndex.from_tokens(documents)
    probabilities = np.array([np.exp(jelinek_mercer_scores(index, [t], lam=lam)[0]) for t in index.terms])
    np.testing.assert_allclose(probabilities.sum(axis=0), 1.0, rtol=1e-12)
    assert np.all(probabilities <= 1.0 + 1e-12)


@settings(max_examples=100, deadline=None)
@given(collections, queries, lams)
def test_scores_are_log_probabilities(documents, query, lam):
    scores, _ = jelinek_mercer_scores(InvertedIndex.from_tokens(documents), query, lam=lam)
    assert np.all(np.isfinite(scores)) and np.all(scores <= 1e-12)


def test_lambda_one_ignores_the_documents(toy):
    scores, _ = jelinek_mercer_scores(toy, ["a", "c", "a"], lam=1.0)
    np.testing.assert_allclose(scores, 2 * math.log(3 / 9) + math.log(2 / 9), rtol=1e-12)


def test_small_lambda_tends_to_maximum_likelihood(toy):
    # every document that holds all the query terms: score -> Σ log(tf/dl)
    for lam in [1e-4, 1e-6, 1e-8]:
        scores, _ = jelinek_mercer_scores(toy, ["a", "b"], lam=lam)
        assert scores[0] == pytest.approx(math.log(2 / 3) + math.log(1 / 3), abs=10 * lam)
        assert scores[2] == pytest.approx(2 * math.log(1 / 4), abs=10 * lam)
    # ... while a document missing a term falls towards log 0 = -inf
    assert jelinek_mercer_scores(toy, ["a", "b"], lam=1e-12)[0][1] < math.log(1e-11)


@settings(max_examples=100, deadline=None)
@given(collections, queries)
def test_dirichlet_is_jelinek_mercer_with_a_length_dependent_lambda(documents, query):
    # for each document, JM with λ_d = μ / (dl + μ) gives Dirichlet's score
    index = InvertedIndex.from_tokens(documents)
    mu = 7.0
    dirichlet, _ = query_likelihood_scores(index, query, mu=mu)
    for d, dl in enumerate(index.doc_lengths):
        jm, _ = jelinek_mercer_scores(index, query, lam=mu / (dl + mu))
        assert jm[d] == pytest.approx(dirichlet[d], rel=1e-10, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(collections, queries, lams)
def test_ranking_invariant_under_query_order_and_document_order(documents, query, lam):
    index = InvertedIndex.from_tokens(documents)
    scores, _ = jelinek_mercer_scores(index, query, lam=lam)
    reordered, _ = jelinek_mercer_scores(index, query[::-1], lam=lam)
    np.testing.assert_allclose(reordered, scores, rtol=1e-12)
    permutation = np.random.default_rng(len(documents)).permutation(len(documents))
    shuffled, _ = jelinek_mercer_scores(InvertedIndex.from_tokens([documents[i] for i in permutation]), query, lam=lam)
    np.testing.assert_allclose(shuffled, scores[permutation], rtol=1e-12, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(collections, st.lists(st.sampled_from("abcdefg"), min_size=1, max_size=3), lams)
def test_doubling_a_document_changes_nothing_but_the_collection_model(documents, query, lam):
    # P_ml(t|d) is a relative frequency: a document written out twice has the same one. With the
    # collection model held fixed (every document doubled), the scores do not change at all.
    index = InvertedIndex.from_tokens(documents)
    doubled = InvertedIndex.from_tokens([doc + doc for doc in documents])
    np.testing.assert_allclose(jelinek_mercer_scores(doubled, query, lam=lam)[0],
                               jelinek_mercer_scores(index, query, lam=lam)[0], rtol=1e-10, atol=1e-12)


def test_single_term_ranking_is_by_relative_frequency(toy):
    # one query term: log((1-λ) tf/dl + λ P(t|C)) grows with tf/dl whatever λ
    for lam in [0.01, 0.5, 0.99]:
        doc_ids, _ = jelinek_mercer_search(toy, ["b"], k=3, lam=lam)
        assert doc_ids.tolist() == [1, 0, 2]  # tf/dl = 1/2, 1/3, 1/4


def test_search_returns_matching_documents_best_first(toy):
    doc_ids, scores = jelinek_mercer_search(toy, ["c", "d"], k=5, lam=0.1)
    assert doc_ids.tolist() == [2, 1]  # document 0 has neither term
    assert np.all(np.diff(scores) <= 0)


def test_numpy_scalars_are_accepted(toy):
    a, _ = jelinek_mercer_scores(toy, ["a"], lam=np.float32(0.25))
    b, _ = jelinek_mercer_scores(toy, ["a"], lam=0.25)
    np.testing.assert_array_equal(a, b)
    assert len(jelinek_mercer_search(toy, ["a"], k=np.int64(2), lam=0.25)[0]) == 2


@pytest.mark.parametrize("lam, error", [(0.0, ValueError), (-0.1, ValueError), (1.5, ValueError),
                                        (float("nan"), ValueError), ("0.1", TypeError), (True, TypeError)])
def test_bad_lambda(toy, lam, error):
    with pytest.raises(error, match="lam"):
        jelinek_mercer_scores(toy, ["a"], lam=lam)


def test_bad_index_and_query(toy):
    with pytest.raises(TypeError, match="index"):
        jelinek_mercer_scores(TOY, ["a"])
    with pytest.raises(TypeError, match="query"):
        jelinek_mercer_scores(toy, 3)
    with pytest.raises(ValueError, match="k"):
        jelinek_mercer_search(toy, ["a"], k=0)
