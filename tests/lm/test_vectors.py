"""Vector semantics: count matrices against brute force, tf-idf and PPMI against the seed's
worked tables (and scikit-learn), cosine against scipy, SVD against numpy, Spearman's ρ
against scipy.stats.spearmanr, similarity and analogy scores against gensim's evaluators."""

import collections
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist
from scipy.stats import spearmanr

from mmir_lib.data import shakespeare_play_texts, word_analogies, word_similarity_pairs
from mmir_lib.lm.vectors import (analogy, analogy_accuracy, cosine_similarity, nearest_words, neighbour_overlap,
                                 normalize_rows, ppmi, similarity_benchmark, spearman_rho, term_document_matrix,
                                 term_term_matrix, tf_idf, truncated_svd, word_ids)

_sequences = st.lists(st.lists(st.integers(0, 5), max_size=12).map(np.array), min_size=1, max_size=4)


@pytest.fixture(scope="module")
def shakespeare():
    """Three plays, lower-cased words by a simple regex, one sequence per play (tests only)."""
    texts = shakespeare_play_texts()
    tokens = [re.findall(r"[a-z]+(?:'[a-z]+)?", texts[p].lower()) for p in ("hamlet", "lear", "macbeth")]
    return word_ids(tokens, min_count=3)


# ---------------------------------------------------------------------------------------------
# Count matrices
# ---------------------------------------------------------------------------------------------

def test_word_ids_drop_rare_words_and_order_by_frequency():
    ids, vocab = word_ids([["a", "b", "a", "c"], ["b", "a", "d", "d"]], min_count=2)
    assert vocab == ["a", "b", "d"]  # a: 3; b and d: 2, alphabetical; c: 1, dropped
    assert [s.tolist() for s in ids] == [[0, 1, 0], [1, 0, 2, 2]]


@settings(max_examples=60, deadline=None)
@given(_sequences)
def test_term_document_matrix_counts_every_occurrence(documents):
    counts = term_document_matrix(documents, vocab_size=6).toarray()
    expected = np.zeros((6, len(documents)))
    for d, doc in enumerate(documents):
        for t, n in collections.Counter(doc.tolist()).items():
            expected[t, d] = n
    assert np.array_equal(counts, expected)


@settings(max_examples=60, deadline=None)
@given(_sequences, st.integers(1, 4), st.sampled_from(["count", "harmonic"]))
def test_term_term_matrix_equals_a_double_loop(sequences, window, weighting):
    counts = term_term_matrix(sequences, 6, window=window, weighting=weighting).toarray()
    expected = np.zeros((6, 6))
    for s in sequences:  # windows never cross from one sequence to the next
        for i in range(len(s)):
            for j in range(len(s)):
                if 0 < abs(i - j) <= window:
                    expected[s[i], s[j]] += 1.0 if weighting == "count" else 1.0 / abs(i - j)
    np.testing.assert_allclose(counts, expected, atol=1e-12)
    np.testing.assert_allclose(counts, counts.T, atol=1e-12)


def test_term_term_matrix_of_a_sentence():
    ids, vocab = word_ids([["the", "cat", "sat", "on", "the", "mat"]])
    counts = term_term_matrix(ids, len(vocab), window=1).toarray()
    the, cat, mat = (vocab.index(w) for w in ("the", "cat", "mat"))
    assert counts[the, cat] == 1 and counts[the, mat] == 1 and counts[cat, mat] == 0 and counts[the, the] == 0


# ---------------------------------------------------------------------------------------------
# tf-idf: the seed's tables (Shakespeare, N = 37 plays)
# ---------------------------------------------------------------------------------------------

def _seed_plays():
    """battle, good, fool, wit in 37 plays: the seed's counts in As You Like It, Twelfth Night,
    Julius Caesar and Henry V, and one occurrence in enough other plays for its df (21, 37, 36, 34)."""
    shown = np.array([[1, 0, 7, 13], [114, 80, 62, 89], [36, 58, 1, 4], [20, 15, 2, 3]], dtype=float)
    counts = np.zeros((4, 37))
    counts[:, :4] = shown
    for row, df in enumerate((21, 37, 36, 34)):
        missing = df - np.count_nonzero(shown[row])
        counts[row, 4:4 + missing] = 1
    return counts


def test_tf_idf_reproduces_the_seeds_table():
    weights = tf_idf(_seed_plays(), tf="log").toarray()[:, :4]
    seed = np.array([[0.074, 0, 0.22, 0.28], [0, 0, 0, 0], [0.019, 0.021, 0.0036, 0.0083], [0.049, 0.044, 0.018, 0.022]])
    np.testing.assert_allclose(weights, seed, rtol=0.03, atol=5e-4)  # the seed rounds to two digits


def test_idf_reproduces_the_seeds_idf_table():
    df = [1, 2, 4, 12, 21, 34, 36, 37]  # Romeo, salad, Falstaff, forest, battle, wit, fool, good
    counts = np.zeros((len(df), 37))
    for row, n in enumerate(df):
        counts[row, :n] = 1
    idf = tf_idf(counts, tf="raw").toarray().max(axis=1)  # tf = 1: the weight is the idf
    np.testing.assert_allclose(idf, [1.57, 1.27, 0.967, 0.489, 0.246, 0.037, 0.012, 0], atol=6e-3)


def test_tf_idf_agrees_with_scikit_learn():
    """scikit-learn's unsmoothed idf is ln(N/df) + 1: ours is (that − 1) / ln 10."""
    from sklearn.feature_extraction.text import TfidfTransformer

    counts = np.random.default_rng(0).poisson(0.7, size=(30, 12)).astype(float)  # (terms, documents)
    counts[:, 0] += 1  # every term in some document
    reference = TfidfTransformer(norm=None, smooth_idf=False, sublinear_tf=False).fit(counts.T)
    np.testing.assert_allclose(tf_idf(counts, tf="raw").toarray(),
                               counts * ((reference.idf_ - 1) / np.log(10))[:, None], atol=1e-12)
    np.testing.assert_allclose(tf_idf(sp.csr_matrix(counts), tf="log").toarray(),
                               np.log10(counts + 1) * ((reference.idf_ - 1) / np.log(10))[:, None], atol=1e-12)


# ---------------------------------------------------------------------------------------------
# PPMI: the seed's table
# ---------------------------------------------------------------------------------------------

SEED_COUNTS = np.array([[2, 8, 9, 442, 25], [0, 0, 1, 60, 19], [1670, 1683, 85, 5, 4], [3325, 3982, 378, 5, 13]])


def test_ppmi_reproduces_the_seeds_table():
    """cherry, strawberry, digital, information × computer, data, result, pie, sugar."""
    expected = np.array([[0, 0, 0, 4.38, 3.30], [0, 0, 0, 4.10, 5.51], [0.18, 0.01, 0, 0, 0], [0.02, 0.09, 0.28, 0, 0]])
    np.testing.assert_allclose(ppmi(SEED_COUNTS).toarray(), expected, atol=0.006)


def test_ppmi_equals_the_dense_formula():
    counts = np.random.default_rng(1).poisson(1.5, size=(20, 15)).astype(float)
    for alpha in (1.0, 0.75):
        p_context = counts.sum(0) ** alpha / (counts.sum(0) ** alpha).sum()
        with np.errstate(divide="ignore"):
            pmi = np.log2(counts / counts.sum() / (counts.sum(1, keepdims=True) / counts.sum() * p_context))
        np.testing.assert_allclose(ppmi(counts, alpha=alpha).toarray(), np.maximum(pmi, 0), atol=1e-12)


def test_context_smoothing_gives_the_seeds_probabilities():
    """One word, contexts a and b with P(a) = .99, P(b) = .01: P_0.75(a) = .97 (the seed)."""
    weights = ppmi(np.array([[99.0, 1.0]]), alpha=0.75).toarray()[0]
    assert weights[1] == 0  # P(b) = .01 < P_α(b) = .03: negative PMI, clipped
    assert 0.99 / 2 ** weights[0] == pytest.approx(0.97, abs=0.005)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 9), min_size=4, max_size=4), min_size=1, max_size=6),
       st.floats(0.05, 1.0))
def test_ppmi_is_non_negative_and_zero_where_nothing_was_counted(rows, alpha):
    counts = np.array(rows, dtype=float)
    if counts.sum() == 0:
        return
    weights = ppmi(counts, alpha=alpha).toarray()
    assert weights.min() >= 0 and np.all(weights[counts == 0] == 0)


# ---------------------------------------------------------------------------------------------
# Cosine, neighbours, SVD
# ---------------------------------------------------------------------------------------------

def test_cosine_reproduces_the_seeds_example():
    """pie, data, computer: cos(cherry, information) = .017, cos(digital, information) = .996."""
    cherry, digital, information = [442, 8, 2], [5, 1683, 1670], [5, 3982, 3325]
    cosines = cosine_similarity([cherry, digital], [information])
    np.testing.assert_allclose(cosines.ravel(), [0.017, 0.996], atol=1e-3)  # 0.0178: the seed cuts it to .017


def test_cosine_equals_scipy_dense_and_sparse():
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(8, 5)), rng.normal(size=(6, 5))
    np.testing.assert_allclose(cosine_similarity(a, b), 1 - cdist(a, b, "cosine"), atol=1e-12)
    np.testing.assert_allclose(cosine_similarity(sp.csr_matrix(a), sp.csr_matrix(b)), 1 - cdist(a, b, "cosine"),
                               atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.floats(-1e3, 1e3), min_size=3, max_size=3), min_size=1, max_size=6))
def test_cosine_lies_in_minus_one_to_one(rows):
    cosines = cosine_similarity(np.array(rows))
    assert cosines.min() >= -1 and cosines.max() <= 1
    np.testing.assert_allclose(cosines, cosines.T, atol=1e-12)


def test_a_zero_vector_has_cosine_zero():
    assert np.array_equal(cosine_similarity([[0.0, 0.0], [1.0, 2.0]])[0], [0.0, 0.0])
    assert np.array_equal(normalize_rows(np.array([[0.0, 0.0], [3.0, 4.0]])), [[0, 0], [0.6, 0.8]])


def test_nearest_words_equal_a_full_sort(shakespeare):
    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=2)), 30)
    cosines = cosine_similarity(vectors[[vocab.index("king")]], vectors)[0]
    order = [j for j in np.argsort(-cosines, kind="stable") if vocab[j] != "king"][:8]
    found = nearest_words(vectors, vocab, "king", k=8)
    assert [w for w, _ in found] == [vocab[j] for j in order]
    np.testing.assert_allclose([s for _, s in found], cosines[order], atol=1e-12)
    with pytest.raises(ValueError, match="word = 'kingg' is not in the vocabulary"):
        nearest_words(vectors, vocab, "kingg")


def test_neighbour_overlap_ignores_rotations_and_falls_for_other_vectors():
    rng = np.random.default_rng(3)
    vectors, vocab = rng.normal(size=(200, 10)), [f"w{i}" for i in range(200)]
    rotation = np.linalg.qr(rng.normal(size=(10, 10)))[0]
    words = vocab[:50]
    assert neighbour_overlap(vectors, vectors @ rotation, vocab, words, k=10) == 1.0
    assert neighbour_overlap(vectors, rng.normal(size=(200, 10)), vocab, words, k=10) < 0.3


def test_truncated_svd_equals_numpy():
    matrix = np.random.default_rng(4).poisson(2.0, size=(40, 30)).astype(float)
    u, s, _ = np.linalg.svd(matrix)
    for method, iterations, atol in (("arpack", 0, 1e-8), ("randomized", 10, 1e-3), ("randomized", 60, 1e-8)):
        for power in (1.0, 0.5, 0.0):
            vectors = truncated_svd(sp.csr_matrix(matrix), 5, power=power, method=method, iterations=iterations)
            expected = u[:, :5] * s[:5] ** power
            expected *= np.sign(expected[np.argmax(np.abs(expected), axis=0), range(5)])  # largest entry positive
            np.testing.assert_allclose(vectors, expected, atol=atol * s[0] ** power)


def test_truncated_svd_is_the_same_on_every_run(shakespeare):
    ids, vocab = shakespeare
    weights = ppmi(term_term_matrix(ids, len(vocab), window=2), alpha=0.75)
    first = truncated_svd(weights, 20, seed=1)
    assert np.array_equal(first, truncated_svd(weights, 20, seed=1))
    np.testing.assert_allclose(np.abs(first), np.abs(truncated_svd(weights, 20, seed=2)), atol=1e-8)


# ---------------------------------------------------------------------------------------------
# Word similarity: Spearman's ρ
# ---------------------------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.floats(-10, 10)), min_size=3, max_size=30))
def test_spearman_rho_equals_scipy(values):
    x, y = (np.array(v, dtype=float) for v in zip(*values))
    if np.all(x == x[0]) or np.all(y == y[0]):
        with pytest.raises(ValueError, match="single distinct value"):
            spearman_rho(x, y)
        return
    assert spearman_rho(x, y) == pytest.approx(spearmanr(x, y).statistic, abs=1e-12)


def test_similarity_benchmark_equals_a_direct_spearmanr(shakespeare):
    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=4), alpha=0.75), 50)
    pairs = word_similarity_pairs("wordsim353")
    score = similarity_benchmark(vectors, vocab, pairs)
    known = [(a, b, s) for a, b, s in pairs if a in vocab and b in vocab]
    cosines = [cosine_similarity(vectors[[vocab.index(a)]], vectors[[vocab.index(b)]])[0, 0] for a, b, _ in known]
    assert score.covered == len(known) and score.total == 353 and 0 < score.coverage < 1
    assert score.rho == pytest.approx(spearmanr(cosines, [s for *_, s in known]).statistic, abs=1e-12)


def test_similarity_benchmark_equals_gensims_evaluator(shakespeare):
    from gensim.models import KeyedVectors
    from gensim.test.utils import datapath

    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=4)), 40).astype(np.float32)
    keyed = KeyedVectors(40)
    keyed.add_vectors(vocab, vectors)
    for name, file in (("wordsim353", "wordsim353.tsv"), ("simlex999", "simlex999.txt")):
        _, spearman, oov_percent = keyed.evaluate_word_pairs(datapath(file))
        score = similarity_benchmark(vectors, vocab, word_similarity_pairs(name))
        assert score.rho == pytest.approx(spearman.statistic, abs=1e-6)
        assert 100 * (1 - score.coverage) == pytest.approx(oov_percent, abs=1e-9)


def test_sparse_rows_score_like_their_dense_copy(shakespeare):
    ids, vocab = shakespeare
    weights = ppmi(term_term_matrix(ids, len(vocab), window=2))
    pairs = word_similarity_pairs("simlex999")
    assert similarity_benchmark(weights, vocab, pairs).rho == pytest.approx(
        similarity_benchmark(weights.toarray(), vocab, pairs).rho, abs=1e-12)


# ---------------------------------------------------------------------------------------------
# Analogies
# ---------------------------------------------------------------------------------------------

def test_analogy_on_a_planted_example():
    vocab = ["man", "woman", "king", "queen", "prince", "crown"]
    vectors = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0], [1, 0, 1, 0.3], [0, 0, 1, 1.0]])
    for method in ("3cosadd", "3cosmul"):
        assert analogy(vectors, vocab, "man", "woman", "king", method=method)[0][0] == "queen"
    with pytest.raises(ValueError, match="b = 'womann' is not in the vocabulary"):
        analogy(vectors, vocab, "man", "womann", "king")


def test_analogy_agrees_with_gensim(shakespeare):
    from gensim.models import KeyedVectors

    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=4), alpha=0.75), 50).astype(np.float32)
    keyed = KeyedVectors(50)
    keyed.add_vectors(vocab, vectors)
    for a, b, c in (("man", "woman", "king"), ("he", "she", "father"), ("good", "better", "great")):
        ours = analogy(vectors, vocab, a, b, c, k=5)
        theirs = keyed.most_similar(positive=[b, c], negative=[a], topn=5)
        assert [w for w, _ in ours] == [w for w, _ in theirs]
        ours = analogy(vectors, vocab, a, b, c, method="3cosmul", epsilon=1e-6, k=5)
        theirs = keyed.most_similar_cosmul(positive=[b, c], negative=[a], topn=5)
        assert [w for w, _ in ours] == [w for w, _ in theirs]
        np.testing.assert_allclose([s for _, s in ours], [s for _, s in theirs], rtol=1e-5)


def test_analogy_accuracy_equals_gensims_evaluator(shakespeare):
    from gensim.models import KeyedVectors
    from gensim.test.utils import datapath

    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=4), alpha=0.75), 50).astype(np.float32)
    keyed = KeyedVectors(50)
    keyed.add_vectors(vocab, vectors)
    _, sections = keyed.evaluate_word_analogies(datapath("questions-words.txt"))
    ours = analogy_accuracy(vectors, vocab, word_analogies(), batch_size=100)
    for section in sections[:-1]:  # the last is gensim's total
        correct, covered, total = ours.sections[section["section"]]
        assert (correct, covered) == (len(section["correct"]), len(section["correct"]) + len(section["incorrect"]))
    assert ours.covered == len(sections[-1]["correct"]) + len(sections[-1]["incorrect"]) > 300
    assert ours.total == 19544


def test_analogy_accuracy_equals_one_question_at_a_time(shakespeare):
    ids, vocab = shakespeare
    vectors = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=4)), 30)
    questions = [q for q in word_analogies()["family"] if all(w in vocab for w in q)][:40]
    for method in ("3cosadd", "3cosmul"):
        expected = sum(analogy(vectors, vocab, a, b, c, method=method)[0][0] == d for a, b, c, d in questions)
        for batch_size in (1, 7, 256):
            score = analogy_accuracy(vectors, vocab, questions, method=method, batch_size=batch_size)
            assert score.sections == {"all": (expected, len(questions), len(questions))}


def test_questions_with_unknown_words_count_in_coverage_only():
    vocab = ["a", "b", "c", "d"]
    vectors = np.eye(4) + 0.1
    score = analogy_accuracy(vectors, vocab, {"s": [("a", "b", "c", "d"), ("a", "b", "c", "zebra")]})
    assert (score.covered, score.total, score.coverage) == (1, 2, 0.5)
    assert score.accuracy == 1.0  # d is the only candidate left


def test_analogy_refuses_sparse_vectors():
    with pytest.raises(TypeError, match="vectors must be a dense array"):
        analogy(sp.identity(4, format="csr"), ["a", "b", "c", "d"], "a", "b", "c")
