"""GloVe: word vectors fitted to the logarithms of global co-occurrence counts.

word2vec learns from one window at a time; GloVe (Pennington, Socher and Manning 2014)
first counts, over the whole corpus, how often word j occurs near word i (X_ij,
each occurrence at distance k adding 1/k: :func:`mmir_lib.lm.vectors.term_term_matrix`
with ``weighting="harmonic"``), then asks two vectors and two biases per word to
reproduce the logarithm of every non-zero count, by weighted least squares:

    J = Σ_{i,j: X_ij > 0} f(X_ij) (w_i · w̃_j + b_i + b̃_j − log X_ij)²,

    f(x) = (x / x_max)^α for x < x_max, else 1        (x_max = 100, α = 3/4).

The weight f lets rare, noisy counts matter little and caps the weight of the
frequent ones ("the" near "of"); pairs never seen (X_ij = 0, log X_ij = −∞) are left
out. Ratios of co-occurrence probabilities, P(k | ice) / P(k | steam), become
differences of vectors: w_ice − w_steam along w̃_k. W and W̃ play symmetric roles
for a symmetric X, and the word vectors kept are their sum w_i + w̃_i.

:func:`train_glove` minimises J with AdaGrad on shuffled batches of the non-zero
counts, as the GloVe tool does, through :func:`mmir_lib.training.train`.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import scipy.sparse as sp
import torch
from torch import nn

from ..training import History, train
from ..validation import check_array, check_count, check_memory, check_number, describe
from .vectors import _check_matrix

__all__ = ["glove_weight", "glove_loss", "GloVe", "train_glove"]


def glove_weight(x: object, x_max: float = 100.0, alpha: float = 0.75) -> np.ndarray:
    """f(x) = min(1, (x / x_max)^α) for co-occurrence counts x >= 0 (any shape): 0 at 0,
    rising to 1 at x_max and staying there."""
    x = check_array("x", x, kind="number", low=0).astype(np.float64)
    x_max = check_number("x_max", x_max, low=0, low_open=True)
    alpha = check_number("alpha", alpha, low=0, low_open=True, high=1)
    return np.minimum(1.0, (x / x_max) ** alpha)


def glove_loss(w: torch.Tensor, w_context: torch.Tensor, b: torch.Tensor, b_context: torch.Tensor,
               log_x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Mean over a batch of counts of f(X_ij) (w_i · w̃_j + b_i + b̃_j − log X_ij)².

    Parameters
    ----------
    w, w_context : (B, d) the vectors w_i and w̃_j of the B counted pairs (i, j);
    b, b_context : (B,) their biases;
    log_x : (B,) log X_ij; weight : (B,) f(X_ij).
    """
    for name, value, ndim in (("w", w, 2), ("w_context", w_context, 2), ("b", b, 1), ("b_context", b_context, 1),
                              ("log_x", log_x, 1), ("weight", weight, 1)):
        if not isinstance(value, torch.Tensor) or value.ndim != ndim or not value.is_floating_point():
            raise TypeError(f"{name} must be a {ndim}-D floating-point torch tensor, got {describe(value)}")
    n = w.shape[0]
    if w_context.shape != w.shape or any(len(v) != n for v in (b, b_context, log_x, weight)) or not n:
        raise ValueError(f"w and w_context (B, d), b, b_context, log_x and weight (B,) must agree, with B >= 1; "
                         f"got w {tuple(w.shape)}, w_context {tuple(w_context.shape)}, b {tuple(b.shape)}, "
                         f"b_context {tuple(b_context.shape)}, log_x {tuple(log_x.shape)}, weight {tuple(weight.shape)}")
    for name, value in (("log_x", log_x), ("weight", weight)):  # the data; the weights are the model's business
        if not bool(torch.isfinite(value).all()):
            raise ValueError(f"{name} must hold finite numbers, found NaN or infinity (log X_ij of a zero count?)")
    error = (w * w_context).sum(dim=1) + b + b_context - log_x  # (B,)
    return (weight * error**2).mean()


class GloVe(nn.Module):
    """Two vectors and two biases per word, initialised uniform on ±0.5/d (as the GloVe tool)."""

    def __init__(self, vocab_size: int, dim: int, seed: int = 0):
        super().__init__()
        vocab_size = check_count("vocab_size", vocab_size, low=1)
        dim = check_count("dim", dim, low=1)
        check_memory("vocab_size × dim", 2 * vocab_size * (dim + 1), itemsize=4)  # W, W̃ and biases, float32
        seed = check_count("seed", seed, high=2**63 - 1)
        generator = torch.Generator().manual_seed(seed)
        self.vectors = nn.Embedding(vocab_size, dim)  # W
        self.context_vectors = nn.Embedding(vocab_size, dim)  # W̃
        self.biases = nn.Embedding(vocab_size, 1)
        self.context_biases = nn.Embedding(vocab_size, 1)
        with torch.no_grad():
            for table in (self.vectors, self.context_vectors, self.biases, self.context_biases):
                table.weight.uniform_(-0.5 / dim, 0.5 / dim, generator=generator)

    def loss(self, rows: torch.Tensor, columns: torch.Tensor, log_x: torch.Tensor, weight: torch.Tensor
             ) -> torch.Tensor:
        """:func:`glove_loss` of a batch of counts X[rows, columns]."""
        return glove_loss(self.vectors(rows), self.context_vectors(columns), self.biases(rows)[:, 0],
                          self.context_biases(columns)[:, 0], log_x, weight)

    def word_vectors(self) -> np.ndarray:
        """w_i + w̃_i (V, d), float32: the vectors GloVe keeps."""
        return (self.vectors.weight + self.context_vectors.weight).detach().numpy().copy()


def _epoch_batches(rows: np.ndarray, columns: np.ndarray, log_x: np.ndarray, weight: np.ndarray, batch_size: int,
                   seed: int, epoch: int) -> Iterator[tuple[torch.Tensor, ...]]:
    order = np.random.default_rng([seed, epoch]).permutation(len(rows))
    tensors = [torch.from_numpy(a[order]) for a in (rows, columns, log_x, weight)]
    for start in range(0, len(order), batch_size):
        yield tuple(t[start:start + batch_size] for t in tensors)


def train_glove(cooccurrences: object, *, dim: int = 50, epochs: int = 25, x_max: float = 100.0, alpha: float = 0.75,
                lr: float = 0.05, batch_size: int = 8192, seed: int = 0) -> tuple[GloVe, History]:
    """Fit GloVe to a (V, V) co-occurrence matrix (sparse or dense; its non-zero entries are
    the data) with AdaGrad, ``batch_size`` counts a step.

    Returns
    -------
    model : :class:`GloVe`; ``model.word_vectors()`` gives W + W̃ (V, d).
    history : :class:`mmir_lib.training.History` (the loss must go down).
    """
    matrix = sp.coo_matrix(_check_matrix("cooccurrences", cooccurrences, nonnegative=True))
    if matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"cooccurrences must be square (V, V), got {matrix.shape}")
    dim = check_count("dim", dim, low=1, high=10_000)
    epochs = check_count("epochs", epochs, low=1, high=10_000)
    x_max = check_number("x_max", x_max, low=0, low_open=True)
    alpha = check_number("alpha", alpha, low=0, low_open=True, high=1)
    lr = check_number("lr", lr, low=0, low_open=True, high=10)
    batch_size = check_count("batch_size", batch_size, low=1)
    seed = check_count("seed", seed, high=2**32 - 1)
    counted = matrix.data > 0
    if not counted.any():
        raise ValueError("cooccurrences must hold at least one count above 0")
    x = matrix.data[counted]
    weight = glove_weight(x, x_max, alpha).astype(np.float32)
    if not weight.any():
        raise ValueError(f"x_max = {x_max:g} is so large that every weight f(X_ij) rounds to 0")
    data = (matrix.row[counted].astype(np.int64), matrix.col[counted].astype(np.int64), np.log(x).astype(np.float32),
            weight)
    model = GloVe(matrix.shape[0], dim, seed)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=lr)
    history = train(model, lambda m, batch: m.loss(*batch),
                    lambda epoch: _epoch_batches(*data, batch_size, seed, epoch), optimizer, epochs, seed=seed,
                    expect_decrease=True)
    return model, history
