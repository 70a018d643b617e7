import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings, strategies as st

from mmir_lib.ir.laws import fit_heaps, fit_loglog, fit_zipf, rank_frequency, vocabulary_growth


def test_loglog_fit_by_hand():
    # y = 5 · x²: slope 2, intercept ln 5, a perfect line
    fit = fit_loglog([1, 2, 3, 10], [5, 20, 45, 500])
    assert fit.slope == pytest.approx(2.0) and fit.intercept == pytest.approx(np.log(5))
    assert fit.r_squared == pytest.approx(1.0) and fit.num_points == 4
    # three points off a line: slope by hand from u = (0, ln 2, ln 4), w = (0, ln 4, ln 4)
    u, w = np.log([1, 2, 4]), np.log([1, 4, 4])
    slope = ((u - u.mean()) * (w - w.mean())).sum() / ((u - u.mean()) ** 2).sum()
    assert fit_loglog([1, 2, 4], [1, 4, 4]).slope == pytest.approx(slope)
    assert fit_loglog([1, 2, 4], [1, 4, 4]).r_squared < 1
    # a constant y is fitted exactly by a flat line
    assert fit_loglog([1, 2, 3], [7, 7, 7]).r_squared == 1.0


positive = st.floats(0.01, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(positive, positive), min_size=3, max_size=30))
def test_loglog_fit_equals_scipy_and_numpy(points):
    x, y = np.array(points).T
    if np.ptp(np.log(x)) < 1e-3:  # all x (nearly) equal: no line through them
        return
    ours = fit_loglog(x, y)
    reference = scipy.stats.linregress(np.log(x), np.log(y))
    assert ours.slope == pytest.approx(reference.slope, rel=1e-7, abs=1e-9)
    assert ours.intercept == pytest.approx(reference.intercept, rel=1e-7, abs=1e-7)
    if np.ptp(np.log(y)) > 1e-6:
        assert ours.r_squared == pytest.approx(reference.rvalue ** 2, rel=1e-6, abs=1e-9)
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    assert ours.slope == pytest.approx(slope, rel=1e-6, abs=1e-8)


def test_zipf_recovers_known_parameters():
    ranks = np.arange(1, 501)
    exact = 2e4 * ranks ** -0.9
    fit = fit_zipf(np.random.default_rng(0).permutation(exact))  # order does not matter
    assert fit.alpha == pytest.approx(0.9) and fit.c == pytest.approx(2e4)
    assert fit.rank_min == 1 and fit.rank_max == 500
    assert fit(10) == pytest.approx(2e4 * 10 ** -0.9)
    # with multiplicative noise (5 % in log space) the estimate stays close
    noisy = exact * np.exp(np.random.default_rng(1).normal(0, 0.05, len(ranks)))
    fit = fit_zipf(noisy, rank_max=400)
    assert fit.alpha == pytest.approx(0.9, abs=0.02)
    assert fit.rank_max == 400


def test_zipf_on_a_sample_of_a_zipf_distribution():
    # Draw 200,000 tokens from p(r) ∝ 1/r on 1,000 types; the commonest ranks follow the law.
    rng = np.random.default_rng(7)
    p = 1.0 / np.arange(1, 1001)
    counts = np.bincount(rng.choice(1000, size=200_000, p=p / p.sum()), minlength=1000)
    fit = fit_zipf(counts[counts > 0], rank_min=1, rank_max=100)
    assert fit.alpha == pytest.approx(1.0, abs=0.05)


def test_zipf_fitting_range_matches_a_direct_fit():
    freqs = np.array([100, 60, 30, 20, 18, 5, 4, 2, 1, 1])
    fit = fit_zipf(freqs, rank_min=2, rank_max=6)
    direct = scipy.stats.linregress(np.log(np.arange(2, 7)), np.log(freqs[1:6]))
    assert fit.alpha == pytest.approx(-direct.slope)
    assert fit.c == pytest.approx(np.exp(direct.intercept))


def test_rank_frequency():
    ranks, freqs = rank_frequency([3, 10, 1, 3])
    assert ranks.tolist() == [1, 2, 3, 4] and freqs.tolist() == [10, 3, 3, 1]


def test_vocabulary_growth_by_hand():
    n, v = vocabulary_growth("a rose is a rose is a rose".split())
    assert n.tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert v.tolist() == [1, 2, 3, 3, 3, 3, 3, 3]
    n, v = vocabulary_growth([5, 1, 5, 2, 9], sizes=[2, 5])
    assert v.tolist() == [2, 4]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=60))
def test_vocabulary_growth_equals_counting_sets(tokens):
    n, v = vocabulary_growth(tokens)
    assert v.tolist() == [len(set(tokens[:k])) for k in n.tolist()]
    assert np.all(np.diff(v) >= 0) and np.all(np.diff(v) <= 1)


def test_heaps_recovers_known_parameters():
    n = np.unique(np.logspace(1, 6, 40).astype(np.int64))
    fit = fit_heaps(n, 44.0 * n ** 0.49)
    assert fit.k == pytest.approx(44.0) and fit.b == pytest.approx(0.49)
    noisy = 44.0 * n ** 0.49 * np.exp(np.random.default_rng(3).normal(0, 0.02, len(n)))
    fit = fit_heaps(n, noisy, n_min=100)
    assert fit.b == pytest.approx(0.49, abs=0.01)
    assert fit.n_min == 100 and fit.n_max == n.max()
    assert fit(1e4) == pytest.approx(fit.k * 1e4 ** fit.b)


def test_heaps_fitting_range_selects_points():
    n = np.array([1, 10, 100, 1000])
    v = np.array([1, 8, 30, 100])
    fit = fit_heaps(n, v, n_min=10, n_max=1000)
    direct = scipy.stats.linregress(np.log(n[1:]), np.log(v[1:]))
    assert fit.b == pytest.approx(direct.slope)
    assert fit.k == pytest.approx(np.exp(direct.intercept))


def test_bad_input():
    with pytest.raises(ValueError, match="y must hold numbers > 0"):
        fit_loglog([1, 2], [0, 1])
    with pytest.raises(ValueError, match="frequencies must hold finite numbers"):
        fit_zipf([5, np.nan, 1])
    with pytest.raises(ValueError, match="same length"):
        fit_loglog([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="two points with different x"):
        fit_loglog([3, 3], [1, 2])
    with pytest.raises(ValueError, match="x must be 1-dimensional"):
        fit_loglog([[1, 2]], [[1, 2]])
    with pytest.raises(TypeError, match="frequencies must hold number values"):
        fit_zipf(["a", "b"])
    with pytest.raises(ValueError, match="rank_max must be <= 3"):
        fit_zipf([3, 2, 1], rank_min=2, rank_max=5)
    with pytest.raises(ValueError, match="rank_min must be < rank_max = 2"):
        fit_zipf([3, 2, 1], rank_min=2, rank_max=2)
    with pytest.raises(ValueError, match="rank_min must be < rank_max = 3"):
        fit_zipf([3, 2, 1], rank_min=3)
    with pytest.raises(ValueError, match="n_min must be < n_max = 100"):
        fit_heaps([1, 10, 100], [1, 5, 20], n_min=100)
    with pytest.raises(ValueError, match="sizes must be <= the number of tokens, 4"):
        vocabulary_growth("to be or not".split(), sizes=[5])
    with pytest.raises(TypeError, match="tokens must be hashable"):
        vocabulary_growth([["to"], ["be"]])
    assert fit_zipf([30, 20, 10], rank_min=np.int64(1), rank_max=np.int64(3)).rank_max == 3
    with pytest.raises(TypeError, match="rank_min must be an int"):
        fit_zipf([3, 2, 1], rank_min=1.5)
    with pytest.raises(ValueError, match="only 1 point"):
        fit_heaps([1, 10, 100], [1, 5, 20], n_min=50, n_max=500)
    with pytest.raises(ValueError, match="same length"):
        fit_heaps([1, 10], [1])
    with pytest.raises(TypeError, match="tokens must be a sequence of tokens"):
        vocabulary_growth("to be or not")
    with pytest.raises(ValueError, match="empty"):
        vocabulary_growth([])
    with pytest.raises(ValueError, match="sizes must hold values >= 1"):
        vocabulary_growth(["a", "b", "c"], sizes=[0, 2])
    with pytest.raises(ValueError, match="tokens must be a 1-D array"):
        vocabulary_growth(np.zeros((2, 2)))
