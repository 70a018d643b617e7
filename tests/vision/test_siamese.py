"""Triplet loss, sampling and ROC (mmir_lib.vision.siamese) against torch and scikit-learn."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from mmir_lib.vision.siamese import (EmbeddingNet, best_threshold, embed, roc_auc, roc_curve, sample_pairs,
                                     sample_triplets, triplet_loss)


@pytest.mark.parametrize("margin", [0.2, 1.0])  # torch refuses a margin of 0
def test_triplet_loss_equals_torch(margin):
    g = torch.Generator().manual_seed(0)
    a, p, n = (torch.randn(50, 8, generator=g, dtype=torch.float64) for _ in range(3))
    plain = torch.nn.TripletMarginLoss(margin=margin, p=2, eps=0.0)(a, p, n)
    assert abs(triplet_loss(a, p, n, margin, squared=False) - plain) < 1e-12
    squared = torch.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: ((x - y) ** 2).sum(1),
                                                     margin=margin)(a, p, n)
    assert abs(triplet_loss(a, p, n, margin) - squared) < 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 20), st.integers(1, 6), st.sampled_from([0.2, 1.0]),
       st.sampled_from([0.0, 1e-6]))
def test_plain_triplet_loss_values_and_gradients_equal_torch(seed, n, d, margin, eps):
    """``squared=False`` against torch's TripletMarginLoss(eps=ε): the loss and the three
    gradients, finite, also when some anchors equal their positive (and some their negative)."""
    g = torch.Generator().manual_seed(seed)
    a, p, m = (torch.randn(n, d, generator=g, dtype=torch.float64) for _ in range(3))
    same = torch.rand(n, generator=g) < 0.5
    p[same] = a[same]
    equal_negative = torch.rand(n, generator=g) < 0.2
    m[equal_negative] = a[equal_negative]  # some negatives equal their anchor too
    grads = []
    for loss in (lambda *t: triplet_loss(*t, margin=margin, squared=False, eps=eps),
                 torch.nn.TripletMarginLoss(margin=margin, p=2, eps=eps)):
        leaves = [t.clone().requires_grad_(True) for t in (a, p, m)]
        value = loss(*leaves)
        value.backward()
        grads.append((value.detach(), [t.grad for t in leaves]))
    (ours, ours_grads), (theirs, their_grads) = grads
    assert abs(ours - theirs) < 1e-12
    for mine, reference in zip(ours_grads, their_grads):
        assert torch.isfinite(mine).all()
        torch.testing.assert_close(mine, reference, rtol=0, atol=1e-12)


def test_plain_triplet_loss_where_anchor_equals_positive():
    """The issue's case: A = P gave NaN gradients (the derivative of √ at 0)."""
    a = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    p = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)
    n = torch.tensor([[1.0, 2.1]], dtype=torch.float64, requires_grad=True)
    triplet_loss(a, p, n, margin=0.2, squared=False).backward()
    assert all(torch.isfinite(t.grad).all() for t in (a, p, n))
    assert torch.equal(p.grad, torch.zeros_like(p.grad))  # the norm's subgradient at 0


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.booleans())
def test_roc_and_auc_equal_sklearn(seed, n, ties):
    rng = np.random.default_rng(seed)
    positive = np.arange(n) % 2 == 0
    rng.shuffle(positive)
    scores = rng.integers(0, 4, n).astype(float) if ties else rng.normal(size=n) + positive
    fpr, tpr, thresholds = roc_curve(scores, positive)
    sk_fpr, sk_tpr, sk_thresholds = sk_roc_curve(positive, scores, drop_intermediate=False)
    assert np.allclose(fpr, sk_fpr) and np.allclose(tpr, sk_tpr) and np.array_equal(thresholds[1:], sk_thresholds[1:])
    assert abs(roc_auc(scores, positive) - roc_auc_score(positive, scores)) < 1e-12


def test_best_threshold_is_the_best_accuracy():
    rng = np.random.default_rng(3)
    same = rng.random(200) < 0.5
    d = rng.normal(size=200) + 2 * ~same
    tau, accuracy = best_threshold(d, same)
    brute = max(((d <= t) == same).mean() for t in np.r_[d, d.min() - 1])
    assert accuracy == brute == ((d <= tau) == same).mean()


def test_sampling():
    labels = np.repeat(np.arange(4), 5)
    t = sample_triplets(labels, 300, seed=1)
    assert (labels[t[:, 0]] == labels[t[:, 1]]).all() and (t[:, 0] != t[:, 1]).all()
    assert (labels[t[:, 0]] != labels[t[:, 2]]).all()
    pairs, same = sample_pairs(labels, 100, seed=2)
    assert same.sum() == 50 and ((labels[pairs[:, 0]] == labels[pairs[:, 1]]) == same).all()
    assert np.array_equal(sample_triplets(labels, 10, seed=4), sample_triplets(labels, 10, seed=4))


def test_embeddings_have_unit_length_and_bad_images_are_refused():
    model = EmbeddingNet(dim=6)
    e = embed(model, np.random.default_rng(0).random((5, 28, 28)))
    assert e.shape == (5, 6) and np.allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-6)
    with pytest.raises(ValueError, match=r"x must have shape \(N, 1, 28, 28\)"):
        model(torch.zeros(2, 1, 32, 32))
    with pytest.raises(TypeError, match="x must be float32"):
        model(torch.zeros(2, 1, 28, 28, dtype=torch.float64))
    with pytest.raises(ValueError, match="positive must hold both True and False"):
        roc_curve([0.1, 0.2], [True, True])
