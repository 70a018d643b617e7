"""Neural n-gram language models: the bigram table as a layer, and Bengio's feed-forward model.

**The bigram as a network.** Give each symbol of a vocabulary of V a one-hot row
vector x. A linear layer with weights Ŵ (V × V) maps the previous symbol to one real
number per possible next symbol, its **logit** z = x Ŵ (the row of Ŵ of that symbol),
and the softmax turns the logits into a distribution,

    P_θ[w | c] = softmax(Ŵ_c)_w = exp(Ŵ_cw) / Σ_v exp(Ŵ_cv).

Trained to minimise the mean loss over a text of N pairs (c, w) with counts C(c, w),

    L(Ŵ) = −(1/N) Σ_t log P_θ[w_t | w_{t−1}] = −(1/N) Σ_{c,w} C(c, w) log P_θ[w | c],

the network can only learn the counts: with N_c = Σ_w C(c, w) and P̂[w | c] = C(c, w)/N_c
the maximum-likelihood (MLE) table,

    L(Ŵ) − L_MLE = Σ_c (N_c / N) · KL(P̂[· | c] ‖ P_θ[· | c]) ≥ 0,

zero exactly when every row seen in training is the MLE row. The loss of the whole
text depends on it only through the V × V counts, so a full-batch gradient step costs
one pass over the table, not over the text (:func:`count_loss`).

**Bengio et al. (2003).** The bigram table has V² entries and an n-gram table
V^{n−1}(V − 1) free probabilities (:func:`ngram_table_size`). The feed-forward model of
:class:`NeuralNGram` shares its parameters between contexts instead: each of the n − 1
previous symbols is looked up in one embedding matrix E (V × d), the vectors are
concatenated, passed through one hidden layer of h tanh units, and a linear layer
gives the logits,

    x = [E_{w_{t−n+1}}, …, E_{w_{t−1}}]    ((n−1)·d,)
    a = tanh(x H + b_H)                    (h,)
    z = a U + b_U                          (V,)     P_θ[· | context] = softmax(z),

with V·d + (n−1)·d·h + h + h·V + V parameters (:func:`parameter_count`): linear in n and
in V, where the table grows like V^n. (Bengio et al. also add direct connections from
x to the logits; this model leaves them out.)

Both models take a batch of contexts, a (m, n − 1) LongTensor of ids, and return
(m, V) logits; ``next_distribution`` and ``log_loss`` give them the interface of the
count models of :mod:`.ngram`, so :func:`mmir_lib.lm.sampling.generate` samples from
them and :func:`mmir_lib.lm.heldout.evaluate` puts them in the held-out table.
Training goes through :func:`mmir_lib.training.train`, with :func:`window_batches` and
:func:`next_symbol_loss`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import evaluating
from ..validation import check_array, check_count, check_instance, check_memory, check_optional, describe
from .ngram import ngram_windows
from .sampling import softmax

__all__ = ["BigramLM", "NeuralNGram", "count_loss", "next_symbol_loss", "window_batches", "parameter_count",
           "ngram_table_size"]

#: Contexts scored per forward pass by ``log_loss`` and ``next_distribution``.
_EVAL_BATCH = 8192


class _NeuralLM(nn.Module):
    """What both models share: ``order``, ``vocab_size``, logits of a batch of contexts,
    and the n-gram models' ``next_distribution`` and ``log_loss``."""

    def __init__(self, vocab_size: int, order: int):
        super().__init__()
        self.vocab_size, self.order = vocab_size, order

    def _check_ids(self, name: str, ids: object, **limits) -> np.ndarray:
        return check_array(name, ids, kind="int", low=0, high=self.vocab_size - 1, **limits)

    def next_distribution(self, context) -> np.ndarray:
        """P_θ[· | context] over the vocabulary: (V,) float64, the softmax of the logits.
        ``context``: (L,) ids, L ≥ order − 1 (only the last order − 1 are read)."""
        context = self._check_ids("context", context, ndim=1)
        if len(context) < self.order - 1:
            raise ValueError(f"context must hold at least order - 1 = {self.order - 1} ids, got {len(context)}")
        window = context[len(context) - self.order + 1:] if self.order > 1 else context[:0]
        with torch.no_grad():
            logits = self(torch.from_numpy(np.ascontiguousarray(window))[None, :])[0]
        return softmax(logits.double().numpy())

    def log_loss(self, ids, pad: int | None = None) -> np.ndarray:
        """−ln P_θ[w_t | context] in nats for each symbol of a text: (m,) float64. With
        ``pad``, every symbol is scored, the first ones after pads (as :mod:`.ngram`)."""
        ids = self._check_ids("ids", ids, ndim=1, nonempty=True)
        pad = check_optional(check_count, "pad", pad, high=self.vocab_size - 1)
        windows = torch.from_numpy(np.ascontiguousarray(ngram_windows(ids, self.order, pad)))
        with evaluating(self):
            losses = [F.cross_entropy(self(w[:, :-1]).double(), w[:, -1], reduction="none")
                      for w in windows.split(_EVAL_BATCH)]
        return torch.cat(losses).numpy()


class BigramLM(_NeuralLM):
    """The bigram table as a layer: logits z = Ŵ[previous symbol], Ŵ (V × V) starting
    at 0 (every row uniform).

    >>> model = BigramLM(3)
    >>> model(torch.tensor([[2]])).shape
    torch.Size([1, 3])
    """

    def __init__(self, vocab_size: int):
        super().__init__(check_count("vocab_size", vocab_size, low=1), 2)
        check_memory("vocab_size", self.vocab_size**2, itemsize=4)  # the (V, V) float32 table
        self.logits = nn.Parameter(torch.zeros(self.vocab_size, self.vocab_size))  # Ŵ

    def forward(self, context: torch.Tensor) -> torch.Tensor:
        """(m, 1) ids of the previous symbol -> (m, V) logits."""
        return self.logits[context[:, 0]]


class NeuralNGram(_NeuralLM):
    """Bengio et al.'s feed-forward language model: embeddings E (V × d) of the n − 1
    previous symbols, concatenated, one hidden layer of h tanh units, logits over V.

    Parameters are drawn as torch's layers draw them (E standard normal, H and U uniform
    on ±1/√fan-in), from ``torch.manual_seed(seed)`` without touching torch's global
    generator.
    """

    def __init__(self, vocab_size: int, order: int, dim: int, hidden: int, seed: int = 0):
        vocab_size = check_count("vocab_size", vocab_size, low=1)
        order = check_count("order", order, low=2, high=64)
        super().__init__(vocab_size, order)
        dim = check_count("dim", dim, low=1, high=10_000)
        hidden = check_count("hidden", hidden, low=1, high=100_000)
        check_memory("vocab_size, order, dim and hidden",  # E, H and U, float32
                     vocab_size * dim + (order - 1) * dim * hidden + hidden * (vocab_size + 1), itemsize=4)
        seed = check_count("seed", seed, high=2**63 - 1)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.embedding = nn.Embedding(vocab_size, dim)  # E
            self.hidden = nn.Linear((order - 1) * dim, hidden)  # H, b_H
            self.output = nn.Linear(hidden, vocab_size)  # U, b_U

    def forward(self, context: torch.Tensor) -> torch.Tensor:
        """(m, n − 1) ids -> (m, V) logits z = tanh(x H + b_H) U + b_U."""
        x = self.embedding(context).flatten(1)  # (m, (n − 1) d)
        return self.output(torch.tanh(self.hidden(x)))


def _check_model(model: object) -> _NeuralLM:
    return check_instance("model", model, _NeuralLM)


def count_loss(model, counts) -> torch.Tensor:
    """The mean loss of a bigram model over a whole text, from its pair counts:
    −(1/N) Σ_{c,w} C(c, w) log softmax(Ŵ_c)_w, a scalar tensor.

    ``model``: a :class:`BigramLM`; ``counts``: (V, V) tensor, C(c, w) ≥ 0, N = Σ C > 0.
    """
    check_instance("model", model, BigramLM)
    if not isinstance(counts, torch.Tensor) or counts.shape != (model.vocab_size,) * 2 \
            or not counts.is_floating_point():
        raise TypeError(f"counts must be a ({model.vocab_size}, {model.vocab_size}) floating-point torch tensor, "
                        f"got {describe(counts)}")
    if not bool(torch.isfinite(counts).all()) or bool((counts < 0).any()) or not float(counts.sum()) > 0:
        raise ValueError("counts must be finite and >= 0, with a positive total")
    log_probs = torch.log_softmax(model.logits.to(counts.dtype), dim=1)
    return -(counts * log_probs).sum() / counts.sum()


def next_symbol_loss(model, batch) -> torch.Tensor:
    """The mean cross-entropy in nats of predicting the last id of each window from the
    others: ``batch`` (B, order) LongTensor -> scalar tensor. The ``loss_fn`` of
    :func:`mmir_lib.training.train`."""
    model = _check_model(model)
    if not isinstance(batch, torch.Tensor) or batch.dtype != torch.int64 or batch.ndim != 2 \
            or batch.shape[1] != model.order or not batch.shape[0]:
        raise TypeError(f"batch must be a (B, {model.order}) int64 torch tensor with B >= 1, got {describe(batch)}")
    if bool((batch < 0).any()) or bool((batch >= model.vocab_size).any()):
        raise ValueError(f"batch must hold ids in [0, {model.vocab_size})")
    return F.cross_entropy(model(batch[:, :-1]), batch[:, -1])


def window_batches(ids, order: int, batch_size: int, *, pad: int | None = None, seed: int = 0,
                   max_batches: int | None = None) -> Callable[[int], Iterator[torch.Tensor]]:
    """The ``batches(epoch)`` of :func:`mmir_lib.training.train` for an n-gram model:
    every window of ``order`` ids of the text (:func:`~mmir_lib.lm.ngram.ngram_windows`),
    shuffled anew each epoch (``default_rng([seed, epoch])``), cut into (B, order) int64
    tensors; at most ``max_batches`` of them per epoch if given."""
    ids = check_array("ids", ids, kind="int", ndim=1, nonempty=True, low=0)
    order = check_count("order", order, low=1)
    batch_size = check_count("batch_size", batch_size, low=1)
    windows = ngram_windows(ids, order, check_optional(check_count, "pad", pad))
    seed = check_count("seed", seed, high=2**32 - 1)
    max_batches = check_optional(check_count, "max_batches", max_batches, low=1)

    def batches(epoch: int) -> Iterator[torch.Tensor]:
        shuffled = np.random.default_rng([seed, epoch]).permutation(len(windows))
        starts = range(0, len(shuffled), batch_size)[:max_batches]
        for start in starts:
            yield torch.from_numpy(windows[np.sort(shuffled[start:start + batch_size])])

    return batches


def parameter_count(model) -> int:
    """The number of trained numbers of a model: Σ over its parameters of their sizes."""
    check_instance("model", model, nn.Module)
    return sum(p.numel() for p in model.parameters())


def ngram_table_size(vocab_size: int, order: int) -> int:
    """The free parameters of an n-gram table: V^{n−1} contexts × (V − 1) probabilities
    (each row sums to 1), an exact int."""
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    order = check_count("order", order, low=1, high=64)
    return vocab_size ** (order - 1) * (vocab_size - 1)
