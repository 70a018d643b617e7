"""Tests of mmir_lib.lm.rnn: the Elman forward pass and BPTT against torch (float64),
the Jacobian norms against their bound, and clipping against torch's clip_grad_norm_."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.rnn import clip_grad_norm, gradient_bound, jacobian_norms, rnn_backward, rnn_forward


def network(rng, T=6, B=3, d=4, h=5, scale=0.6):
    return (rng.normal(size=(T, B, d)), rng.normal(size=(B, h)), rng.normal(size=(d, h)) * scale,
            rng.normal(size=(h, h)) * scale, rng.normal(size=h))


def torch_states(x, h0, W_xh, W_hh, b):
    h, states = h0, []
    for t in range(len(x)):
        h = torch.tanh(x[t] @ W_xh + h @ W_hh + b)
        states.append(h)
    return torch.stack(states)


@given(st.integers(1, 8), st.integers(1, 4), st.integers(1, 5), st.integers(1, 6), st.integers(0, 10**6))
@settings(max_examples=25, deadline=None)
def test_bptt_equals_torch_autograd(T, B, d, h, seed):
    rng = np.random.default_rng(seed)
    arrays = network(rng, T, B, d, h)
    states = rnn_forward(*arrays)
    grad_states = rng.normal(size=states.shape)
    grads = rnn_backward(*arrays, states, grad_states)
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    expected = torch_states(*tensors)
    (expected * torch.from_numpy(grad_states)).sum().backward()
    assert np.abs(states - expected.detach().numpy()).max() < 1e-12
    for name, tensor in zip(("x", "h0", "W_xh", "W_hh", "b"), tensors):
        assert grads[name].shape == tensor.shape
        assert np.abs(grads[name] - tensor.grad.numpy()).max() < 1e-12, name


def test_forward_equals_torch_rnn_module():
    torch.manual_seed(0)
    module = torch.nn.RNN(4, 6, dtype=torch.float64)
    x = np.random.default_rng(1).normal(size=(9, 2, 4))
    ours = rnn_forward(x, None, module.weight_ih_l0.detach().numpy().T, module.weight_hh_l0.detach().numpy().T,
                       (module.bias_ih_l0 + module.bias_hh_l0).detach().numpy())
    assert np.abs(ours - module(torch.from_numpy(x))[0].detach().numpy()).max() < 1e-12


@given(st.integers(1, 12), st.integers(1, 6), st.floats(0.1, 3.0), st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_jacobian_norms_obey_the_bound(T, h, scale, seed):
    rng = np.random.default_rng(seed)
    x, _, W_xh, _, b = network(rng, T, 1, 3, h)
    W_hh = rng.normal(size=(h, h)) * scale / np.sqrt(h)
    states = rnn_forward(x, None, W_xh, W_hh, b)[:, 0]
    norms = jacobian_norms(states, W_hh)
    assert norms.shape == (T,)
    assert np.all(norms <= gradient_bound(W_hh, np.arange(1, T + 1)) * (1 + 1e-9))


def test_jacobian_norms_equal_autograd():
    rng = np.random.default_rng(3)
    x, _, W_xh, W_hh, b = network(rng, 5, 1, 3, 4, scale=0.9)
    states = rnn_forward(x, None, W_xh, W_hh, b)[:, 0]
    norms = jacobian_norms(states, W_hh)
    for n in range(1, 5):   # ∂h_T/∂h_{T−n} by torch.autograd.functional.jacobian
        start = torch.tensor(states[-n - 1])

        def run(h, n=n):
            for t in range(len(x) - n, len(x)):
                h = torch.tanh(torch.from_numpy(x[t, 0] @ W_xh + b) + h @ torch.from_numpy(W_hh))
            return h

        J = torch.autograd.functional.jacobian(run, start).numpy()
        assert abs(np.linalg.norm(J, 2) - norms[n - 1]) < 1e-12


def test_gradient_bound_is_the_power_of_the_spectral_norm():
    W = np.diag([2.0, 0.5])
    assert np.allclose(gradient_bound(W, [0, 1, 3]), [1, 2, 8])
    assert np.allclose(gradient_bound(W, [2], beta_sigma=0.25), [0.25])


@given(st.lists(st.integers(1, 5), min_size=1, max_size=4), st.floats(1e-3, 1e3), st.integers(0, 10**6))
@settings(max_examples=40, deadline=None)
def test_clipping_equals_torch(sizes, max_norm, seed):
    rng = np.random.default_rng(seed)
    grads = [rng.normal(size=(s, 2)) * rng.uniform(0.01, 10) for s in sizes]
    clipped, norm = clip_grad_norm(grads, max_norm)
    tensors = [torch.zeros(g.shape, dtype=torch.float64, requires_grad=True) for g in grads]
    for t, g in zip(tensors, grads):
        t.grad = torch.from_numpy(g.copy())
    expected = torch.nn.utils.clip_grad_norm_(tensors, max_norm)
    assert abs(norm - float(expected)) < 1e-12 * max(1.0, norm)
    for ours, t in zip(clipped, tensors):
        assert np.abs(ours - t.grad.numpy()).max() < 1e-12
    assert np.linalg.norm(np.concatenate([c.ravel() for c in clipped])) <= max_norm * (1 + 1e-9)


def test_clipping_keeps_small_gradients_and_the_inputs():
    grads = [np.array([0.3, 0.4])]
    clipped, norm = clip_grad_norm(grads, 1.0)
    assert norm == pytest.approx(0.5) and np.array_equal(clipped[0], grads[0]) and clipped[0] is not grads[0]


@pytest.mark.parametrize("call, match", [
    (lambda: rnn_forward(np.zeros((0, 1, 2)), None, np.zeros((2, 3)), np.zeros((3, 3)), np.zeros(3)), "x"),
    (lambda: rnn_forward(np.zeros((2, 1, 2)), None, np.zeros((4, 3)), np.zeros((3, 3)), np.zeros(3)), "W_xh"),
    (lambda: rnn_forward(np.zeros((2, 1, 2)), np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((3, 3)), np.zeros(3)),
     "h0"),
    (lambda: clip_grad_norm([np.ones(2)], 0.0), "max_norm"),
    (lambda: clip_grad_norm([], 1.0), "grads"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
