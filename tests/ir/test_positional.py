import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex
from mmir_lib.ir.positional import IndexSizes, PositionalIndex, analyze_with_positions, index_sizes

STOPPING = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)


def test_positions_count_stop_words():
    assert analyze_with_positions(STOPPING, "Murder most foul, as in the best it is") == [
        "murder", None, "foul", None, None, None, "best", None, None]
    index = PositionalIndex.from_texts(["Murder most foul, as in the best it is", "The kings' king"], STOPPING)
    assert index.positions("murder", 0).tolist() == [0]
    assert index.positions("foul", 0).tolist() == [2]
    assert index.positions("best", 0).tolist() == [6]
    assert index.positions("king", 1).tolist() == [1, 2]  # "kings'" and "king" stem alike
    assert index.positions("king", 0).tolist() == []  # term present, not in this document
    assert index.positions("unicorn", 1).tolist() == []  # term absent from the dictionary
    # doc_lengths still count terms only, as BM25 expects
    assert index.doc_lengths.tolist() == [3, 2]


def test_hand_built_positions_and_layout():
    docs = [["b", "a", "b"], ["a", None, "c", "a"], ["c"]]
    index = PositionalIndex.from_tokens(docs)
    # postings in CSC order: a: d0, d1; b: d0; c: d1, d2
    assert index.postings.indices.tolist() == [0, 1, 0, 1, 2]
    assert index.position_offsets.tolist() == [0, 1, 3, 5, 6, 7]
    assert index.position_data.tolist() == [1, 0, 3, 0, 2, 2, 0]
    assert [(d, p.tolist()) for d, p in index.postings_with_positions("a")] == [(0, [1]), (1, [0, 3])]
    assert list(index.postings_with_positions("zebra")) == []
    assert index.doc_lengths.tolist() == [3, 3, 1]
    assert index.df.tolist() == [2, 1, 2]


def test_is_an_inverted_index_with_the_same_postings():
    texts = ["to be or not to be", "the rest is silence", "be still"]
    plain = InvertedIndex.from_texts(texts, STOPPING)
    positional = PositionalIndex.from_texts(texts, STOPPING)
    assert isinstance(positional, InvertedIndex)
    assert positional.terms.tolist() == plain.terms.tolist()
    assert (positional.postings != plain.postings).nnz == 0
    assert positional.doc_lengths.tolist() == plain.doc_lengths.tolist()
    assert "PositionalIndex(N=3 documents" in repr(positional) and "positions)" in repr(positional)


def test_sizes_by_hand():
    index = PositionalIndex.from_tokens([["ab", "c"], ["c"], ["é"]])  # 3 docs, terms ab, c, é
    sizes = index_sizes(index)
    assert sizes == IndexSizes(
        incidence_matrix=2,  # 3 × 3 = 9 bits -> 2 bytes
        dictionary=(2 + 1 + 2) + 4 * 3,  # UTF-8 bytes ("é" is 2) + one offset per term
        doc_ids=4 * 4, tf=4 * 4, postings_offsets=4 * 4,
        positions=4 * 4 + 8 * 5, document_index=4 * 3,
    )
    assert sizes.inverted_index == 5 + 12 + 16 + 16 + 16 + 56 + 12
    plain = index_sizes(InvertedIndex.from_tokens([["ab", "c"], ["c"], ["é"]]))
    assert plain.positions == 0 and plain.doc_ids == sizes.doc_ids


def test_bad_input():
    index = PositionalIndex.from_tokens([["a"]])
    with pytest.raises(TypeError, match="doc_id must be an int"):
        index.positions("a", "0")
    with pytest.raises(ValueError, match=r"doc_id must be <= 0"):
        index.positions("a", 1)
    with pytest.raises(TypeError, match=r"documents\[0\] must be a sequence of terms"):
        PositionalIndex.from_tokens(["a b"])
    with pytest.raises(TypeError, match=r"documents\[0\]\[1\] must be a str term or None"):
        PositionalIndex.from_tokens([["a", 3]])
    with pytest.raises(ValueError, match="empty collection"):
        PositionalIndex.from_tokens([])
    with pytest.raises(TypeError, match="Analyzer"):
        analyze_with_positions(str.split, "a b")
    with pytest.raises(TypeError, match="InvertedIndex"):
        index_sizes({"a": [0]})


streams = st.lists(st.lists(st.one_of(st.none(), st.sampled_from("abcde")), max_size=15), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(streams)
def test_positions_match_a_scan_of_the_token_streams(docs):
    index = PositionalIndex.from_tokens(docs)
    for term in index.terms.tolist():
        expected = [(d, [p for p, t in enumerate(doc) if t == term]) for d, doc in enumerate(docs) if term in doc]
        assert [(d, p.tolist()) for d, p in index.postings_with_positions(term)] == expected
        for d, positions in expected:
            assert index.positions(term, d).tolist() == positions
    assert len(index.position_data) == sum(t is not None for doc in docs for t in doc)
    assert index.doc_lengths.tolist() == [sum(t is not None for t in doc) for doc in docs]


words = st.sampled_from(["The", "king", "kings'", "is", "dead", "long", "live", "o'er", "Hamlet's", "!", ",", "ne'er-do-well"])


@settings(max_examples=60, deadline=None)
@given(st.lists(words, max_size=20).map(" ".join))
def test_non_gap_slots_are_exactly_the_analyzer_output(text):
    for analyzer in (STOPPING, Analyzer(), Analyzer(stem=True)):
        slots = analyze_with_positions(analyzer, text)
        assert [t for t in slots if t is not None] == analyzer(text)
        assert len(slots) == len(Analyzer()(text))  # one slot per token


def test_str_subclasses_are_terms():
    index = PositionalIndex.from_tokens([[np.str_("a"), None, "b"]])
    assert index.terms.tolist() == ["a", "b"]
    assert index.positions("b", 0).tolist() == [2]
