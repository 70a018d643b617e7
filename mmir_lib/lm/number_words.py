"""A real translation task made offline: English number words to French number words.

No registry package ships parallel text, so chapter V.5 makes some from one that
ships the rules of both languages, ``num2words`` 0.5.14: every whole number from 0 to
:data:`MAX_NUMBER` written in English and in French,

    371   "three hundred and seventy-one"   →   "trois cent soixante et onze"
    99    "ninety-nine"                     →   "quatre-vingt-dix-neuf"

The task is small but not trivial: French counts in twenties from 60 on
(70 = soixante-dix, "sixty-ten"; 80 = quatre-vingts, "four-twenties"; 99 =
quatre-vingt-dix-neuf, "four-twenty-ten-nine"), so one English word becomes several
French ones and the unit word depends on the tens word (71: "seventy-one" →
"soixante et onze", "sixty and eleven"); English says "and" where French does not
and French agrees "cents" and "vingts" in number only at the end of a numeral
("deux cents" but "deux cent un"). An attention model has something to align.

**Spelling.** num2words writes French by the traditional rules, not by the
rectifications of 1990: a hyphen joins only tens and units below 100 when no "et"
joins them ("dix-sept", "quatre-vingt-un", but "vingt et un", "trois cent", "deux
mille"); the 1990 rules would hyphenate every compound ("trois-cent-soixante-et-onze").
English follows British usage ("one hundred and one", "nine thousand, nine hundred").

**Tokens: words, with "-" and "," as tokens of their own.** Both vocabularies are
closed and tiny (:func:`number_vocabularies`: 36 English and 31 French symbols with
the four special ones, every word of every split seen in training), the sequences are
short (at most 14 English and 19 French tokens), and an alignment is readable word by
word. Characters would make the
sequences three times longer and ask the model to learn spelling, which is not the
point; whole hyphenated compounds as tokens ("quatre-vingt-dix-neuf") would put test
words out of the vocabulary.

**Split by number.** A number's English and French forms are never on both sides of
the split: the numbers 0 … :data:`MAX_NUMBER` are shuffled once
(``numpy.random.default_rng(SPLIT_SEED).permutation``) and the first 12,000 cut into
:data:`SPLIT_SIZES` (test, validation, then training; the rest are not used), so no
test number is seen in training (its words and word pairs are: that is what generalising means here).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..data import DataNotInstalledError
from ..validation import check_choice, check_str, check_str_list
from .corpus import UNK, Vocabulary

__all__ = ["MAX_NUMBER", "SPLIT_SEED", "SPLIT_SIZES", "PAD", "BOS", "EOS", "NumberPair", "tokenize_number_words",
           "join_number_words", "number_pairs", "number_vocabularies"]

#: The largest number of the task; every number from 0 to it is in exactly one split.
MAX_NUMBER = 999_999
#: Seed of the one shuffle that splits the numbers.
SPLIT_SEED = 0
#: Numbers per split: test, validation, training (in the order they are cut).
SPLIT_SIZES = MappingProxyType({"test": 1_000, "validation": 1_000, "train": 10_000})
#: Padding, start and end of a sequence (ids 1, 2, 3 of both vocabularies; :data:`UNK` is 0).
PAD, BOS, EOS = "<pad>", "<s>", "</s>"

_INSTALL = "pip install num2words==0.5.14"
_TOKEN = re.compile(r"[^\s,-]+|[,-]")


@dataclass(frozen=True)
class NumberPair:
    """One example: the number, its English words and its French words (tokens)."""

    number: int
    english: tuple[str, ...]
    french: tuple[str, ...]


def tokenize_number_words(text: str) -> list[str]:
    """The tokens of a numeral: words, and "-" and "," as tokens of their own.

    >>> tokenize_number_words("nine thousand, nine hundred and ninety-nine")
    ['nine', 'thousand', ',', 'nine', 'hundred', 'and', 'ninety', '-', 'nine']
    """
    return _TOKEN.findall(check_str("text", text))


def join_number_words(tokens) -> str:
    """The numeral written out again from its tokens: no space around "-", none before ",".

    >>> join_number_words(['quatre', '-', 'vingt', '-', 'dix', '-', 'neuf', 'mille'])
    'quatre-vingt-dix-neuf mille'
    """
    return " ".join(check_str_list("tokens", tokens)).replace(" - ", "-").replace(" ,", ",")


def _num2words():
    try:
        from num2words import num2words
    except ImportError:
        raise DataNotInstalledError(f"the number words are made by num2words; install it with:\n    {_INSTALL}") \
            from None
    return num2words


def _pair(number: int) -> NumberPair:
    num2words = _num2words()
    return NumberPair(number, tuple(tokenize_number_words(num2words(number, lang="en"))),
                      tuple(tokenize_number_words(num2words(number, lang="fr"))))


@functools.lru_cache(maxsize=None)
def _split_pairs(split: str) -> tuple[NumberPair, ...]:
    _num2words()  # fail before the shuffle if num2words is missing
    order = np.random.default_rng(SPLIT_SEED).permutation(MAX_NUMBER + 1)
    start = 0
    for name, size in SPLIT_SIZES.items():
        if name == split:
            return tuple(_pair(int(n)) for n in np.sort(order[start:start + size]))
        start += size
    raise AssertionError(split)


def number_pairs(split: str) -> list[NumberPair]:
    """The English–French pairs of one split ("train", "validation" or "test"), in
    increasing order of the number.

    Raises
    ------
    DataNotInstalledError
        num2words is not installed (the message names the install command).
    """
    return list(_split_pairs(check_choice("split", split, SPLIT_SIZES)))


def number_vocabularies() -> tuple[Vocabulary, Vocabulary]:
    """The English (source) and French (target) vocabularies of the training split:
    :data:`UNK`, :data:`PAD`, :data:`BOS`, :data:`EOS` (ids 0–3), then the tokens in
    alphabetical order."""
    train = number_pairs("train")
    specials = (UNK, PAD, BOS, EOS)
    return tuple(Vocabulary(specials + tuple(sorted({t for pair in train for t in getattr(pair, side)})))
                 for side in ("english", "french"))
