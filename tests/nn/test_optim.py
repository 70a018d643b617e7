import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.nn.optim import (SGD, Adagrad, Adam, AdamW, RMSprop, decayed_learning_rate, exponential_average,
                               minimize, sample_beta, sample_log_uniform, warmup_cosine_learning_rate)
from mmir_lib.nn.surfaces import ILL_CONDITIONED, ROSENBROCK, SADDLE, SURFACES

PAIRS = {
    "gradient descent": (lambda p: SGD(p, 0.05), lambda p: torch.optim.SGD(p, lr=0.05)),
    "momentum": (lambda p: SGD(p, 0.05, momentum=0.9), lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    "RMSprop": (lambda p: RMSprop(p, 0.01, rho=0.9), lambda p: torch.optim.RMSprop(p, lr=0.01, alpha=0.9)),
    "Adam": (lambda p: Adam(p, 0.05, beta1=0.8, beta2=0.99), lambda p: torch.optim.Adam(p, lr=0.05, betas=(0.8, 0.99))),
    "Nesterov": (lambda p: SGD(p, 0.05, momentum=0.9, nesterov=True),
                 lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
    "Adagrad": (lambda p: Adagrad(p, 0.1), lambda p: torch.optim.Adagrad(p, lr=0.1)),
    "Adam with L2": (lambda p: Adam(p, 0.05, weight_decay=0.1),
                     lambda p: torch.optim.Adam(p, lr=0.05, weight_decay=0.1)),
    "AdamW": (lambda p: AdamW(p, 0.05, weight_decay=0.1), lambda p: torch.optim.AdamW(p, lr=0.05, weight_decay=0.1)),
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
    with pytest.raises(ValueError, match="nesterov=True needs a momentum"):
        SGD([np.zeros(2)], 0.1, nesterov=True)
    with pytest.raises(ValueError, match="weight_decay"):
        AdamW([np.zeros(2)], 0.1, weight_decay=-0.1)
    with pytest.raises(ValueError, match="lr_min"):
        warmup_cosine_learning_rate(3, 10, 2, lr_max=0.1, lr_min=0.2)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["momentum", "Nesterov", "Adagrad", "RMSprop", "Adam", "Adam with L2", "AdamW"]),
       st.floats(-4, 0), st.floats(0, 0.999), st.floats(0, 0.999), st.integers(0, 2**32 - 1), st.floats(-4, 0))
def test_same_gradients_keep_torch_optim_within_1e13_relative(name, log_lr, beta1, beta2, seed, log_decay):
    # What the module's docstring promises: not bit equality (torch fuses multiply-adds), but agreement
    # to about 1e-14 of the parameters' size when both are fed the same 50 gradients, for any hyperparameters
    lr, decay = 10.0 ** log_lr, 10.0 ** log_decay
    nesterov_beta = max(beta1, 0.01)  # Nesterov needs a momentum > 0
    make = {"momentum": (lambda p: SGD(p, lr, momentum=beta1),
                         lambda p: torch.optim.SGD(p, lr=lr, momentum=beta1, foreach=False)),
            "Nesterov": (lambda p: SGD(p, lr, momentum=nesterov_beta, nesterov=True),
                         lambda p: torch.optim.SGD(p, lr=lr, momentum=nesterov_beta, nesterov=True, foreach=False)),
            "Adagrad": (lambda p: Adagrad(p, lr), lambda p: torch.optim.Adagrad(p, lr=lr, foreach=False)),
            "Adam with L2": (lambda p: Adam(p, lr, beta1=beta1, beta2=beta2, weight_decay=decay),
                             lambda p: torch.optim.Adam(p, lr=lr, betas=(beta1, beta2), weight_decay=decay,
                                                        foreach=False)),
            "AdamW": (lambda p: AdamW(p, lr, beta1=beta1, beta2=beta2, weight_decay=decay),
                      lambda p: torch.optim.AdamW(p, lr=lr, betas=(beta1, beta2), weight_decay=decay, foreach=False)),
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


def test_nesterov_adds_the_look_ahead_and_adagrad_sums_the_squares():
    theta = [np.array([1.0])]
    nesterov = SGD(theta, 0.1, momentum=0.5, nesterov=True)
    nesterov.step([np.array([2.0])])                   # v = 2: θ = 1 − 0.1 (2 + 0.5 · 2) = 0.7
    nesterov.step([np.array([2.0])])                   # v = 0.5 · 2 + 2 = 3: θ = 0.7 − 0.1 (2 + 1.5) = 0.35
    assert theta[0][0] == pytest.approx(0.35, abs=1e-15)
    theta = [np.array([0.0])]
    adagrad = Adagrad(theta, 1.0, eps=1e-300)
    for t in range(1, 5):                              # a constant gradient 3: the t-th step is 3 / √(9 t) = 1 / √t
        adagrad.step([np.array([3.0])])
    assert theta[0][0] == pytest.approx(-sum(1 / math.sqrt(t) for t in range(1, 5)), rel=1e-14)


def test_adamw_shrinks_every_weight_by_the_same_factor_adam_l2_does_not():
    # With a zero gradient AdamW's first step only multiplies θ by 1 − αλ; Adam's L2 gradient λθ, divided by
    # its own √ŝ = λ|θ|, moves every weight by the same α whatever its size (sign only)
    theta = np.array([1.0, -4.0, 0.5])
    w = [theta.copy()]
    AdamW(w, 0.1, weight_decay=0.2).step([np.zeros(3)])
    np.testing.assert_allclose(w[0], theta * (1 - 0.1 * 0.2), rtol=1e-15)
    a = [theta.copy()]
    Adam(a, 0.1, weight_decay=0.2).step([np.zeros(3)])
    np.testing.assert_allclose(a[0], theta - 0.1 * np.sign(theta), rtol=1e-6)


def test_warmup_cosine_equals_torch_linear_then_cosine_annealing():
    lr_max, lr_min, warmup, total = 0.3, 0.01, 5, 40
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr_max)
    schedule = torch.optim.lr_scheduler.SequentialLR(opt, [
        torch.optim.lr_scheduler.LinearLR(opt, start_factor=1 / warmup, end_factor=1.0, total_iters=warmup - 1),
        torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - warmup, eta_min=lr_min)], milestones=[warmup])
    theirs = []
    for _ in range(total + 1):
        theirs.append(opt.param_groups[0]["lr"])
        opt.step()
        schedule.step()
    ours = [warmup_cosine_learning_rate(s, total, warmup, lr_max, lr_min) for s in range(total + 1)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 500), st.integers(0, 500), st.floats(1e-5, 10), st.floats(0, 1))
def test_warmup_cosine_rises_to_lr_max_then_falls_to_lr_min(total, warmup, lr_max, min_share):
    warmup = min(warmup, total)
    lr_min = min_share * lr_max
    rates = [warmup_cosine_learning_rate(s, total, warmup, lr_max, lr_min) for s in range(total + 3)]
    if warmup:
        assert rates[0] == pytest.approx(lr_max / warmup) and rates[warmup - 1] == pytest.approx(lr_max)
        assert all(a < b for a, b in zip(rates[:warmup], rates[1:warmup]))
    assert rates[warmup] == pytest.approx(lr_max)                            # the warm-up's end: the peak
    assert all(a >= b for a, b in zip(rates[warmup:], rates[warmup + 1:]))    # monotone after the warm-up
    assert all(r == pytest.approx(lr_min, abs=1e-12 * lr_max) for r in rates[max(total, warmup + 1):])  # then lr_min
    assert all(r <= lr_max * (1 + 1e-15) for r in rates)  # lr_max (s + 1) / W may round one unit up at s = W − 1
    assert all(r >= lr_min - 1e-12 * lr_max for r in rates[warmup:])
