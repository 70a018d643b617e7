"""The language-model corpus of Part III: Shakespeare's plays, split by play.

Every language model of Part III, from the uniform model to the transformer, is
trained on the same text and scored on the same held-out text, so that one table
compares them all. This module defines that text, once.

**Text.** The 37 plays of :func:`mmir_lib.data.shakespeare_speeches` (Project
Gutenberg's modern spelling), reduced to what is *said*: one line per speech, in the
order spoken, each ending with a newline. That parser has already dropped the cast
lists, act and scene headings, speaker names and stage directions, and joined a
speech's verse lines with single spaces. Case and punctuation are kept: they are part
of the text a model must predict (``"O, farewell, honest soldier;"``).

**Split, by play.** A model must be scored on plays it never saw; splitting inside a
play would let it learn the test play's names and phrases. With the plays grouped by
the genres of the First Folio of 1623 (:data:`GENRES`; *Pericles*, absent from the
Folio, with the comedies), one comedy, one history and one tragedy were drawn for
testing and one of each for validation, at random (``random.Random(0).shuffle`` of
each genre's alphabetical list: the first play to test, the second to validation),
once, before any model was fitted; the other 31 plays are for training
(:data:`SPLITS`). The validation plays tune the few settings of a model (interpolation
weights, add-k's k); the test plays are only ever scored.

**Two levels, one stream.** A split is one stream of symbols: the speeches of its
plays, play after play, with the newline ending each speech. A model reads across
speech boundaries, as it would read a play, and predicts the newline like any other
symbol: the end of a speech is the one boundary, marked deliberately, at both levels.

* Characters: the alphabet is every character of the training text; a character of
  the validation or test text that training never shows becomes ``<unk>``.
* Words: :data:`TOKEN_PATTERN` cuts the text into words (letters with inner
  apostrophes: ``o'er``, ``'Tis``, ``father's``), single punctuation marks (``--`` is one)
  and the newline ``"\\n"``. The vocabulary is every token seen at least
  :data:`WORD_MIN_COUNT` times in training; every other token, in training too, is
  ``<unk>``, so the model learns how often an unknown word comes.

**Bits per character.** A model's held-out cross-entropy is reported in its own unit
(bits per character or per word) and in bits per character of the same text: its total
bits over the test split divided by :func:`num_characters` of the test split, the
number of characters of its text, *every* character counted (letters, punctuation,
spaces and the newline ending each speech). Character and word models thus divide the
same total by the same number. A word model predicts ``<unk>`` where a character model
must spell a rare word out, so the held-out table (:mod:`.heldout`) charges each word
row for spelling its ``<unk>`` words with a character model; what stays free to a word
model is the spaces between its tokens (mostly predictable).

Everything is loaded once and cached (``functools.lru_cache``); the id arrays are
read-only.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..data import SHAKESPEARE_PLAYS, shakespeare_speeches
from ..validation import check_choice, check_count, check_list, check_str, check_array

__all__ = [
    "UNK", "BOUNDARY", "LEVELS", "SPLITS", "GENRES", "TOKEN_PATTERN", "WORD_MIN_COUNT",
    "Vocabulary", "build_vocabulary", "tokenize", "split_text", "split_tokens", "vocabulary", "corpus_ids",
    "num_characters", "corpus_statistics",
]

#: The unknown symbol, at both levels; always id 0.
UNK = "<unk>"
#: The symbol ending each speech, at both levels; always id 1.
BOUNDARY = "\n"
#: The two levels a model can read the corpus at.
LEVELS = ("character", "word")

#: First Folio genre of each play (Pericles, not in the Folio, is counted with the comedies).
GENRES = MappingProxyType({
    **dict.fromkeys(["alls_well_that_ends_well", "as_you_like_it", "comedy_of_errors", "loves_labours_lost",
                     "measure_for_measure", "merchant_of_venice", "merry_wives_of_windsor", "midsummer_nights_dream",
                     "much_ado_about_nothing", "pericles", "taming_of_the_shrew", "tempest", "twelfth_night",
                     "two_gentlemen_of_verona", "winters_tale"], "comedy"),
    **dict.fromkeys(["henry_iv_part_1", "henry_iv_part_2", "henry_v", "henry_vi_part_1", "henry_vi_part_2",
                     "henry_vi_part_3", "henry_viii", "john", "richard_ii", "richard_iii"], "history"),
    **dict.fromkeys(["antony_and_cleopatra", "coriolanus", "cymbeline", "hamlet", "julius_caesar", "lear", "macbeth",
                     "othello", "romeo_and_juliet", "timon_of_athens", "tragedy_of_titus_andronicus",
                     "troilus_and_cressida"], "tragedy"),
})

_TEST = ("as_you_like_it", "henry_viii", "macbeth")
_VALIDATION = ("taming_of_the_shrew", "henry_vi_part_3", "romeo_and_juliet")
#: Split name -> its plays (keys of :data:`mmir_lib.data.SHAKESPEARE_PLAYS`), fixed.
SPLITS = MappingProxyType({
    "train": tuple(p for p in SHAKESPEARE_PLAYS if p not in _TEST + _VALIDATION),
    "validation": _VALIDATION,
    "test": _TEST,
})

#: Word tokens: the newline; a word (letters, inner apostrophes, an optional leading
#: one: ``'Tis``); a dash ``--``; any other single character that is not a space.
TOKEN_PATTERN = re.compile(r"\n|'?[A-Za-z]+(?:'[A-Za-z]+)*|--|[^\sA-Za-z]")
#: A word is in the vocabulary when training shows it at least this often.
WORD_MIN_COUNT = 2


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Symbols and their ids: ``tokens[i]`` is the symbol of id i.

    ``tokens`` must be distinct strings and hold :data:`UNK`, to which :meth:`encode`
    maps every symbol it does not know.
    """

    tokens: tuple[str, ...]
    index: MappingProxyType = field(init=False, repr=False)

    def __post_init__(self):
        tokens = tuple(check_list("tokens", self.tokens, str, nonempty=True))
        index = {token: i for i, token in enumerate(tokens)}
        if len(index) != len(tokens):
            repeated = sorted(t for t, n in Counter(tokens).items() if n > 1)[:5]
            raise ValueError(f"tokens must be distinct, found repeated {repeated}")
        if UNK not in index:
            raise ValueError(f"tokens must hold the unknown symbol {UNK!r}")
        object.__setattr__(self, "tokens", tokens)
        object.__setattr__(self, "index", MappingProxyType(index))

    def __len__(self) -> int:
        return len(self.tokens)

    @property
    def unk(self) -> int:
        """The id of :data:`UNK`."""
        return self.index[UNK]

    def encode(self, tokens: str | Iterable[str]) -> np.ndarray:
        """Ids of the symbols, (n,) int64; unknown ones become the id of :data:`UNK`.

        A str is read as a sequence of characters (the character level); at the word
        level, pass :func:`tokenize`'s list. Refuses an empty text, or one in which
        every symbol is unknown: no model can be scored on it.
        """
        if isinstance(tokens, str):
            tokens = list(tokens)
        tokens = check_list("tokens", tokens, str, nonempty=True)
        ids = np.fromiter((self.index.get(t, self.unk) for t in tokens), dtype=np.int64, count=len(tokens))
        if np.all(ids == self.unk) and UNK not in tokens:
            raise ValueError(f"tokens holds no symbol of the vocabulary (all {len(tokens)} are unknown)")
        return ids

    def decode(self, ids: object) -> list[str]:
        """The symbols of the ids (a 1-D array of ints in [0, len(self)))."""
        ids = check_array("ids", ids, kind="int", ndim=1, low=0, high=len(self) - 1)
        return [self.tokens[i] for i in ids]


def build_vocabulary(tokens: Iterable[str], min_count: int = 1) -> Vocabulary:
    """The vocabulary of a training text: :data:`UNK` (id 0), :data:`BOUNDARY` (id 1),
    then every symbol seen at least ``min_count`` times, most frequent first (ties in
    alphabetical order)."""
    tokens = check_list("tokens", tokens, str, nonempty=True)
    min_count = check_count("min_count", min_count, low=1)
    counts = Counter(tokens)
    kept = sorted((t for t, n in counts.items() if n >= min_count and t not in (UNK, BOUNDARY)),
                  key=lambda t: (-counts[t], t))
    return Vocabulary((UNK, BOUNDARY, *kept))


def tokenize(text: str) -> list[str]:
    """The word tokens of a text (:data:`TOKEN_PATTERN`); spaces are dropped, newlines kept.

    >>> tokenize("'Tis bitter cold,--\\nO'er")
    ["'Tis", 'bitter', 'cold', ',', '--', '\\n', "O'er"]
    """
    return TOKEN_PATTERN.findall(check_str("text", text))


def _check_split(split: object) -> str:
    return check_choice("split", split, SPLITS)


def _check_level(level: object) -> str:
    return check_choice("level", level, LEVELS)


@functools.lru_cache(maxsize=None)
def _text(split: str) -> str:
    plays = set(SPLITS[split])
    return "".join(s.text + BOUNDARY for s in shakespeare_speeches() if s.play in plays)


def split_text(split: str) -> str:
    """The normalised text of a split: its plays' speeches, one per line, each ending
    with a newline (plays in the order of :data:`SPLITS`, by file name)."""
    return _text(_check_split(split))


@functools.lru_cache(maxsize=None)
def _tokens(split: str, level: str) -> tuple[str, ...]:
    text = _text(split)
    return tuple(text) if level == "character" else tuple(tokenize(text))


def split_tokens(split: str, level: str) -> list[str]:
    """The symbols of a split before the vocabulary is applied: its characters, or its
    word tokens."""
    return list(_tokens(_check_split(split), _check_level(level)))


@functools.lru_cache(maxsize=None)
def _vocabulary(level: str) -> Vocabulary:
    return build_vocabulary(_tokens("train", level), 1 if level == "character" else WORD_MIN_COUNT)


def vocabulary(level: str) -> Vocabulary:
    """The vocabulary of a level, from the training split: every training character;
    every training word seen at least :data:`WORD_MIN_COUNT` times."""
    return _vocabulary(_check_level(level))


@functools.lru_cache(maxsize=None)
def _ids(split: str, level: str) -> np.ndarray:
    ids = _vocabulary(level).encode(_tokens(split, level))
    ids.flags.writeable = False  # shared by every caller through the cache
    return ids


def corpus_ids(split: str, level: str) -> np.ndarray:
    """A split as one stream of ids, (n,) int64, read-only: ``vocabulary(level).encode``
    of :func:`split_tokens`."""
    return _ids(_check_split(split), _check_level(level))


def num_characters(split: str) -> int:
    """The number of characters of a split's text, every one counted (spaces and the
    newline ending each speech too): what a model's total bits are divided by to give
    bits per character."""
    return len(_text(_check_split(split)))


def corpus_statistics() -> list[dict]:
    """One row per split: plays, speeches, characters, word tokens, the vocabulary
    sizes, and the ``<unk>`` symbols at each level (count and share)."""
    rows = []
    for split, plays in SPLITS.items():
        char_ids, word_ids = _ids(split, "character"), _ids(split, "word")
        char_unk, word_unk = int(np.sum(char_ids == 0)), int(np.sum(word_ids == 0))
        rows.append({
            "split": split, "plays": len(plays), "speeches": int(np.sum(char_ids == 1)),
            "characters": len(char_ids), "words": len(word_ids),
            "character vocabulary": len(_vocabulary("character")), "word vocabulary": len(_vocabulary("word")),
            "unknown characters": char_unk, "unknown character share": char_unk / len(char_ids),
            "unknown words": word_unk, "unknown word share": word_unk / len(word_ids),
        })
    return rows
