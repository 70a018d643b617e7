"""The held-out table of Part III: every language model, scored on the same test text.

A model is scored by its cross-entropy on the test split of :mod:`.corpus`, the mean
log-loss over every symbol of the test stream (the first ones read after newlines, as
if the text began after the end of a speech),

    H = −(1/N) Σ_t log₂ P[w_t | context],                 perplexity PP = 2^H,

in its own unit: bits per character for a character model, bits per word for a word
model, where N is the number of symbols it predicts. Perplexities of the two levels
cannot be compared (a word is harder to guess than a letter); **bits per character**
can: the model's total bits over the test split divided by the number of characters
of the test text (:func:`mmir_lib.lm.corpus.num_characters`),

    bits/char = (N · H) / (number of characters of the test text),

the same divisor for both levels.

**Spelling the unknown words.** A word model predicts ``<unk>`` where the text has a
rare word (3% of the test words, 5% of its characters), and a character model must
spell that word out letter by letter: left as it is, a word row would get those
characters free. So a word row pays for them. Its text is the word model's tokens,
each ``<unk>`` followed by the spelling of the word it stands for, drawn from a
**spelling model** P_spell: a character Kneser–Ney model (D = 0.75, order
:data:`SPELLING_ORDER`, chosen on the validation split) of the spellings of the
training split's ``<unk>`` tokens (the words seen once in training: what an unknown
word looks like), each spelling followed by a newline that ends it. Then

    bits(text) = Σ_t −log₂ P[w_t | context] + Σ_{t: w_t = <unk>} −log₂ P_spell(spelling of w_t),

and bits/char divides that sum by the characters of the text. The second sum is the
same for every word model (:func:`unk_spelling_bits`); the table shows it as its own
column. ``loss`` and ``perplexity`` stay the word model's own, per word, ``<unk>``
counted as one word, as word-level perplexities are usually reported. (A word model is
still spared the spaces between its tokens, which a character model must predict;
they are nearly always where the tokens say they are.)

:func:`held_out_result` turns any model's per-symbol losses into a row, so later
chapters (the neural n-gram, the recurrent networks, the transformer) add their rows
to the same table; :func:`ngram_results` computes the n-gram rows, and
:func:`format_table` shows any list of rows as a table
(:func:`mmir_lib.tables.table`). Nothing is stored by hand: every number is computed
from the corpus when asked for.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..tables import Table, table
from ..validation import check_array, check_choice, check_list, check_optional, check_str
from .corpus import BOUNDARY, LEVELS, SPLITS, corpus_ids, num_characters, split_tokens, vocabulary
from .ngram import (MLE, AddK, Interpolated, KneserNey, Uniform, add_k_losses, count_ngrams,
                    interpolation_weights, ngram_windows)

__all__ = ["HeldOutResult", "held_out_result", "evaluate", "ngram_results", "best_ngram", "format_table",
           "unk_spelling_bits", "ADD_K_GRID", "KN_BEST_ORDER", "KN_DISCOUNT", "KN_DISCOUNT_GRID",
           "SPELLING_ORDER"]

#: The values of add-k's k tried on the validation split: 10^−4 … 1 in steps of 10^0.25.
ADD_K_GRID = 10.0 ** np.arange(-4.0, 0.01, 0.25)
#: The discounts D tried on the validation split: 0.5 … 1 in steps of 0.05.
KN_DISCOUNT_GRID = np.round(np.arange(0.5, 1.0001, 0.05), 2)
#: The Kneser–Ney order and discount with the lowest validation loss, chosen jointly
#: (D from :data:`KN_DISCOUNT_GRID`; characters: orders 2–9, where the loss has turned up
#: at every D; words: 2–4, the highest whose codes fit int64); a test recomputes the choice.
KN_BEST_ORDER = {"character": 8, "word": 3}
#: The discount chosen with :data:`KN_BEST_ORDER`; every Kneser–Ney row of a level uses it.
KN_DISCOUNT = {"character": 0.95, "word": 0.9}
#: The order of the spelling model of ``<unk>`` words (Kneser–Ney, D = 0.75), the one with
#: the lowest validation loss among orders 2–10 (the highest whose codes fit int64); a test
#: recomputes the choice.
SPELLING_ORDER = 8


@dataclass(frozen=True)
class HeldOutResult:
    """One row of the table: a model's held-out cross-entropy on one split.

    ``loss`` is in ``unit`` (bits per symbol of its level), ``perplexity`` = 2^loss
    per symbol, ``bits_per_char`` the total bits over the split's characters, the
    spelling of the ``<unk>`` words included at the word level; ``symbols`` is how many
    symbols were predicted, ``unk_share`` the share of them that are ``<unk>``, and
    ``spelling_bits_per_char`` the part of ``bits_per_char`` that spells the ``<unk>``
    words (0 at the character level).
    """

    model: str
    level: str
    unit: str
    loss: float
    bits_per_char: float
    perplexity: float
    symbols: int
    unk_share: float
    spelling_bits_per_char: float = 0.0


def _check_split(split: object) -> str:
    return check_choice("split", split, SPLITS)


def _spelling_sequences(words, order: int) -> list[np.ndarray]:
    """Each word as character ids: order − 1 newlines before it (its empty context) and one after (its end)."""
    vocab = vocabulary("character")
    pad = vocab.index[BOUNDARY]
    return [np.array([pad] * (order - 1) + [vocab.index.get(c, vocab.unk) for c in word] + [pad], dtype=np.int64)
            for word in words]


def _unk_words(split: str) -> list[str]:
    ids = corpus_ids(split, "word")
    return [token for token, i in zip(split_tokens(split, "word"), ids) if i == vocabulary("word").unk]


@functools.lru_cache(maxsize=None)
def _spelling_counts(order: int):
    return count_ngrams(_spelling_sequences(_unk_words("train"), order), order, len(vocabulary("character")))


def _spelling_bits(split: str, order: int) -> float:
    model = KneserNey(_spelling_counts(order), order=order)
    windows = np.concatenate([ngram_windows(s, order) for s in _spelling_sequences(_unk_words(split), order)])
    return float(-np.log2(model.prob(windows[:, :-1], windows[:, -1])).sum())


@functools.lru_cache(maxsize=None)
def _unk_spelling_bits(split: str) -> float:
    return _spelling_bits(split, SPELLING_ORDER)


def unk_spelling_bits(split: str = "test") -> float:
    """The bits it costs to spell every ``<unk>`` token of a split's word stream with the
    spelling model (module docstring): Σ −log₂ P_spell(c_1 … c_m newline) over the
    ``<unk>`` tokens, each spelling scored from an empty context,

        P_spell(c_1 … c_m ⏎) = Π_i P_KN(c_i | c_{i−n+1} … c_{i−1}) · P_KN(⏎ | c_{m−n+2} … c_m),

    n = :data:`SPELLING_ORDER`, the model fitted on the training split's ``<unk>`` tokens.
    What every word row of the table adds to its bits. Computed once per split."""
    return _unk_spelling_bits(_check_split(split))


def held_out_result(model: str, level: str, losses, split: str = "test") -> HeldOutResult:
    """The table row of a model, from its loss in **nats** on every symbol of a split.

    ``losses``: (N,) −ln P[w_t | context], one per symbol of ``corpus_ids(split, level)``
    (∞ where the model gave probability 0). A word row's bits per character include
    :func:`unk_spelling_bits` of the split.
    """
    model = check_str("model", model)
    level = check_choice("level", level, LEVELS)
    split = _check_split(split)
    losses = check_array("losses", losses, ndim=1, nonempty=True, low=0, finite=False)
    if np.isnan(losses).any():
        raise ValueError("losses must not hold NaN")
    ids = corpus_ids(split, level)
    if len(losses) != len(ids):
        raise ValueError(f"losses must hold one loss per symbol of the {split} split at {level} level "
                         f"({len(ids):,}), got {len(losses):,}")
    total_bits = float(losses.sum()) / math.log(2)
    loss = total_bits / len(ids)
    spelling = 0.0 if level == "character" else unk_spelling_bits(split) / num_characters(split)
    return HeldOutResult(model, level, f"bits/{'char' if level == 'character' else 'word'}", loss,
                         total_bits / num_characters(split) + spelling, 2.0**loss if math.isfinite(loss) else math.inf,
                         len(ids), float(np.mean(ids == vocabulary(level).unk)), spelling)


def evaluate(model, name: str, level: str, split: str = "test") -> HeldOutResult:
    """Score a model with ``log_loss(ids, pad)`` (:mod:`.ngram`'s models) on a split: every
    symbol predicted, the text taken to follow a newline."""
    name = check_str("name", name)
    level = check_choice("level", level, LEVELS)
    if not callable(getattr(model, "log_loss", None)) or getattr(model, "vocab_size", None) != len(vocabulary(level)):
        raise TypeError(f"model must have log_loss(ids, pad) and the vocab_size of the {level} vocabulary "
                        f"({len(vocabulary(level))}), got {type(model).__name__}")
    split = _check_split(split)
    losses = model.log_loss(corpus_ids(split, level), pad=vocabulary(level).index[BOUNDARY])
    return held_out_result(name, level, losses, split)


@functools.lru_cache(maxsize=None)
def _training_counts(level: str):
    """The n-gram counts of the training split up to the order the table needs (once per level)."""
    return count_ngrams(corpus_ids("train", level), max(3, KN_BEST_ORDER[level]), len(vocabulary(level)))


def best_ngram(level: str) -> KneserNey:
    """The table's best n-gram model of a level: Kneser–Ney of order :data:`KN_BEST_ORDER`
    and discount :data:`KN_DISCOUNT` (both chosen on the validation split) fitted on the training split, the model whose per-symbol losses
    a later chapter needs (to interpolate with it). Its counts are the ones
    :func:`ngram_results` uses, counted once."""
    level = check_choice("level", level, LEVELS)
    return KneserNey(_training_counts(level), discount=KN_DISCOUNT[level], order=KN_BEST_ORDER[level])


@functools.lru_cache(maxsize=None)
def _ngram_results(split: str) -> tuple[HeldOutResult, ...]:
    rows = []
    for level in LEVELS:
        vocab = vocabulary(level)
        pad, validation = vocab.index[BOUNDARY], corpus_ids("validation", level)
        counts = _training_counts(level)
        best_k = ADD_K_GRID[np.argmin(add_k_losses(counts, validation, ADD_K_GRID, pad, order=3))]
        models = [("uniform", Uniform(len(vocab))), ("unigram (MLE)", MLE(counts, order=1)),
                  ("bigram (MLE)", MLE(counts, order=2)), ("trigram (MLE)", MLE(counts, order=3)),
                  ("trigram, add-1 (Laplace)", AddK(counts, 1.0, order=3)),
                  (f"trigram, add-k (k = {best_k:.2g})", AddK(counts, best_k, order=3)),
                  ("trigram, interpolated (EM)",
                   Interpolated(counts, interpolation_weights(counts, validation, pad, order=3), order=3)),
                  ("trigram, Kneser-Ney", KneserNey(counts, discount=KN_DISCOUNT[level], order=3))]
        if KN_BEST_ORDER[level] != 3:
            models.append((f"{KN_BEST_ORDER[level]}-gram, Kneser-Ney", best_ngram(level)))
        rows += [evaluate(model, name, level, split) for name, model in models]
    return tuple(rows)


def ngram_results(split: str = "test") -> list[HeldOutResult]:
    """The n-gram rows of the table, at both levels, fitted on the training split (settings
    tuned on the validation split): uniform; MLE unigram, bigram, trigram; trigram add-1,
    add-k (k from :data:`ADD_K_GRID`), interpolated (λ by EM), Kneser–Ney; and
    Kneser–Ney at :data:`KN_BEST_ORDER`, every Kneser–Ney row at the level's
    :data:`KN_DISCOUNT`. Computed once per split (a few seconds)."""
    return list(_ngram_results(_check_split(split)))


# The columns of format_table.
_HEADERS = ("model", "level", "loss", "unit", "perplexity", "<unk>", "<unk> spelling", "bits/char")


def format_table(results, caption: str | None = None) -> Table:
    """The rows as a table (:func:`mmir_lib.tables.table`): each model's loss in its own
    unit and its perplexity per symbol, its share of ``<unk>`` symbols, the bits per
    character it pays to spell them (word rows), and its bits per character, the column
    that compares the two levels. Numbers rounded to 3 decimals."""
    results = check_list("results", results, HeldOutResult, nonempty=True)
    caption = check_optional(check_str, "caption", caption)
    rows = [(r.model, r.level, r.loss, r.unit, r.perplexity, r.unk_share, r.spelling_bits_per_char, r.bits_per_char)
            for r in results]
    return table(rows, _HEADERS, formats=["{}", "{}", "{:.3f}", "{}", "{:.3f}", "{:.2%}", "{:.3f}", "{:.3f}"],
                 caption=caption)
