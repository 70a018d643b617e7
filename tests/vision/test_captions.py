"""Tests of mmir_lib.vision.captions: captions written from the composition, the
vocabulary and its refusal of unknown words, the canvases and the training batches."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from num2words import num2words

from mmir_lib.vision.captions import (CANVAS, COMPOSITIONS, FORMS, HELD_OUT, CaptionVocabulary, caption,
                                      captioned_canvases, compositions, digit_word, draw_batch, paint, tokenize)

VOCABULARY = CaptionVocabulary()
digit = st.integers(0, 9)


def test_the_table_of_the_module():
    assert [caption((7, -1), f) for f in FORMS] == ["a seven", "un sept", "7"]
    assert [caption((7, 2), f) for f in FORMS] == ["a seven to the left of a two", "un sept à gauche d'un deux",
                                                   "7 left of 2"]
    assert [caption((7, 7), f) for f in FORMS] == ["two sevens", "deux sept", "7 7"]
    assert caption((6, 6), "english") == "two sixes" and caption((0, 0), "french") == "deux zéros"
    assert tokenize("Un sept à gauche d'un deux") == ["un", "sept", "à", "gauche", "d'", "un", "deux"]


@settings(max_examples=60, deadline=None)
@given(a=digit, b=digit, form=st.sampled_from(FORMS))
def test_the_words_of_a_caption_match_its_composition(a, b, form):
    words = tokenize(caption((a, b), form))
    names = [digit_word(d, form) for d in range(10)]
    if a == b:
        assert words[0] == {"english": "two", "french": "deux", "digits": str(a)}[form]
        assert words[-1] == digit_word(a, form, plural=True)
    else:
        # the first digit word named is the left digit, the last the right one
        named = [w for w in words if w in names and not (form == "french" and w == "un" and a != 1 and b != 1)]
        assert named[0] == digit_word(a, form) and named[-1] == digit_word(b, form)
        assert ("left" in words) == (form != "french") and ("gauche" in words) == (form == "french")
    # the number words are num2words's
    if form != "digits":
        assert digit_word(a, form) == num2words(a, lang="en" if form == "english" else "fr")


@settings(max_examples=30, deadline=None)
@given(a=digit, b=digit)
def test_swapping_the_digits_swaps_the_words_and_keeps_the_bag(a, b):
    for form in FORMS:
        here, there = tokenize(caption((a, b), form)), tokenize(caption((b, a), form))
        assert sorted(here) == sorted(there)          # the same bag of words ...
        assert (here == there) == (a == b)            # ... in another order unless a = b


def test_vocabulary_encodes_and_refuses_unknown_words():
    ids, lengths = VOCABULARY.encode(["a seven to the left of a two", "7"])
    assert ids.shape == (2, 8) and lengths.tolist() == [8, 1] and ids[1, 1:].tolist() == [0] * 7
    assert [VOCABULARY.words[i - 1] for i in ids[0]] == tokenize("a seven to the left of a two")
    assert len(VOCABULARY) == len(VOCABULARY.words) + 1 and "gauche" in VOCABULARY.index
    with pytest.raises(ValueError, match=r"\['cat', 'right'\]"):
        VOCABULARY.encode(["a cat to the right of a seven"])
    with pytest.raises(ValueError, match="no word"):
        VOCABULARY.encode(["  ,  "])
    assert VOCABULARY.unknown("a seven above a two") == ["above"]


def test_held_out_compositions_and_their_reverses():
    seen = set(compositions("seen"))
    assert len(HELD_OUT) == 10 and not seen & set(HELD_OUT)
    assert all((b, a) in seen for a, b in HELD_OUT)           # the reversed pair is trained on
    assert len(seen) == 100 and len(compositions("pairs_seen")) == 90 and len(COMPOSITIONS) == 110


def test_canvases_hold_their_digits_where_the_composition_says():
    from mmir_lib.data import mnist_5k

    test = mnist_5k("test")
    canvases = captioned_canvases("test", [(7, 2), (3, -1)], per_composition=4, seed=0)
    assert canvases.images.shape == (8, *CANVAS) and canvases.images.dtype == np.float32
    assert canvases.compositions.tolist() == [[7, 2]] * 4 + [[3, -1]] * 4
    assert canvases.captions("digits")[:2] == ["7 left of 2", "7 left of 2"]
    sevens = test.images[test.labels == 7][:, :, :24].astype(np.float32)
    for image in canvases.images[:4]:
        # the left digit is a test 7 pasted at column 0 … 3 (its first 24 columns untouched by the right digit)
        assert any((np.abs(sevens - image[None, :, c:c + 24]).max(axis=(1, 2)) == 0).any() for c in range(4))
        assert image[:, 31:].sum() > 0                             # and a right digit
    centred = paint(test.images, test.labels, [(5, -1)], np.random.default_rng(0), centre=True)
    assert centred[0, :, :14].sum() == 0 and centred[0, :, 42:].sum() == 0


def test_training_batches_are_distinct_seeded_and_captioned():
    from mmir_lib.data import mnist_5k

    train = mnist_5k("train")
    images, captions = draw_batch(train.images, train.labels, 64, [0, 5])
    again, captions_again = draw_batch(train.images, train.labels, 64, [0, 5])
    assert np.array_equal(images, again) and captions == captions_again
    meanings = set()
    for text in captions:
        matches = [c for c in COMPOSITIONS for f in FORMS if caption(c, f) == text]
        assert len(matches) == 1 and matches[0] not in HELD_OUT
        meanings.add(matches[0])
    assert len(meanings) == 64                                # distinct compositions: no false negatives


def test_bad_input():
    with pytest.raises(ValueError, match="composition"):
        caption((-1, 2), "english")
    with pytest.raises(ValueError, match="form"):
        caption((1, 2), "german")
    with pytest.raises(ValueError, match="chosen"):
        captioned_canvases("test", [], 1)
    with pytest.raises(ValueError, match="chosen"):
        captioned_canvases("test", [(-1, 3)], 1)
    with pytest.raises(ValueError, match="digit"):
        digit_word(10, "english")
