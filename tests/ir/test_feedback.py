import math

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex, bm25_scores, bm25_search, collection
from mmir_lib.ir.evaluation import aggregate, evaluate
from mmir_lib.ir.feedback import (added_terms, bm25_document_vectors, bm25_space, bm25_vector_scores, centroid,
                                  cooccurrence_expansion, cosine_scores, cosine_space, document_vectors,
                                  prf_query, prf_scores, prf_search, query_vector, related_terms,
                                  residual_collection, rocchio, rocchio_scores, rocchio_search)
from mmir_lib.ranking import top_k
from mmir_lib.ir.scoring import tfidf_scores

TOY = ["cat sat mat", "cat cat dog", "dog bone", "dog bone bark", "cat mat", "fish"]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TOY, Analyzer())


def dense(x):
    return x.toarray() if scipy.sparse.issparse(x) else np.asarray(x)


# ---- Rocchio by hand ------------------------------------------------------------------------

def test_rocchio_by_hand():
    q0 = [1.0, 0.0, 0.0, 0.0]
    relevant = [[0.6, 0.8, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]  # centroid (0.3, 0.9, 0, 0)
    nonrelevant = [[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.6, 0.8]]  # centroid (0, 0, 0.8, 0.4)
    qm = rocchio(q0, relevant, nonrelevant, alpha=1.0, beta=0.75, gamma=0.15)
    # 1 + 0.75·0.3 = 1.225; 0.75·0.9 = 0.675; −0.15·0.8 = −0.12 → 0; −0.15·0.4 = −0.06 → 0
    assert dense(qm) == pytest.approx(np.array([[1.225, 0.675, 0.0, 0.0]]), abs=1e-15)
    assert qm.nnz == 2  # clipped weights are not stored
    qm = rocchio(q0, relevant, nonrelevant, alpha=2.0, beta=0.0, gamma=0.0)
    assert dense(qm) == pytest.approx(np.array([[2.0, 0.0, 0.0, 0.0]]))


def test_rocchio_without_relevant_documents():
    q0 = np.array([0.5, 0.5, 0.5])
    nonrelevant = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    for empty in (None, np.zeros((0, 3)), scipy.sparse.csr_array((0, 3))):
        qm = rocchio(q0, empty, nonrelevant, alpha=1.0, beta=0.75, gamma=0.2)
        assert dense(qm) == pytest.approx(np.array([[0.5, 0.4, 0.4]]))  # α q0 − γ (0, 0.5, 0.5)
    assert dense(rocchio(q0, None, None)) == pytest.approx(q0[None, :])


def test_expansion_terms_keep_the_query_and_the_best_new_terms():
    q0 = [1.0, 0.0, 0.0, 0.0, 0.0]
    relevant = [[0.0, 0.2, 0.9, 0.5, 0.5]]
    qm = rocchio(q0, relevant, None, beta=1.0, expansion_terms=2)
    assert dense(qm) == pytest.approx(np.array([[1.0, 0.0, 0.9, 0.5, 0.0]]))  # tie 0.5/0.5: smaller id
    qm = rocchio(q0, relevant, None, beta=1.0, expansion_terms=0)
    assert dense(qm) == pytest.approx(np.array([[1.0, 0.0, 0.0, 0.0, 0.0]]))
    # a query term clipped to 0 by negative feedback does not come back
    qm = rocchio([1.0, 1.0, 0.0], [[0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0]], gamma=2.0, expansion_terms=5)
    assert dense(qm) == pytest.approx(np.array([[1.0, 0.0, 0.75]]))


def test_added_terms(toy):
    original = query_vector(toy, "cat")
    expanded = rocchio(original, document_vectors(toy, [0, 1]), None, beta=1.0)
    terms = [t for t, _ in added_terms(toy, original, expanded)]
    assert sorted(terms) == ["dog", "mat", "sat"]
    weights = [w for _, w in added_terms(toy, original, expanded)]
    assert weights == sorted(weights, reverse=True) and all(w > 0 for w in weights)


# ---- properties and cross-checks against dense numpy --------------------------------------

matrices = st.integers(1, 6).flatmap(lambda v: st.tuples(
    st.lists(st.floats(0, 3), min_size=v, max_size=v),
    st.lists(st.lists(st.floats(0, 3), min_size=v, max_size=v), max_size=4),
    st.lists(st.lists(st.floats(0, 3), min_size=v, max_size=v), max_size=4)))
weights = st.floats(0, 4)


@settings(max_examples=80, deadline=None)
@given(matrices, weights, weights, weights)
def test_rocchio_equals_dense_numpy(vectors, alpha, beta, gamma):
    q0, relevant, nonrelevant = (np.array(v, dtype=np.float64) for v in vectors)
    expected = alpha * q0
    if len(relevant):
        expected = expected + beta * relevant.mean(axis=0)
    if len(nonrelevant):
        expected = expected - gamma * nonrelevant.mean(axis=0)
    expected = np.maximum(expected, 0.0)
    relevant = relevant.reshape(-1, len(q0))
    nonrelevant = nonrelevant.reshape(-1, len(q0))
    qm = rocchio(scipy.sparse.csr_array(q0[None, :]), scipy.sparse.csr_array(relevant),
                 nonrelevant, alpha, beta, gamma)
    assert dense(qm)[0] == pytest.approx(expected, abs=1e-12)
    assert (qm.data > 0).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(-5, 5), min_size=4, max_size=4), min_size=1, max_size=7))
def test_centroid_is_the_mean(rows):
    rows = np.array(rows)
    assert dense(centroid(rows))[0] == pytest.approx(rows.mean(axis=0), abs=1e-12)
    assert dense(centroid(scipy.sparse.csr_array(rows)))[0] == pytest.approx(rows.mean(axis=0), abs=1e-12)


docs = st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=10), min_size=3, max_size=20)
queries = st.lists(st.sampled_from("abcdefghz"), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(docs, queries, st.sampled_from(["ltc.ltc", "lnc.ltc", "ltc.lnc", "bnc.btc", "ntc.ntc"]))
def test_cosine_scores_equal_tfidf_scores(documents, query, scheme):
    """Cross-check: the sparse vectors reproduce scoring.tfidf_scores exactly."""
    index = InvertedIndex.from_tokens(documents)
    ours, ours_matched = cosine_scores(index, query_vector(index, query, scheme=scheme), scheme=scheme)
    theirs, theirs_matched = tfidf_scores(index, query, scheme=scheme)
    assert ours == pytest.approx(theirs, abs=1e-12)
    positive = theirs > 0
    assert (ours_matched[positive]).all() and (ours_matched <= theirs_matched).all()


@settings(max_examples=40, deadline=None)
@given(docs, queries, st.data())
def test_no_feedback_weight_keeps_the_original_cosine_ranking(documents, query, data):
    """Property: with β = γ = 0 the Rocchio ranking is the original cosine ranking."""
    index = InvertedIndex.from_tokens(documents)
    ids = st.lists(st.integers(0, index.num_docs - 1), unique=True, max_size=index.num_docs)
    chosen = data.draw(ids)
    split = data.draw(st.integers(0, len(chosen)))
    alpha = data.draw(st.floats(0.1, 5))
    k = index.num_docs
    ours = rocchio_search(index, query, chosen[:split], chosen[split:], k=k, alpha=alpha, beta=0.0, gamma=0.0)
    scores, matched = tfidf_scores(index, query, scheme="ltc.ltc")
    theirs = top_k(scores, k, matched & (scores > 0))
    assert ours[0].tolist() == theirs[0].tolist()
    assert ours[1] == pytest.approx(theirs[1], abs=1e-12)


def test_document_vectors_by_hand(toy):
    # doc 1 "cat cat dog": cat tf 2 (n = 3 of N = 6), dog tf 1 (n = 3)
    d = dense(document_vectors(toy, [1]))[0]
    cat, dog = toy.term_id("cat"), toy.term_id("dog")
    raw = np.array([(1 + math.log(2)) * math.log(2), math.log(2)])
    assert d[[cat, dog]] == pytest.approx(raw / np.linalg.norm(raw))
    assert np.count_nonzero(d) == 2
    all_rows = document_vectors(toy)
    assert all_rows.shape == (6, toy.num_terms)
    assert np.sqrt(all_rows.multiply(all_rows).sum(axis=1)) == pytest.approx(np.ones(6))
    assert document_vectors(toy, []).shape == (0, toy.num_terms)


# ---- BM25 space and pseudo-relevance feedback ------------------------------------------------

def test_bm25_vector_scores_equal_bm25_scores(toy):
    counts = np.zeros(toy.num_terms)
    counts[[toy.term_id("cat"), toy.term_id("dog")]] = [2, 1]
    ours, ours_matched = bm25_vector_scores(toy, counts, k1=1.5, b=0.5)
    theirs, theirs_matched = bm25_scores(toy, "cat cat dog", k1=1.5, b=0.5)
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert ours_matched.tolist() == theirs_matched.tolist()
    rows = bm25_document_vectors(toy, [1, 3])
    assert np.sqrt(rows.multiply(rows).sum(axis=1)) == pytest.approx([1.0, 1.0])


def test_prf_by_hand(toy):
    # "bark" is only in document 3 ("dog bone bark"): the first pass finds only it, and
    # feedback adds "dog" and "bone", which bring documents 1 and 2 in.
    q = prf_query(toy, "bark", m=5, expansion_terms=5)
    assert q.feedback.tolist() == [3]
    assert sorted(t for t, _ in added_terms(toy, q.original, q.expanded)) == ["bone", "dog"]
    row = dense(bm25_document_vectors(toy, [3]))[0]
    assert dense(q.expanded)[0] == pytest.approx(dense(q.original)[0] + 0.75 * row)
    ids, _ = prf_search(toy, "bark", m=5, expansion_terms=5, k=10)
    assert ids[0] == 3 and set(ids.tolist()) == {1, 2, 3}
    ids, _ = prf_search(toy, "bark", m=1, expansion_terms=1, k=10)  # "bone" beats "dog": rarer
    assert set(ids.tolist()) == {2, 3}


@settings(max_examples=40, deadline=None)
@given(docs, queries, st.integers(1, 5), st.integers(0, 5))
def test_prf_without_feedback_weight_is_the_first_pass(documents, query, m, terms):
    """Property: with β = 0 pseudo-relevance feedback returns BM25's own ranking."""
    index = InvertedIndex.from_tokens(documents)
    ours = prf_search(index, query, m=m, expansion_terms=terms, k=index.num_docs, beta=0.0)
    theirs = bm25_search(index, query, k=index.num_docs)
    assert ours[0].tolist() == theirs[0].tolist()


def test_prf_in_the_cosine_space(toy):
    space = cosine_space("ltc.ltc")
    q = prf_query(toy, "bark", m=1, expansion_terms=5, space=space)
    expected = rocchio(q.original, document_vectors(toy, [3]), None, 1.0, 0.75, 0.0)
    assert dense(q.expanded) == pytest.approx(dense(expected))
    scores, _ = prf_scores(toy, "bark", m=1, expansion_terms=5, space=space)
    assert scores == pytest.approx(cosine_scores(toy, expected)[0])


def test_prf_on_the_lee_collection_matches_bm25_without_feedback():
    docnos, index, queries, qrels = collection.lee_collection()
    exclude = {q: q for q in queries}
    bm25 = collection.make_run(index, docnos, queries, bm25_scores, exclude=exclude)
    no_feedback = collection.make_run(index, docnos, queries, lambda ix, q: prf_scores(ix, q, beta=0.0),
                                      exclude=exclude)
    assert aggregate(evaluate(no_feedback, qrels, "map")) == pytest.approx(aggregate(evaluate(bm25, qrels, "map")))
    prf = collection.make_run(index, docnos, queries, prf_scores, exclude=exclude)
    assert prf != bm25


# ---- related terms ---------------------------------------------------------------------------

def test_related_terms_by_hand(toy):
    # N = 6; dog in docs 1, 2, 3 (n = 3); bone in 2, 3 (n = 2); cat in 0, 1, 4 (n = 3); bark in 3
    related = related_terms(toy, "dog", k=10, min_cooccurrence=1)
    assert [r.term for r in related] == ["bark", "bone", "cat"]
    assert related[0].pmi == pytest.approx(math.log(6 * 1 / (3 * 1)))
    assert related[1].pmi == pytest.approx(math.log(6 * 2 / (3 * 2)))  # bark, bone tie: alphabetical
    assert related[2].pmi == pytest.approx(math.log(6 * 1 / (3 * 3)))
    assert [r.cooccurrences for r in related] == [1, 2, 1]
    assert [r.term for r in related_terms(toy, "dog", min_cooccurrence=2)] == ["bone"]


def test_cooccurrence_expansion(toy):
    q = dense(cooccurrence_expansion(toy, "dog", per_term=1, weight=0.5, min_cooccurrence=1))[0]
    assert q[toy.term_id("dog")] == pytest.approx(1.0) and q[toy.term_id("bark")] == pytest.approx(0.5)
    assert np.count_nonzero(q) == 2
    q = dense(cooccurrence_expansion(toy, "dog bone", per_term=1, weight=0.5, min_cooccurrence=1))[0]
    # bone's best partner is bark (PMI ln 3), dog's is bark too: both add 0.5 · 1/√2
    assert q[toy.term_id("bark")] == pytest.approx(2 * 0.5 / math.sqrt(2))


# ---- residual collection ---------------------------------------------------------------------

def test_residual_collection():
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"a": 1.0, "b": 0.5}}
    qrels = {"1": {"a": 2, "b": 0, "c": 1}, "2": {"a": 1}, "3": {"x": 1}}
    new_run, new_qrels = residual_collection(run, qrels, {"1": ["a", "b"], "2": ["a"]})
    assert new_run == {"1": {"c": 1.0}, "2": {"b": 0.5}}
    assert new_qrels == {"1": {"c": 1}, "3": {"x": 1}}  # query 2 has nothing relevant left
    assert run["1"] == {"a": 3.0, "b": 2.0, "c": 1.0}  # inputs untouched
    assert evaluate(new_run, new_qrels, "P_1") == {"1": {"P_1": 1.0}}


# ---- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("params, error, message", [
    (dict(alpha=-1.0), ValueError, "alpha must be >= 0"),
    (dict(beta=float("nan")), ValueError, "beta"),
    (dict(gamma=float("inf")), ValueError, "gamma"),
    (dict(beta=True), TypeError, "beta must be a real number"),
    (dict(expansion_terms=-1), ValueError, "expansion_terms must be >= 0"),
    (dict(expansion_terms=2.5), TypeError, "expansion_terms must be an int"),
])
def test_rocchio_rejects_bad_weights(params, error, message):
    with pytest.raises(error, match=message):
        rocchio([1.0, 0.0], [[0.0, 1.0]], None, **params)


def test_rocchio_rejects_bad_vectors():
    with pytest.raises(ValueError, match="one vector"):
        rocchio([[1.0, 0.0], [0.0, 1.0]], None, None)
    with pytest.raises(ValueError, match="3 columns"):
        rocchio([1.0, 0.0], [[0.0, 1.0, 0.0]], None)
    with pytest.raises(ValueError, match="finite"):
        rocchio([1.0, float("nan")], None, None)
    with pytest.raises(TypeError, match="query_vector must hold float values"):
        rocchio(["a", "b"], None, None)
    with pytest.raises(ValueError, match="query_vector must have at least one term"):
        rocchio([], None, None)
    with pytest.raises(ValueError, match="no vectors"):
        centroid(np.zeros((0, 3)))


def test_search_functions_reject_bad_input(toy):
    with pytest.raises(ValueError, match="m must be >= 1"):
        prf_query(toy, "cat", m=0)
    with pytest.raises(TypeError, match="m must be an int"):
        prf_query(toy, "cat", m=2.0)
    with pytest.raises(ValueError, match="relevant and nonrelevant must be disjoint"):
        rocchio_scores(toy, "cat", [0, 1], [1])
    with pytest.raises(ValueError, match="relevant must hold values <= 5"):
        rocchio_scores(toy, "cat", [6])
    with pytest.raises(TypeError, match="doc_ids must hold int values"):
        document_vectors(toy, ["a"])
    with pytest.raises(TypeError, match="relevant must be an array"):  # not "every document"
        rocchio_scores(toy, "cat", None)
    with pytest.raises(ValueError, match="variant must be one of"):
        bm25_space(variant="okapi")
    with pytest.raises(TypeError, match="space must be a VectorSpace"):
        prf_scores(toy, "cat", space="bm25")
    with pytest.raises(ValueError, match="cosine-normalised"):
        cosine_space("lnn.ltc")
    with pytest.raises(ValueError, match="cosine-normalised"):
        cosine_scores(toy, query_vector(toy, "cat"), scheme="ltn.ltc")
    with pytest.raises(ValueError, match="V = 7"):
        bm25_vector_scores(toy, np.ones(3))
    with pytest.raises(ValueError, match="not in the dictionary"):
        related_terms(toy, "unicorn")
    with pytest.raises(ValueError, match="k must be >= 1"):
        related_terms(toy, "cat", k=0)
    with pytest.raises(TypeError, match="run must be a mapping"):
        residual_collection([], {}, {})
    with pytest.raises(TypeError, match=r"seen\['q1'\] must be a collection of docnos"):
        residual_collection({}, {}, {"q1": 3})


def test_cosine_of_a_huge_query_vector_does_not_overflow(toy):
    q = query_vector(toy, "cat dog")
    scores, _ = cosine_scores(toy, q)
    huge, _ = cosine_scores(toy, q * 1e300)  # its squares overflow: the norm is taken with hypot
    assert np.all(np.isfinite(huge)) and huge == pytest.approx(scores, rel=1e-12)


def test_queries_without_known_terms(toy):
    assert query_vector(toy, "unicorn").nnz == 0
    scores, matched = cosine_scores(toy, query_vector(toy, "unicorn"))
    assert not scores.any() and not matched.any()
    q = prf_query(toy, "unicorn")
    assert len(q.feedback) == 0 and q.expanded.nnz == 0
    ids, _ = prf_search(toy, "unicorn")
    assert len(ids) == 0


def test_spaces_are_named():
    assert cosine_space().name == "cosine ltc.ltc" and bm25_space(1.2, 0.75).name == "BM25 k1=1.2 b=0.75"
