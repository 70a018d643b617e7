"""Decoding a conditional language model: greedy, beam search, exhaustive search, sampling.

A trained encoder–decoder gives, one word at a time,
P(y⁽ᵗ⁾ | x, y⁽¹⁾ … y⁽ᵗ⁻¹⁾); a translation is a whole sequence, ended by ``</s>``,

    log P(y | x) = Σ_{t=1}^{T_y} log P(y⁽ᵗ⁾ | x, y⁽¹⁾ … y⁽ᵗ⁻¹⁾)      (y⁽ᵀʸ⁾ = </s>).

Finding argmax_y log P(y | x) exactly means scoring every sequence
(:func:`exhaustive_search`: V^L of them up to length L). The strategies:

=================  ==========================================================
greedy             the most probable word at each step (:func:`greedy_search`)
beam search        the B best prefixes at each step (:func:`beam_search`);
                   B = 1 is greedy, B ≥ V^L is exhaustive
exhaustive         every sequence up to the length limit, scored one by one
sampling           draw each word from P (or from its k most probable words, or
                   the smallest head of mass p, at temperature T: P^{1/T}
                   renormalised) (:func:`sample_search`)
=================  ==========================================================

**Length normalisation.** Every factor is below 1, so a longer sequence has a lower
log P, and a search that compares finished sequences of different lengths prefers the
short ones. Beam search therefore ranks them by

    score(y) = log P(y | x) / T_y^α,        0 ≤ α ≤ 1

(α = 0: plain log-probability; α = 1: the mean log-probability per word; 0.7 is a
common choice). T_y counts the words *and* the ``</s>``, the number of factors.
Prefixes alive at the same step have the same length, so α changes only how
*finished* hypotheses are compared, never which prefixes a step keeps.

**Beam search**, as the course describes it: start from ``<s>``; at every step, extend
each live prefix by every word, keep the B best extensions (by log P); an extension
ending with ``</s>`` is finished and leaves the beam, which continues with the others
(so B − (number finished) live prefixes); stop when none is live or the length limit
L is reached (the prefixes still alive then end there, unfinished), and return every
hypothesis kept, best score first.

**The model** is any object with ``vocab_size``, ``bos``, ``eos`` and
``step(tokens, state) -> (log_probs, state)``: given the previous word of each of k
hypotheses and their state (a tensor, array, or tuple of them, one row per
hypothesis), the (k, V) float64 log-probabilities of the next word and the new
state. Decoding reorders states by indexing their rows. :class:`~mmir_lib.lm.seq2seq.Seq2Seq`
has this interface (its :meth:`~mmir_lib.lm.seq2seq.Seq2Seq.start` gives the first
state of a sentence).

Every search has a length limit ``max_length`` L ≥ 1 (a model that never says
``</s>`` must not loop forever), at most :data:`~mmir_lib.lm.sampling.MAX_GENERATED`, and refuses a beam width below 1 or a temperature ≤ 0.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..validation import check_count, check_instance, check_number, check_optional, describe
from ..softmax import softmax
from .sampling import _truncate, check_generated_length, sample

__all__ = ["Hypothesis", "length_normalised", "greedy_search", "beam_search", "exhaustive_search", "sample_search"]

#: Most sequences :func:`exhaustive_search` may enumerate (V^L grows fast).
MAX_EXHAUSTIVE = 200_000


@dataclass(frozen=True)
class Hypothesis:
    """A decoded sequence: its ``tokens`` (without ``</s>``), log P(y | x) including the
    ``</s>`` if it is ``finished``, and its length-normalised ``score``."""

    tokens: tuple[int, ...]
    log_prob: float
    score: float
    finished: bool

    @property
    def length(self) -> int:
        """T_y, the number of factors of P(y | x): the words, plus one for ``</s>``."""
        return len(self.tokens) + self.finished


def length_normalised(log_prob: float, length: int, alpha: float = 0.0) -> float:
    """log P(y | x) / T_y^α."""
    log_prob = check_number("log_prob", log_prob, high=0.0)
    length = check_count("length", length, low=1)
    alpha = check_number("alpha", alpha, low=0.0, high=1.0)
    return log_prob / length**alpha


def _check_model(model: object) -> object:
    if not all(hasattr(model, name) for name in ("vocab_size", "bos", "eos", "step")):
        raise TypeError(f"model must have vocab_size, bos, eos and step(tokens, state), got {type(model).__name__}")
    return model


def _rows(state):
    """The number of hypotheses a state holds (its first axis)."""
    return len(state[0]) if isinstance(state, tuple) else len(state)


def _take(state, rows: np.ndarray):
    """The state of the hypotheses ``rows`` (rows may repeat), for a tensor, an array or a tuple of them."""
    if isinstance(state, tuple):
        return tuple(_take(s, rows) for s in state)
    if isinstance(state, np.ndarray):
        return state[rows]
    import torch

    return state[torch.from_numpy(np.asarray(rows, dtype=np.int64))]


def _check_state(state: object, rows: int | None = 1) -> object:
    import torch

    kinds = (np.ndarray, torch.Tensor)
    parts = state if isinstance(state, tuple) else (state,)
    if not parts or not all(isinstance(p, kinds) and p.ndim >= 1 for p in parts):
        raise TypeError(f"state must be the model's state, a tensor or array (or a tuple of them) with one row "
                        f"per hypothesis, got {describe(state)}")
    n = len(parts[0])
    if any(len(p) != n for p in parts):
        raise ValueError("state must hold the same number of rows in each of its parts")
    if rows is not None and n != rows:
        raise ValueError(f"state must hold one sentence ({rows} row), got {n} rows")
    if not n:
        raise ValueError("state must hold at least one row")
    return state


def _score(log_probs: np.ndarray, k: int, vocab_size: int) -> np.ndarray:
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if log_probs.shape != (k, vocab_size):
        raise ValueError(f"model.step must return ({k}, {vocab_size}) log-probabilities, got {log_probs.shape}")
    return log_probs


def greedy_search(model, state, max_length: int) -> list[Hypothesis]:
    """The most probable word at every step, for each of the n sentences of ``state``
    (n rows) at once, until ``</s>`` or ``max_length`` words: n hypotheses (α = 0)."""
    model = _check_model(model)
    state = _check_state(state, rows=None)
    max_length = check_generated_length("max_length", max_length)
    n = _rows(state)
    tokens = np.full(n, model.bos)
    words, log_prob = [[] for _ in range(n)], np.zeros(n)
    live = np.arange(n)                               # sentences without </s> yet
    for _ in range(max_length):
        log_probs, state = model.step(tokens, state)
        log_probs = _score(log_probs, len(live), model.vocab_size)
        tokens = log_probs.argmax(axis=1)              # ties: the smaller id
        log_prob[live] += log_probs[np.arange(len(live)), tokens]
        going = tokens != model.eos
        for i, token in zip(live[going], tokens[going]):
            words[i].append(int(token))
        live, tokens = live[going], tokens[going]
        if not len(live):
            break
        state = _take(state, np.flatnonzero(going))
    finished = np.ones(n, dtype=bool)
    finished[live] = False
    return [Hypothesis(tuple(w), float(lp), float(lp), bool(f)) for w, lp, f in zip(words, log_prob, finished)]


def beam_search(model, state, beam_width: int, max_length: int, alpha: float = 0.0) -> list[Hypothesis]:
    """Beam search of width B from ``state`` (one sentence): every hypothesis it kept,
    finished or cut at ``max_length``, best score log P / T_y^α first."""
    model = _check_model(model)
    state = _check_state(state)
    beam_width = check_count("beam_width", beam_width, low=1)
    max_length = check_generated_length("max_length", max_length)
    alpha = check_number("alpha", alpha, low=0.0, high=1.0)
    V = model.vocab_size
    prefixes, log_p = [()], np.zeros(1)              # the live beam
    finished = []
    for _ in range(max_length):
        last = np.array([p[-1] if p else model.bos for p in prefixes])
        log_probs, state = model.step(last, state)
        total = log_p[:, None] + _score(log_probs, len(prefixes), V)  # (k, V): log P of every extension
        room = beam_width - len(finished)
        best = np.argsort(-total, axis=None, kind="stable")[:room]
        best = best[np.isfinite(total.ravel()[best])]  # a word of probability 0 is no extension
        rows, words = np.divmod(best, V)
        ends = words == model.eos
        for r, lp in zip(rows[ends], total[rows[ends], model.eos]):
            finished.append(Hypothesis(prefixes[r], float(lp), float(lp) / (len(prefixes[r]) + 1) ** alpha, True))
        rows, words = rows[~ends], words[~ends]
        if not len(rows):
            prefixes = []
            break
        prefixes = [prefixes[r] + (int(w),) for r, w in zip(rows, words)]
        log_p = total[rows, words]
        state = _take(state, rows)
    finished += [Hypothesis(p, float(lp), float(lp) / len(p) ** alpha, False) for p, lp in zip(prefixes, log_p)]
    return sorted(finished, key=lambda h: -h.score)


def exhaustive_search(model, state, max_length: int, alpha: float = 0.0) -> list[Hypothesis]:
    """Every sequence the model can end within ``max_length`` words (and every one of
    exactly ``max_length`` words without ``</s>``, unfinished), each scored by stepping the
    model along it alone: the reference beam search must reach. Best score first;
    at most :data:`MAX_EXHAUSTIVE` sequences."""
    model = _check_model(model)
    state = _check_state(state)
    max_length = check_count("max_length", max_length, low=1, high=64)
    alpha = check_number("alpha", alpha, low=0.0, high=1.0)
    words = [w for w in range(model.vocab_size) if w != model.eos]
    if sum(len(words) ** n for n in range(max_length + 1)) > MAX_EXHAUSTIVE:
        raise ValueError(f"max_length = {max_length} with {model.vocab_size} words means more than "
                         f"{MAX_EXHAUSTIVE} sequences to score")
    found = []
    for n in range(max_length + 1):
        for prefix in itertools.product(words, repeat=n):
            s, log_prob, previous = state, 0.0, model.bos
            for w in prefix:
                log_probs, s = model.step(np.array([previous]), s)
                log_prob += float(_score(log_probs, 1, model.vocab_size)[0, w])
                previous = w
            if n == max_length:
                if math.isfinite(log_prob):
                    found.append(Hypothesis(prefix, log_prob, log_prob / n**alpha, False))
                continue
            log_probs, _ = model.step(np.array([previous]), s)
            log_prob += float(_score(log_probs, 1, model.vocab_size)[0, model.eos])
            if math.isfinite(log_prob):
                found.append(Hypothesis(prefix, log_prob, log_prob / (n + 1) ** alpha, True))
    return sorted(found, key=lambda h: -h.score)


def sample_search(model, state, max_length: int, rng: np.random.Generator, temperature: float = 1.0,
                  top_k: int | None = None, top_p: float | None = None) -> Hypothesis:
    """One sequence drawn word by word from ``state`` (one sentence): each word from
    softmax(log P / T) restricted to the ``top_k`` most probable words (all if None; ties
    go to the smaller id) and then to the smallest head of them whose tempered mass
    reaches ``top_p`` in (0, 1] (all if None), renormalised:
    :func:`~mmir_lib.lm.sampling.truncate`, shared with ``generate``.
    ``log_prob`` is the model's own log P of the drawn sequence (α = 0)."""
    model = _check_model(model)
    state = _check_state(state)
    max_length = check_generated_length("max_length", max_length)
    check_instance("rng", rng, np.random.Generator)
    temperature = check_number("temperature", temperature, low=0, low_open=True)
    top_k = check_optional(check_count, "top_k", top_k, low=1, high=model.vocab_size)
    top_p = check_optional(check_number, "top_p", top_p, low=0.0, high=1.0, low_open=True)
    words, log_prob, previous = [], 0.0, model.bos
    for _ in range(max_length):
        log_probs, state = model.step(np.array([previous]), state)
        log_probs = _score(log_probs, 1, model.vocab_size)[0]
        logits = _truncate(log_probs, top_k, top_p, temperature)  # the head kept, the rest −∞
        previous = sample(softmax(logits, temperature), rng)
        log_prob += float(log_probs[previous])
        if previous == model.eos:
            return Hypothesis(tuple(words), log_prob, log_prob, True)
        words.append(int(previous))
    return Hypothesis(tuple(words), log_prob, log_prob, False)
