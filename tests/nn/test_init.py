import math

import numpy as np
import pytest
import torch

from mmir_lib.nn.init import (INIT_SCHEMES, activation_variances, he_normal, init_std, init_weights, small_normal,
                              xavier_normal, zeros_init)


@pytest.mark.parametrize("fan_in, fan_out", [(300, 200), (784, 256), (64, 1000)])
def test_the_standard_deviations_are_torchs(fan_in, fan_out):
    # torch draws the same distributions: compare the σ each uses (its formula through calculate_gain)
    w = torch.empty(fan_out, fan_in, dtype=torch.float64)  # torch's weight is (out, in)
    torch_xavier = torch.nn.init.calculate_gain("linear") * math.sqrt(2.0 / (fan_in + fan_out))
    torch_he = torch.nn.init.calculate_gain("relu") / math.sqrt(torch.nn.init._calculate_fan_in_and_fan_out(w)[0])
    assert init_std("xavier", fan_in, fan_out) == pytest.approx(torch_xavier, rel=1e-15)
    assert init_std("he", fan_in, fan_out) == pytest.approx(torch_he, rel=1e-15)
    torch.manual_seed(0)
    for ours, theirs in ((xavier_normal, torch.nn.init.xavier_normal_),
                         (he_normal, lambda t: torch.nn.init.kaiming_normal_(t, nonlinearity="relu"))):
        a = ours(fan_in, fan_out, np.random.default_rng(1))
        b = theirs(w).numpy()
        n = a.size  # the sample variance of n normal draws has relative sd √(2/n)
        assert a.shape == (fan_in, fan_out)
        assert abs(a.var() / b.var() - 1) < 6 * math.sqrt(4 / n)
        assert abs(a.mean()) < 6 * a.std() / math.sqrt(n)


def test_init_weights_gives_the_layers_and_zero_biases():
    params = init_weights("he", [784, 128, 64, 10], np.random.default_rng(0))
    assert [p.shape for p in params] == [(784, 128), (128,), (128, 64), (64,), (64, 10), (10,)]
    assert all(p.dtype == np.float64 and not p[...].any() for p in params[1::2])
    assert params[0].std() == pytest.approx(math.sqrt(2 / 784), rel=0.02)
    assert not any(p.any() for p in init_weights("zeros", [5, 3, 2], np.random.default_rng(0)))
    assert init_weights("small", [400, 300], np.random.default_rng(0), scale=0.1)[0].std() == pytest.approx(0.1, rel=0.02)
    assert not zeros_init(3, 4).any() and small_normal(3, 4, np.random.default_rng(0)).std() < 0.05


def test_he_keeps_relu_variance_and_small_random_vanishes():
    x = np.random.default_rng(0).normal(size=(300, 100))
    he = activation_variances(x, "he", "relu", 30, 200, np.random.default_rng(1))
    assert he.activations.shape == he.gradients.shape == (30,)
    assert 0.2 < he.activations.min() and he.activations.max() < 3  # steady through 30 layers
    assert 0.2 < he.gradients.min() and he.gradients.max() < 3
    small = activation_variances(x, "small", "relu", 30, 200, np.random.default_rng(1))
    assert small.activations[-1] < 1e-40 and small.gradients[0] < 1e-40
    zeros = activation_variances(x, "zeros", "tanh", 5, 20, np.random.default_rng(1))
    assert not zeros.activations.any() and not zeros.gradients[:-1].any() and zeros.gradients[-1] > 0


@pytest.mark.parametrize("gain", [0.8, 1.25])
def test_a_gain_on_he_scales_the_relu_variance_by_gain_squared_per_layer(gain):
    # Var(z^[l+1]) = n · gain² (2/n) · Var(z^[l]) / 2: in a linear-ish regime a factor gain² per layer
    x = np.random.default_rng(0).normal(size=(400, 256))
    profile = activation_variances(x, "he", "relu", 20, 256, np.random.default_rng(2), gain=gain)
    ratio = (profile.activations[-1] / profile.activations[4]) ** (1 / 15)
    assert ratio == pytest.approx(gain ** 2, rel=0.1)


def test_linear_layers_with_xavier_keep_the_variance_when_fans_are_equal():
    x = np.random.default_rng(0).normal(size=(500, 128))
    profile = activation_variances(x, "xavier", "linear", 10, 128, np.random.default_rng(3))
    np.testing.assert_allclose(profile.activations, 1, rtol=0.5)


def test_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="scheme must be one of"):
        init_weights("glorot", [3, 2], rng)
    with pytest.raises(ValueError, match="sizes must list at least two"):
        init_weights("he", [3], rng)
    with pytest.raises(ValueError, match="fan_in must be >= 1"):
        he_normal(0, 3, rng)
    with pytest.raises(TypeError, match="rng must be a Generator"):
        xavier_normal(3, 3, 0)
    with pytest.raises(ValueError, match="activation must be one of"):
        activation_variances(np.ones((2, 2)), "he", "sigmoid", 3, 4, rng)
    assert set(INIT_SCHEMES) == {"zeros", "small", "xavier", "he"}
