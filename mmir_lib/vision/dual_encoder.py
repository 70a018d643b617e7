"""A CLIP-style dual encoder for captioned digit canvases (Part VI.3).

Two encoders map the two media into one space of unit vectors (dimension D = 32):

* :class:`ImageEncoder` -- V.2's LeNet convolutions on a 28 × 56 canvas, then two dense
  layers: conv 5 × 5 (6, padding 2) → ReLU → max pool 2 → conv 5 × 5 (16) → ReLU → max
  pool 2 → (16, 5, 12) = 960 → dense 64 → ReLU → dense D → normalise. The dense layer
  sees *where* each feature is, so "left" and "right" can be told apart;
* a text encoder over word ids (:class:`mmir_lib.vision.captions.CaptionVocabulary`):
  :class:`BagTextEncoder`, the mean of word embeddings (e = 32) → dense 64 → ReLU →
  dense D, blind to word order by construction; or :class:`GRUTextEncoder`, a GRU
  (hidden 64) read left to right, its last state → dense D.

:class:`DualEncoder` holds both and CLIP's learnt log logit scale (initial 1/0.07, clamped
at 100); its loss is :func:`mmir_lib.contrastive.clip_loss`. :func:`train_dual_encoder`
trains it on batches of :func:`mmir_lib.vision.captions.draw_batch`. :func:`retrieval_scores`
computes R@1, R@5 and MRR of a score matrix with several relevant items per query.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..contrastive import clip_loss, logit_scale
from ..training import evaluating
from ..validation import check_array, check_choice, check_count, check_instance, check_number, check_str_list
from .captions import CANVAS, CaptionVocabulary, draw_batch

__all__ = ["EMBEDDING", "TEXT_ENCODERS", "ImageEncoder", "BagTextEncoder", "GRUTextEncoder", "DualEncoder",
           "make_dual_encoder", "TrainingLog", "train_dual_encoder", "embed_images", "embed_texts",
           "retrieval_scores"]

#: Dimension D of the shared space.
EMBEDDING = 32
#: The two text encoders, by name.
TEXT_ENCODERS = ("bag", "gru")


class ImageEncoder(nn.Module):
    """(N, 1, 28, 56) canvases → (N, D) unit vectors (module docstring). 66,156 parameters for D = 32."""

    def __init__(self, dim: int = EMBEDDING):
        dim = check_count("dim", dim, low=1, high=4096)
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 12, 64)
        self.fc2 = nn.Linear(64, dim)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)   # (N, 6, 14, 28)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)   # (N, 16, 5, 12)
        x = F.relu(self.fc1(x.flatten(1)))           # (N, 64)
        return F.normalize(self.fc2(x), dim=1)       # (N, D)


class BagTextEncoder(nn.Module):
    """(B, L) padded word ids and (B,) lengths → (B, D): normalise(W₂ ReLU(W₁ (1/n) Σ_t e_{w_t})).
    The mean is the same for any order of the words."""

    def __init__(self, vocabulary_size: int, dim: int = EMBEDDING, width: int = 32):
        vocabulary_size = check_count("vocabulary_size", vocabulary_size, low=2, high=1_000_000)
        dim, width = check_count("dim", dim, low=1, high=4096), check_count("width", width, low=1, high=4096)
        super().__init__()
        self.embedding = nn.Embedding(vocabulary_size, width, padding_idx=0)
        self.fc1 = nn.Linear(width, 64)
        self.fc2 = nn.Linear(64, dim)

    def forward(self, ids, lengths):
        mean = self.embedding(ids).sum(1) / lengths[:, None].clamp_min(1)   # padding embeds to 0
        return F.normalize(self.fc2(F.relu(self.fc1(mean))), dim=1)


class GRUTextEncoder(nn.Module):
    """(B, L) padded word ids and (B,) lengths → (B, D): normalise(W h_n), h_n the GRU's
    state after the last word of each caption, read left to right."""

    def __init__(self, vocabulary_size: int, dim: int = EMBEDDING, width: int = 32, hidden: int = 64):
        vocabulary_size = check_count("vocabulary_size", vocabulary_size, low=2, high=1_000_000)
        dim, width = check_count("dim", dim, low=1, high=4096), check_count("width", width, low=1, high=4096)
        hidden = check_count("hidden", hidden, low=1, high=4096)
        super().__init__()
        self.embedding = nn.Embedding(vocabulary_size, width, padding_idx=0)
        self.gru = nn.GRU(width, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, dim)

    def forward(self, ids, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(self.embedding(ids), lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        _, last = self.gru(packed)                   # (1, B, hidden)
        return F.normalize(self.fc(last[0]), dim=1)


class DualEncoder(nn.Module):
    """An image encoder, a text encoder, the vocabulary and the learnt ``log_scale``
    (CLIP's initial value log(1/0.07))."""

    def __init__(self, image: nn.Module, text: nn.Module, vocabulary: CaptionVocabulary):
        super().__init__()
        self.image, self.text = image, text
        self.vocabulary = vocabulary
        self.log_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def loss(self, images, captions: Sequence[str]):
        """:func:`mmir_lib.contrastive.clip_loss` of a batch of (B, 1, 28, 56) images and B captions."""
        ids, lengths = self.vocabulary.encode(captions)
        return clip_loss(self.image(images), self.text(torch.from_numpy(ids), torch.from_numpy(lengths)),
                         self.log_scale)


def make_dual_encoder(text_encoder: str, seed: int = 0) -> DualEncoder:
    """A fresh :class:`DualEncoder` with text encoder ``"bag"`` or ``"gru"``, initialised
    by ``torch.manual_seed(seed)``."""
    text_encoder = check_choice("text_encoder", text_encoder, TEXT_ENCODERS)
    seed = check_count("seed", seed, high=2**63 - 1)
    vocabulary = CaptionVocabulary()
    torch.manual_seed(seed)
    text = (BagTextEncoder if text_encoder == "bag" else GRUTextEncoder)(len(vocabulary))
    return DualEncoder(ImageEncoder(), text, vocabulary)


@dataclass
class TrainingLog:
    """What :func:`train_dual_encoder` recorded: the loss of every step, the logit scale
    after every step and the CPU seconds (process time) of the whole run."""

    losses: list[float] = field(default_factory=list)
    scales: list[float] = field(default_factory=list)
    cpu_seconds: float = 0.0


def train_dual_encoder(model: DualEncoder, digits: np.ndarray, labels: np.ndarray, steps: int, lr: float,
                       batch_size: int = 64, seed: int = 0) -> TrainingLog:
    """``steps`` steps of Adam (learning rate ``lr``) on CLIP's loss; step s trains on
    :func:`~mmir_lib.vision.captions.draw_batch` (digits, labels, batch_size, [seed, s]),
    so the batches of a seed are the same for every model."""
    check_instance("model", model, DualEncoder)
    digits = check_array("digits", digits, ndim=3, nonempty=True)
    labels = check_array("labels", labels, ndim=1, kind="int", low=0, high=9)
    steps = check_count("steps", steps, low=1, high=10**7)
    lr = check_number("lr", lr, low=0, low_open=True, high=1.0)
    batch_size = check_count("batch_size", batch_size, low=2, high=90)
    seed = check_count("seed", seed, high=2**63 - 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    log, began = TrainingLog(), time.process_time()
    model.train()
    for step in range(steps):
        images, captions = draw_batch(digits, labels, batch_size, [seed, step])
        loss = model.loss(torch.from_numpy(images[:, None]), captions)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log.losses.append(float(loss.detach()))
        log.scales.append(float(logit_scale(model.log_scale.detach())))
    log.cpu_seconds = time.process_time() - began
    return log


def embed_images(model: DualEncoder, images: np.ndarray, batch_size: int = 500) -> np.ndarray:
    """(N, D) float32 unit vectors of (N, 28, 56) canvases, in eval mode without gradients."""
    check_instance("model", model, DualEncoder)
    images = check_array("images", images, ndim=3, nonempty=True)
    if images.shape[1:] != CANVAS:
        raise ValueError(f"images must have shape (N, {CANVAS[0]}, {CANVAS[1]}), got {images.shape}")
    batch_size = check_count("batch_size", batch_size, low=1, high=10**9)
    with evaluating(model), torch.no_grad():
        out = [model.image(torch.from_numpy(images[i:i + batch_size, None].astype(np.float32)))
               for i in range(0, len(images), batch_size)]
    return torch.cat(out).numpy()


def embed_texts(model: DualEncoder, texts: Sequence[str]) -> np.ndarray:
    """(B, D) float32 unit vectors of B captions (ValueError for a word outside the vocabulary)."""
    check_instance("model", model, DualEncoder)
    texts = check_str_list("texts", texts, nonempty=True)
    ids, lengths = model.vocabulary.encode(texts)
    with evaluating(model), torch.no_grad():
        return model.text(torch.from_numpy(ids), torch.from_numpy(lengths)).numpy()


def retrieval_scores(scores: np.ndarray, relevant: np.ndarray, tie: float = 1e-6) -> dict[str, float]:
    """R@1, R@5 (share of queries with a relevant item among the first 1 or 5) and MRR
    (mean of 1 / rank of the first relevant item) of a (Q, G) score matrix, given the
    (Q, G) bool matrix of relevant items (each query at least one).

    Scores within ``tie`` of each other are ties (a bag of words gives two captions of the
    same words one vector, and their scores then differ only by rounding), broken at random
    **in expectation**: with a non-relevant items above the best relevant score, and m
    non-relevant and r relevant items tied at it, the first relevant item has rank
    a + 1 + u, where P(u ≥ j) = Π_{i<j} (m − i) / (m + r − i) (the first j of the tied items
    drawn are all non-relevant); a query adds P(a + 1 + u ≤ k) to R@k and E[1 / (a + 1 + u)]
    to MRR.
    """
    scores = check_array("scores", scores, ndim=2, nonempty=True)
    relevant = check_array("relevant", relevant, ndim=2, kind="bool")
    tie = check_number("tie", tie, low=0.0, high=1.0)
    if relevant.shape != scores.shape:
        raise ValueError(f"relevant must have the shape of scores {scores.shape}, got {relevant.shape}")
    if not relevant.any(axis=1).all():
        raise ValueError("relevant must mark at least one item of every query")
    best = np.where(relevant, scores, -np.inf).max(axis=1, keepdims=True)
    level = np.abs(scores - best) <= tie
    above = (~relevant & (scores > best + tie)).sum(axis=1)
    tied, tied_relevant = (~relevant & level).sum(axis=1), (relevant & level).sum(axis=1)
    recall = {1: [], 5: []}
    reciprocal = []
    for a, m, r in zip(above, tied, tied_relevant):
        u = np.arange(m + 2)
        survival = np.concatenate([[1.0], np.cumprod((m - u[:-1]) / (m + r - u[:-1]))])[:m + 2]   # P(u' ≥ j)
        p = survival[:-1] - survival[1:]                                                       # P(u' = j), j ≤ m
        rank = a + 1 + u[:-1]
        for k in recall:
            recall[k].append(p[rank <= k].sum())
        reciprocal.append((p / rank).sum())
    out = {f"R@{k}": float(np.mean(v)) for k, v in recall.items()}
    out["MRR"] = float(np.mean(reciprocal))
    return out
