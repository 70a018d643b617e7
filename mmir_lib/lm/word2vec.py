"""word2vec: skip-gram and CBOW with negative sampling, written out in torch.

Instead of counting which words occur near w, word2vec (Mikolov et al. 2013) trains
a classifier to tell a real (word, context) pair from a made-up one, and keeps the
classifier's weights as word vectors. Every word has two vectors: an input vector
w (a row of W, the one kept as the word's embedding) and an output vector c (a row
of C). For a real pair and k **negative** context words n_1 … n_k drawn from a
noise distribution, the loss is

    L = −[ log σ(c_pos · w) + Σ_{i=1}^k log σ(−c_neg_i · w) ],     σ(z) = 1 / (1 + e^(−z)),

small when the real pair's dot product is large and the made-up pairs' are small.
Its gradients, which back-propagation computes for us (and which the tests check
against these formulas), are

    ∂L/∂c_pos = (σ(c_pos · w) − 1) w,   ∂L/∂c_neg_i = σ(c_neg_i · w) w,
    ∂L/∂w = (σ(c_pos · w) − 1) c_pos + Σ_i σ(c_neg_i · w) c_neg_i.

The two architectures differ in what w is:

* **skip-gram** (:class:`SkipGram`): w is the input vector of the centre word, and
  every word within the window is a positive context;
* **CBOW** (:class:`CBOW`): w is the mean of the input vectors of the window's words,
  and the centre word is the one positive.

Three details of the word2vec tool make it work, and are kept here:

* **noise distribution** P_n(w) ∝ count(w)^0.75: frequent words are drawn less often
  than their frequency, rare words more (:func:`noise_distribution`), from a table in
  which each word fills its share of a million slots (:func:`noise_table`);
* **subsampling** of frequent words (:func:`keep_probabilities`): each occurrence of w,
  of relative frequency f(w), is kept with probability min(1, √(t/f) + t/f) (the
  tool's and gensim's rule; the paper writes min(1, √(t/f))), drawn anew every epoch.
  "the" loses most of its occurrences, which also brings more distant words into
  the windows;
* a **dynamic window**: each centre word draws its window b uniformly from 1 … L, so
  nearer words are contexts more often.

Unlike the tool, which takes one stochastic gradient step per pair with a learning
rate falling linearly to 0, :func:`train_word2vec` takes Adam steps on batches of a
few thousand pairs, through :func:`mmir_lib.training.train`: the book's one training
loop, and fast enough in torch on one thread.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import History, train
from ..validation import check_array, check_choice, check_count, check_memory, check_number, describe
from .vectors import _check_sequences, _flatten

__all__ = [
    "noise_distribution",
    "KEEP_RULES",
    "keep_probabilities",
    "subsample",
    "skipgram_pairs",
    "cbow_windows",
    "noise_table",
    "draw_negatives",
    "sgns_loss",
    "SkipGram",
    "CBOW",
    "ARCHITECTURES",
    "train_word2vec",
]


def _check_counts(counts: object) -> np.ndarray:
    """Word counts (V,), non-negative, not all zero, as float64."""
    counts = check_array("counts", counts, ndim=1, low=0, nonempty=True)
    if counts.sum() == 0:
        raise ValueError("counts must not all be 0")
    return counts


def noise_distribution(counts: object, power: float = 0.75) -> np.ndarray:
    """P_n(w) = count(w)^power / Σ_v count(v)^power, the distribution negatives are drawn from.

    ``power`` = 1 is the unigram distribution, 0 the uniform one (over words with a
    count above 0); word2vec uses 0.75. Returns (V,) float64 summing to 1.
    """
    counts = _check_counts(counts)
    power = check_number("power", power, low=0, high=1)
    weights = np.where(counts > 0, counts**power, 0.0)
    return weights / weights.sum()


#: Subsampling rule -> keep probability of a word of relative frequency f (> 0), threshold t.
KEEP_RULES = {
    "word2vec": lambda f, t: np.minimum(1.0, np.sqrt(t / f) + t / f),  # the C tool and gensim
    "paper": lambda f, t: np.minimum(1.0, np.sqrt(t / f)),  # Mikolov et al. (2013b), eq. 5
}


def keep_probabilities(counts: object, sample: float = 1e-3, rule: str = "word2vec") -> np.ndarray:
    """P(keep an occurrence of w) for subsampling frequent words, from word counts (V,).

    With f(w) = count(w) / Σ count and threshold t = ``sample``: "word2vec" keeps it
    with probability min(1, √(t/f) + t/f), "paper" with min(1, √(t/f)). Words rarer
    than about t are always kept; ``sample=0`` keeps everything. Returns (V,) float64.
    """
    counts = _check_counts(counts)
    sample = check_number("sample", sample, low=0, high=1)
    check_choice("rule", rule, KEEP_RULES)
    if sample == 0:
        return np.ones(len(counts))
    f = counts / counts.sum()
    with np.errstate(divide="ignore"):
        return np.where(f > 0, KEEP_RULES[rule](np.where(f > 0, f, 1.0), sample), 1.0)


def _check_rng(rng: object) -> np.random.Generator:
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {describe(rng)}")
    return rng


def subsample(sequences: Sequence, keep: object, rng: np.random.Generator) -> list[np.ndarray]:
    """Each occurrence of word id w kept with probability ``keep[w]``, independently: the
    sequences with the dropped words removed (their neighbours close up)."""
    keep = check_array("keep", keep, ndim=1, low=0, high=1, nonempty=True)
    sequences = _check_sequences("sequences", sequences, len(keep))
    rng = _check_rng(rng)
    ids, owner = _subsample(*_flatten(sequences), keep, rng)
    return np.split(ids, np.cumsum(np.bincount(owner, minlength=len(sequences)))[:-1])


def _subsample(ids: np.ndarray, owner: np.ndarray, keep: np.ndarray, rng: np.random.Generator
               ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`subsample` on flattened sequences (ids, and the sequence of each position)."""
    kept = rng.random(len(ids)) < keep[ids]
    return ids[kept], owner[kept]


def _skipgram_pairs(ids: np.ndarray, owner: np.ndarray, window: int, rng: np.random.Generator
                    ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`skipgram_pairs` on flattened sequences: for each distance, every pair of
    positions that far apart in one sequence, kept where the centre's window reaches."""
    b = rng.integers(1, window + 1, len(ids))  # each position's window, uniform on 1 … L
    centres, contexts = [np.empty(0, np.int64)], [np.empty(0, np.int64)]
    for distance in range(1, min(window, len(ids) - 1) + 1):
        same = owner[:-distance] == owner[distance:]
        right = same & (b[:-distance] >= distance)  # centre i, context i + distance
        left = same & (b[distance:] >= distance)  # centre i + distance, context i
        centres += [ids[:-distance][right], ids[distance:][left]]
        contexts += [ids[distance:][right], ids[:-distance][left]]
    return np.concatenate(centres), np.concatenate(contexts)


def skipgram_pairs(sequences: Sequence, vocab_size: int, window: int, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The (centre, context) pairs of skip-gram: each position i with a window b_i drawn
    from 1 … L pairs with every position j ≠ i of its sequence with |i − j| ≤ b_i.

    Returns
    -------
    centres, contexts : (P,) int64 word ids, grouped by distance (shuffle before training).
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    sequences = _check_sequences("sequences", sequences, vocab_size)
    window = check_count("window", window, low=1)
    return _skipgram_pairs(*_flatten(sequences), window, _check_rng(rng))


def _cbow_windows(ids: np.ndarray, owner: np.ndarray, window: int, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`cbow_windows` on flattened sequences."""
    b = rng.integers(1, window + 1, len(ids))  # the same draws as _skipgram_pairs
    if not len(ids):
        return np.empty((0, 2 * window), np.int64), np.empty(0, np.int64)
    offsets = np.concatenate([np.arange(-window, 0), np.arange(1, window + 1)])  # (2L,)
    wanted = np.arange(len(ids))[:, None] + offsets  # (n, 2L)
    positions = np.clip(wanted, 0, max(len(ids) - 1, 0))
    valid = (positions == wanted) & (owner[positions] == owner[:, None]) & (np.abs(offsets) <= b[:, None])
    has_context = valid.any(axis=1)
    return np.where(valid, ids[positions], -1)[has_context], ids[has_context]


def cbow_windows(sequences: Sequence, vocab_size: int, window: int, rng: np.random.Generator
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The (window, centre) examples of CBOW: the words within ±b_i of each position i
    (b_i drawn from 1 … L), padded with −1, and the word at i.

    Returns
    -------
    windows : (n, 2L) int64, the context ids of each example, −1 where there is none;
    centres : (n,) int64. Positions with no context (a sequence of one word) are left out.
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    sequences = _check_sequences("sequences", sequences, vocab_size)
    window = check_count("window", window, low=1)
    ids, owner = _flatten(sequences)
    check_memory("window", 2 * window * len(ids), itemsize=4 * 8)  # four (n, 2L) int64 arrays at once
    return _cbow_windows(ids, owner, window, _check_rng(rng))


def noise_table(noise: object, size: int = 1_000_000) -> np.ndarray:
    """The word2vec tool's table for drawing negatives: word w fills a share P_n(w) of
    about ``size`` slots (at least one if P_n(w) > 0), so that a uniformly drawn slot
    holds w with probability P_n(w), to within 1/size. Returns (≈ size,) int32.

    The tool uses 10⁸ slots; 10⁶ (4 MB, which the processor's caches hold) draw twice as
    fast as 10⁷ and seven times as fast as a binary search of the cumulative
    distribution (measured, 12 million draws); the rarest word of a vocabulary of
    ten thousand still gets dozens of slots."""
    noise = check_array("noise", noise, ndim=1, low=0, nonempty=True)
    if not np.isclose(noise.sum(), 1.0):
        raise ValueError(f"noise must sum to 1, got {noise.sum():g}")
    size = check_count("size", size, low=1, high=10**9)
    check_memory("size", size + len(noise), itemsize=4)  # (≈ size,) int32, one slot at least per word
    slots = np.where(noise > 0, np.maximum(np.round(noise * size), 1), 0).astype(np.int64)
    return np.repeat(np.arange(len(noise), dtype=np.int32), slots)


def draw_negatives(table: object, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Word ids drawn independently from a :func:`noise_table`: the words in uniformly
    drawn slots, an int64 array of the given shape (O(1) a draw, as in the word2vec tool)."""
    table = check_array("table", table, kind="int", ndim=1, low=0, nonempty=True)
    if not isinstance(shape, tuple) or not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool)
                                               and n >= 0 for n in shape):
        raise TypeError(f"shape must be a tuple of counts >= 0, got {describe(shape)}")
    check_memory("shape", math.prod(int(n) for n in shape))  # int64 ids
    return _draw(table, shape, _check_rng(rng))


def _draw(table: np.ndarray, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return table[rng.integers(0, len(table), shape)].astype(np.int64)


def sgns_loss(w: torch.Tensor, c_pos: torch.Tensor, c_neg: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of −[log σ(c_pos · w) + Σ_i log σ(−c_neg_i · w)].

    Parameters
    ----------
    w : (B, d) the input side (a centre word's vector, or CBOW's mean of the window);
    c_pos : (B, d) the output vector of the true context (or centre) word;
    c_neg : (B, k, d) the output vectors of k negative words per example.

    ``log σ`` is ``F.logsigmoid``, exact where log(sigmoid(z)) would round to log 0.

    k = 0 (``c_neg`` of shape (B, 0, d)) is accepted on purpose and gives the loss without
    its negative term, −log σ(c_pos · w): the term that pulls vectors together, alone (what
    training without negatives would minimise by making every vector alike, the collapse
    the negatives prevent). Training itself refuses it: :func:`train_word2vec` needs
    ``negatives`` >= 1.
    """
    for name, value, ndim in (("w", w, 2), ("c_pos", c_pos, 2), ("c_neg", c_neg, 3)):
        if not isinstance(value, torch.Tensor) or value.ndim != ndim or not value.is_floating_point():
            raise TypeError(f"{name} must be a {ndim}-D floating-point torch tensor, got {describe(value)}")
    if c_pos.shape != w.shape or c_neg.shape[0] != w.shape[0] or c_neg.shape[2] != w.shape[1] or not w.shape[0]:
        raise ValueError(f"w (B, d), c_pos (B, d) and c_neg (B, k, d) must agree, with B >= 1; got {tuple(w.shape)}, "
                         f"{tuple(c_pos.shape)} and {tuple(c_neg.shape)}")
    positive = F.logsigmoid((c_pos * w).sum(dim=1))  # (B,)
    negative = F.logsigmoid(-(c_neg * w[:, None, :]).sum(dim=2)).sum(dim=1)  # (B, k) -> (B,)
    return -(positive + negative).mean()


class _TwoVectorModel(nn.Module):
    """An input vector (rows of W) and an output vector (rows of C) for each of V words,
    initialised as word2vec does: W uniform on ±0.5/d, C zero."""

    def __init__(self, vocab_size: int, dim: int, seed: int = 0):
        super().__init__()
        vocab_size = check_count("vocab_size", vocab_size, low=1)
        dim = check_count("dim", dim, low=1)
        check_memory("vocab_size × dim", 2 * vocab_size * dim, itemsize=4)  # W and C, float32
        seed = check_count("seed", seed, high=2**63 - 1)
        self.input_vectors = nn.Embedding(vocab_size, dim)  # W
        self.output_vectors = nn.Embedding(vocab_size, dim)  # C
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            self.input_vectors.weight.uniform_(-0.5 / dim, 0.5 / dim, generator=generator)
            self.output_vectors.weight.zero_()

    def word_vectors(self) -> np.ndarray:
        """The input vectors W (V, d), float32: the word embeddings word2vec keeps."""
        return self.input_vectors.weight.detach().numpy().copy()


class SkipGram(_TwoVectorModel):
    """Skip-gram with negative sampling: w = W[centre], c_pos = C[context], c_neg = C[negatives].

    >>> model = SkipGram(vocab_size=10, dim=4)
    >>> round(model.loss(torch.tensor([1]), torch.tensor([2]), torch.tensor([[3, 4]])).item(), 4)  # C = 0: 3 log 2
    2.0794
    """

    def loss(self, centres: torch.Tensor, contexts: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """:func:`sgns_loss` of a batch: centres (B,), contexts (B,), negatives (B, k) word ids."""
        return sgns_loss(self.input_vectors(centres), self.output_vectors(contexts), self.output_vectors(negatives))


class CBOW(_TwoVectorModel):
    """Continuous bag of words with negative sampling: w = the mean of W over the window's
    words, c_pos = C[centre], c_neg = C[negatives]."""

    def loss(self, windows: torch.Tensor, centres: torch.Tensor, negatives: torch.Tensor) -> torch.Tensor:
        """:func:`sgns_loss` of a batch: windows (B, 2L) ids padded with −1, centres (B,),
        negatives (B, k)."""
        present = (windows >= 0).to(self.input_vectors.weight.dtype)  # (B, 2L)
        vectors = self.input_vectors(windows.clamp(min=0)) * present[:, :, None]  # (B, 2L, d)
        mean = vectors.sum(dim=1) / present.sum(dim=1, keepdim=True)  # (B, d)
        return sgns_loss(mean, self.output_vectors(centres), self.output_vectors(negatives))


#: Architecture -> (model class, function making its examples from flattened sequences).
ARCHITECTURES = {"skipgram": (SkipGram, _skipgram_pairs), "cbow": (CBOW, _cbow_windows)}


def _epoch_batches(ids: np.ndarray, owner: np.ndarray, architecture: str, window: int, keep: np.ndarray,
                   table: np.ndarray, negatives: int, batch_size: int, seed: int, epoch: int
                   ) -> Iterator[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """One epoch's batches: subsample, make the examples, shuffle, draw k negatives each."""
    rng = np.random.default_rng([seed, epoch])  # a different draw every epoch, the same on every run
    inputs, targets = ARCHITECTURES[architecture][1](*_subsample(ids, owner, keep, rng), window, rng)
    order = rng.permutation(len(targets))
    inputs, targets = torch.from_numpy(inputs[order]), torch.from_numpy(targets[order])
    for start in range(0, len(order), batch_size):
        stop = min(start + batch_size, len(order))
        yield inputs[start:stop], targets[start:stop], torch.from_numpy(_draw(table, (stop - start, negatives), rng))


def train_word2vec(sequences: Sequence, vocab_size: int, *, architecture: str = "skipgram", dim: int = 50,
                   window: int = 5, negatives: int = 5, epochs: int = 5, sample: float = 1e-3, lr: float = 0.005,
                   batch_size: int = 4096, seed: int = 0) -> tuple[SkipGram | CBOW, History]:
    """Train skip-gram or CBOW with negative sampling on sequences of word ids.

    Parameters
    ----------
    sequences : list of 1-D int arrays of word ids in [0, V) (one per play or
        sentence; windows do not cross them). Remove rare words first, as word2vec's
        ``min_count`` does.
    vocab_size : V.
    architecture : "skipgram" or "cbow" (:data:`ARCHITECTURES`).
    dim : d, the length of the word vectors.
    window : L, the largest window (each position draws its own from 1 … L).
    negatives : k, negative words per positive example, drawn from P_n ∝ count^0.75.
    epochs : passes over the sequences (new subsampling, windows and negatives each).
    sample : t of :func:`keep_probabilities` (0: no subsampling).
    lr : Adam's learning rate.
    batch_size : examples per step.
    seed : seeds the initial vectors, and every epoch's draws (with the epoch number).

    Returns
    -------
    model : :class:`SkipGram` or :class:`CBOW`; ``model.word_vectors()`` gives W (V, d).
    history : :class:`mmir_lib.training.History` (the loss must go down, or a
        :class:`~mmir_lib.training.TrainingError` is raised).
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    sequences = _check_sequences("sequences", sequences, vocab_size)
    check_choice("architecture", architecture, ARCHITECTURES)
    dim = check_count("dim", dim, low=1, high=10_000)
    check_memory("vocab_size × dim", 2 * vocab_size * dim, itemsize=4)  # W and C, float32
    window = check_count("window", window, low=1, high=1_000)
    negatives = check_count("negatives", negatives, low=1, high=1_000)
    epochs = check_count("epochs", epochs, low=1, high=10_000)
    sample = check_number("sample", sample, low=0, high=1)
    lr = check_number("lr", lr, low=0, low_open=True, high=10)
    batch_size = check_count("batch_size", batch_size, low=1)
    seed = check_count("seed", seed, high=2**32 - 1)
    ids, owner = _flatten(sequences)
    counts = np.bincount(ids, minlength=vocab_size).astype(np.float64)
    if counts.sum() == 0:
        raise ValueError("sequences must hold at least one word")
    keep, table = keep_probabilities(counts, sample), noise_table(noise_distribution(counts, 0.75))
    model = ARCHITECTURES[architecture][0](vocab_size, dim, seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    history = train(model, lambda m, batch: m.loss(*batch),
                    lambda epoch: _epoch_batches(ids, owner, architecture, window, keep, table, negatives, batch_size,
                                                 seed, epoch),
                    optimizer, epochs, seed=seed, expect_decrease=True)
    return model, history
