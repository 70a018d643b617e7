"""An encoder–decoder with Bahdanau's additive attention, trained with teacher forcing.

**Encoder.** A bidirectional GRU reads the source x⁽¹⁾ … x⁽ᵀˣ⁾ (embedded) and gives,
for each position t', the forward and backward states side by side,
a⁽ᵗ'⁾ = [a→⁽ᵗ'⁾; a←⁽ᵗ'⁾] (2H,): a summary of the whole sentence centred on word t'.

**Attention** (Bahdanau, Cho and Bengio 2015). Before emitting word t, the decoder,
in state s⁽ᵗ⁻¹⁾ (H,), scores every source position with a one-hidden-layer network,

    e⁽ᵗ,ᵗ'⁾ = vᵀ tanh(W_s s⁽ᵗ⁻¹⁾ + W_a a⁽ᵗ'⁾ + b)                  (the "energies")
    α⁽ᵗ,ᵗ'⁾ = exp e⁽ᵗ,ᵗ'⁾ / Σ_{t''} exp e⁽ᵗ,ᵗ''⁾                  (Σ_t' α⁽ᵗ,ᵗ'⁾ = 1)
    c⁽ᵗ⁾   = Σ_t' α⁽ᵗ,ᵗ'⁾ a⁽ᵗ'⁾                                    (the context, 2H)

with W_s (A × H), W_a (A × 2H), b and v (A,). Padding positions get e = −∞, so
α = 0 there. W_a a⁽ᵗ'⁾ does not depend on t and is computed once per sentence.

**Decoder.** A GRU cell takes the previous word y⁽ᵗ⁻¹⁾ (embedded; ``<s>`` at t = 1)
and the context, s⁽ᵗ⁾ = GRU([E y⁽ᵗ⁻¹⁾; c⁽ᵗ⁾], s⁽ᵗ⁻¹⁾), and the next word's logits are
z⁽ᵗ⁾ = W_y [s⁽ᵗ⁾; c⁽ᵗ⁾] + b_y, P(y⁽ᵗ⁾ | x, y⁽¹⁾ … y⁽ᵗ⁻¹⁾) = softmax(z⁽ᵗ⁾). The first
state is s⁽⁰⁾ = tanh(W_0 a←⁽¹⁾ + b_0), from the backward encoder's summary of the
whole sentence (as Bahdanau et al.).

**Without attention** (``attention=False``; Sutskever, Vinyals and Le 2014; Cho et al.
2014) the context is one fixed vector, the encoder's two final states side by side,
c = [a→⁽ᵀˣ⁾; a←⁽¹⁾] (2H), the same at every step: the whole sentence must pass through
it. The decoder and its output layer are the same; the attention's parameters are not
made. (Internally the "annotations" are then that single vector, (B, 1, 2H), and its
weight is 1.)

**Teacher forcing.** In training the decoder is fed the *reference* previous word,
not its own guess, so every step's loss is computed in one pass over the reference:
input ``<s> y⁽¹⁾ … y⁽ᵀʸ⁾``, target ``y⁽¹⁾ … y⁽ᵀʸ⁾ </s>``, loss the mean cross-entropy over
the non-padding targets (:func:`seq2seq_loss`). At test time the model must feed
itself (:mod:`.decoding`, through :meth:`Seq2Seq.start` and :meth:`Seq2Seq.step`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import evaluating
from ..validation import (check_array, check_bool, check_callable, check_count, check_instance, check_list,
                          check_memory, check_path, describe)

__all__ = ["Seq2Seq", "pad_batch", "seq2seq_loss", "sequence_log_probs", "translation_batches", "load_models"]


class Seq2Seq(nn.Module):
    """A bidirectional GRU encoder and a GRU decoder with additive attention (or, with
    ``attention=False``, a fixed context: the encoder's final states).

    Parameters
    ----------
    source_vocab_size, target_vocab_size : V_x and V_y.
    embedding_dim : E, the size of both embeddings.
    hidden : H, the size of each GRU state (the encoder's a⁽ᵗ'⁾ has 2H).
    attention_dim : A, the hidden layer of the attention's scoring network.
    pad, bos, eos : ids of padding (both sides), start and end (target side).
    attention : True for Bahdanau's attention, False for the fixed context
        c = [a→⁽ᵀˣ⁾; a←⁽¹⁾] at every step (module notes); ``attention_dim`` is then unused.
    seed : the parameters are drawn as torch's layers draw them, from
        ``torch.manual_seed(seed)``, without touching torch's global generator.

    >>> model = Seq2Seq(10, 12, embedding_dim=4, hidden=6, attention_dim=5)
    >>> logits, weights = model(torch.tensor([[4, 5, 6]]), torch.tensor([3]), torch.tensor([[2, 7]]))
    >>> tuple(logits.shape), tuple(weights.shape)
    ((1, 2, 12), (1, 2, 3))
    """

    def __init__(self, source_vocab_size: int, target_vocab_size: int, embedding_dim: int = 32, hidden: int = 64,
                 attention_dim: int = 64, *, pad: int = 1, bos: int = 2, eos: int = 3, attention: bool = True,
                 seed: int = 0):
        super().__init__()
        self.source_vocab_size = check_count("source_vocab_size", source_vocab_size, low=1, high=10**7)
        self.vocab_size = check_count("target_vocab_size", target_vocab_size, low=1, high=10**7)
        dim = check_count("embedding_dim", embedding_dim, low=1, high=4096)
        hidden = check_count("hidden", hidden, low=1, high=4096)
        attention_dim = check_count("attention_dim", attention_dim, low=1, high=4096)
        self.pad = check_count("pad", pad, high=min(self.source_vocab_size, self.vocab_size) - 1)
        self.bos = check_count("bos", bos, high=self.vocab_size - 1)
        self.eos = check_count("eos", eos, high=self.vocab_size - 1)
        self.attention = check_bool("attention", attention)
        seed = check_count("seed", seed, high=2**63 - 1)
        check_memory("the vocabulary sizes and dimensions",
                     (self.source_vocab_size + self.vocab_size) * dim + self.vocab_size * 3 * hidden
                     + 12 * hidden * (dim + 3 * hidden), itemsize=4)
        self.hidden = hidden
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.source_embedding = nn.Embedding(self.source_vocab_size, dim, padding_idx=self.pad)
            self.encoder = nn.GRU(dim, hidden, batch_first=True, bidirectional=True)
            self.init_state = nn.Linear(hidden, hidden)                   # W_0, b_0
            if self.attention:
                self.attention_query = nn.Linear(hidden, attention_dim)       # W_s, b
                self.attention_key = nn.Linear(2 * hidden, attention_dim, bias=False)  # W_a
                self.attention_v = nn.Linear(attention_dim, 1, bias=False)    # v
            self.target_embedding = nn.Embedding(self.vocab_size, dim)
            self.decoder = nn.GRUCell(dim + 2 * hidden, hidden)
            self.output = nn.Linear(3 * hidden, self.vocab_size)          # W_y, b_y

    def encode(self, source: torch.Tensor, lengths: torch.Tensor) -> tuple:
        """(B, T_x) source ids and (B,) lengths -> the decoder's first state:
        (s⁽⁰⁾ (B, H), annotations a (B, T_x, 2H), keys W_a a (B, T_x, A), mask (B, T_x) True at padding).
        Without attention: annotations and keys are both the fixed context (B, 1, 2H), the mask (B, 1) False."""
        packed = nn.utils.rnn.pack_padded_sequence(self.source_embedding(source), lengths.cpu(), batch_first=True,
                                                   enforce_sorted=False)
        out, last = self.encoder(packed)
        annotations, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=source.shape[1])
        s0 = torch.tanh(self.init_state(last[1]))                        # last[1]: backward state at t' = 1
        if not self.attention:                                           # c = [a→⁽ᵀˣ⁾; a←⁽¹⁾], one vector
            summary = torch.cat([last[0], last[1]], dim=1)[:, None, :]
            return s0, summary, summary, torch.zeros(summary.shape[:2], dtype=torch.bool)
        mask = torch.arange(source.shape[1])[None, :] >= lengths[:, None]
        return s0, annotations, self.attention_key(annotations), mask

    def attend(self, s: torch.Tensor, annotations, keys, mask) -> tuple[torch.Tensor, torch.Tensor]:
        """The context c⁽ᵗ⁾ (B, 2H) and the weights α⁽ᵗ'·⁾ (B, T_x) for decoder states s⁽ᵗ⁻¹⁾ (B, H)
        (without attention: the fixed context and a weight of 1, (B, 1))."""
        if not self.attention:
            return annotations[:, 0], torch.ones(annotations.shape[:2], dtype=annotations.dtype)
        energies = self.attention_v(torch.tanh(self.attention_query(s)[:, None, :] + keys))[..., 0]  # (B, T_x)
        weights = torch.softmax(energies.masked_fill(mask, -torch.inf), dim=1)
        return torch.bmm(weights[:, None, :], annotations)[:, 0], weights

    def decode_step(self, previous: torch.Tensor, s, annotations, keys, mask) -> tuple:
        """One decoder step from (B,) previous ids: (logits z⁽ᵗ⁾ (B, V_y), s⁽ᵗ⁾ (B, H), α (B, T_x))."""
        context, weights = self.attend(s, annotations, keys, mask)
        s = self.decoder(torch.cat([self.target_embedding(previous), context], dim=1), s)
        return self.output(torch.cat([s, context], dim=1)), s, weights

    def forward(self, source: torch.Tensor, lengths: torch.Tensor, target_in: torch.Tensor) -> tuple:
        """Teacher forcing: (B, T_x) source ids, (B,) lengths, (B, T_y) decoder inputs
        (``<s>`` then the reference words) -> logits (B, T_y, V_y) and attention
        weights (B, T_y, T_x) (B, T_y, 1 without attention)."""
        s, annotations, keys, mask = self.encode(source, lengths)
        logits, weights = [], []
        for t in range(target_in.shape[1]):
            z, s, alpha = self.decode_step(target_in[:, t], s, annotations, keys, mask)
            logits.append(z)
            weights.append(alpha)
        return torch.stack(logits, dim=1), torch.stack(weights, dim=1)

    # ---- The interface of mmir_lib.lm.decoding: a state per hypothesis, one step at a time ----

    def start(self, source) -> tuple:
        """The decoding state of a batch of source sentences: ``source`` a list of id
        arrays (or one array, a single sentence) -> a tuple of tensors, first axis one
        row per sentence; pass it with ``<s>`` to :meth:`step`."""
        if isinstance(source, np.ndarray) or (isinstance(source, Sequence) and source
                                              and not isinstance(source[0], (Sequence, np.ndarray))):
            source = [source]
        source = check_list("source", source, object, nonempty=True)
        ids = [check_array(f"source[{i}]", s, kind="int", ndim=1, nonempty=True, low=0,
                           high=self.source_vocab_size - 1) for i, s in enumerate(source)]
        batch, lengths = pad_batch(ids, self.pad)
        with torch.no_grad():
            return self.encode(batch, lengths)

    def step(self, tokens, state: tuple) -> tuple[np.ndarray, tuple]:
        """log P(· | x, prefix) for each row: (k,) previous ids and a state of k rows ->
        ((k, V_y) float64 log-probabilities, the next state). Evaluation mode, no gradients."""
        if not (isinstance(state, tuple) and len(state) == 4 and all(isinstance(x, torch.Tensor) for x in state)):
            raise TypeError(f"state must be the tuple of 4 tensors that start() returns, got {describe(state)}")
        tokens = torch.from_numpy(check_array("tokens", tokens, kind="int", ndim=1, shape=(len(state[0]),), low=0,
                                              high=self.vocab_size - 1))
        s, annotations, keys, mask = state
        with evaluating(self):
            logits, s, _ = self.decode_step(tokens, s, annotations, keys, mask)
        return torch.log_softmax(logits.double(), dim=1).numpy(), (s, annotations, keys, mask)


def pad_batch(sequences, pad: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Id sequences of different lengths as one (B, T_max) int64 tensor padded with
    ``pad`` on the right, and their (B,) lengths."""
    sequences = check_list("sequences", sequences, object, nonempty=True)
    pad = check_count("pad", pad)
    arrays = [check_array(f"sequences[{i}]", s, kind="int", ndim=1, nonempty=True, low=0)
              for i, s in enumerate(sequences)]
    lengths = [len(a) for a in arrays]
    batch = np.full((len(arrays), max(lengths)), pad, dtype=np.int64)
    for row, a in zip(batch, arrays):
        row[:len(a)] = a
    return torch.from_numpy(batch), torch.tensor(lengths)


def seq2seq_loss(model, batch) -> torch.Tensor:
    """Mean cross-entropy (nats per target word, ``</s>`` included, padding left out) of a
    teacher-forced batch ``(source, lengths, target_in, target_out)``: the ``loss_fn``
    of :func:`mmir_lib.training.train`."""
    check_instance("model", model, Seq2Seq)
    if not isinstance(batch, tuple) or len(batch) != 4 or not all(isinstance(b, torch.Tensor) for b in batch):
        raise TypeError(f"batch must be a tuple (source, lengths, target_in, target_out) of tensors, "
                        f"got {describe(batch)}")
    source, lengths, target_in, target_out = batch
    logits, _ = model(source, lengths, target_in)
    return F.cross_entropy(logits.flatten(0, 1), target_out.flatten(), ignore_index=model.pad)


def sequence_log_probs(model, sources, targets) -> np.ndarray:
    """log P(y | x) = Σ_t log P(y⟨t⟩ | x, y⟨1⟩ … y⟨t−1⟩) of each target y given its source x,
    its ``</s>`` included, teacher-forced in one batched pass (in evaluation mode, without
    gradients): (n,) float64. ``sources`` and ``targets`` are lists of n id arrays; a target
    may be empty (then the sum is log P(</s> | x))."""
    model = check_instance("model", model, Seq2Seq)
    sources = [check_array(f"sources[{i}]", s, kind="int", ndim=1, nonempty=True, low=0,
                           high=model.source_vocab_size - 1)
               for i, s in enumerate(check_list("sources", sources, object, nonempty=True))]
    targets = [check_array(f"targets[{i}]", t, kind="int", ndim=1, low=0, high=model.vocab_size - 1)
               for i, t in enumerate(check_list("targets", targets, object, nonempty=True))]
    if len(targets) != len(sources):
        raise ValueError(f"targets must hold one sentence per source ({len(sources)}), got {len(targets)}")
    source, lengths = pad_batch(sources, model.pad)
    target_in, _ = pad_batch([np.r_[model.bos, y] for y in targets], model.pad)
    target_out, _ = pad_batch([np.r_[y, model.eos] for y in targets], model.pad)
    with evaluating(model):
        logits, _ = model(source, lengths, target_in)
        per_word = torch.log_softmax(logits.double(), -1).gather(-1, target_out[..., None])[..., 0]
        return ((target_out != model.pad) * per_word).sum(1).numpy()


def translation_batches(sources, targets, batch_size: int, *, pad: int = 1, bos: int = 2, eos: int = 3,
                        seed: int = 0):
    """The ``batches(epoch)`` of :func:`mmir_lib.training.train` for a parallel corpus:
    the pairs shuffled anew each epoch (``default_rng([seed, epoch])``) and cut into
    teacher-forced batches ``(source, lengths, target_in, target_out)``, where
    target_in is ``<s> y`` and target_out is ``y </s>``, both padded with ``pad``."""
    sources = [check_array(f"sources[{i}]", s, kind="int", ndim=1, nonempty=True, low=0)
               for i, s in enumerate(check_list("sources", sources, object, nonempty=True))]
    targets = [check_array(f"targets[{i}]", t, kind="int", ndim=1, nonempty=True, low=0)
               for i, t in enumerate(check_list("targets", targets, object, nonempty=True))]
    if len(sources) != len(targets):
        raise ValueError(f"sources and targets must have the same length, got {len(sources)} and {len(targets)}")
    batch_size = check_count("batch_size", batch_size, low=1)
    pad, bos, eos = check_count("pad", pad), check_count("bos", bos), check_count("eos", eos)
    seed = check_count("seed", seed, high=2**32 - 1)

    def batches(epoch: int):
        order = np.random.default_rng([seed, epoch]).permutation(len(sources))
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            source, lengths = pad_batch([sources[i] for i in rows], pad)
            target_in, _ = pad_batch([np.r_[bos, targets[i]] for i in rows], pad)
            target_out, _ = pad_batch([np.r_[targets[i], eos] for i in rows], pad)
            yield source, lengths, target_in, target_out

    return batches


def load_models(path: str | os.PathLike, build: Callable[[str], Seq2Seq]) -> tuple[dict, dict, dict]:
    """The models a training script saved as ``{"models": {name: state_dict}, "log": …,
    "settings": …}`` (``tools/train_seq2seq_snapshots.py``, ``tools/train_date_translators.py``):
    each rebuilt empty by ``build(name)``, its weights loaded, in evaluation mode.
    Returns ``({name: model}, log, settings)``."""
    path = check_path("path", path, exists=True)
    build = check_callable("build", build)
    saved = torch.load(path, weights_only=True)
    models = {}
    for name, state in saved["models"].items():
        model = check_instance(f"build({name!r})", build(name), Seq2Seq)
        model.load_state_dict(state)
        models[name] = model.eval()
    return models, saved["log"], saved["settings"]
