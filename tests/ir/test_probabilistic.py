import math

import numpy as np
import pytest
import scipy.optimize
import scipy.special
import scipy.stats
from hypothesis import assume, given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex, bm25_scores
from mmir_lib.ir.bm25 import bm25_robertson
from mmir_lib.ir.probabilistic import (
    bim_scores, bim_term_weights, bm25_rsj_scores, eliteness_weight, fit_two_poisson, rsj_weight,
    two_poisson_log_likelihood,
)

TOY = ["a cat", "a dog", "a cat and a dog", "a bird", "the bird and the cat sat", "a fish"]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TOY, Analyzer())


# ---- the RSJ weight ----------------------------------------------------------------

def test_hand_computed_contingency_tables():
    # N = 100, n = 30, R = 10, r = 8. Cells with 0.5 added:
    #   relevant with t 8.5, non-relevant with t 22.5, relevant without t 2.5,
    #   non-relevant without t 100 - 30 - 10 + 8 + 0.5 = 68.5
    assert rsj_weight(100, 30, 10, 8) == pytest.approx(math.log(8.5 * 68.5 / (22.5 * 2.5)), rel=1e-12)
    # no relevant document contains t: the weight is negative, the term counts against
    # cells 0.5, 20.5, 10.5 and 100 - 20 - 10 + 0 + 0.5 = 70.5
    assert rsj_weight(100, 20, 10, 0) == pytest.approx(math.log(0.5 * 70.5 / (20.5 * 10.5)), rel=1e-12)
    assert rsj_weight(100, 20, 10, 0) < 0
    # another correction: c = 1 in every cell
    assert rsj_weight(100, 30, 10, 8, correction=1.0) == pytest.approx(math.log(9 * 69 / (23 * 3)), rel=1e-12)


def test_no_relevance_information_gives_the_robertson_idf():
    assert rsj_weight(1000, 10) == pytest.approx(math.log(990.5 / 10.5), rel=1e-12)
    assert rsj_weight(1000, 10, 0, 0) == rsj_weight(1000, 10)


@settings(max_examples=50)
@given(N=st.integers(1, 10**6), data=st.data())
def test_rsj_without_relevance_equals_bm25s_robertson_idf(N, data):
    n = data.draw(st.integers(0, N))
    weight = rsj_weight(N, n, R=0, r_t=0)
    assert weight == pytest.approx(math.log((N - n + 0.5) / (n + 0.5)), rel=1e-12, abs=1e-12)
    if n == 0:
        return  # bm25.py takes only terms that occur (df >= 1)
    # bm25.py's robertson weight with k1 = 0 is its idf alone (S = 1 for tf > 0), floored at 0
    idf_of_bm25 = bm25_robertson(1, 1, 1.0, n, N, 0.0, 0.0)
    assert idf_of_bm25 == pytest.approx(max(weight, 0.0), rel=1e-12, abs=1e-12)
    if 2 * n <= N:  # the floor only acts for terms in more than half the documents
        assert idf_of_bm25 == pytest.approx(weight, rel=1e-12, abs=1e-12)


tables = st.integers(1, 500).flatmap(lambda N: st.integers(0, N).flatmap(lambda R: st.integers(0, N).flatmap(
    lambda n: st.integers(max(0, n - (N - R)), min(R, n)).map(lambda r: (N, n, R, r)))))


@settings(max_examples=50)
@given(tables)
def test_rsj_is_the_log_odds_ratio_of_the_smoothed_probabilities(table):
    N, n, R, r = table
    p = (r + 0.5) / (R + 1)  # P(t in d | relevant)
    u = (n - r + 0.5) / (N - R + 1)  # P(t in d | not relevant)
    assert rsj_weight(N, n, R, r) == pytest.approx(math.log(p * (1 - u) / (u * (1 - p))), rel=1e-9, abs=1e-9)


@settings(max_examples=50)
@given(tables)
def test_rsj_symmetries(table):
    N, n, R, r = table
    w = rsj_weight(N, n, R, r)
    # "contains t" and "lacks t" swapped, or relevant and non-relevant swapped: the sign flips
    assert rsj_weight(N, N - n, R, R - r) == pytest.approx(-w, rel=1e-9, abs=1e-9)
    assert rsj_weight(N, n, N - R, n - r) == pytest.approx(-w, rel=1e-9, abs=1e-9)


@settings(max_examples=50)
@given(tables)
def test_more_relevant_documents_with_the_term_raise_its_weight(table):
    N, n, R, r = table
    assume(r < R and r < n)  # r + 1 must still be a valid table
    assert rsj_weight(N, n, R, r + 1) > rsj_weight(N, n, R, r)


def test_rsj_is_vectorised():
    weights = rsj_weight(1000, np.array([10, 500]), 5, np.array([0, 4]))
    assert weights.shape == (2,)
    assert weights[0] == pytest.approx(rsj_weight(1000, 10, 5, 0))
    assert weights[1] == pytest.approx(rsj_weight(1000, 500, 5, 4))


@pytest.mark.parametrize("args, kwargs, error, message", [
    ((0, 0), {}, ValueError, "N must be >= 1"),
    ((10, -1), {}, ValueError, "n_t must hold values >= 0"),
    ((10, 11), {}, ValueError, "n_t must be <= N"),
    ((10, 5, 11, 0), {}, ValueError, "R must be <= N"),
    ((10, 5, -2, 0), {}, ValueError, "R must hold values >= 0"),
    ((10, 5, 3, 4), {}, ValueError, "r_t must be <= R"),
    ((10, 2, 5, 3), {}, ValueError, "r_t must be <= n_t"),
    ((10, 8, 5, 2), {}, ValueError, "n_t − r_t must be <= N − R"),
    ((10, 2.5), {}, ValueError, "whole numbers"),
    ((10, float("nan")), {}, ValueError, "n_t must hold finite numbers"),
    ((10, "3"), {}, TypeError, "n_t must be an array or a sequence of numbers"),
    ((10, True), {}, TypeError, "n_t must hold number values"),
    ((10, []), {}, ValueError, "n_t must not be empty"),
    ((10, 2.0**64), {}, ValueError, "n_t must hold values <= "),
    ((10, 3), {"correction": 0.0}, ValueError, "correction"),
    ((10, 3), {"correction": "half"}, TypeError, "correction"),
    ((10, [1, 2, 3], 0, [0, 0]), {}, ValueError, "broadcastable"),
])
def test_rsj_rejects_impossible_tables(args, kwargs, error, message):
    with pytest.raises(error, match=message):
        rsj_weight(*args, **kwargs)


# ---- BIM scores --------------------------------------------------------------------

def test_bim_hand_computed(toy):
    # N = 6; "cat" in documents 0, 2, 4 (n = 3), "bird" in 3, 4 (n = 2). Relevant: {0, 4}.
    # cat: r = 2 -> log(2.5 · (6 - 3 - 2 + 2 + 0.5) / (1.5 · 0.5)) = log(2.5 · 3.5 / 0.75)
    # bird: r = 1 -> log(1.5 · (6 - 2 - 2 + 1 + 0.5) / (1.5 · 1.5)) = log(1.5 · 3.5 / 2.25)
    cat, bird = math.log(2.5 * 3.5 / 0.75), math.log(1.5 * 3.5 / 2.25)
    scores, matched = bim_scores(toy, "cat bird", relevant=[4, 0])
    assert scores == pytest.approx([cat, 0, cat, bird, cat + bird, 0], rel=1e-12)
    assert matched.tolist() == [True, False, True, True, True, False]
    weights = bim_term_weights(toy, "cat bird", relevant={0, 4})
    assert (weights["cat"].n_t, weights["cat"].r_t, weights["bird"].n_t, weights["bird"].r_t) == (3, 2, 2, 1)


def test_bim_without_relevance_is_a_sum_of_idfs(toy):
    scores, _ = bim_scores(toy, "cat bird")
    cat, bird = math.log(3.5 / 3.5), math.log(4.5 / 2.5)
    assert scores == pytest.approx([cat, 0, cat, bird, cat + bird, 0], abs=1e-12)
    for relevant in ([], set(), np.array([], dtype=int)):
        assert np.array_equal(bim_scores(toy, "cat bird", relevant=relevant)[0], scores)


def test_bim_query_is_a_set_and_unknown_terms_are_ignored(toy):
    once, _ = bim_scores(toy, "cat")
    assert np.array_equal(bim_scores(toy, "cat cat zebra")[0], once)
    scores, matched = bim_scores(toy, "zebra")
    assert not scores.any() and not matched.any()
    assert bim_term_weights(toy, ["zebra", "cat"]).keys() == {"cat"}


docs = st.lists(st.lists(st.sampled_from("abcdef"), min_size=1, max_size=6), min_size=2, max_size=12)


@settings(max_examples=60)
@given(docs, st.lists(st.sampled_from("abcdz"), min_size=1, max_size=4), st.data())
def test_bim_scores_rank_like_the_full_independence_log_odds(docs, query, data):
    index = InvertedIndex.from_tokens(docs)
    relevant = sorted(data.draw(st.sets(st.integers(0, len(docs) - 1), max_size=len(docs))))
    scores, matched = bim_scores(index, query, relevant)
    N, R = len(docs), len(relevant)
    # log P(x | rel) / P(x | non-rel) over ALL query terms, present or absent, by brute force
    log_odds = np.zeros(N)
    for term in set(query):
        contains = np.array([term in doc for doc in docs])
        if not contains.any():
            continue  # a term in no document gives the same factor for every document
        n, r = int(contains.sum()), int(contains[relevant].sum())
        p, u = (r + 0.5) / (R + 1), (n - r + 0.5) / (N - R + 1)
        log_odds += np.where(contains, math.log(p / u), math.log((1 - p) / (1 - u)))
    # they differ by a constant (the absent-term factors of a document without any query
    # term), so they rank the documents identically
    assert np.allclose(scores - log_odds, (scores - log_odds)[0], atol=1e-9)
    expected = [sum(rsj_weight(N, sum(t in d for d in docs), R, sum(t in docs[i] for i in relevant))
                    for t in set(query) if t in doc) for doc in docs]
    assert scores == pytest.approx(expected, abs=1e-9)
    assert matched.tolist() == [any(t in doc for t in query) for doc in docs]


@pytest.mark.parametrize("relevant, error, message", [
    ([0, 6], ValueError, "relevant must hold values <= 5"),
    ([-1], ValueError, "relevant must hold values >= 0"),
    (["d1"], TypeError, "relevant must hold int values"),
    ([0.5], TypeError, "relevant must hold int values"),
    ("0", TypeError, "relevant must be an array"),
    (3, ValueError, "relevant must be 1-dimensional"),
])
def test_bim_rejects_bad_relevant_sets(toy, relevant, error, message):
    with pytest.raises(error, match=message):
        bim_scores(toy, "cat", relevant=relevant)


# ---- BM25 with the RSJ weight ------------------------------------------------------

def test_bm25_rsj_without_relevance_is_bm25_robertson(toy):
    # "cat" is in 3 of 6 documents, "bird" in 2, "fish" in 1: no weight below 0, no floor
    for query in ["cat bird", "fish bird bird", "dog"]:
        ours, matched = bm25_rsj_scores(toy, query)
        theirs, their_matched = bm25_scores(toy, query, variant="robertson")
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15)
        assert np.array_equal(matched, their_matched)


def test_bm25_rsj_keeps_negative_weights_that_bm25_floors():
    index = InvertedIndex.from_texts(["a cat", "a cat dog", "a cat", "a dog"], Analyzer())
    ours, _ = bm25_rsj_scores(index, "cat", k1=1.0, b=0.0)  # n = 3 of 4: log(1.5 / 3.5) < 0
    assert ours[0] == pytest.approx(0.5 * math.log(1.5 / 3.5))
    assert not bm25_scores(index, "cat", variant="robertson")[0].any()


def test_bm25_rsj_with_relevance(toy):
    # "cat" with relevant {0, 4}: the weight of test_bim_hand_computed times S(tf = 1, dl)
    scores, _ = bm25_rsj_scores(toy, "cat", relevant=[0, 4], k1=1.2, b=0.75)
    avdl = toy.avdl
    weight = math.log(2.5 * 3.5 / 0.75)
    for d in (0, 2, 4):
        dl = toy.doc_lengths[d]
        assert scores[d] == pytest.approx(1 / (1.2 * (0.25 + 0.75 * dl / avdl) + 1) * weight, rel=1e-12)
    with pytest.raises(ValueError, match="k1"):
        bm25_rsj_scores(toy, "zebra", k1=-1.0)


# ---- 2-Poisson: EM -----------------------------------------------------------------

def _sample(pi, lam, mu, size, seed):
    rng = np.random.default_rng(seed)
    elite = rng.random(size) < pi
    return np.where(elite, rng.poisson(lam, size), rng.poisson(mu, size))


def _log_likelihood(tf, pi, lam, mu):
    """The mixture's log-likelihood written with scipy.stats, independently of the library."""
    values, counts = np.unique(tf, return_counts=True)  # documents with equal tf contribute equally
    mixture = pi * scipy.stats.poisson.pmf(values, lam) + (1 - pi) * scipy.stats.poisson.pmf(values, mu)
    return float(counts @ np.log(mixture))


def _standard_errors(tf, pi, lam, mu):
    """sqrt of the diagonal of the inverse observed information (numerical Hessian)."""
    theta = np.array([pi, lam, mu])
    steps = 1e-4 * np.maximum(theta, 1e-2)
    hessian = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            def f(di, dj):
                x = theta.copy()
                x[i] += di * steps[i]
                x[j] += dj * steps[j]
                return _log_likelihood(tf, *x)
            hessian[i, j] = (f(1, 1) - f(1, -1) - f(-1, 1) + f(-1, -1)) / (4 * steps[i] * steps[j])
    return np.sqrt(np.diag(np.linalg.inv(-hessian)))


@pytest.mark.parametrize("pi, lam, mu, size, seed", [
    (0.1, 5.0, 0.2, 20_000, 1),
    (0.3, 3.0, 0.5, 20_000, 2),
    (0.05, 8.0, 1.0, 50_000, 3),
])
def test_em_recovers_known_parameters(pi, lam, mu, size, seed):
    tf = _sample(pi, lam, mu, size, seed)
    fit = fit_two_poisson(tf)
    assert fit.converged and fit.lam > fit.mu
    # The maximum-likelihood estimate is off the truth by about one standard error,
    # sqrt(diag(I^-1)) from the observed information I; 4 of them is a generous bound.
    # The sample is big enough for the bound to be tight: under 10 % of each value.
    se = _standard_errors(tf, fit.pi, fit.lam, fit.mu)
    assert np.all(se < 0.1 * np.array([pi, lam, mu]))
    assert abs(fit.pi - pi) < 4 * se[0]
    assert abs(fit.lam - lam) < 4 * se[1]
    assert abs(fit.mu - mu) < 4 * se[2]
    assert fit.log_likelihood == pytest.approx(_log_likelihood(tf, fit.pi, fit.lam, fit.mu), rel=1e-10)
    assert fit.log_likelihood == pytest.approx(two_poisson_log_likelihood(tf, fit.pi, fit.lam, fit.mu), rel=1e-12)


tf_samples = st.lists(st.integers(0, 15), min_size=3, max_size=60).filter(lambda x: len(set(x)) > 1)


@settings(max_examples=40, deadline=None)
@given(tf_samples, st.one_of(st.none(), st.tuples(st.floats(0.05, 0.95), st.floats(0.1, 20), st.floats(0.01, 5))))
def test_em_never_decreases_the_likelihood(tf, init):
    if init is not None:
        assume(abs(init[1] - init[2]) > 1e-3)
    fit = fit_two_poisson(tf, init=init, max_iter=300)
    trace = fit.trace
    assert len(trace) == fit.iterations + 1
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace).max())
    assert fit.log_likelihood == trace[-1]
    assert fit.log_likelihood == pytest.approx(_log_likelihood(np.array(tf), fit.pi, fit.lam, fit.mu), rel=1e-9)
    assert 0 <= fit.pi <= 1 and fit.lam >= fit.mu >= 0


@pytest.mark.parametrize("tf", [
    _sample(0.15, 4.0, 0.3, 5_000, 11),
    _sample(0.4, 2.5, 0.8, 5_000, 12),
    # a real-looking sample: the tf of a content word in ~350 scenes (heavy zero mass, long tail)
    np.repeat(np.arange(12), [102, 77, 52, 38, 25, 17, 12, 9, 6, 4, 3, 4]),
])
def test_em_agrees_with_direct_numerical_maximisation(tf):
    fit = fit_two_poisson(tf)

    def negative_log_likelihood(x):  # unconstrained: logit pi, log lam, log mu
        pi, lam, mu = scipy.special.expit(x[0]), math.exp(x[1]), math.exp(x[2])
        return -_log_likelihood(tf, pi, lam, mu)

    best = None
    for start in ([0.0, math.log(tf.mean() * 2), math.log(tf.mean() / 2)], [-2.0, math.log(tf.max()), -2.0]):
        result = scipy.optimize.minimize(negative_log_likelihood, start, method="Nelder-Mead",
                                         options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20_000})
        result = scipy.optimize.minimize(negative_log_likelihood, result.x, method="BFGS")
        best = result if best is None or result.fun < best.fun else best
    pi, lam, mu = scipy.special.expit(best.x[0]), math.exp(best.x[1]), math.exp(best.x[2])
    if lam < mu:
        pi, lam, mu = 1 - pi, mu, lam
    assert fit.log_likelihood == pytest.approx(-best.fun, abs=1e-6)
    assert fit.log_likelihood >= -best.fun - 1e-6  # EM is at least as high
    assert [fit.pi, fit.lam, fit.mu] == pytest.approx([pi, lam, mu], rel=1e-3)


def test_em_orders_components_and_reports_non_convergence():
    tf = _sample(0.2, 6.0, 0.4, 3_000, 5)
    fit = fit_two_poisson(tf, init=(0.8, 0.3, 5.0))  # started with the components swapped
    assert fit.lam > fit.mu and fit.pi == pytest.approx(fit_two_poisson(tf).pi, rel=1e-4)
    short = fit_two_poisson(tf, init=(0.5, 1.0, 2.0), max_iter=2)
    assert not short.converged and short.iterations == 2


def test_pmf_is_the_mixture():
    fit = fit_two_poisson(_sample(0.2, 6.0, 0.4, 2_000, 6))
    k = np.arange(30)
    expected = fit.pi * scipy.stats.poisson.pmf(k, fit.lam) + (1 - fit.pi) * scipy.stats.poisson.pmf(k, fit.mu)
    assert fit.pmf(k) == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("tf, kwargs, error, message", [
    ([], {}, ValueError, "empty"),
    ([0, 0, 0], {}, ValueError, "occurs in no document"),
    ([2, 2, 2], {}, ValueError, "single value"),
    ([0, -1, 3], {}, ValueError, ">= 0"),
    ([0, 1.5, 3], {}, ValueError, "whole numbers"),
    ([0, float("nan"), 3], {}, ValueError, "tf_counts must hold finite numbers"),
    ([[0, 1], [2, 3]], {}, ValueError, "1-dimensional"),
    (["a", "b"], {}, TypeError, "tf_counts must hold number values"),
    ([True, False], {}, TypeError, "tf_counts must hold number values"),
    ([0, 1, 3], {"tol": 2.0}, ValueError, "tol must be <= 1"),
    ([0, 1, 3], {"init": "0.5 2 1"}, TypeError, "init must be a tuple"),
    ([0, 1, 3], {"max_iter": 0}, ValueError, "max_iter"),
    ([0, 1, 3], {"tol": -1.0}, ValueError, "tol"),
    ([0, 1, 3], {"init": (1.0, 2.0, 0.5)}, ValueError, "init"),
    ([0, 1, 3], {"init": (0.5, 2.0, 2.0)}, ValueError, "init"),
    ([0, 1, 3], {"init": (0.5, -2.0, 1.0)}, ValueError, "init lam must be >= 0"),
])
def test_fit_rejects_bad_input(tf, kwargs, error, message):
    with pytest.raises(error, match=message):
        fit_two_poisson(np.array(tf) if tf else np.array([], dtype=int), **kwargs)


# ---- 2-Poisson: the eliteness weight -------------------------------------------------

def test_eliteness_weight_hand_computed():
    lam, mu, p, q = 4.0, 0.3, 0.8, 0.1

    def prob(tf, elite):  # P(tf | class) with P(elite | class) = elite
        return (elite * lam**tf * math.exp(-lam) + (1 - elite) * mu**tf * math.exp(-mu)) / math.factorial(tf)

    for tf in (1, 2, 7):
        expected = math.log(prob(tf, p) * prob(0, q) / (prob(tf, q) * prob(0, p)))
        assert eliteness_weight(tf, lam, mu, p, q) == pytest.approx(expected, rel=1e-12)
    assert eliteness_weight(0, lam, mu, p, q) == 0.0
    assert eliteness_weight(1, lam, mu, p, q) == pytest.approx(0.7134, abs=1e-4)  # worked by hand


def test_eliteness_weight_special_cases():
    tf = np.arange(10)
    assert np.allclose(eliteness_weight(tf, 5.0, 1.0, 0.3, 0.3), 0.0)  # p = q: tf says nothing
    # p = 1, q = 0: relevant documents are all elite, others never: linear, no saturation
    assert eliteness_weight(tf, 5.0, 1.0, 1.0, 0.0) == pytest.approx(tf * math.log(5.0), rel=1e-12, abs=1e-12)
    assert np.isfinite(eliteness_weight(10_000, 5.0, 0.5, 0.9, 0.1))  # log space: no overflow


@given(lam=st.floats(0.5, 30), mu_fraction=st.floats(0, 0.9), p=st.floats(0.01, 0.99), q=st.floats(0.01, 0.99))
def test_eliteness_weight_rises_to_its_limit(lam, mu_fraction, p, q):
    assume(p > q + 1e-3)
    mu = lam * mu_fraction
    w = eliteness_weight(np.arange(60), lam, mu, p, q)
    limit = math.log(p * (q * math.exp(-lam) + (1 - q) * math.exp(-mu)) / (q * (p * math.exp(-lam) + (1 - p) * math.exp(-mu))))
    assert np.all(np.diff(w) >= -1e-12)
    assert np.all(w <= limit + 1e-9)


@pytest.mark.parametrize("args, error, message", [
    ((1, 1.0, 2.0, 0.5, 0.1), ValueError, "lam > mu"),
    ((1, 2.0, -0.1, 0.5, 0.1), ValueError, "mu must be >= 0"),
    ((1, 2.0, 0.5, 1.5, 0.1), ValueError, "p_rel must be <= 1"),
    ((1, 2.0, 0.5, 0.5, -0.1), ValueError, "p_nonrel must be >= 0"),
    ((-1, 2.0, 0.5, 0.5, 0.1), ValueError, "tf must hold values >= 0"),
    ((1.5, 2.0, 0.5, 0.5, 0.1), ValueError, "tf must hold whole numbers"),
    (("1", 2.0, 0.5, 0.5, 0.1), TypeError, "tf must be"),
    ((1, float("nan"), 0.5, 0.5, 0.1), ValueError, "lam must be finite"),
    ((1, 2.0, 0.0, 0.5, 0.0), ValueError, "undefined"),
])
def test_eliteness_weight_rejects_bad_input(args, error, message):
    with pytest.raises(error, match=message):
        eliteness_weight(*args)
