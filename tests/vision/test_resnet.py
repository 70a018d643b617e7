"""Residual blocks and deep plain/residual networks (mmir_lib.vision.resnet): shapes, parameter
counts by formula, the zero-weight block is the identity, the skip's Jacobian, per-layer
gradient norms equal a hand computation, the plain network's vanishing gradient, bad input."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision.resnet import ResidualBlock, deep_conv_net, layer_gradient_norms, weighted_layers


def _zero(module):
    for p in module.parameters():
        torch.nn.init.zeros_(p)
    return module


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 8), st.integers(1, 9), st.booleans())
def test_block_keeps_the_shape_and_has_the_formula_count(width, side, skip):
    block = ResidualBlock(width, skip=skip)
    a = torch.randn(2, width, side, side)
    assert block(a).shape == a.shape
    assert sum(p.numel() for p in block.parameters()) == 2 * (9 * width * width + width)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_zero_block_is_the_identity_on_relu_outputs_and_the_plain_one_is_zero(width, seed):
    a = torch.relu(torch.from_numpy(np.random.default_rng(seed).normal(size=(3, width, 5, 5))))
    assert torch.equal(_zero(ResidualBlock(width).double())(a), a)
    assert not _zero(ResidualBlock(width, skip=False).double())(a).any()


def test_block_jacobian_is_identity_plus_the_branch():
    torch.manual_seed(0)
    block = ResidualBlock(2).double()
    plain = ResidualBlock(2, skip=False).double()
    plain.load_state_dict(block.state_dict())
    a = torch.rand(1, 2, 4, 4, dtype=torch.float64) + 5.0     # large: every output stays in ReLU's linear part
    with torch.no_grad():
        for conv in (block.conv2, plain.conv2):
            conv.weight.mul_(0.01)
            conv.bias.zero_()
    branch = torch.autograd.functional.jacobian(lambda x: plain.conv2(torch.relu(plain.conv1(x))), a).reshape(32, 32)
    whole = torch.autograd.functional.jacobian(block, a).reshape(32, 32)
    assert torch.allclose(whole, torch.eye(32, dtype=torch.float64) + branch, atol=1e-12)


@pytest.mark.parametrize("depth, width, residual", [(4, 3, True), (8, 4, False), (20, 2, True)])
def test_deep_net_shapes_depth_and_twins(depth, width, residual):
    torch.manual_seed(0)
    net = deep_conv_net(depth, width, residual=residual)
    torch.manual_seed(0)
    twin = deep_conv_net(depth, width, residual=not residual)
    assert net(torch.zeros(5, 1, 28, 28)).shape == (5, 10)
    assert len(weighted_layers(net)) == depth
    assert [n for n, _ in weighted_layers(net)] == [n for n, _ in weighted_layers(twin)]
    for p, q in zip(net.parameters(), twin.parameters()):     # same initial weights from the same seed
        assert torch.equal(p, q)
    blocks = (depth - 2) // 2
    formula = (9 * 1 + 1) * width + blocks * 2 * (9 * width * width + width) + width * 7 * 7 * 10 + 10
    assert sum(p.numel() for p in net.parameters()) == formula


def test_other_image_sizes_and_channels():
    net = deep_conv_net(6, 4, n_classes=3, in_channels=3, image_size=32)
    assert net(torch.zeros(2, 3, 32, 32)).shape == (2, 3)


def test_gradient_norms_equal_a_hand_computation():
    model = torch.nn.Sequential(torch.nn.Linear(2, 2, bias=False), torch.nn.Linear(2, 1)).double()
    W1, W2, x = np.array([[1.0, -1.0], [0.5, 2.0]]), np.array([[3.0, -2.0]]), np.array([[1.0, 2.0], [0.0, -1.0]])
    with torch.no_grad():
        model[0].weight.copy_(torch.from_numpy(W1))
        model[1].weight.copy_(torch.from_numpy(W2))
    model(torch.from_numpy(x)).sum().backward()
    # L = Σ_n (W2 W1 x_n + b): ∂L/∂W1 = W2ᵀ (Σ_n x_n)ᵀ, ∂L/∂W2 = (W1 Σ_n x_n)ᵀ
    s = x.sum(axis=0)
    by_hand = [np.linalg.norm(np.outer(W2[0], s)), np.linalg.norm(W1 @ s)]
    assert np.abs(layer_gradient_norms(model) - by_hand).max() < 1e-12


def test_plain_gradients_vanish_and_residual_ones_do_not():
    x, y = torch.rand(8, 1, 28, 28), torch.arange(8) % 10
    ratios = {}
    for residual in (False, True):
        torch.manual_seed(0)
        net = deep_conv_net(20, 4, residual=residual)
        torch.nn.functional.cross_entropy(net(x), y).backward()
        norms = layer_gradient_norms(net)
        ratios[residual] = norms[0] / norms[-1]
    assert ratios[False] < 1e-4 < 1e-2 < ratios[True]


def test_he_init_matches_kaiming_variance_and_zero_biases():
    # He: every weight ~ N(0, 2 / n_in) with n_in = k² C_in (conv) or the inputs (dense); biases 0
    torch.manual_seed(0)
    model = deep_conv_net(12, width=32, init="he")
    for _, layer in weighted_layers(model):
        w = layer.weight.detach().double()
        fan_in = w[0].numel()
        assert abs(float(w.var()) * fan_in / 2 - 1) < 0.25
        assert not layer.bias.any()
    torch.manual_seed(0)
    plain = deep_conv_net(12, width=32, residual=False, init="he")
    torch.manual_seed(0)
    resid = deep_conv_net(12, width=32, init="he")
    torch.manual_seed(0)
    default = deep_conv_net(12, width=32, init="default")
    assert all(torch.equal(a, b) for a, b in zip(plain.parameters(), resid.parameters()))
    # torch's default variance is 1 / (3 n_in): 6 times smaller than He's
    w = weighted_layers(default)[3][1].weight.detach().double()
    assert abs(float(w.var()) * w[0].numel() * 3 - 1) < 0.25


def test_he_init_keeps_the_plain_net_dependent_on_its_input():
    # default init: the 20-layer plain net's logits hardly vary between inputs; He init: they do
    x = torch.rand(8, 1, 28, 28, generator=torch.Generator().manual_seed(1))
    spread = {}
    for init in ("default", "he"):
        torch.manual_seed(0)
        with torch.no_grad():
            out = deep_conv_net(20, residual=False, init=init)(x)
        spread[init] = float((out - out.mean(dim=0)).abs().max())
    assert spread["default"] < 1e-5 < 1e-2 < spread["he"]


@pytest.mark.parametrize("call, match", [
    (lambda: ResidualBlock(0), "width"),
    (lambda: ResidualBlock(2, skip=1), "skip"),
    (lambda: deep_conv_net(5), "even"),
    (lambda: deep_conv_net(2), "depth"),
    (lambda: deep_conv_net(20, width=10**4), "width"),
    (lambda: deep_conv_net(4, residual="yes"), "residual"),
    (lambda: deep_conv_net(4, image_size=3), "image_size"),
    (lambda: deep_conv_net(4, init="xavier"), "init"),
    (lambda: layer_gradient_norms(torch.nn.Linear(2, 2)), "backward"),
    (lambda: weighted_layers(torch.nn.ReLU()), "Conv2d"),
    (lambda: weighted_layers([torch.nn.Linear(2, 2)]), "model"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
