"""Siamese networks and the triplet loss for one-shot verification (Part V.3).

One network f maps an image to an **embedding** f(x) ∈ ℝ^d (here of unit length), and
two images are judged the same class when their squared distance

    d(x₁, x₂) = ‖f(x₁) − f(x₂)‖²

is at most a threshold τ. Since the comparison needs no classifier, classes never seen
in training can be verified from a single example of each (**one-shot**). The network is
trained on triplets (anchor A, positive P of A's class, negative N of another class)
with the **triplet loss** of Schroff et al. (2015), margin α:

    L(A, P, N) = max(‖f(A) − f(P)‖² − ‖f(A) − f(N)‖² + α, 0),

averaged over the triplets. (``torch.nn.TripletMarginLoss`` uses the distance itself,
not its square: ``squared=False`` gives that variant.) Verification is evaluated with
the **ROC curve**: for every threshold, the true-positive rate (same-class pairs
accepted) against the false-positive rate (different-class pairs accepted); the **AUC**
is the area under it, the probability that a random same-class pair is closer than a
random different-class pair (ties count one half).
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import evaluating
from ..validation import (check_array, check_bool, check_count, check_instance, check_number, check_same_length,
                          check_tensor)

__all__ = ["EmbeddingNet", "triplet_loss", "sample_triplets", "sample_pairs", "embed", "roc_curve", "roc_auc",
           "best_threshold"]


class EmbeddingNet(nn.Module):
    """f: (N, 1, 28, 28) float32 digits -> (N, dim) unit-length embeddings. Two 5 × 5
    convolutions with ReLU and 2 × 2 max pooling (LeNet's layout), then a dense layer."""

    def __init__(self, dim: int = 16, channels: tuple[int, int] = (8, 16), seed: int = 0):
        super().__init__()
        dim = check_count("dim", dim, low=1, high=4096)
        if not isinstance(channels, (tuple, list)) or len(channels) != 2:
            raise TypeError(f"channels must be two ints, got {channels!r}")
        c1, c2 = (check_count("channels", c, low=1, high=1024) for c in channels)
        seed = check_count("seed", seed, high=2**63 - 1)
        torch.manual_seed(seed)
        self.conv1, self.conv2 = nn.Conv2d(1, c1, 5), nn.Conv2d(c1, c2, 5)
        self.fc = nn.Linear(c2 * 4 * 4, dim)

    def forward(self, x):
        check_instance("x", x, torch.Tensor)
        if x.ndim != 4 or tuple(x.shape[1:]) != (1, 28, 28):
            raise ValueError(f"x must have shape (N, 1, 28, 28), got {tuple(x.shape)}")
        if x.dtype != torch.float32:
            raise TypeError(f"x must be float32, got {x.dtype}")
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return F.normalize(self.fc(x.flatten(1)), dim=1)


def triplet_loss(anchor, positive, negative, margin: float = 0.2, squared: bool = True, eps: float = 0.0):
    """Mean triplet loss of (n, d) embeddings: max(d(A, P) − d(A, N) + α, 0), with d the
    squared Euclidean distance (``squared=False``: the distance ‖A − P + ε‖, as torch's
    ``TripletMarginLoss(margin, p=2, eps=ε)``: values and gradients, also where A = P,
    whose gradient is then 0 for ε = 0, the norm's subgradient, not NaN)."""
    anchor = check_tensor("anchor", anchor, ndim=2)
    positive = check_tensor("positive", positive, ndim=2)
    negative = check_tensor("negative", negative, ndim=2)
    if not anchor.shape == positive.shape == negative.shape:
        raise ValueError(f"anchor, positive and negative must have the same shape, got {tuple(anchor.shape)}, "
                         f"{tuple(positive.shape)} and {tuple(negative.shape)}")
    margin = check_number("margin", margin, low=0.0)
    squared = check_bool("squared", squared)
    eps = check_number("eps", eps, low=0.0)
    if squared:
        d_pos = ((anchor - positive) ** 2).sum(dim=1)
        d_neg = ((anchor - negative) ** 2).sum(dim=1)
    else:  # vector_norm's backward gives 0, not 0/0, at a zero difference
        d_pos = torch.linalg.vector_norm(anchor - positive + eps, dim=1)
        d_neg = torch.linalg.vector_norm(anchor - negative + eps, dim=1)
    return torch.clamp(d_pos - d_neg + margin, min=0).mean()


def _classes(labels, n, seed):
    """The checked count n, a generator seeded with ``seed``, the classes of ``labels``,
    the indices of each class's items, and the classes with at least two items."""
    labels = check_array("labels", labels, ndim=1, kind="int", nonempty=True)
    n = check_count("n", n, low=1, high=10**8)
    seed = check_count("seed", seed, high=2**32 - 1)
    classes, counts = np.unique(labels, return_counts=True)
    if len(classes) < 2 or counts.max() < 2:
        raise ValueError("labels must hold at least two classes and a class with two items")
    members = {c: np.flatnonzero(labels == c) for c in classes}
    return n, np.random.default_rng(seed), classes, members, classes[counts >= 2]


def sample_triplets(labels, n: int, seed: int = 0) -> np.ndarray:
    """n random triplets of indices (anchor, positive, negative) into ``labels``: anchor
    and positive two different items of one class, negative an item of another class.
    Returns an (n, 3) int64 array."""
    n, rng, classes, members, usable = _classes(labels, n, seed)
    out = np.empty((n, 3), dtype=np.int64)
    for t, c in enumerate(rng.choice(usable, size=n)):
        a, p = rng.choice(members[c], size=2, replace=False)
        other = rng.choice(classes[classes != c])
        out[t] = a, p, rng.choice(members[other])
    return out


def sample_pairs(labels, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """n pairs of indices into ``labels``, half of one class and half of two classes
    (alternating). Returns ((n, 2) int64 indices, (n,) bool "same class")."""
    n, rng, classes, members, usable = _classes(labels, n, seed)
    pairs, same = np.empty((n, 2), dtype=np.int64), np.arange(n) % 2 == 0
    for t in range(n):
        if same[t]:
            pairs[t] = rng.choice(members[rng.choice(usable)], size=2, replace=False)
        else:
            c1, c2 = rng.choice(classes, size=2, replace=False)
            pairs[t] = rng.choice(members[c1]), rng.choice(members[c2])
    return pairs, same


def embed(model, images, batch_size: int = 512) -> np.ndarray:
    """Embeddings (n, d) float64 of (n, 28, 28) images, in eval mode without gradients."""
    check_instance("model", model, nn.Module)
    images = check_array("images", images, ndim=3)
    batch_size = check_count("batch_size", batch_size, low=1)
    with evaluating(model):
        x = torch.from_numpy(images.astype(np.float32))[:, None]
        return np.concatenate([model(x[i:i + batch_size]).double().numpy()
                               for i in range(0, len(x), batch_size)] or [np.zeros((0, 0))])


def roc_curve(scores, positive) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ROC of a score where **higher means positive** (pass −distance for distances).

    Returns (fpr, tpr, thresholds): at ``thresholds[i]`` (accept score >= it) the
    false- and true-positive rates; the first point is (0, 0) at +inf, tied scores share
    one point, and the last point is (1, 1)."""
    s, pos = _check_scores(scores, positive)
    order = np.argsort(-s, kind="stable")
    s, pos = s[order], pos[order]
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]    # the last item of each run of tied scores
    tp, fp = np.cumsum(pos)[last], np.cumsum(~pos)[last]
    return (np.r_[0.0, fp / (~pos).sum()], np.r_[0.0, tp / pos.sum()], np.r_[np.inf, s[last]])


def roc_auc(scores, positive) -> float:
    """Area under :func:`roc_curve` by the trapezoid rule (ties count one half)."""
    fpr, tpr, _ = roc_curve(scores, positive)
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))


def best_threshold(distances, same) -> tuple[float, float]:
    """The threshold τ on distances ("same" when d <= τ) with the highest accuracy on
    these pairs (the midpoint between two neighbouring distances; the smallest such τ
    on ties). Returns (τ, accuracy)."""
    d, pos = _check_scores(distances, same, "distances", "same")
    cuts = np.unique(d)
    candidates = np.r_[cuts[0] - 1.0, (cuts[1:] + cuts[:-1]) / 2, cuts[-1] + 1.0]
    accept = d[None, :] <= candidates[:, None]
    accuracy = (accept == pos[None, :]).mean(axis=1)
    best = int(np.argmax(accuracy))
    return float(candidates[best]), float(accuracy[best])


def _check_scores(scores, positive, s_name: str = "scores", p_name: str = "positive"):
    s = check_array(s_name, scores, ndim=1, nonempty=True)
    pos = check_array(p_name, positive, ndim=1, kind="bool")
    check_same_length(**{s_name: s, p_name: pos})
    if pos.all() or not pos.any():
        raise ValueError(f"{p_name} must hold both True and False (a ROC needs both kinds of pairs)")
    return s, pos.astype(bool)
