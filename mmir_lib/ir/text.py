"""From text to index terms: tokenising and normalising.

The pipeline, in order (each step can be read on its own below):

1. Unicode normalisation (NFKC) and case folding, so that "Ｈamlet", "HAMLET" and
   "hamlet" become one term.
2. Tokens are maximal runs of letters and digits, in any script. An apostrophe
   *inside* a word is kept ("o'er", "ne'er"), a leading or trailing one is dropped
   ("'tis" -> "tis"), and the possessive "'s" is removed ("hamlet's" -> "hamlet").
   Every other character (punctuation, dashes, underscores) separates tokens.
3. Optional: stop words (a list of very frequent function words) are removed.
4. Optional: each token is stemmed with the Snowball English stemmer (Porter2):
   "kings", "king's" and "kingly" -> "king".

Queries must go through the same :class:`Analyzer` as the documents they are matched
against; the index keeps the analyzer it was built with for that reason.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from ..validation import check_bool, check_str, check_str_list

__all__ = ["ENGLISH_STOP_WORDS", "TOKEN", "Analyzer", "tokenize"]

#: A token: letters and digits of any script, with apostrophes (straight or curly)
#: allowed inside. Shared with :mod:`mmir_lib.ir.display`, which marks query terms.
TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")
_POSSESSIVE = re.compile(r"['\u2019]s$")

#: A short list of English function words, written for this book: articles,
#: pronouns, auxiliaries, prepositions and conjunctions, plus the early-modern forms
#: that fill Shakespeare's lines (thou, thee, thy, hath, doth, 'tis). Content words
#: such as "love" or "king" are never on it.
ENGLISH_STOP_WORDS = frozenset(
    """
    a about after again against all am an and any are art as at be been before being
    but by can could did do does doth dost done for from had has hast hath have he her
    here hers him his how i if in into is it its me mine more most my no nor not now
    o of off on once only or our ours out over own shall shalt she should so some such
    than that the thee their theirs them then there these they thine this those thou
    through thy tis to too under until up upon us very was we were what when where
    which while who whom why will with would ye yet you your yours
    """.split()
)


@functools.lru_cache(maxsize=None)
def _stemmer():
    import snowballstemmer  # installed with Sphinx; pinned in requirements.txt

    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def tokenize(text: str) -> list[str]:
    """Split ``text`` into lower-case word tokens (steps 1-2 of the module docstring).

    >>> tokenize("O, that this too too solid flesh would melt!")
    ['o', 'that', 'this', 'too', 'too', 'solid', 'flesh', 'would', 'melt']
    >>> tokenize("'Tis Hamlet's ne'er-do-well")
    ['tis', 'hamlet', "ne'er", 'do', 'well']
    """
    check_str("text", text, allow_empty=True)
    text = unicodedata.normalize("NFKC", text).casefold()
    return [_POSSESSIVE.sub("", t).replace("\u2019", "'") for t in TOKEN.findall(text)]


@dataclass(frozen=True)
class Analyzer:
    """Turns a text into index terms: :func:`tokenize`, then optionally drops stop
    words and stems.

    Parameters
    ----------
    stopwords : frozenset of str, optional
        Tokens to drop (compared before stemming). ``None`` keeps every token. Any
        collection of str is accepted and stored as a frozenset.
    stem : bool
        Apply the Snowball English (Porter2) stemmer to each token.

    >>> Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)("The kings' crowns")
    ['king', 'crown']
    """

    stopwords: frozenset[str] | None = None
    stem: bool = False

    def __post_init__(self) -> None:
        if self.stopwords is not None:
            object.__setattr__(self, "stopwords", frozenset(check_str_list("stopwords", self.stopwords)))
        object.__setattr__(self, "stem", check_bool("stem", self.stem))

    def __call__(self, text: str) -> list[str]:
        tokens = tokenize(text)
        if self.stopwords:
            tokens = [t for t in tokens if t not in self.stopwords]
        if self.stem:
            tokens = [_stem(t) for t in tokens]
        return tokens
