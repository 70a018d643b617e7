import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex
from mmir_lib.ir.query_likelihood import query_likelihood_scores, query_likelihood_search
from mmir_lib.ir.scoring import (document_norms, idf, jaccard, jaccard_scores, tf_weight,
                                 tfidf_scores, tfidf_search)

TOY = ["the cat sat", "the cat sat on the cat", "a dog"]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TOY, Analyzer())


def test_jaccard_by_hand():
    assert jaccard("a b c".split(), "b c d".split()) == pytest.approx(2 / 4)
    assert jaccard([], []) == 0.0
    assert jaccard(["x"], ["x", "x"]) == 1.0


def test_jaccard_scores_by_hand(toy):
    # query {cat, dog}; doc 0 {the, cat, sat}: 1/4; doc 1 {the, cat, sat, on}: 1/5; doc 2 {a, dog}: 1/3
    scores, matched = jaccard_scores(toy, "cat dog")
    assert scores == pytest.approx([1 / 4, 1 / 5, 1 / 3])
    assert matched.all()


def test_tf_weights_and_idf():
    assert tf_weight([0, 1, 2, 5], "n").tolist() == [0, 1, 2, 5]
    assert tf_weight([0, 1, math.e], "l") == pytest.approx([0, 1, 2])
    assert tf_weight([0, 3], "b").tolist() == [0, 1]
    assert idf([1, 10, 100], 100) == pytest.approx([math.log(100), math.log(10), 0])


def test_lnc_ltc_by_hand(toy):
    # query "cat cat dog": tf 2, 1 -> l: 1 + ln 2, 1; idf cat = ln(3/2), dog = ln 3
    q = np.array([(1 + math.log(2)) * math.log(1.5), math.log(3)])
    q /= np.linalg.norm(q)
    # doc 1 "the cat sat on the cat": l weights the 2, cat 2, sat 1, on 1
    d1 = np.array([1 + math.log(2), 1 + math.log(2), 1, 1])
    expected_1 = d1[1] / np.linalg.norm(d1) * q[0]
    scores, matched = tfidf_scores(toy, ["cat", "cat", "dog"])
    assert scores[1] == pytest.approx(expected_1, rel=1e-12)
    assert scores[2] == pytest.approx(1 / math.sqrt(2) * q[1], rel=1e-12)
    assert matched.tolist() == [True, True, True]


def test_unknown_terms_and_bad_input(toy):
    scores, matched = tfidf_scores(toy, ["zebra"])
    assert not matched.any() and not scores.any()
    with pytest.raises(ValueError, match="SMART"):
        tfidf_scores(toy, "cat", scheme="lnc")
    with pytest.raises(ValueError, match="SMART"):
        tfidf_scores(toy, "cat", scheme="xyz.ltc")
    with pytest.raises(ValueError, match="empty"):
        tfidf_scores(toy, "  ")
    with pytest.raises(TypeError):
        tfidf_scores(toy, 42)
    with pytest.raises(ValueError, match=">= 0"):
        tf_weight([-1])
    with pytest.raises(ValueError, match="df must hold values >= 1"):
        idf([0], 10)
    with pytest.raises(ValueError, match="df must hold values <= 10"):
        idf([11], 10)
    with pytest.raises(ValueError, match="norms must hold finite numbers"):  # once a silent score of 2.099
        tfidf_scores(toy, "cat", norms=np.full(toy.num_docs, np.nan))
    with pytest.raises(ValueError, match="norms must have shape"):
        tfidf_scores(toy, "cat", norms=np.ones(toy.num_docs + 1))
    with pytest.raises(TypeError, match="a must be a list of str"):
        jaccard("ides of march", ["march"])
    with pytest.raises(ValueError, match="mu"):
        query_likelihood_scores(toy, "cat", mu=0)


docs = st.lists(st.lists(st.sampled_from("abcdefgh"), min_size=1, max_size=12), min_size=2, max_size=25)


@settings(max_examples=60, deadline=None)
@given(docs, st.lists(st.sampled_from("abcdefghz"), min_size=1, max_size=4),
       st.sampled_from(["lnc.ltc", "ltc.ltc", "nnn.nnn", "bnc.btc", "ntn.ntc"]))
def test_tfidf_equals_dense_vectors(documents, query, scheme):
    """Property: the postings-based score equals the dense vector formula."""
    index = InvertedIndex.from_tokens(documents)
    scores, _ = tfidf_scores(index, query, scheme=scheme)
    dense_tf = index.postings.toarray().astype(float)  # (N, V)
    q_tf = np.array([query.count(t) for t in index.terms], dtype=float)
    def weigh(tf, letters):
        w = tf_weight(tf, letters[0])
        if letters[1] == "t":
            w = w * np.log(index.num_docs / index.df)
        if letters[2] == "c":
            norm = np.linalg.norm(w, axis=-1, keepdims=True)
            w = np.divide(w, norm, out=np.zeros_like(w), where=norm > 0)
        return w
    d_part, q_part = scheme.split(".")
    expected = weigh(dense_tf, d_part) @ weigh(q_tf, q_part)
    assert scores == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(docs, st.lists(st.sampled_from("abcdefghz"), min_size=1, max_size=4),
       st.floats(0.5, 5000))
def test_query_likelihood_equals_direct_formula(documents, query, mu):
    index = InvertedIndex.from_tokens(documents)
    scores, matched = query_likelihood_scores(index, query, mu=mu)
    total = sum(len(d) for d in documents)
    for d, doc in enumerate(documents):
        expected = sum(math.log((doc.count(t) + mu * sum(x.count(t) for x in documents) / total)
                                / (len(doc) + mu))
                       for t in query if any(t in x for x in documents))
        assert scores[d] == pytest.approx(expected, rel=1e-9, abs=1e-9)
        assert matched[d] == any(t in doc for t in query)


def test_query_likelihood_by_hand(toy):
    # Both documents are 1/3 "cat"; with mu = 1 the smoothed estimates are (1 + p)/4 and
    # (2 + p)/7, p = P(cat | C) = 3/11, and (2 + p)/7 > (1 + p)/4 because p < 1/3.
    ids, _ = query_likelihood_search(toy, "cat", mu=1.0)
    assert ids.tolist() == [1, 0]
    scores, _ = query_likelihood_scores(toy, "cat", mu=1.0)
    p_cat = 3 / 11
    assert scores[0] == pytest.approx(math.log((1 + p_cat) / 4))
    assert scores[1] == pytest.approx(math.log((2 + p_cat) / 7))


# ---- cross-check: gensim's TfidfModel with the same SMART scheme -------------------------
# gensim writes idf with log2 and "l" as 1 + log2 tf; with cosine normalisation the base of
# the idf logarithm cancels, so the natural-tf and boolean-tf schemes must agree exactly.
# (gensim's own "t" is log2((N + 1) / n_t); its "f" is our "t".)
@pytest.mark.parametrize("ours, theirs", [("nnc.nnc", ("nnc", "nnc")), ("ntc.ntc", ("nfc", "nfc")),
                                          ("btc.btc", ("bfc", "bfc")), ("nnc.ntc", ("nnc", "nfc"))])
def test_cosine_equals_gensim(ours, theirs):
    from gensim.corpora import Dictionary
    from gensim.models import TfidfModel
    from mmir_lib.data import lee_corpus

    analyzer = Analyzer()
    tokens = [analyzer(text) for text in lee_corpus().documents]
    index = InvertedIndex.from_tokens(tokens, analyzer)
    dictionary = Dictionary(tokens)
    bow = [dictionary.doc2bow(doc) for doc in tokens]
    doc_model = TfidfModel(bow, dictionary=dictionary, smartirs=theirs[0])
    query_model = TfidfModel(bow, dictionary=dictionary, smartirs=theirs[1])
    doc_vectors = [dict(doc_model[b]) for b in bow]
    for q in range(0, 50, 7):  # each Lee document, used as a query
        query_vector = dict(query_model[dictionary.doc2bow(tokens[q])])
        expected = [sum(w * query_vector.get(t, 0.0) for t, w in dv.items()) for dv in doc_vectors]
        scores, _ = tfidf_scores(index, tokens[q], scheme=ours)
        np.testing.assert_allclose(scores, expected, rtol=1e-6, atol=1e-9)


def test_search_ranks_by_score(toy):
    ids, scores = tfidf_search(toy, "cat", k=5)
    assert ids.tolist() == [1, 0] and scores[0] > scores[1]
    norms = document_norms(toy)
    assert tfidf_search(toy, "cat", norms=norms)[0].tolist() == ids.tolist()
