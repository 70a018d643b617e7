"""Captioned digit canvases (Part VI.3): real MNIST digits side by side, captions from the placement.

A **canvas** is a grey image of :data:`CANVAS` = 28 × 56 pixels holding one or two real
digits of one split of :func:`mmir_lib.data.mnist_5k` (the test split's canvases use test
digits only). Its **composition** is the pair (left, right) of digit classes, with
right = −1 for a canvas of one digit:

* one digit d, pasted at a random column 0 … 28;
* two digits (a, b): a in the left half (column 0 … 3), b in the right (column 25 … 28),
  pasted by pixelwise maximum.

Its **captions** are written from the composition alone, in three forms (:data:`FORMS`):

=========  =====================  =============================  =================
form       one digit (7)          two digits (7, 2)              the same digit (7, 7)
=========  =====================  =============================  =================
english    a seven                a seven to the left of a two   two sevens
french     un sept                un sept à gauche d'un deux     deux sept
digits     7                      7 left of 2                    7 7
=========  =====================  =============================  =================

with the number words of ``num2words`` (English and French; French numbers used as
nouns stay invariable, except "zéros"). So the ground truth is made by the generator,
not by an annotator: the caption is true of the canvas by construction.

Words are the tokens of :func:`tokenize` (lower case; "d'un" is "d'" and "un"), and
:class:`CaptionVocabulary` numbers the words of every caption the generator can write;
a caption with any other word is refused with a ValueError naming the words.

**Held-out compositions** (:data:`HELD_OUT`): the ten ordered pairs (a, b) with
b − a ≡ 3 (mod 10), such as (7, 0) and (4, 7), never appear in training; their reversed
pairs (0, 7) and (7, 4) do. A model that understood "left of" would place them anyway.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_bool, check_choice, check_count, check_number, check_str, check_str_list

__all__ = ["CANVAS", "FORMS", "HELD_OUT", "COMPOSITIONS", "digit_word", "caption", "tokenize", "CaptionVocabulary",
           "CaptionedCanvases", "compositions", "paint", "captioned_canvases", "draw_batch"]

#: Height and width of a canvas, in pixels.
CANVAS = (28, 56)
#: The caption forms: English words, French words, digit strings.
FORMS = ("english", "french", "digits")
#: Ordered pairs never shown in training: (a, a + 3 mod 10).
HELD_OUT = tuple((a, (a + 3) % 10) for a in range(10))
#: Every composition, (d, -1) for one digit, (a, b) for two: 10 + 100.
COMPOSITIONS = tuple([(d, -1) for d in range(10)] + [(a, b) for a in range(10) for b in range(10)])

_TOKEN = re.compile(r"\w+'?")


def digit_word(digit: int, form: str, plural: bool = False) -> str:
    """The word for ``digit`` in ``form`` ("english", "french" or "digits"): "seven",
    "sept" or "7"; ``plural`` gives "sevens" ("sixes"), "sept" ("zéros") or "7"."""
    from num2words import num2words

    digit = check_count("digit", digit, high=9)
    form = check_choice("form", form, FORMS)
    plural = check_bool("plural", plural)
    if form == "digits":
        return str(digit)
    word = num2words(digit, lang="en" if form == "english" else "fr")
    if not plural or (form == "french" and digit != 0):
        return word
    return word + ("es" if word.endswith("x") else "s")


def caption(composition: Sequence[int], form: str) -> str:
    """The caption of a composition (left, right), right = −1 for one digit, in ``form``
    (see the module's table)."""
    left, right = _check_composition(composition)
    form = check_choice("form", form, FORMS)
    if right < 0:
        return {"english": "a {}", "french": "un {}", "digits": "{}"}[form].format(digit_word(left, form))
    if left == right:
        count = {"english": "two", "french": "deux", "digits": digit_word(left, form)}[form]
        return f"{count} {digit_word(left, form, plural=True)}"
    a, b = digit_word(left, form), digit_word(right, form)
    return {"english": f"a {a} to the left of a {b}", "french": f"un {a} à gauche d'un {b}",
            "digits": f"{a} left of {b}"}[form]


def _check_composition(composition) -> tuple[int, int]:
    pair = check_array("composition", composition, ndim=1, kind="int", low=-1, high=9)
    if len(pair) != 2 or pair[0] < 0:
        raise ValueError(f"composition must be (left, right) with left in 0 … 9 and right in -1 … 9, got "
                         f"{pair.tolist()}")
    return int(pair[0]), int(pair[1])


def _check_chosen(chosen) -> list[tuple[int, int]]:
    """A nonempty sequence of compositions (left, right), as a list of int pairs."""
    pairs = check_array("chosen", chosen, ndim=2, kind="int", low=-1, high=9)
    if pairs.shape[1] != 2 or (pairs[:, 0] < 0).any():
        raise ValueError(f"chosen must be compositions (left, right) with left in 0 … 9 and right in -1 … 9, got "
                         f"shape {pairs.shape}")
    return [(int(a), int(b)) for a, b in pairs]


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens: runs of letters or digits, with a trailing apostrophe kept
    ("d'un" → ["d'", "un"])."""
    return _TOKEN.findall(check_str("text", text).lower())


class CaptionVocabulary:
    """The words of every caption :func:`caption` can write, numbered from 1 (0 pads).

    ``words``: sorted list; ``index``: word → id. :meth:`encode` turns captions into a
    padded (B, L) int64 id matrix and their (B,) lengths.
    """

    def __init__(self):
        words = {w for c in COMPOSITIONS for form in FORMS for w in tokenize(caption(c, form))}
        self.words = sorted(words)
        self.index = {w: i + 1 for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words) + 1

    def unknown(self, text: str) -> list[str]:
        """The words of ``text`` outside the vocabulary, in order of appearance."""
        return [w for w in tokenize(text) if w not in self.index]

    def encode(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(B, L) int64 word ids, 0-padded on the right, and (B,) lengths, for B captions.

        Raises ValueError for a caption with no word or with a word outside the
        vocabulary (naming them and a few known words)."""
        texts = check_str_list("texts", texts, nonempty=True)
        tokens = [tokenize(t) for t in texts]
        for text, words in zip(texts, tokens):
            unknown = [w for w in words if w not in self.index]
            if unknown:
                raise ValueError(f"texts: {text!r} has words outside the caption vocabulary: {unknown}; known words "
                                 f"are digits 0-9, their English and French names and 'a', 'un', 'two', 'deux', "
                                 f"'to the left of', 'à gauche d'', 'left of'")
            if not words:
                raise ValueError(f"texts: {text!r} has no word")
        lengths = np.array([len(w) for w in tokens], dtype=np.int64)
        ids = np.zeros((len(texts), lengths.max()), dtype=np.int64)
        for i, words in enumerate(tokens):
            ids[i, :len(words)] = [self.index[w] for w in words]
        return ids, lengths


@dataclass(frozen=True)
class CaptionedCanvases:
    """Canvases and their compositions.

    ``images``        (n, 28, 56) float32 grey levels in [0, 1]
    ``compositions``  (n, 2) int64 (left, right) digit classes, right = −1 for one digit
    """

    images: np.ndarray
    compositions: np.ndarray

    def __len__(self) -> int:
        return len(self.images)

    def captions(self, form: str) -> list[str]:
        """The caption of every canvas in ``form``."""
        return [caption(c, form) for c in self.compositions]


def compositions(which: str) -> list[tuple[int, int]]:
    """The compositions of a kind: "seen" (the 100 used in training: 10 single digits and
    90 pairs), "held_out" (the 10 pairs of :data:`HELD_OUT`), "pairs_seen" (the 90 pairs
    of "seen") or "single" (the 10 single digits)."""
    check_choice("which", which, ("seen", "held_out", "pairs_seen", "single"))
    held = set(HELD_OUT)
    return {"seen": [c for c in COMPOSITIONS if c not in held], "held_out": list(HELD_OUT),
            "pairs_seen": [c for c in COMPOSITIONS if c[1] >= 0 and c not in held],
            "single": [c for c in COMPOSITIONS if c[1] < 0]}[which]


def paint(digits: np.ndarray, labels: np.ndarray, chosen: Sequence[tuple[int, int]], rng: np.random.Generator,
          centre: bool = False) -> np.ndarray:
    """(n, 28, 56) float32 canvases for the ``chosen`` compositions, each digit a random
    image of its class among ``digits`` (N, 28, 28) with ``labels`` (N,). A single digit
    goes to a random column 0 … 28, or to column 14 with ``centre``; pairs to columns
    0 … 3 and 25 … 28."""
    digits = check_array("digits", digits, ndim=3, nonempty=True)
    labels = check_array("labels", labels, ndim=1, kind="int", low=0, high=9)
    if digits.shape[1:] != (28, 28) or len(labels) != len(digits):
        raise ValueError(f"digits must be (N, 28, 28) with one label each, got {digits.shape} and {len(labels)} labels")
    chosen = _check_chosen(chosen)
    centre = check_bool("centre", centre)
    by_class = [np.flatnonzero(labels == d) for d in range(10)]
    out = np.zeros((len(chosen), *CANVAS), dtype=np.float32)
    for n, (left, right) in enumerate(chosen):
        for digit in ((left,) if right < 0 else (left, right)):
            if by_class[digit].size == 0:
                raise ValueError(f"digits has no image of class {digit}")
        if right < 0:
            column = 14 if centre else int(rng.integers(0, 29))
            placed = [(left, column)]
        else:
            placed = [(left, int(rng.integers(0, 4))), (right, int(rng.integers(25, 29)))]
        for digit, column in placed:
            image = digits[by_class[digit][rng.integers(by_class[digit].size)]]
            np.maximum(out[n, :, column:column + 28], image, out=out[n, :, column:column + 28])
    return out


def captioned_canvases(split: str, chosen: Sequence[tuple[int, int]], per_composition: int, seed: int = 0,
                       centre: bool = False) -> CaptionedCanvases:
    """``per_composition`` canvases of every composition in ``chosen``, from the digits of
    ``mnist_5k(split)``, fixed by ``seed`` (:func:`paint`)."""
    from ..data import mnist_5k

    check_choice("split", split, ("train", "validation", "test"))
    per_composition = check_count("per_composition", per_composition, low=1, high=10_000)
    seed = check_count("seed", seed, high=2**32 - 1)
    chosen = _check_chosen(chosen)
    check_bool("centre", centre)
    source = mnist_5k(split)
    repeated = [c for c in chosen for _ in range(per_composition)]
    images = paint(source.images, source.labels, repeated, np.random.default_rng(seed), centre=centre)
    return CaptionedCanvases(images, np.array(repeated, dtype=np.int64).reshape(-1, 2))


def draw_batch(digits: np.ndarray, labels: np.ndarray, batch_size: int, seed: Sequence[int],
               single_share: float = 0.2) -> tuple[np.ndarray, list[str]]:
    """One training batch: ``batch_size`` canvases of **distinct** seen compositions (a
    share ``single_share`` of single digits, the rest pairs), each with its caption in a
    random form, drawn by ``numpy.random.default_rng(seed)``. Distinct compositions, so
    that no in-batch negative caption is true of the image (hence B ≤ 90, the seen pairs).
    Returns (B, 28, 56) float32 images and B captions."""
    batch_size = check_count("batch_size", batch_size, low=2, high=90)
    single_share = check_number("single_share", single_share, low=0.0, high=1.0)
    seed = [check_count("seed", s, high=2**63 - 1) for s in check_array("seed", seed, ndim=1, kind="int", nonempty=True)]
    rng = np.random.default_rng(seed)
    singles, pairs = compositions("single"), compositions("pairs_seen")
    n_single = min(int(rng.binomial(batch_size, single_share)), len(singles))
    chosen = [singles[i] for i in rng.choice(len(singles), n_single, replace=False)]
    chosen += [pairs[i] for i in rng.choice(len(pairs), batch_size - n_single, replace=False)]
    forms = rng.integers(0, len(FORMS), size=batch_size)
    return paint(digits, labels, chosen, rng), [caption(c, FORMS[f]) for c, f in zip(chosen, forms)]
