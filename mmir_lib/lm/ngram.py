"""N-gram language models: counting, smoothing and held-out loss, vectorised.

An n-gram model makes the Markov assumption of order n − 1: the next symbol depends
only on the n − 1 before it, its **context** c,

    P[w_t | w_1 … w_{t−1}] ≈ P[w_t | w_{t−n+1} … w_{t−1}] = P[w | c].

**Counting.** Over a vocabulary of V symbols (ids 0 … V − 1), a k-gram (v_1, …, v_k)
is one integer, its code in base V: v_1·V^{k−1} + … + v_{k−1}·V + v_k. One
``np.unique`` over the codes of every window of k symbols gives the distinct k-grams,
sorted, with their counts c(·). The first symbol is the most significant digit, so the
k-grams that share a context (their first k − 1 symbols, code // V) sit next to each
other: the context totals c(c •) = Σ_w c(c w) and the numbers of distinct followers
N1+(c •) = |{w : c(c w) > 0}| are sums and lengths of runs. A lookup is one
``np.searchsorted``. The only Python loops run over the orders 1 … n, never over
n-grams. Codes are int64, so V^n must stay below 2^63 (n ≤ 4 for 16,000 words).

**Models.** All are built from the same :class:`NGramCounts` (V = vocabulary size):

=====================  =============================================  ==================================
model                  P[w | c]                                       gives 0?
=====================  =============================================  ==================================
:class:`Uniform`       1 / V                                          never
:class:`MLE`           c(c w) / c(c •)                                to every n-gram unseen in training
:class:`AddK`          (c(c w) + k) / (c(c •) + k·V); k = 1: Laplace  never
:class:`Interpolated`  λ_n·P_MLE(w | c) + (1 − λ_n)·P_{n−1}(w | c′)   never (each λ < 1)
:class:`KneserNey`     see below (Kneser & Ney 1995)                  never (variant "chen-goodman")
=====================  =============================================  ==================================

The last two **interpolate** orders, one recursion from the shortest context up
(Chen & Goodman 1999; nltk's ``InterpolatedLanguageModel``): with c_k the last k − 1
symbols of the context,

    P_k(w | c_k) = α_k(c_k, w) + γ_k(c_k) · P_{k−1}(w | c_{k−1}),

and a context that training never shows passes straight to the level below
(α = 0, γ = 1). :class:`Interpolated` (Jelinek & Mercer 1980) takes
α = λ_k·c(c_k w)/c(c_k •), γ = 1 − λ_k, above the uniform level P_0 = 1/V; its
weights λ_k are fitted on held-out text by EM (:func:`interpolation_weights`).

**Kneser–Ney** subtracts a discount D (0.75 by default, the usual choice; :func:`kneser_ney_losses` scores many D on held-out text for tuning it) from every count and gives the
mass it frees to the level below: at the highest order,
α = max(c(c w) − D, 0)/c(c •) and γ = D·N1+(c •)/c(c •). The lower orders count
*continuations* instead of occurrences, N1+(• c w) = |{x : c(x c w) > 0}|: how many
different symbols precede c w. A word that is frequent but only ever after one
context ("Francisco" after "San") gets a small lower-order probability, which is what
the lower order is for: predicting w after a context never seen before it. Two
variants, by name (:data:`KN_VARIANTS`):

==============  ====================================================  =========================================
variant         lower levels (c of 1 … n − 2 symbols) and unigram     source
==============  ====================================================  =========================================
"chen-goodman"  α = max(N1+(• c w) − D, 0)/N1+(• c •),                Chen & Goodman (1999); Jurafsky & Martin,
                γ = D·|{w : N1+(• c w) > 0}|/N1+(• c •);              *Speech and Language Processing*, 3rd ed.
                unigram: the same with c empty, above P_0 = 1/V       draft, ch. 3 (Kneser–Ney smoothing)
"nltk"          the same α; γ = D·N1+(c •)/N1+(• c •), N1+(c •) from  ``nltk.lm.KneserNeyInterpolated`` 3.10.4
                the raw counts; unigram N1+(• w)/N1+(• •), no P_0
==============  ====================================================  =========================================

Every "chen-goodman" distribution sums to 1, and no symbol gets 0. The "nltk" one
gives 0 to a symbol never seen after another (the id of an unknown character, when
the alphabet is the training text's), and where a pair c w occurs only at the start
of a sequence (after ``<s> <s>`` in nltk's padding) N1+(c •) counts more followers
than the continuations do, so that distribution sums to slightly more than 1.

**Conventions, and where they differ from nltk.lm.** The counts are taken from the
sequences given, within each one: nltk's per-sentence padding (n − 1 ``<s>`` before,
n − 1 ``</s>`` after) is the caller's to add, and so is mapping rare words to
``<unk>`` (:mod:`.corpus` does both its own way). A context shorter than n − 1
symbols uses the lower orders only, as in nltk; a longer one is refused (nltk cuts it).
Losses are in nats, as ``torch.nn.functional.cross_entropy`` gives them (nltk's
``logscore`` is in bits). nltk's own ``KneserNeyInterpolated`` defaults to D = 0.1;
pass ``discount=0.75`` to compare. Where nltk divides by zero (a lower-order context
seen in training but never after another symbol), the context passes to the level below.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..validation import (MAX_INT, check_array, check_choice, check_count, check_instance, check_memory, check_number,
                          check_optional)

__all__ = [
    "NGramCounts", "count_ngrams", "ngram_windows",
    "Uniform", "MLE", "AddK", "Interpolated", "KneserNey", "KN_VARIANTS",
    "interpolation_weights", "MAX_LAMBDA", "add_k_losses", "kneser_ney_losses",
]

#: Kneser–Ney variants by name (the module docstring has the formulas).
KN_VARIANTS = ("chen-goodman", "nltk")
#: The largest interpolation weight :func:`interpolation_weights` returns.
MAX_LAMBDA = 1 - 1e-6


def _codes(grams: np.ndarray, vocab_size: int) -> np.ndarray:
    """Base-V codes of the rows of ``grams`` (m, k) -> (m,) int64 (0 for k = 0)."""
    codes = np.zeros(len(grams), dtype=np.int64)
    for j in range(grams.shape[1]):
        codes = codes * vocab_size + grams[:, j]
    return codes


def _suffix_codes(context: np.ndarray, vocab_size: int) -> list[np.ndarray]:
    """codes[j] = base-V codes of the last j symbols of each context row, j = 0 … L."""
    codes, place = [np.zeros(len(context), dtype=np.int64)], 1
    for j in range(1, context.shape[1] + 1):
        codes.append(codes[-1] + context[:, -j] * place)
        place *= vocab_size
    return codes


def _find(keys: np.ndarray, values: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """values[i] where keys[i] == query (keys sorted, distinct), 0 where no key matches."""
    if len(keys) == 0:
        return np.zeros(len(queries), dtype=values.dtype)
    at = np.minimum(np.searchsorted(keys, queries), len(keys) - 1)
    return np.where(keys[at] == queries, values[at], 0)


def _runs(codes: np.ndarray, counts: np.ndarray, vocab_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group sorted, distinct k-gram codes by their context (code // V): the distinct
    contexts, the sum of the counts of each, and its number of distinct k-grams."""
    prefix = codes // vocab_size
    starts = np.flatnonzero(np.r_[True, prefix[1:] != prefix[:-1]]) if len(codes) else np.zeros(0, np.int64)
    totals = np.add.reduceat(counts, starts) if len(codes) else counts[:0]
    return prefix[starts], totals, np.diff(np.r_[starts, len(codes)])


@dataclass(frozen=True, eq=False)
class NGramCounts:
    """The k-gram counts of a training text for k = 1 … ``order`` (built by :func:`count_ngrams`).

    ``grams[k − 1]`` holds the sorted, distinct codes of the k-grams (module docstring)
    and ``counts[k − 1]`` their counts.
    """

    order: int
    vocab_size: int
    grams: tuple[np.ndarray, ...]
    counts: tuple[np.ndarray, ...]

    @functools.cached_property
    def _contexts(self) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], ...]:
        """Per order k: the distinct contexts of the k-grams, c(c •) and N1+(c •)."""
        return tuple(_runs(g, c, self.vocab_size) for g, c in zip(self.grams, self.counts))

    def _count(self, k: int, codes: np.ndarray) -> np.ndarray:
        return _find(self.grams[k - 1], self.counts[k - 1], codes)

    def _context_stats(self, k: int, context_codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        keys, totals, types = self._contexts[k - 1]
        return _find(keys, totals, context_codes), _find(keys, types, context_codes)

    def _levels(self, context: np.ndarray, word: np.ndarray):
        """(k, c(c_k w), c(c_k •)) for k = 1 … L + 1, c_k the last k − 1 symbols of each context row."""
        for k, context_codes in enumerate(_suffix_codes(context, self.vocab_size), start=1):
            yield (k, self._count(k, context_codes * self.vocab_size + word),
                   self._context_stats(k, context_codes)[0])

    def _top(self, context: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """c(c w) and c(c •) at the order the context allows (its length L + 1)."""
        k, context_codes = context.shape[1] + 1, _codes(context, self.vocab_size)
        return self._count(k, context_codes * self.vocab_size + word), self._context_stats(k, context_codes)[0]

    def _check_grams(self, name: str, grams: object, low: int) -> np.ndarray:
        grams = check_array(name, grams, kind="int", ndim=2, low=0, high=self.vocab_size - 1)
        if not low <= grams.shape[1] <= self.order - 1 + low:
            raise ValueError(f"{name} must have {low} to {self.order - 1 + low} columns (these counts go up to "
                             f"order {self.order}), got shape {grams.shape}")
        return grams

    def count(self, grams) -> np.ndarray:
        """c(g) for each row g of ``grams`` (m, k), 1 ≤ k ≤ order: (m,) int64, 0 for an unseen k-gram."""
        grams = self._check_grams("grams", grams, 1)
        return self._count(grams.shape[1], _codes(grams, self.vocab_size))

    def context_count(self, context) -> tuple[np.ndarray, np.ndarray]:
        """(c(c •), N1+(c •)) for each row c of ``context`` (m, k − 1), 0 ≤ k − 1 < order: how
        often the context is followed by a symbol, and by how many distinct ones."""
        context = self._check_grams("context", context, 0)
        return self._context_stats(context.shape[1] + 1, _codes(context, self.vocab_size))


def _check_sequences(sequences: object, vocab_size: int) -> tuple[np.ndarray, np.ndarray]:
    """One sequence of ids or a list of them, each 1-D int in [0, V), not all empty: the
    ids concatenated, (N,), and the length of each sequence."""
    several = isinstance(sequences, (list, tuple)) and len(sequences) > 0 and not np.isscalar(sequences[0])
    items = list(sequences) if several else [sequences]
    arrays = []
    for i, item in enumerate(items):  # the full check (and its message) only for a suspect item
        array = np.asarray(item) if not isinstance(item, (str, bytes, dict)) else None
        if array is None or array.ndim != 1 or (array.dtype.kind not in "iu" and array.size):
            array = check_array(f"sequences[{i}]" if several else "sequences", item, kind="int", ndim=1)
        arrays.append(array if array.size else np.zeros(0, dtype=np.int64))
    ids = check_array("sequences", np.concatenate(arrays) if several else arrays[0], kind="int", ndim=1,
                      low=0, high=vocab_size - 1)
    if len(ids) == 0:
        raise ValueError("sequences must hold at least one symbol")
    return ids, np.array([len(a) for a in arrays])


def _check_order(order: object, vocab_size: int) -> int:
    order = check_count("order", order, low=1, high=64)  # (2**order already exceeds int64 beyond 63)
    if vocab_size**order > MAX_INT:
        raise ValueError(f"order {order} is too high for vocab_size {vocab_size}: the codes of {order}-grams "
                         f"need vocab_size**order <= 2**63 - 1")
    return order


def count_ngrams(sequences, order: int, vocab_size: int) -> NGramCounts:
    """Count every k-gram, k = 1 … order, inside each sequence (none spans two).

    Parameters
    ----------
    sequences : (N,) ints, or a list of such arrays (e.g. sentences), ids in [0, vocab_size)
    order : the highest n
    vocab_size : V, the number of symbols
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    order = _check_order(order, vocab_size)
    ids, lengths = _check_sequences(sequences, vocab_size)
    end = np.repeat(np.cumsum(lengths), lengths)  # one past the end of each position's sequence
    grams, counts, codes = [], [], ids.copy()
    for k in range(1, order + 1):
        if k > 1:  # extend every window by one symbol: (m,) -> (m − 1,)
            codes = codes[:-1] * vocab_size + ids[k - 1:]
        inside = np.arange(len(codes)) + k <= end[: len(codes)]
        unique, count = np.unique(codes[inside], return_counts=True)
        grams.append(unique)
        counts.append(count.astype(np.int64))
    return NGramCounts(order, vocab_size, tuple(grams), tuple(counts))


def ngram_windows(ids, order: int, pad: int | None = None) -> np.ndarray:
    """Every window of ``order`` consecutive ids: (m, order), a read-only view.

    With ``pad``, ``order − 1`` copies of it are put before the ids (the symbol the
    text is taken to follow), so that every id ends one window: m = len(ids).
    Without, only ids with a full context end a window: m = len(ids) − order + 1.
    """
    ids = check_array("ids", ids, kind="int", ndim=1, nonempty=True, low=0)
    order = check_count("order", order, low=1)
    pad = check_optional(check_count, "pad", pad)
    if pad is not None:
        check_memory("order", order - 1 + len(ids))
        ids = np.concatenate([np.full(order - 1, pad, dtype=np.int64), ids])
    if len(ids) < order:
        raise ValueError(f"ids must hold at least order = {order} symbols without a pad, got {len(ids)}")
    return sliding_window_view(ids, order)


class _NGramModel:
    """What every model shares: the vocabulary size, the order, and the three ways to ask
    for probabilities. Subclasses define ``_prob(context (m, L), word (m,))`` for
    checked arguments, 0 ≤ L ≤ order − 1."""

    def __init__(self, vocab_size: int, order: int):
        check_memory("vocab_size", vocab_size)  # next_distribution's (V,) float64
        self.vocab_size, self.order = vocab_size, order

    def _prob(self, context: np.ndarray, word: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _check_ids(self, name: str, ids: object, **limits) -> np.ndarray:
        return check_array(name, ids, kind="int", low=0, high=self.vocab_size - 1, **limits)

    def _check_context_length(self, context: np.ndarray) -> None:
        if context.shape[-1] > self.order - 1:
            raise ValueError(f"context holds {context.shape[-1]} symbols, more than the {self.order - 1} that a "
                             f"model of order {self.order} looks at")

    def prob(self, context, word) -> np.ndarray:
        """P[word | context] for many positions at once: (m,) float64.

        Parameters
        ----------
        context : (m, L) ids, one context per word, or (L,) ids shared by every word;
            0 ≤ L ≤ order − 1 (a shorter context uses the lower orders)
        word : (m,) ids
        """
        word = self._check_ids("word", word, ndim=1, nonempty=True)
        context = self._check_ids("context", context, ndim=(1, 2))
        self._check_context_length(context)
        if context.ndim == 1:
            context = np.broadcast_to(context, (len(word), len(context)))
        elif len(context) != len(word):
            raise ValueError(f"context and word must have one row per position; context has {len(context)}, "
                             f"word has {len(word)}")
        return self._prob(context, word)

    def log_loss(self, ids, pad: int | None = None) -> np.ndarray:
        """−ln P[w_t | context] in nats for each symbol of a text: (m,) float64, inf where
        the model gives 0. With ``pad`` (e.g. the id of the symbol ending each speech),
        every symbol is scored, the first ones after pads (:func:`ngram_windows`)."""
        ids = self._check_ids("ids", ids, ndim=1, nonempty=True)
        pad = check_optional(check_count, "pad", pad, high=self.vocab_size - 1)
        windows = ngram_windows(ids, self.order, pad)
        with np.errstate(divide="ignore"):
            return -np.log(self._prob(windows[:, :-1], windows[:, -1]))

    def next_distribution(self, context) -> np.ndarray:
        """P[· | context] over the whole vocabulary: (V,), for sampling. ``context``: (L,)
        ids, L ≤ order − 1."""
        context = self._check_ids("context", context, ndim=1)
        self._check_context_length(context)
        p = self._prob(np.broadcast_to(context, (self.vocab_size, len(context))), np.arange(self.vocab_size))
        if not p.any():
            raise ValueError("context was never seen in training: this model has no distribution after it")
        return p


class Uniform(_NGramModel):
    """P[w | c] = 1/V: every symbol equally likely, whatever came before (perplexity V)."""

    def __init__(self, vocab_size: int):
        super().__init__(check_count("vocab_size", vocab_size, low=1), 1)

    def __repr__(self) -> str:
        return f"Uniform(vocab_size={self.vocab_size})"

    def _prob(self, context, word):
        return np.full(len(word), 1.0 / self.vocab_size)


class _CountModel(_NGramModel):
    """A model estimated from :class:`NGramCounts`, of an order up to the counts' order."""

    def __init__(self, counts: NGramCounts, order: int | None, low: int = 1):
        check_instance("counts", counts, NGramCounts)
        order = check_optional(check_count, "order", order, low=low, high=counts.order)
        if order is None and counts.order < low:
            raise ValueError(f"counts must go up to order >= {low} for this model, got order {counts.order}")
        super().__init__(counts.vocab_size, counts.order if order is None else order)
        self.counts = counts


class MLE(_CountModel):
    """Maximum likelihood: P[w | c] = c(c w) / c(c •); 0 for an n-gram unseen in training,
    and no distribution at all after an unseen context (0 everywhere, as in nltk)."""

    def __init__(self, counts: NGramCounts, order: int | None = None):
        super().__init__(counts, order)

    def __repr__(self) -> str:
        return f"MLE(order={self.order})"

    def _prob(self, context, word):
        count, total = self.counts._top(context, word)
        return np.where(total > 0, count / np.maximum(total, 1), 0.0)


class AddK(_CountModel):
    """Add-k (Lidstone) smoothing: P[w | c] = (c(c w) + k) / (c(c •) + k·V); k = 1 is
    Laplace's add-one. An unseen context gives 1/V to every symbol."""

    def __init__(self, counts: NGramCounts, k: float = 1.0, order: int | None = None):
        super().__init__(counts, order)
        self.k = check_number("k", k, low=0, low_open=True)

    def __repr__(self) -> str:
        return f"AddK(order={self.order}, k={self.k:g})"

    def _prob(self, context, word):
        count, total = self.counts._top(context, word)
        return (count + self.k) / (total + self.k * self.vocab_size)


class Interpolated(_CountModel):
    """Linear interpolation (Jelinek–Mercer): P_0 = 1/V and, for k = 1 … order,
    P_k(w | c_k) = λ_k·c(c_k w)/c(c_k •) + (1 − λ_k)·P_{k−1}(w | c_{k−1}), or P_{k−1}
    when c_k is unseen. ``lambdas``: (order,) weights in [0, 1), λ_1 (unigram) first."""

    def __init__(self, counts: NGramCounts, lambdas, order: int | None = None):
        super().__init__(counts, order)
        lambdas = check_array("lambdas", lambdas, ndim=1, low=0)
        if len(lambdas) != self.order:
            raise ValueError(f"lambdas must hold one weight per level 1 … order (order = {self.order}), "
                             f"got {len(lambdas)}")
        if lambdas.max() >= 1:
            raise ValueError(f"lambdas must be < 1 (a weight of 1 leaves nothing for the lower orders), "
                             f"found {lambdas.max():g}")
        self.lambdas = lambdas

    def __repr__(self) -> str:
        return f"Interpolated(order={self.order}, lambdas={np.round(self.lambdas, 3).tolist()})"

    def _prob(self, context, word):
        p = np.full(len(word), 1.0 / self.vocab_size)
        for k, count, total in self.counts._levels(context, word):
            lam = self.lambdas[k - 1]
            p = np.where(total > 0, lam * count / np.maximum(total, 1) + (1 - lam) * p, p)
        return p


class KneserNey(_CountModel):
    """Interpolated Kneser–Ney with one discount D in (0, 1] for every order (module
    docstring: the formulas and the two ``variant`` s). Needs order >= 2."""

    def __init__(self, counts: NGramCounts, discount: float = 0.75, order: int | None = None,
                 variant: str = "chen-goodman"):
        super().__init__(counts, order, low=2)
        self.discount = check_number("discount", discount, low=0, low_open=True, high=1)
        self.variant = check_choice("variant", variant, KN_VARIANTS)
        if len(counts.grams[1]) == 0:
            raise ValueError("counts hold no bigram (every sequence is one symbol long): Kneser-Ney's unigram "
                             "level counts the symbols that follow another")
        V = self.vocab_size
        # Continuations of the k-grams, k = 1 … order − 1: N1+(• g) for every k-gram g that
        # follows some symbol, from the distinct (k + 1)-grams' last k symbols.
        self._continuations = []
        for k in range(1, self.order):
            codes, n_before = np.unique(counts.grams[k] % V**k, return_counts=True)
            self._continuations.append((codes, n_before.astype(np.int64), _runs(codes, n_before, V)))

    def __repr__(self) -> str:
        return f"KneserNey(order={self.order}, discount={self.discount:g}, variant={self.variant!r})"

    def _lookups(self, context, word) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The counts every level needs, (count, total, types) per level from the bottom
        (the continuation unigram) up; independent of D, so that :func:`kneser_ney_losses`
        looks them up once for many discounts."""
        V = self.vocab_size
        codes, n_before, _ = self._continuations[0]
        levels = [(_find(codes, n_before, word), np.int64(n_before.sum()), np.int64(len(codes)))]
        for k, context_codes in enumerate(_suffix_codes(context, V)[1:], start=2):
            gram = context_codes * V + word
            if k == self.order:  # raw counts at the highest order
                count = self.counts._count(k, gram)
                total, types = self.counts._context_stats(k, context_codes)
            else:  # continuation counts below it
                codes, n_before, (contexts, totals, n_types) = self._continuations[k - 1]
                count = _find(codes, n_before, gram)
                total = _find(contexts, totals, context_codes)
                types = (_find(contexts, n_types, context_codes) if self.variant == "chen-goodman"
                         else self.counts._context_stats(k, context_codes)[1])
            levels.append((count, total, types))
        return levels

    def _combine(self, levels, discount: float) -> np.ndarray:
        """P_KN[w | c] from the looked-up counts at discount D (the recursion of the module docstring)."""
        V, D = self.vocab_size, discount
        c, total, types = levels[0]  # N1+(• w), N1+(• •) and |{w : N1+(• w) > 0}|
        if self.variant == "nltk":
            p = c / total
        else:
            p = (np.maximum(c - D, 0) + D * types / V) / total
        for count, total, types in levels[1:]:
            p = np.where(total > 0, (np.maximum(count - D, 0) + D * types * p) / np.maximum(total, 1), p)
        return p

    def _prob(self, context, word):
        return self._combine(self._lookups(context, word), self.discount)


def _heldout_windows(counts: NGramCounts, ids: object, pad: object, order: object) -> tuple[np.ndarray, int]:
    """Checked windows (m, n) of a held-out text for a model of the given order (default:
    the counts')."""
    check_instance("counts", counts, NGramCounts)
    order = counts.order if order is None else check_count("order", order, low=1, high=counts.order)
    ids = check_array("ids", ids, kind="int", ndim=1, nonempty=True, low=0, high=counts.vocab_size - 1)
    pad = check_optional(check_count, "pad", pad, high=counts.vocab_size - 1)
    return ngram_windows(ids, order, pad), order


def add_k_losses(counts: NGramCounts, ids, ks, pad: int | None = None, order: int | None = None) -> np.ndarray:
    """Mean held-out loss (nats per symbol) of :class:`AddK` for each k in ``ks``, (K,):
    for choosing k on validation text. The counts are looked up once, not once per k."""
    windows, order = _heldout_windows(counts, ids, pad, order)
    ks = check_array("ks", ks, ndim=1, nonempty=True, low=0)
    if ks.min() <= 0:
        raise ValueError(f"ks must be > 0 (k = 0 is the MLE), found {ks.min():g}")
    count, total = counts._top(windows[:, :-1], windows[:, -1])
    V = counts.vocab_size
    return np.array([-np.mean(np.log((count + k) / (total + k * V))) for k in ks])


def kneser_ney_losses(counts: NGramCounts, ids, discounts, pad: int | None = None, order: int | None = None,
                      variant: str = "chen-goodman") -> np.ndarray:
    """Mean held-out loss (nats per symbol) of :class:`KneserNey` of the given order for
    each discount D in ``discounts``, (K,): for choosing D (and, called once per order,
    the order) on validation text. The counts are looked up once, not once per D; each
    entry equals ``KneserNey(counts, D, order, variant).log_loss(ids, pad).mean()``.
    Needs order >= 2; every D in (0, 1]."""
    windows, order = _heldout_windows(counts, ids, pad, order)
    discounts = check_array("discounts", discounts, ndim=1, nonempty=True, low=0, high=1)
    if discounts.min() <= 0:
        raise ValueError(f"discounts must be > 0, found {discounts.min():g}")
    model = KneserNey(counts, float(discounts[0]), order=order, variant=variant)
    levels = model._lookups(windows[:, :-1], windows[:, -1])
    with np.errstate(divide="ignore"):  # nltk's variant can give 0: an infinite loss
        return np.array([-np.mean(np.log(model._combine(levels, float(D)))) for D in discounts])


def interpolation_weights(counts: NGramCounts, ids, pad: int | None = None, order: int | None = None,
                          max_iter: int = 200, tol: float = 1e-5) -> np.ndarray:
    """The λ_1 … λ_n of :class:`Interpolated` that maximise the likelihood of a held-out
    text, by expectation–maximisation: (n,).

    Read the recursion top down: the symbol at position t is generated by the n-gram
    estimate with probability λ_n, else by the level below, and so on down to the
    uniform P_0 (a level whose context is unseen is skipped). The E-step computes, for
    each position, the posterior r_k that level k generated the symbol; the M-step sets
    λ_k = Σ_t r_k / Σ_t (r_0 + … + r_k) over the positions where level k is available: the
    share of the symbols that reached level k and stopped there. No iteration lowers
    the held-out likelihood; EM stops when the mean log-likelihood rises by less than
    ``tol`` nats per symbol (the λ themselves may still drift where the loss is flat).
    A λ is capped at :data:`MAX_LAMBDA`, just below 1, so that the levels below keep
    some weight and the model never gives 0 (EM drives λ_1 to 1 when the held-out text
    holds no symbol unseen in training).
    """
    windows, order = _heldout_windows(counts, ids, pad, order)
    max_iter = check_count("max_iter", max_iter, low=1)
    tol = check_number("tol", tol, low=0, low_open=True)
    V, word = counts.vocab_size, windows[:, -1]
    estimates, available = [np.full(len(word), 1.0 / V)], [np.ones(len(word), dtype=bool)]
    for _, count, total in counts._levels(windows[:, :-1], word):
        estimates.append(count / np.maximum(total, 1))
        available.append(total > 0)
    lambdas, previous = np.full(order, 0.5), -np.inf
    for _ in range(max_iter):
        left, weights = np.ones(len(word)), [None] * (order + 1)
        for k in range(order, 0, -1):  # stick breaking from the top level down
            weights[k] = np.where(available[k], lambdas[k - 1] * left, 0.0)
            left = left - weights[k]
        weights[0] = left
        joint = [w * q for w, q in zip(weights, estimates)]
        mixture = np.sum(joint, axis=0)
        likelihood = np.mean(np.log(mixture))
        if likelihood - previous < tol:
            break
        previous = likelihood
        posterior = np.cumsum([j / mixture for j in joint], axis=0)  # r_0 + … + r_k
        stopped = [np.sum((posterior[k] - posterior[k - 1])[available[k]]) for k in range(1, order + 1)]
        reached = [np.sum(posterior[k][available[k]]) for k in range(1, order + 1)]
        lambdas = np.where(np.array(reached) > 0, np.divide(stopped, np.maximum(reached, 1e-300)), lambdas)
        lambdas = np.minimum(lambdas, MAX_LAMBDA)
    return lambdas
