import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.nn.optim import (SGD, Adam, RMSprop, decayed_learning_rate, exponential_average, minimize,
                               sample_beta, sample_log_uniform)
from mmir_lib.nn.surfaces import ILL_CONDITIONED, ROSENBROCK, SADDLE, SURFACES

PAIRS = {
    "gradient descent": (lambda p: SGD(p, 0.05), lambda p: torch.optim.SGD(p, lr=0.05)),
    "momentum": (lambda p: SGD(p, 0.05, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    "RMSprop": (lambda p: RMSprop(p, 0.01, rho=0.9), lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9)),
    "Adam": (lambda p: Adam(p, 0.05, beta1=0.8, beta2=0.99), lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.8, 0.99))),
}


@pytest.mark.parametrize("name", PAIRS)
def test_iterates_equal_torch_optim_over_100_steps(name):
    rng = np.random.default_rng(0)
    shapes = [(5, 3), (3,), ()]
    ours = [rng.normal(size=s) for s in shapes]
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in ours]
    scales = [rng.normal(size=s) for s in shapes]
    make_ours, make_theirs = PAIRS[name]
    mine, reference = make_ours(ours), make_theirs(theirs)
    for _ in range(100):  # J = Σ sin(a θ) + θ²: a gradient that changes sign and size
        mine.step([a * np.cos(a * p) + 2 * p for a, p in zip(scales, ours)])
        reference.zero_grad()
        sum((torch.sin(torch.tensor(a) * p) + p ** 2).sum() for a, p in zip(scales, theirs)).backward()
        reference.step()
    assert max(np.abs(p - q.detach().numpy()).max() for p, q in zip(ours, theirs)) < 1e-12


@pytest.mark.parametrize("surface", SURFACES.values(), ids=list(SURFACES))
def test_surface_gradients_equal_finite_differences(surface):
    rng = np.random.default_rng(1)
    for _ in range(5):
        t = rng.uniform(-1.5, 1.5, size=2)
        h = 1e-6
        numeric = [(surface.loss(*(t + h * e)) - surface.loss(*(t - h * e))) / (2 * h) for e in np.eye(2)]
        np.testing.assert_allclose(surface.gradient(t), numeric, rtol=1e-6, atol=1e-6)
    for x, y in surface.minima:
        np.testing.assert_allclose(surface.gradient(np.array([x, y])), 0, atol=1e-12)


def test_the_optimisers_reach_the_minimum_of_the_bowl_and_leave_the_saddle():
    path = minimize(Adam([np.array(ILL_CONDITIONED.start)], 0.1), ILL_CONDITIONED.gradient, 500)
    assert np.abs(path[-1]).max() < 1e-3 and path.shape == (501, 2)
    plain = minimize(SGD([np.array(SADDLE.start)], 0.1), SADDLE.gradient, 20)
    adaptive = minimize(RMSprop([np.array(SADDLE.start)], 0.1), SADDLE.gradient, 20)
    assert abs(plain[-1, 1]) < 0.01 and abs(adaptive[-1, 1]) == pytest.approx(1.0, abs=1e-3)  # RMSprop rescales
    # the tiny y gradient to a full step and reaches the minimum at y = ±1 while descent still sits near the saddle
    slow = minimize(SGD([np.array(ROSENBROCK.start)], 1e-4), ROSENBROCK.gradient, 10)
    assert np.isfinite(slow).all()


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=40), st.floats(0, 0.999))
def test_exponential_average_of_a_constant_is_that_constant_with_bias_correction(values, beta):
    constant = np.full(len(values), values[0])
    np.testing.assert_allclose(exponential_average(constant, beta), constant, rtol=1e-9, atol=1e-9)
    plain = exponential_average(np.asarray(values), beta, bias_correction=False)
    weights = [(1 - beta) * beta ** (len(values) - 1 - k) for k in range(len(values))]
    assert plain[-1] == pytest.approx(np.dot(weights, values), rel=1e-9, abs=1e-9)


def test_schedules_and_log_scale_sampling():
    assert decayed_learning_rate("inverse time", 0.2, 4, 1.0) == pytest.approx(0.04)
    assert decayed_learning_rate("exponential", 0.2, 3, 0.5) == pytest.approx(0.025)
    assert decayed_learning_rate("inverse square root", 0.2, 3, 0.0, k=1.0) == pytest.approx(0.1)
    assert decayed_learning_rate("staircase", 1.0, 5, 0.5, k=2) == pytest.approx(0.25)
    rng = np.random.default_rng(0)
    lrs = sample_log_uniform(1e-4, 1.0, 40_000, rng)
    decades = np.histogram(np.log10(lrs), bins=4, range=(-4, 0))[0]
    assert lrs.min() >= 1e-4 and lrs.max() <= 1 and np.ptp(decades) < 0.05 * decades.mean()
    betas = sample_beta(0.9, 0.999, 30_000, rng)
    assert ((betas >= 0.9) & (betas <= 0.999)).all()
    assert abs(np.mean(betas > 0.99) - 0.5) < 0.02  # 1 - β log-uniform: half the draws above 0.99


def test_bad_input_is_refused_clearly():
    with pytest.raises(TypeError, match="params"):
        SGD([np.zeros(3, dtype=np.float32)], 0.1)
    with pytest.raises(ValueError, match="lr"):
        Adam([np.zeros(3)], lr=0.0)
    with pytest.raises(ValueError, match="beta1"):
        Adam([np.zeros(3)], beta1=1.0)
    with pytest.raises(ValueError, match=r"grads\[0\]"):
        SGD([np.zeros(3)], 0.1).step([np.zeros(4)])
    with pytest.raises(ValueError, match="rate"):
        decayed_learning_rate("exponential", 0.1, 2, 1.5)
    with pytest.raises(ValueError, match="momentum"):
        SGD([np.zeros(2)], 0.1, momentum=math.inf)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["momentum", "RMSprop", "Adam"]), st.floats(-4, 0), st.floats(0, 0.999),
       st.floats(0, 0.999), st.integers(0, 2**32 - 1))
def test_same_gradients_keep_torch_optim_within_1e13_relative(name, log_lr, beta1, beta2, seed):
    # What the module's docstring promises: not bit equality (torch fuses multiply-adds), but agreement
    # to about 1e-14 of the parameters' size when both are fed the same 50 gradients, for any hyperparameters
    lr = 10.0 ** log_lr
    make = {"momentum": (lambda p: SGD(p, lr, momentum=beta1),
                         lambda p: torch.optim.SGD(p, lr=lr, momentum=beta1, foreach=False)),
            "RMSprop": (lambda p: RMSprop(p, lr, rho=beta2),
                        lambda p: torch.optim.RMSprop(p, lr=lr, alpha=beta2, foreach=False)),
            "Adam": (lambda p: Adam(p, lr, beta1=beta1, beta2=beta2),
                     lambda p: torch.optim.Adam(p, lr=lr, betas=(beta1, beta2), foreach=False))}[name]
    rng = np.random.default_rng(seed)
    ours = rng.normal(size=40)
    theirs = torch.tensor(ours.copy(), requires_grad=True)
    mine, reference = make[0]([ours]), make[1]([theirs])
    for _ in range(50):
        g = rng.normal(size=40) * 10.0 ** rng.uniform(-3, 1)
        mine.step([g])
        theirs.grad = torch.from_numpy(g.copy())
        reference.step()
    assert np.all(np.abs(ours - theirs.detach().numpy()) <= 1e-13 * np.maximum(1, np.abs(ours)))
