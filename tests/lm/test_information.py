"""Information, entropy, cross-entropy, KL divergence and perplexity: equal to
scipy.stats.entropy, and the properties the chapter states (bounds, Gibbs' inequality,
asymmetry, the perplexity of the uniform model)."""

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.lm.information import cross_entropy, entropy, information, kl_divergence, perplexity

RNG = np.random.default_rng(0)


def distributions(size):
    """Random distributions over `size` outcomes, some with zeros."""
    weights = arrays(np.float64, size, elements=st.floats(0, 10)).filter(lambda w: w.sum() > 1e-3)
    return weights.map(lambda w: w / w.sum())


@pytest.mark.parametrize("base", [2, math.e, 10])
def test_equal_to_scipy(base):
    for _ in range(20):
        p, q = RNG.dirichlet(np.ones(12)), RNG.dirichlet(np.ones(12))
        p[RNG.integers(12)] = 0.0
        p /= p.sum()
        assert entropy(p, base) == pytest.approx(scipy.stats.entropy(p, base=base), abs=1e-12)
        assert kl_divergence(p, q, base) == pytest.approx(scipy.stats.entropy(p, q, base=base), abs=1e-12)
        assert cross_entropy(p, q, base) == pytest.approx(
            scipy.stats.entropy(p, base=base) + scipy.stats.entropy(p, q, base=base), abs=1e-12)


def test_rows_are_several_distributions():
    p, q = RNG.dirichlet(np.ones(5), size=4), RNG.dirichlet(np.ones(5), size=4)
    np.testing.assert_allclose(entropy(p), scipy.stats.entropy(p, base=2, axis=1), atol=1e-12)
    np.testing.assert_allclose(kl_divergence(p, q), scipy.stats.entropy(p, q, base=2, axis=1), atol=1e-12)
    assert kl_divergence(p, q[0]).shape == (4,)  # one q for every row of p


@given(distributions(6), distributions(6))
def test_gibbs_inequality_and_the_decomposition(p, q):
    assert kl_divergence(p, q) >= -1e-12
    assert kl_divergence(p, p) == pytest.approx(0.0, abs=1e-12)
    if np.all(q[p > 0] > 0):
        assert cross_entropy(p, q) == pytest.approx(entropy(p) + kl_divergence(p, q), abs=1e-9)
    else:  # q misses an outcome that happens
        assert cross_entropy(p, q) == math.inf == kl_divergence(p, q)


@given(distributions(8))
def test_entropy_bounds(p):
    assert -1e-12 <= entropy(p) <= math.log2(8) + 1e-12


def test_extremes_and_asymmetry():
    assert entropy([0.0, 1.0, 0.0]) == 0.0
    assert entropy(np.full(16, 1 / 16)) == pytest.approx(4.0)
    assert entropy([0.5, 0.5], base=math.e) == pytest.approx(math.log(2))
    p, q = [0.9, 0.1], [0.5, 0.5]
    assert kl_divergence(p, q) == pytest.approx(1 - entropy(p))
    assert abs(kl_divergence(p, q) - kl_divergence(q, p)) > 0.1


def test_information_of_events():
    np.testing.assert_allclose(information([1.0, 0.5, 0.25, 1 / 1024]), [0.0, 1.0, 2.0, 10.0])
    assert information(0.0) == math.inf
    assert information(0.5, base=math.e) == pytest.approx(math.log(2))


def test_perplexity_of_the_uniform_model_is_the_vocabulary_size():
    for size in (2, 77, 15929):
        assert perplexity(entropy(np.full(size, 1 / size))) == pytest.approx(size)
        assert perplexity(math.log(size), base=math.e) == pytest.approx(size)
    assert perplexity(math.inf) == math.inf
    np.testing.assert_allclose(perplexity([0.0, 1.0, 3.0]), [1.0, 2.0, 8.0])


def test_refusals_name_the_argument():
    with pytest.raises(ValueError, match="p must sum to 1"):
        entropy([0.5, 0.6])
    with pytest.raises(ValueError, match="q must sum to 1"):
        cross_entropy([0.5, 0.5], [0.5, 0.4])
    with pytest.raises(ValueError, match="p and q must be distributions over the same outcomes"):
        kl_divergence([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="base must not be 1"):
        entropy([0.5, 0.5], base=1)
    with pytest.raises(ValueError, match="mean_loss must not be NaN"):
        perplexity([1.0, math.nan])
