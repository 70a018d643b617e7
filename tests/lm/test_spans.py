import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.chunk import conlltags2tree
from nltk.chunk.util import ChunkScore

from mmir_lib import data
from mmir_lib.lm.spans import bio_decode, bio_encode, name_spans, span_scores

LABELS = ("NAME", "PLACE")


@st.composite
def sentences_with_spans(draw, max_words=12):
    """A sentence length and sorted, non-overlapping spans inside it."""
    n = draw(st.integers(0, max_words))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=2 * n, unique=True)))
    spans = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        if draw(st.booleans()):
            spans.append((start, end, draw(st.sampled_from(LABELS))))
    return n, spans


tag_sequences = st.lists(st.sampled_from(["O", "B-NAME", "I-NAME", "B-PLACE", "I-PLACE"]), max_size=12)


@settings(max_examples=300, deadline=None)
@given(sentences_with_spans())
def test_decoding_the_encoding_gives_the_spans_back(case):
    n, spans = case
    tags = bio_encode(spans, n)
    assert len(tags) == n
    assert bio_decode(tags) == spans
    assert sum(t != "O" for t in tags) == sum(end - start for start, end, _ in spans)


@settings(max_examples=300, deadline=None)
@given(tag_sequences)
def test_encoding_the_decoding_repairs_only_ill_formed_tags(tags):
    again = bio_encode(bio_decode(tags), len(tags))
    assert [t == "O" for t in again] == [t == "O" for t in tags]     # the same words are marked
    assert [t[2:] for t in again] == [t[2:] for t in tags]           # with the same labels
    well_formed = all(t[0] != "I" or (i > 0 and tags[i - 1][2:] == t[2:]) for i, t in enumerate(tags))
    assert (again == tags) == well_formed


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(tag_sequences, tag_sequences), min_size=1, max_size=4))
def test_span_scores_are_bounded_and_symmetric(pairs):
    gold = [g[:min(len(g), len(p))] for g, p in pairs]
    predicted = [p[:min(len(g), len(p))] for g, p in pairs]
    forward, backward = span_scores(gold, predicted), span_scores(predicted, gold)
    assert 0 <= forward.f1 <= 1 and 0 <= forward.precision <= 1 and 0 <= forward.recall <= 1
    assert min(forward.precision, forward.recall) <= forward.f1 <= max(forward.precision, forward.recall)
    assert forward.f1 == backward.f1
    assert (forward.precision, forward.recall) == (backward.recall, backward.precision)
    perfect = span_scores(gold, gold)
    assert perfect.f1 == (1.0 if perfect.gold else 0.0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(tag_sequences, tag_sequences), min_size=1, max_size=4))
def test_span_scores_and_decoding_agree_with_nltk(pairs):
    """nltk's conlltags2tree reads BIO tags the same way (an I- that continues nothing
    opens a chunk), and its ChunkScore counts exact chunk matches."""
    gold = [g[:min(len(g), len(p))] for g, p in pairs]
    predicted = [p[:min(len(g), len(p))] for g, p in pairs]
    score = ChunkScore()
    for g, p in zip(gold, predicted):
        words = [f"w{i}" for i in range(len(g))]
        to_tree = lambda tags: conlltags2tree([(w, "X", t) for w, t in zip(words, tags)])
        score.score(to_tree(g), to_tree(p))
        chunks = [(start, end - start, label) for start, end, label in bio_decode(g)]
        tree_chunks, position = [], 0
        for node in to_tree(g):
            if isinstance(node, tuple):
                position += 1
            else:
                tree_chunks.append((position, len(node), node.label()))
                position += len(node)
        assert chunks == tree_chunks
    ours = span_scores(gold, predicted)
    assert ours.precision == pytest.approx(score.precision(), abs=1e-12)
    assert ours.recall == pytest.approx(score.recall(), abs=1e-12)
    assert ours.f1 == pytest.approx(score.f_measure(), abs=1e-12)


def test_span_scores_count_exact_matches_only():
    gold = [["B-NAME", "I-NAME", "O", "B-NAME"], ["O", "B-NAME"]]
    predicted = [["B-NAME", "O", "O", "B-NAME"], ["O", "B-PLACE"]]
    scores = span_scores(gold, predicted)
    assert (scores.correct, scores.gold, scores.predicted) == (1, 3, 3)
    assert scores.precision == pytest.approx(1 / 3) and scores.f1 == pytest.approx(1 / 3)


def test_bad_tags_and_spans_are_named():
    with pytest.raises(ValueError, match=r"tags\[1\]"):
        bio_decode(["O", "X-NAME"])
    with pytest.raises(ValueError, match="overlap"):
        bio_encode([(0, 2, "NAME"), (1, 3, "NAME")], 4)
    with pytest.raises(ValueError, match="past the sentence"):
        bio_encode([(2, 5, "NAME")], 4)
    with pytest.raises(ValueError, match=r"predicted\[0\]"):
        span_scores([["O"]], [["B-"]])
    with pytest.raises(ValueError, match="heads"):
        name_spans(["PROPN"], [0], ["root"])


def test_name_spans_join_the_parts_of_a_name_and_nothing_else():
    # "Shaikh Abdullah al - Ani , the preacher": flat parts, a hyphen inside the name
    upos = ["PROPN", "PROPN", "PROPN", "PUNCT", "PROPN", "PUNCT", "DET", "NOUN"]
    heads = [-1, 0, 0, 4, 0, 7, 7, 0]
    deprels = ["root", "flat", "flat", "punct", "flat", "punct", "det", "appos"]
    assert name_spans(upos, heads, deprels) == [(0, 5, "NAME")]
    # "Paris and London": two names joined by conj, not one
    assert name_spans(["PROPN", "CCONJ", "PROPN"], [-1, 2, 0], ["root", "cc", "conj"]) == [(0, 1, "NAME"),
                                                                                               (2, 3, "NAME")]
    # a compound noun that is not a proper noun is no name: "search engine Google"
    assert name_spans(["NOUN", "NOUN", "PROPN"], [1, 2, -1], ["compound", "compound", "root"]) == [(2, 3, "NAME")]


def test_every_proper_noun_of_the_treebank_is_in_exactly_one_name():
    for sentence in data.ud_english_ewt("dev"):
        spans = name_spans(sentence.upos, sentence.heads, sentence.deprels)
        inside = {i for start, end, _ in spans for i in range(start, end)}
        assert {i for i, t in enumerate(sentence.upos) if t == "PROPN"} <= inside
        assert all(sentence.upos[start] == "PROPN" and sentence.upos[end - 1] == "PROPN" for start, end, _ in spans)
        assert bio_decode(bio_encode(spans, len(sentence.words))) == spans
