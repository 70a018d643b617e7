"""A translation task with several right answers: ISO dates to English, in three house styles.

V.5's number words have one right translation each, so a trained model is sure of every
word and beam search has nothing left to find. Real translation has many right answers,
and a trained model spreads its probability over them. This task has exactly three, and
their shares are known, so what a decoder should find can be computed instead of guessed:

    2021-03-03   →   "3 March 2021"      day month year       share 0.4
                     "March 3, 2021"     month day, year      share 0.3
                     "March 3rd, 2021"   month day-th, year   share 0.3

Each example's reference is one of the three, drawn once with these shares
(``numpy.random.default_rng(STYLE_SEED)``), as if three translation houses had written
the corpus. The most probable *sentence* starts with the day (0.4), but the most probable
*first word* is the month (0.3 + 0.3 = 0.6): a decoder that commits word by word picks
the month and ends on a sentence of probability 0.3. That is the trap of greedy search
in Ng's "Jane is going to be visiting" example, made measurable.

**Tokens.** The source is the ten characters of the ISO date. The target is words, with
numbers written digit by digit ("2021" → "2 0 2 1", so that attention can copy them) and
"," and the ordinal suffix ("st", "nd", "rd", "th") as tokens of their own.

**Split by date.** The days :data:`FIRST_DATE` … :data:`LAST_DATE` are shuffled once
(``numpy.random.default_rng(SPLIT_SEED).permutation``) and the first 12,000 are cut into
:data:`SPLIT_SIZES` (test, validation, then training), so no test date is seen in training.
"""

from __future__ import annotations

import datetime
import functools
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..validation import check_choice, check_instance, check_list, check_same_length, check_str_list
from .corpus import UNK, Vocabulary
from .number_words import BOS, EOS, PAD

__all__ = ["FIRST_DATE", "LAST_DATE", "SPLIT_SEED", "STYLE_SEED", "SPLIT_SIZES", "DATE_STYLES", "DateExample",
           "write_date", "join_date_tokens", "date_references", "date_examples", "date_vocabularies",
           "expected_exact_match"]

#: The first and last date of the task; every day between them is in at most one split.
FIRST_DATE, LAST_DATE = datetime.date(1900, 1, 1), datetime.date(2099, 12, 31)
#: Seed of the one shuffle that splits the days.
SPLIT_SEED = 0
#: Seed of the draw of each example's reference style.
STYLE_SEED = 1
#: Dates per split: test, validation, training (in the order they are cut).
SPLIT_SIZES = MappingProxyType({"test": 1_000, "validation": 1_000, "train": 10_000})
#: The house styles and their shares of the references (they sum to 1).
DATE_STYLES = MappingProxyType({"day month year": 0.4, "month day, year": 0.3, "month day-th, year": 0.3})

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_SUFFIXES = ("st", "nd", "rd", "th")


@dataclass(frozen=True)
class DateExample:
    """One example: the date, its source tokens (ISO characters), its reference tokens
    and the house style the reference was drawn in."""

    date: datetime.date
    source: tuple[str, ...]
    target: tuple[str, ...]
    style: str


def _ordinal_suffix(day: int) -> str:
    if 11 <= day % 100 <= 13:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def write_date(date: datetime.date, style: str) -> list[str]:
    """The tokens of ``date`` written in one of :data:`DATE_STYLES`.

    >>> write_date(datetime.date(2021, 3, 3), "month day-th, year")
    ['March', '3', 'rd', ',', '2', '0', '2', '1']
    """
    check_instance("date", date, datetime.date)
    style = check_choice("style", style, DATE_STYLES)
    day, month, year = list(str(date.day)), _MONTHS[date.month - 1], list(str(date.year))
    if style == "day month year":
        return [*day, month, *year]
    if style == "month day, year":
        return [month, *day, ",", *year]
    return [month, *day, _ordinal_suffix(date.day), ",", *year]


def join_date_tokens(tokens) -> str:
    """The date written out again from its tokens: digits, suffixes and "," joined to
    what comes before them.

    >>> join_date_tokens(['March', '3', 'rd', ',', '2', '0', '2', '1'])
    'March 3rd, 2021'
    """
    text = ""
    for i, token in enumerate(check_str_list("tokens", tokens)):
        glued = i > 0 and (token in _SUFFIXES or token == "," or (token.isdigit() and tokens[i - 1].isdigit()))
        text += token if glued or i == 0 else " " + token
    return text


def date_references(date: datetime.date) -> dict[tuple[str, ...], float]:
    """Every right translation of ``date``: its tokens in each style, with the style's share."""
    return {tuple(write_date(date, style)): share for style, share in DATE_STYLES.items()}


@functools.lru_cache(maxsize=None)
def _split_examples(split: str) -> tuple[DateExample, ...]:
    days = np.random.default_rng(SPLIT_SEED).permutation((LAST_DATE - FIRST_DATE).days + 1)
    styles = np.random.default_rng(STYLE_SEED).choice(len(DATE_STYLES), size=sum(SPLIT_SIZES.values()),
                                                      p=list(DATE_STYLES.values()))
    start = 0
    for name, size in SPLIT_SIZES.items():
        if name == split:
            examples = []
            for day, style in zip(days[start:start + size], styles[start:start + size]):
                date = FIRST_DATE + datetime.timedelta(days=int(day))
                style = list(DATE_STYLES)[style]
                examples.append(DateExample(date, tuple(date.isoformat()), tuple(write_date(date, style)), style))
            return tuple(sorted(examples, key=lambda e: e.date))
        start += size
    raise AssertionError(split)


def date_examples(split: str) -> list[DateExample]:
    """The examples of one split ("train", "validation" or "test"), in date order."""
    return list(_split_examples(check_choice("split", split, SPLIT_SIZES)))


def date_vocabularies() -> tuple[Vocabulary, Vocabulary]:
    """The source and target vocabularies: :data:`UNK`, :data:`PAD`, :data:`BOS`,
    :data:`EOS` (ids 0–3), then the symbols in alphabetical order (the target's: every
    token of every style, so any right answer can be written)."""
    specials = (UNK, PAD, BOS, EOS)
    source = sorted(set("0123456789-"))
    target = sorted({*"0123456789", ",", *_SUFFIXES, *_MONTHS})
    return Vocabulary(specials + tuple(source)), Vocabulary(specials + tuple(target))


def expected_exact_match(outputs, dates) -> float:
    """The chance that an output equals a reference drawn as the corpus's were, averaged
    over the n examples: (1/n) Σᵢ Σ_s share(s) · [outputᵢ = the date written in style s].

    ``outputs`` is a list of n token lists, ``dates`` a list of n dates. An output that
    is no right answer scores 0; the best possible score is the largest share, 0.4,
    reached by writing every date in the most common style.
    """
    outputs = [check_str_list(f"outputs[{i}]", out)
               for i, out in enumerate(check_list("outputs", outputs, object, nonempty=True))]
    dates = check_list("dates", dates, datetime.date, nonempty=True)
    check_same_length(outputs=outputs, dates=dates)
    return float(np.mean([date_references(d).get(tuple(out), 0.0) for out, d in zip(outputs, dates)]))
