"""The corpus of Part III: a fixed split by play, the normalised text, both vocabularies
and the id streams, checked against the speeches they come from."""

import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmir_lib.data import SHAKESPEARE_PLAYS, shakespeare_speeches
from mmir_lib.lm.corpus import (BOUNDARY, GENRES, SPLITS, UNK, WORD_MIN_COUNT, Vocabulary, build_vocabulary,
                                corpus_ids, corpus_statistics, num_characters, split_text, split_tokens, tokenize,
                                vocabulary)


def test_split_is_by_play_and_covers_every_play_once():
    plays = [p for split in SPLITS.values() for p in split]
    assert sorted(plays) == sorted(SHAKESPEARE_PLAYS) and len(set(plays)) == 37
    assert {name: len(p) for name, p in SPLITS.items()} == {"train": 31, "validation": 3, "test": 3}
    assert set(GENRES) == set(SHAKESPEARE_PLAYS)
    for split in ("validation", "test"):  # one comedy, one history, one tragedy each
        assert sorted(GENRES[p] for p in SPLITS[split]) == ["comedy", "history", "tragedy"]


def test_text_is_the_speeches_one_per_line():
    text = split_text("test")
    speeches = shakespeare_speeches(list(SPLITS["test"]))
    assert text.endswith(BOUNDARY) and text.count(BOUNDARY) == len(speeches)
    assert text.split(BOUNDARY)[:-1] == [s.text for s in speeches]
    assert "[" not in text and "  " not in text  # no stage directions, single spaces
    assert num_characters("test") == len(text) == len(corpus_ids("test", "character"))


def test_character_vocabulary_is_the_training_alphabet():
    vocab = vocabulary("character")
    assert vocab.tokens[:2] == (UNK, BOUNDARY) and vocab.unk == 0
    assert set(vocab.tokens) == set(split_text("train")) | {UNK}
    test = split_text("test")
    unknown = [c for c in test if c not in vocab.index]
    ids = corpus_ids("test", "character")
    assert np.sum(ids == vocab.unk) == len(unknown)
    known = ids != vocab.unk
    assert "".join(np.array(vocab.decode(ids), dtype=object)[known]) == "".join(c for c in test if c in vocab.index)


def test_word_vocabulary_keeps_the_words_seen_often_enough():
    vocab = vocabulary("word")
    counts = Counter(split_tokens("train", "word"))
    assert set(vocab.tokens) - {UNK} == {w for w, n in counts.items() if n >= WORD_MIN_COUNT}
    train = corpus_ids("train", "word")
    rare = sum(n for n in counts.values() if n < WORD_MIN_COUNT)
    assert np.sum(train == vocab.unk) == rare > 0  # <unk> is seen in training too
    frequencies = [counts[t] for t in vocab.tokens[2:]]
    assert frequencies == sorted(frequencies, reverse=True)  # most frequent first


@pytest.mark.parametrize("split", list(SPLITS))
@pytest.mark.parametrize("level", ["character", "word"])
def test_ids_encode_the_tokens(split, level):
    ids, tokens, vocab = corpus_ids(split, level), split_tokens(split, level), vocabulary(level)
    assert ids.dtype == np.int64 and len(ids) == len(tokens) and not ids.flags.writeable
    assert vocab.decode(ids[:500]) == [t if t in vocab.index else UNK for t in tokens[:500]]
    assert np.sum(ids == 1) == split_text(split).count(BOUNDARY)  # the newline ends each speech at both levels


def test_tokenizer_by_hand():
    assert tokenize("'Tis bitter cold,--\nAnd I am sick at heart.") == [
        "'Tis", "bitter", "cold", ",", "--", "\n", "And", "I", "am", "sick", "at", "heart", "."]
    assert tokenize("o'er my father's death; reliev'd") == ["o'er", "my", "father's", "death", ";", "reliev'd"]
    assert tokenize("good-night!") == ["good", "-", "night", "!"]


@given(st.text(alphabet="ab'- ,.\n-XY", max_size=40).filter(str.strip))
def test_tokens_cover_every_character_but_spaces(text):
    assert "".join(tokenize(text)) == text.replace(" ", "")


def test_statistics_add_up():
    rows = {row["split"]: row for row in corpus_statistics()}
    assert sum(r["plays"] for r in rows.values()) == 37
    assert rows["train"]["unknown characters"] == 0
    assert 0.01 < rows["test"]["unknown word share"] < 0.05
    for split, row in rows.items():
        assert row["characters"] == num_characters(split)
        assert row["words"] == len(corpus_ids(split, "word"))


def test_vocabulary_refusals():
    with pytest.raises(ValueError, match="tokens must be distinct"):
        Vocabulary(("<unk>", "a", "a"))
    with pytest.raises(ValueError, match="tokens must hold the unknown symbol"):
        Vocabulary(("a", "b"))
    vocab = build_vocabulary(["a", "b", "a", "\n"])
    assert vocab.tokens == (UNK, BOUNDARY, "a", "b")
    with pytest.raises(ValueError, match="tokens holds no symbol of the vocabulary"):
        vocab.encode(["x", "y"])
    with pytest.raises(ValueError, match="tokens must not be empty"):
        vocab.encode("")
    assert vocab.encode("ab!").tolist() == [2, 3, 0]
    with pytest.raises(ValueError, match="split must be one of"):
        split_text("dev")
    with pytest.raises(ValueError, match="level must be one of"):
        corpus_ids("test", "byte")


def test_cached_and_fixed():
    assert corpus_ids("test", "word") is corpus_ids("test", "word")
    assert re.fullmatch(r"[ -~\n]+", split_text("validation"))  # printable ASCII and newlines only
