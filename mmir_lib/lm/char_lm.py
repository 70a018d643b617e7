"""Character-level recurrent language models (LSTM, GRU or plain RNN), trained by truncated
backpropagation through time.

**Model.** Each character id w_t is looked up in an embedding matrix E (V × e); a
recurrent layer of h units (``torch.nn.LSTM``, the cell of :mod:`.gated`; or ``nn.GRU``;
or the Elman cell of :mod:`.rnn`, ``nn.RNN``) reads the embeddings and its states give
the logits of the next character through one linear layer; for the LSTM,

    x_t = E_{w_t},   (h_t, c_t) = LSTM(x_t, (h_{t−1}, c_{t−1})),   P_θ[· | w_1 … w_t] = softmax(h_t W_hy + b_y).

Unlike an n-gram model, the state carries information from arbitrarily far back; how
far it *usefully* does is learnt. :class:`CharRNN` takes the cell by name;
:class:`CharLSTM` is the LSTM the chapter trains and the checkpoint holds.

**Truncated BPTT.** The training stream (3.5 million characters) is cut into B rows
that are read side by side, each a contiguous stretch of the text; a batch is the next
window of T + 1 ids of every row (T inputs, T targets shifted by one). The state left
by one window starts the next (the text goes on), but it is *detached*: the gradient
flows back at most T steps. :func:`tbptt_batches` gives the windows (a new random
start in [0, T) every epoch), :class:`CarriedStateLoss` the mean cross-entropy with the
carried state, for :func:`mmir_lib.training.train`. T is the model's **context**: the
longest stretch over which training ever sent a gradient.

**Held-out loss.** The model scores every character of a stream, the first read after
a newline, as the n-gram models of :mod:`.heldout` do (:meth:`CharRNN.log_loss`).
Reading a 320,000-character test stream one character at a time is slow, so the stream
is cut into ``parts`` consecutive pieces read side by side: each piece starts from the
zero state ``warmup`` characters before its first scored character (newlines before the
start of the text), reads them without scoring, then carries its state to its end.
With a warm-up far longer than the model's context the losses are those of one pass
over the whole stream to within a small fraction of a bit (a test measures it).

**Sampling.** :meth:`CharRNN.next_distribution` gives the model the interface of the
count models, so :func:`mmir_lib.lm.sampling.generate` samples from it by re-reading,
for every character, a newline and the last ``context`` characters from the zero
state: ``context`` + 1 recurrent steps per character. The state makes this
unnecessary: :meth:`CharRNN.next_distributions` reads the prompt once and then runs
one step per character from the carried state (h, c), and ``generate(...,
carry_state=True)`` uses it. Both give the same distributions while the text fits in
the context; beyond it, the carried state still holds the whole history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import evaluating
from ..validation import check_array, check_choice, check_count, check_instance, check_memory, check_optional, describe
from .sampling import softmax

__all__ = ["CharRNN", "CharLSTM", "CarriedStateLoss", "tbptt_batches", "CHECKPOINT_SETTINGS", "load_checkpoint"]


#: The recurrent layer of each cell and its number of gate blocks (weight rows per unit).
CELLS = {"rnn": (nn.RNN, 1), "gru": (nn.GRU, 3), "lstm": (nn.LSTM, 4)}


class CharRNN(nn.Module):
    """Embedding (V × ``embedding``), a recurrent layer of ``hidden`` units and ``layers``
    layers (``cell``: "lstm", "gru" or "rnn", torch's ``nn.LSTM``, ``nn.GRU`` or tanh
    ``nn.RNN``), and a linear layer to V logits; float32, drawn from
    ``torch.manual_seed(seed)`` without touching torch's global generator.

    ``context`` is the truncation length T of training: the model refuses longer contexts
    in :meth:`next_distribution` (``order`` = T + 1, as an n-gram model of that order).
    """

    def __init__(self, vocab_size: int, context: int, cell: str = "lstm", embedding: int = 32, hidden: int = 128,
                 layers: int = 1, seed: int = 0):
        super().__init__()
        self.vocab_size = check_count("vocab_size", vocab_size, low=2, high=1_000_000)
        self.context = check_count("context", context, low=1, high=100_000)
        self.order = self.context + 1
        self.cell = check_choice("cell", cell, CELLS)
        embedding = check_count("embedding", embedding, low=1, high=10_000)
        hidden = check_count("hidden", hidden, low=1, high=10_000)
        layers = check_count("layers", layers, low=1, high=16)
        module, gates = CELLS[cell]
        check_memory("vocab_size, embedding, hidden and layers",
                     vocab_size * (embedding + hidden + 1) + gates * hidden * (embedding + hidden + 2) * layers
                     + gates * hidden * 2 * hidden * (layers - 1), itemsize=4)
        seed = check_count("seed", seed, high=2**63 - 1)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.embedding = nn.Embedding(vocab_size, embedding)
            # stored under the cell's name: the LSTM checkpoint's weights are lstm.*
            setattr(self, cell, module(embedding, hidden, num_layers=layers, batch_first=True))
            self.output = nn.Linear(hidden, vocab_size)

    def forward(self, ids: torch.Tensor, state=None):
        """(B, T) int64 ids -> ((B, T, V) logits, final state: (h, c) for the LSTM, h for the
        others, each (layers, B, hidden))."""
        states, state = getattr(self, self.cell)(self.embedding(ids), state)
        return self.output(states), state

    def _check_ids(self, name: str, ids: object, **limits) -> np.ndarray:
        return check_array(name, ids, kind="int", ndim=1, low=0, high=self.vocab_size - 1, **limits)

    def next_distribution(self, context, pad: int = 1) -> np.ndarray:
        """P_θ[· | newline, context]: (V,) float64, after reading the id ``pad`` (the
        newline) and then ``context`` (0 to ``self.context`` ids) from the zero state."""
        context = self._check_ids("context", context)
        pad = check_count("pad", pad, high=self.vocab_size - 1)
        if len(context) > self.context:
            raise ValueError(f"context holds {len(context)} ids, more than the model's context of {self.context} "
                             f"(the length it was trained on): pass the last {self.context}")
        ids = torch.from_numpy(np.concatenate([[pad], context]).astype(np.int64))[None]
        with torch.no_grad():
            logits, _ = self(ids)
        return softmax(logits[0, -1].double().numpy())

    def next_distributions(self, prompt, pad: int = 1):
        """P_θ[· | newline, prompt, s_1 … s_k] for k = 0, 1, 2, …, carrying the state.

        A Python generator: it reads the id ``pad`` (the newline) and ``prompt`` (any
        length) once from the zero state and yields the next distribution, (V,) float64;
        each id s_k sent to it (``.send(s_k)``) costs **one** recurrent step from the
        carried state (h, c), and it yields the distribution after it. While the newline,
        prompt and sent ids fit in ``context`` + 1, these are :meth:`next_distribution`'s.
        """
        prompt = self._check_ids("prompt", prompt)
        pad = check_count("pad", pad, high=self.vocab_size - 1)
        return self._carry(np.concatenate([[pad], prompt]).astype(np.int64))

    def _carry(self, ids: np.ndarray):
        with torch.no_grad():
            logits, state = self(torch.from_numpy(ids)[None])             # newline and prompt, read once
        while True:
            symbol = check_count("symbol", (yield softmax(logits[0, -1].double().numpy())), high=self.vocab_size - 1)
            with torch.no_grad():
                logits, state = self(torch.tensor([[symbol]]), state)     # one step from the carried state

    def log_loss(self, ids, pad: int = 1, parts: int = 64, warmup: int = 256, block: int = 1024) -> np.ndarray:
        """−ln P_θ[w_t | newline, w_1 … w_{t−1}] in nats for every id of a stream: (N,) float64.

        The stream is read in ``parts`` pieces side by side, each from the zero state
        ``warmup`` ids before its first scored id (``pad`` ids before the stream's start),
        ``block`` steps per forward pass (module docstring).
        """
        ids = self._check_ids("ids", ids, nonempty=True)
        pad = check_count("pad", pad, high=self.vocab_size - 1)
        parts = check_count("parts", parts, low=1, high=len(ids))
        warmup = check_count("warmup", warmup, high=10**7)
        block = check_count("block", block, low=1, high=10**7)
        size = -(-len(ids) // parts)                                  # ids per part, the last one padded
        stream = np.concatenate([np.full(warmup + 1, pad), ids, np.full(parts * size - len(ids), pad)])
        starts = np.arange(parts) * size                              # first scored id of each part
        # Part k reads stream[s_k : s_k + warmup + size] and predicts ids[s_k : s_k + size]
        inputs = np.stack([stream[s:s + warmup + size] for s in starts])
        targets = np.stack([stream[s + warmup + 1:s + warmup + 1 + size] for s in starts])
        state, losses = None, []
        with evaluating(self):
            inputs_t, targets_t = torch.from_numpy(inputs), torch.from_numpy(targets)
            for begin in range(0, inputs.shape[1], block):
                logits, state = self(inputs_t[:, begin:begin + block], state)
                scored = max(0, begin + logits.shape[1] - warmup) - max(0, begin - warmup)
                if scored:
                    target = targets_t[:, max(0, begin - warmup):max(0, begin - warmup) + scored]
                    losses.append(F.cross_entropy(logits[:, -scored:].double().transpose(1, 2), target,
                                                  reduction="none"))
        return torch.cat(losses, dim=1).reshape(-1).numpy()[:len(ids)].copy()


class CharLSTM(CharRNN):
    """:class:`CharRNN` with the LSTM cell: the model the chapter trains and the checkpoint holds."""

    def __init__(self, vocab_size: int, context: int, embedding: int = 32, hidden: int = 128, layers: int = 1,
                 seed: int = 0):
        super().__init__(vocab_size, context, "lstm", embedding=embedding, hidden=hidden, layers=layers, seed=seed)


class CarriedStateLoss:
    """The ``loss_fn`` of :func:`mmir_lib.training.train` for :func:`tbptt_batches`:
    the mean cross-entropy (nats) of the T next-character predictions of a batch, the
    network starting from the state the previous batch left, detached (zero at the first
    batch of an epoch)."""

    def __init__(self):
        self.state = None

    def __call__(self, model, batch) -> torch.Tensor:
        check_instance("model", model, CharRNN)
        if not (isinstance(batch, tuple) and len(batch) == 2 and isinstance(batch[0], torch.Tensor)
                and batch[0].dtype == torch.int64 and batch[0].ndim == 2 and batch[0].shape[1] >= 2
                and isinstance(batch[1], bool)):
            raise TypeError(f"batch must be a pair ((B, T + 1) int64 tensor, bool first), got {describe(batch)}")
        window, first = batch
        h = self.state[0] if isinstance(self.state, tuple) else self.state     # (layers, B, hidden)
        if first or h is None or h.shape[1] != window.shape[0]:
            self.state = None
        logits, state = model(window[:, :-1], self.state)
        self.state = tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
        return F.cross_entropy(logits.transpose(1, 2), window[:, 1:])


def tbptt_batches(ids, batch_size: int, context: int, *, seed: int = 0,
                  max_batches: int | None = None) -> Callable[[int], Iterator[tuple[torch.Tensor, bool]]]:
    """The ``batches(epoch)`` of truncated BPTT over a stream of ids.

    Epoch e starts at a random offset in [0, T) (``default_rng([seed, e])``), cuts the
    rest of the stream into ``batch_size`` rows of equal length and yields, in order, the
    windows of T + 1 ids of all rows (consecutive windows overlap by one id), as
    ((B, T + 1) int64 tensor, first-of-epoch flag) pairs; at most ``max_batches``.
    """
    ids = check_array("ids", ids, kind="int", ndim=1, nonempty=True, low=0)
    batch_size = check_count("batch_size", batch_size, low=1)
    context = check_count("context", context, low=1)
    seed = check_count("seed", seed, high=2**32 - 1)
    max_batches = check_optional(check_count, "max_batches", max_batches, low=1)
    length = (len(ids) - context) // batch_size
    if length < context + 1:
        raise ValueError(f"ids holds {len(ids)} ids: too few for batch_size {batch_size} rows of at least "
                         f"context + 1 = {context + 1} ids after an offset of up to {context}")

    def batches(epoch: int) -> Iterator[tuple[torch.Tensor, bool]]:
        offset = int(np.random.default_rng([seed, epoch]).integers(context))
        rows = torch.from_numpy(ids[offset:offset + batch_size * length].reshape(batch_size, length).copy())
        starts = range(0, length - context, context)[:max_batches]
        for j, start in enumerate(starts):
            yield rows[:, start:start + context + 1], j == 0

    return batches


#: The settings of the checkpoint that ``tools/train_char_lstm.py`` trains and commits.
CHECKPOINT_SETTINGS = {"embedding": 32, "hidden": 256, "layers": 1, "context": 100, "batch_size": 32,
                       "epochs": 2, "lr": 5e-3, "clip_norm": 1.0, "seed": 0}


def load_checkpoint() -> CharLSTM:
    """The character LSTM trained by ``tools/train_char_lstm.py`` with
    :data:`CHECKPOINT_SETTINGS`, from ``mmir_lib/checkpoints/char_lstm.pt``, in eval mode."""
    from importlib.resources import files

    with files("mmir_lib").joinpath("checkpoints/char_lstm.pt").open("rb") as handle:
        saved = torch.load(handle, weights_only=True)
    settings = saved["settings"]
    model = CharLSTM(saved["vocab_size"], settings["context"], embedding=settings["embedding"],
                     hidden=settings["hidden"], layers=settings["layers"], seed=settings["seed"])
    model.load_state_dict(saved["state_dict"])
    return model.eval()
