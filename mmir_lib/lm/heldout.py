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

the same divisor for both levels. (A word model is still spared two things a
character model pays for, the spaces and the spelling of ``<unk>`` words; the table
gives each level's ``<unk>`` share beside its score.)

:func:`held_out_result` turns any model's per-symbol losses into a row, so later
chapters (the neural n-gram, the recurrent networks, the transformer) add their rows
to the same table; :func:`ngram_results` computes the n-gram rows, and
:func:`format_table` prints any list of rows. Nothing is stored by hand: every number
is computed from the corpus when asked for.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_choice, check_list, check_str
from .corpus import BOUNDARY, LEVELS, SPLITS, corpus_ids, num_characters, vocabulary
from .ngram import (MLE, AddK, Interpolated, KneserNey, Uniform, add_k_losses, count_ngrams,
                    interpolation_weights)

__all__ = ["HeldOutResult", "held_out_result", "evaluate", "ngram_results", "format_table", "ADD_K_GRID",
           "KN_BEST_ORDER"]

#: The values of add-k's k tried on the validation split: 10^−4 … 1 in steps of 10^0.25.
ADD_K_GRID = 10.0 ** np.arange(-4.0, 0.01, 0.25)
#: The Kneser–Ney order with the lowest validation loss (D = 0.75; characters: orders 2–8
#: tried, words: 2–4, the highest whose codes fit int64); a test recomputes the choice.
KN_BEST_ORDER = {"character": 7, "word": 3}


@dataclass(frozen=True)
class HeldOutResult:
    """One row of the table: a model's held-out cross-entropy on one split.

    ``loss`` is in ``unit`` (bits per symbol of its level), ``perplexity`` = 2^loss
    per symbol, ``bits_per_char`` the total bits over the split's characters;
    ``symbols`` is how many symbols were predicted and ``unk_share`` the share of them
    that are ``<unk>``.
    """

    model: str
    level: str
    unit: str
    loss: float
    bits_per_char: float
    perplexity: float
    symbols: int
    unk_share: float


def _check_split(split: object) -> str:
    return check_choice("split", split, SPLITS)


def held_out_result(model: str, level: str, losses, split: str = "test") -> HeldOutResult:
    """The table row of a model, from its loss in **nats** on every symbol of a split.

    ``losses``: (N,) −ln P[w_t | context], one per symbol of ``corpus_ids(split, level)``
    (∞ where the model gave probability 0).
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
    return HeldOutResult(model, level, f"bits/{'char' if level == 'character' else 'word'}", loss,
                         total_bits / num_characters(split), 2.0**loss if math.isfinite(loss) else math.inf,
                         len(ids), float(np.mean(ids == vocabulary(level).unk)))


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
def _ngram_results(split: str) -> tuple[HeldOutResult, ...]:
    rows = []
    for level in LEVELS:
        vocab = vocabulary(level)
        pad, validation = vocab.index[BOUNDARY], corpus_ids("validation", level)
        counts = count_ngrams(corpus_ids("train", level), max(3, KN_BEST_ORDER[level]), len(vocab))
        best_k = ADD_K_GRID[np.argmin(add_k_losses(counts, validation, ADD_K_GRID, pad, order=3))]
        models = [("uniform", Uniform(len(vocab))), ("unigram (MLE)", MLE(counts, order=1)),
                  ("bigram (MLE)", MLE(counts, order=2)), ("trigram (MLE)", MLE(counts, order=3)),
                  ("trigram, add-1 (Laplace)", AddK(counts, 1.0, order=3)),
                  (f"trigram, add-k (k = {best_k:.2g})", AddK(counts, best_k, order=3)),
                  ("trigram, interpolated (EM)",
                   Interpolated(counts, interpolation_weights(counts, validation, pad, order=3), order=3)),
                  ("trigram, Kneser-Ney", KneserNey(counts, order=3))]
        if KN_BEST_ORDER[level] != 3:
            models.append((f"{KN_BEST_ORDER[level]}-gram, Kneser-Ney", KneserNey(counts, order=KN_BEST_ORDER[level])))
        rows += [evaluate(model, name, level, split) for name, model in models]
    return tuple(rows)


def ngram_results(split: str = "test") -> list[HeldOutResult]:
    """The n-gram rows of the table, at both levels, fitted on the training split (settings
    tuned on the validation split): uniform; MLE unigram, bigram, trigram; trigram add-1,
    add-k (k from :data:`ADD_K_GRID`), interpolated (λ by EM), Kneser–Ney (D = 0.75); and
    Kneser–Ney at :data:`KN_BEST_ORDER`. Computed once per split (a few seconds)."""
    return list(_ngram_results(_check_split(split)))


def format_table(results) -> str:
    """The rows as a fixed-width text table, numbers rounded to 3 decimals."""
    results = check_list("results", results, HeldOutResult, nonempty=True)
    header = f"{'model':<34} {'level':<9} {'loss':>7} {'unit':<9} {'bits/char':>9} {'perplexity':>10} {'<unk>':>6}"
    lines = [header, "-" * len(header)]
    for r in results:
        lines.append(f"{r.model:<34} {r.level:<9} {r.loss:7.3f} {r.unit:<9} {r.bits_per_char:9.3f} "
                     f"{r.perplexity:10.3f} {r.unk_share:6.2%}")
    return "\n".join(lines)
