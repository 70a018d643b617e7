import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.nn.regularization import dropout, dropout_backward, l2_penalty


def binomial_bound(p, n, sigmas=5.0):
    """Half-width of the band that the kept fraction k/n of n Bernoulli(p) draws leaves with
    probability below ~6e-7 (5 standard deviations √(p(1 − p)/n))."""
    return sigmas * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("keep_prob", [0.1, 0.5, 0.8, 0.95, 1.0])
def test_mask_statistics_match_the_keep_probability(keep_prob):
    x = np.random.default_rng(0).uniform(0.5, 1.5, size=(400, 250))
    out, mask = dropout(x, keep_prob, np.random.default_rng(1))
    n = mask.size
    assert mask.dtype == bool and mask.shape == x.shape
    assert abs(mask.mean() - keep_prob) <= binomial_bound(keep_prob, n)
    np.testing.assert_array_equal(out[~mask], 0)
    np.testing.assert_allclose(out[mask], x[mask] / keep_prob)
    # torch's nn.Dropout takes the drop probability; its mask obeys the same bound
    torch.manual_seed(0)
    theirs = torch.nn.Dropout(1 - keep_prob)(torch.ones(400, 250, dtype=torch.float64)).numpy()
    assert abs((theirs != 0).mean() - keep_prob) <= binomial_bound(keep_prob, n)
    np.testing.assert_allclose(theirs[theirs != 0], 1 / keep_prob)


@settings(max_examples=40, deadline=None)
@given(keep_prob=st.floats(0.05, 1.0), value=st.floats(-10, 10).filter(lambda v: abs(v) > 1e-3),
       seed=st.integers(0, 2**32 - 1))
def test_dropout_preserves_the_mean(keep_prob, value, seed):
    # E[x d / p] = x: the mean over n entries of a constant x is x (k/n)/p, and k/n is within the binomial band
    n = 20_000
    out, mask = dropout(np.full(n, value), keep_prob, np.random.default_rng(seed))
    bound = abs(value) / keep_prob * binomial_bound(keep_prob, n, sigmas=6)
    assert abs(out.mean() - value) <= bound + 1e-12


def test_test_mode_and_backward():
    x = np.arange(12.0).reshape(3, 4)
    out, mask = dropout(x, 0.5, np.random.default_rng(0), training=False)
    assert np.array_equal(out, x) and mask.all() and out is not x
    out, mask = dropout(x, 0.5, np.random.default_rng(0))
    grad = dropout_backward(np.ones_like(x), mask, 0.5)
    np.testing.assert_array_equal(grad, mask * 2.0)
    # the backward pass equals torch's autograd through the same mask
    xt = torch.tensor(x, requires_grad=True)
    (xt * torch.from_numpy(mask) / 0.5).sum().backward()
    np.testing.assert_array_equal(xt.grad.numpy(), grad)


def test_keep_probability_outside_the_interval_is_refused():
    for bad in (0, -0.1, 1.5):
        with pytest.raises(ValueError, match="keep_prob"):
            dropout(np.ones(3), bad, np.random.default_rng(0))
    with pytest.raises(ValueError, match="x must hold finite"):
        dropout(np.array([1.0, np.nan]), 0.5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="mask must have grad_out's shape"):
        dropout_backward(np.ones(3), np.ones(4, bool), 0.5)


def test_l2_penalty_and_its_gradient():
    rng = np.random.default_rng(0)
    weights = [rng.normal(size=(4, 3)), rng.normal(size=(3, 2))]
    penalty, grads = l2_penalty(weights, 0.7, 50)
    assert penalty == pytest.approx(0.7 / 100 * sum((w ** 2).sum() for w in weights))
    for w, g in zip(weights, grads):
        np.testing.assert_allclose(g, 0.7 / 50 * w)
    # the gradient is the derivative (torch's autograd of the same penalty)
    tensors = [torch.tensor(w, requires_grad=True) for w in weights]
    (0.7 / 100 * sum((t ** 2).sum() for t in tensors)).backward()
    for g, t in zip(grads, tensors):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-14)
    assert l2_penalty(weights, 0, 50)[0] == 0
