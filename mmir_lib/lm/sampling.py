"""Softmax with temperature, sampling, and generating text from a language model.

A model that outputs one real number per symbol, a **logit** z_i (a log of an
unnormalised count: z = x Ŵ for the one-hot x of the previous word), turns them into
probabilities with the **softmax** softmax(z / T)_i = exp(z_i / T) / Σ_j exp(z_j / T) at a
**temperature** T > 0 (T = 1: the model's own distribution; T → 0: argmax; T → ∞:
uniform). The stable softmax and log-softmax live in :mod:`mmir_lib.softmax`, the
ground floor shared with Part IV; they are imported here, where Chapter III.3
introduces them, and notebooks may import them from this module.

A distribution P over a vocabulary is sampled by inverting its cumulative sum: draw
u uniform in [0, 1) and take the first symbol whose cumulative probability exceeds u.
Temperature applies to a distribution too: P^{1/T}, renormalised, is softmax(log P / T).

**Truncated sampling** (:func:`truncate`) draws only from the head of the distribution,
so that the long tail of individually unlikely symbols, which together carry real mass,
is never drawn. Rank the symbols by logit, most probable first (ties: the smaller id
first), with tempered probabilities p_(1) ≥ p_(2) ≥ … (p = softmax(z / T)):

    top-k:  keep the k first symbols: exactly min(k, V), ties at the k-th value broken by id;
    top-p:  keep symbol (i) while p_(1) + … + p_(i−1) < p: the smallest head whose mass
            reaches p (Holtzman et al. 2020, "nucleus sampling"); the symbol that crosses p
            is kept, one whose predecessors already reach p exactly is not; p = 1 keeps all.

Both together apply top-k first and top-p to the renormalised k survivors (the order of
Hugging Face's ``TopKLogitsWarper`` then ``TopPLogitsWarper``). The removed symbols get
logit −∞, so softmax(truncate(z) / T) is the truncated distribution, renormalised:
P'(w) = P(w) / Σ_{kept} P for a kept w, 0 otherwise.

**Generation** repeats one step: ask the model for the distribution of the next symbol
after the last (order − 1) symbols, pick one (the most probable: greedy; or a sample),
append it. Any model with ``order``, ``vocab_size`` and ``next_distribution(context)``
(:mod:`.ngram`'s models, and the neural ones of later chapters) can generate: the
window is read afresh for every symbol. A recurrent model can do better: its state
already summarises everything read, so with ``carry_state=True`` the generator asks the
model's ``next_distributions(context)`` (a Python generator: it yields the next
distribution and is sent each symbol drawn) and the model advances its state by one
step per symbol (:meth:`mmir_lib.lm.char_lm.CharRNN.next_distributions`).
"""

from __future__ import annotations

import numpy as np

from ..softmax import log_softmax, softmax  # noqa: F401 -- Chapter III.3 and V.4/V.7 import them from here
from ..validation import (check_array, check_bool, check_count, check_distribution, check_instance, check_number,
                          check_optional)

__all__ = ["MAX_GENERATED", "check_generated_length", "sample", "truncate", "greedy_decode", "generate"]

#: Most symbols one call may generate or decode (:func:`generate`, :func:`greedy_decode`
#: and the searches of :mod:`.decoding`): ten thousand, far beyond any text a chapter
#: prints (400 characters at most), and a bound on the loop (10**9 steps would run for days).
MAX_GENERATED = 10_000


def check_generated_length(name: str, value: object) -> int:
    """A number of symbols to generate: an int in [1, :data:`MAX_GENERATED`], named in the message.

    >>> check_generated_length("length", 10**9)
    Traceback (most recent call last):
    ...
    ValueError: length must be <= MAX_GENERATED = 10000 symbols a call, got 1000000000
    """
    value = check_count(name, value, low=1)
    if value > MAX_GENERATED:
        raise ValueError(f"{name} must be <= MAX_GENERATED = {MAX_GENERATED} symbols a call, got {value}")
    return value


def sample(probs, rng: np.random.Generator) -> int | np.ndarray:
    """One symbol drawn from each distribution: an int for ``probs`` of shape (V,), (m,)
    ints for (m, V). Inverse-CDF sampling with ``rng.random``."""
    probs = check_distribution("probs", probs, ndim=(1, 2))
    check_instance("rng", rng, np.random.Generator)
    cumulative = np.cumsum(probs, axis=-1)
    u = rng.random(probs.shape[:-1]) * cumulative[..., -1]  # scaled by the sum: rounding never runs past the end
    drawn = np.argmax(cumulative > u[..., None], axis=-1)
    return int(drawn) if drawn.ndim == 0 else drawn


def truncate(logits, top_k: int | None = None, top_p: float | None = None, temperature: float = 1.0) -> np.ndarray:
    """The logits with every symbol outside the top-k and/or top-p set at −∞.

    Parameters
    ----------
    logits : (V,) or (m, V) real; −∞ allowed (a symbol of probability 0), NaN and +∞ not;
        every row needs one finite logit. Log-probabilities log P are logits too.
    top_k : int ≥ 1 or None; keep the k most probable symbols of each row (exactly
        min(k, V): ties at the k-th value go to the smaller id)
    top_p : float in (0, 1] or None; then keep the smallest head of the ranking whose
        probability under softmax(z / T), renormalised over the top-k survivors,
        reaches p (module notes); 1 keeps everything
    temperature : T > 0, the temperature at which top-p measures mass (it never changes
        the ranking, so top-k does not depend on it)

    Returns
    -------
    float64 array of the shape of ``logits``: the kept logits unchanged, the others −∞;
    ``softmax(result, T)`` is the truncated, renormalised distribution. With neither
    ``top_k`` nor ``top_p`` the logits come back unchanged (a copy).

    >>> truncate([2.0, 0.0, 1.0, 1.0], top_k=2)          # a tie at the 2nd place: the smaller id stays
    array([  2., -inf,   1., -inf])
    >>> p = np.array([0.5, 0.3, 0.15, 0.05])
    >>> np.exp(truncate(np.log(p), top_p=0.75)).round(2)  # 0.5 < 0.75 <= 0.5 + 0.3: two kept
    array([0.5, 0.3, 0. , 0. ])
    """
    logits = check_array("logits", logits, ndim=(1, 2), nonempty=True, finite=False)
    if np.isnan(logits).any() or np.isposinf(logits).any():
        raise ValueError("logits must not hold NaN or +inf (−inf marks a symbol of probability 0)")
    if not np.isfinite(logits).any(axis=-1).all():
        raise ValueError("logits must hold a finite value in every row (a row of −inf is no distribution)")
    top_k = check_optional(check_count, "top_k", top_k, low=1)
    top_p = check_optional(check_number, "top_p", top_p, low=0.0, high=1.0, low_open=True)
    temperature = check_number("temperature", temperature, low=0, low_open=True)
    return _truncate(logits, top_k, top_p, temperature)


def _truncate(logits: np.ndarray, top_k: int | None, top_p: float | None, temperature: float) -> np.ndarray:
    """:func:`truncate` on checked float64 logits (V,) or (m, V)."""
    logits = logits.copy()
    if (top_k is None or top_k >= logits.shape[-1]) and (top_p is None or top_p >= 1.0):
        return logits
    order = np.argsort(-logits, axis=-1, kind="stable")        # most probable first, ties: smaller id first
    ranked = np.take_along_axis(logits, order, axis=-1)         # (…, V), descending
    keep = np.ones(logits.shape, dtype=bool)                    # in ranked order
    if top_k is not None:
        keep[..., top_k:] = False
    if top_p is not None and top_p < 1.0:
        probs = softmax(np.where(keep, ranked, -np.inf), temperature)   # renormalised over the top-k survivors
        before = np.zeros_like(probs)                                   # mass of the more probable symbols:
        before[..., 1:] = np.cumsum(probs, axis=-1)[..., :-1]            # 0 for the first, always kept
        keep &= before < top_p
    np.put_along_axis(logits, order, np.where(keep, ranked, -np.inf), axis=-1)
    return logits


def _check_model(model: object) -> object:
    if not all(hasattr(model, name) for name in ("order", "vocab_size", "next_distribution")):
        raise TypeError(f"model must be a language model with order, vocab_size and next_distribution(context), "
                        f"got {type(model).__name__}")
    return model


def _windowed(model, context):
    """P[· | the last order − 1 symbols], read afresh for every symbol: a generator that
    yields the next distribution and is sent each symbol appended."""
    history = list(context)
    while True:
        window = history[max(0, len(history) - model.order + 1):] if model.order > 1 else []
        history.append((yield model.next_distribution(np.array(window, dtype=np.int64))))


def _decode(model, context, length, stop, pick, exclude=None, carry_state=False) -> np.ndarray:
    """Append ``length`` symbols, each ``pick(P[· | what was read])``; stop early after ``stop``.
    Without ``carry_state`` the model reads the last order − 1 symbols for every step; with
    it, ``model.next_distributions(context)`` carries its state. The ids in ``exclude`` are
    never produced: their probability is set to 0 and the rest renormalised (what a
    generator does with ``<unk>``, a symbol that stands for no word)."""
    _check_model(model)
    context = check_array("context", context, kind="int", ndim=1, low=0, high=model.vocab_size - 1)
    length = check_generated_length("length", length)
    stop = check_optional(check_count, "stop", stop, high=model.vocab_size - 1)
    if exclude is not None:
        if isinstance(exclude, (int, np.integer)) and not isinstance(exclude, bool):
            exclude = [exclude]
        exclude = check_array("exclude", exclude, kind="int", ndim=1, low=0, high=model.vocab_size - 1)
    if check_bool("carry_state", carry_state) and not hasattr(model, "next_distributions"):
        raise TypeError(f"carry_state=True needs a model with a state, next_distributions(context); "
                        f"{type(model).__name__} has none")
    reader = model.next_distributions(context) if carry_state else _windowed(model, context)
    p, generated = next(reader), []
    while True:
        if exclude is not None:
            p = p.copy()
            p[exclude] = 0.0
            total = p.sum()
            if not total > 0:
                raise ValueError(f"exclude removes every symbol the model allows after the context and "
                                 f"{len(generated)} generated symbols")
            p /= total
        symbol = pick(p)
        generated.append(symbol)
        if symbol == stop or len(generated) == length:
            return np.array(generated, dtype=np.int64)
        p = reader.send(symbol)


def greedy_decode(model, context, length: int, stop: int | None = None, exclude=None,
                  carry_state: bool = False) -> np.ndarray:
    """The most probable next symbol, ``length`` times (or until ``stop`` is produced),
    after the ids in ``context``: the generated ids, (≤ length,). Ties go to the smaller id;
    the ids in ``exclude`` (an id or a list of ids) are never produced; ``carry_state``:
    a recurrent model carries its state instead of re-reading its window (module docstring)."""
    return _decode(model, context, length, stop, lambda p: int(np.argmax(p)), exclude, carry_state)


def generate(model, context, length: int, rng: np.random.Generator, temperature: float = 1.0,
             stop: int | None = None, exclude=None, top_k: int | None = None, top_p: float | None = None,
             carry_state: bool = False) -> np.ndarray:
    """Sampled continuation of ``context``: ``length`` symbols (or until ``stop``), each drawn
    from the model's next distribution at temperature T (P^{1/T}, renormalised), truncated
    to its ``top_k`` most probable symbols and/or its top-``top_p`` nucleus and renormalised
    (:func:`truncate`; None: no truncation); the ids in ``exclude`` (an id or a list of ids,
    e.g. ``<unk>``'s) are never drawn. With ``carry_state`` a recurrent model reads
    ``context`` once and then advances its state by one step per symbol drawn (module
    docstring)."""
    _check_model(model)
    check_instance("rng", rng, np.random.Generator)
    temperature = check_number("temperature", temperature, low=0, low_open=True)
    top_k = check_optional(check_count, "top_k", top_k, low=1, high=model.vocab_size)
    top_p = check_optional(check_number, "top_p", top_p, low=0.0, high=1.0, low_open=True)

    def pick(p):
        if temperature != 1.0 or top_k is not None or top_p is not None:
            with np.errstate(divide="ignore"):
                p = softmax(_truncate(np.log(p), top_k, top_p, temperature), temperature)
        return sample(p, rng)

    return _decode(model, context, length, stop, pick, exclude, carry_state)
