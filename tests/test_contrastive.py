"""Tests of mmir_lib.contrastive: InfoNCE and CLIP's symmetric loss, each against its
F.cross_entropy form; the logit scale's clamp; invariance to permuting the batch."""

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.contrastive import MAX_LOGIT_SCALE, clip_loss, info_nce, logit_scale


def _unit(g, *shape):
    return F.normalize(torch.randn(*shape, generator=g, dtype=torch.float64), dim=-1)


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 6), extra=st.integers(0, 4), tau=st.floats(0.02, 5.0), seed=st.integers(0, 2**16))
def test_info_nce_equals_cross_entropy(b, extra, tau, seed):
    g = torch.Generator().manual_seed(seed)
    q = F.normalize(torch.randn(b, 8, generator=g), dim=1)
    d = F.normalize(torch.randn(b + extra, 8, generator=g), dim=1)
    assert torch.allclose(info_nce(q, d, tau), F.cross_entropy(q @ d.T / tau, torch.arange(b)), atol=1e-5)


@settings(max_examples=20, deadline=None)
@given(b=st.integers(2, 8), seed=st.integers(0, 2**16))
def test_info_nce_falls_as_temperature_sharpens_on_separable_data(b, seed):
    # each query is nearest its own document: sharper softmax, lower loss, towards 0
    g = torch.Generator().manual_seed(seed)
    d = F.normalize(torch.randn(b, 16, generator=g), dim=1)
    q = F.normalize(d + 0.01 * torch.randn(b, 16, generator=g), dim=1)
    assert bool(((q @ d.T).argmax(1) == torch.arange(b)).all())
    losses = [float(info_nce(q, d, tau)) for tau in (2.0, 1.0, 0.5, 0.1, 0.02)]
    assert all(a > b_ for a, b_ in zip(losses, losses[1:]))
    assert losses[0] < np.log(b)  # better than a uniform guess even at τ = 2


def test_info_nce_bad_shapes():
    with pytest.raises(ValueError, match="documents"):
        info_nce(torch.zeros(3, 4), torch.zeros(2, 4))
    with pytest.raises(ValueError, match="temperature"):
        info_nce(torch.zeros(3, 4), torch.zeros(3, 4), 0.0)


@settings(max_examples=40, deadline=None)
@given(b=st.integers(1, 8), log_scale=st.floats(-2.0, 6.0), seed=st.integers(0, 2**16))
def test_clip_loss_is_the_mean_of_its_two_cross_entropies(b, log_scale, seed):
    g = torch.Generator().manual_seed(seed)
    x, t = _unit(g, b, 6), _unit(g, b, 6)
    t_log = torch.tensor(log_scale, dtype=torch.float64)
    logits = min(math.exp(log_scale), MAX_LOGIT_SCALE) * x @ t.T
    labels = torch.arange(b)
    expected = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.T, labels)) / 2
    assert torch.allclose(clip_loss(x, t, t_log), expected, atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(b=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_clip_loss_is_invariant_to_permuting_the_pairs_together(b, seed):
    g = torch.Generator().manual_seed(seed)
    x, t = _unit(g, b, 5), _unit(g, b, 5)
    order = torch.randperm(b, generator=g)
    s = torch.tensor(2.0, dtype=torch.float64)
    assert torch.allclose(clip_loss(x[order], t[order], s), clip_loss(x, t, s), atol=1e-12)
    # and symmetric in the two media
    assert torch.allclose(clip_loss(t, x, s), clip_loss(x, t, s), atol=1e-12)


def test_clip_loss_values_and_gradient_of_the_scale():
    # perfectly matched orthogonal pairs: each row's softmax has exp(s) against B - 1 ones
    b, s = 4, math.log(10.0)
    x = torch.eye(b, dtype=torch.float64)
    log_scale = torch.tensor(s, dtype=torch.float64, requires_grad=True)
    loss = clip_loss(x, x.clone(), log_scale)
    assert float(loss.detach()) == pytest.approx(math.log(math.exp(10) + b - 1) - 10, abs=1e-12)
    loss.backward()
    assert float(log_scale.grad) < 0  # a larger scale sharpens correct matches: the loss falls
    # unrelated captions: at scale 0 (s = 1) with every similarity equal, the loss is log B
    zeros = torch.zeros(b, 3, dtype=torch.float64)
    assert float(clip_loss(zeros, zeros, torch.tensor(0.0, dtype=torch.float64))) == pytest.approx(math.log(b))


def test_logit_scale_is_clamped_at_100():
    assert float(logit_scale(torch.tensor(math.log(1 / 0.07)))) == pytest.approx(1 / 0.07, rel=1e-6)
    big = torch.tensor(8.0, requires_grad=True)
    assert float(logit_scale(big).detach()) == pytest.approx(MAX_LOGIT_SCALE, rel=1e-6)
    logit_scale(big).backward()
    assert float(big.grad) == 0.0  # no gradient pushes it further above the clamp


def test_clip_loss_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        clip_loss(torch.zeros(3, 4), torch.zeros(2, 4), torch.tensor(1.0))
    with pytest.raises(ValueError, match="log_scale"):
        clip_loss(torch.zeros(3, 4), torch.zeros(3, 4), torch.tensor([1.0]))
    with pytest.raises(TypeError, match="images"):
        clip_loss(np.zeros((3, 4)), torch.zeros(3, 4), torch.tensor(1.0))
