from collections import Counter

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex

DOCS = [["a", "b", "a"], ["b", "c"], ["c", "c", "c", "d"]]


def test_hand_built_index():
    index = InvertedIndex.from_tokens(DOCS)
    assert index.terms.tolist() == ["a", "b", "c", "d"]  # sorted dictionary
    assert index.num_docs == 3 and index.num_terms == 4
    assert index.doc_lengths.tolist() == [3, 2, 4]
    assert index.avdl == pytest.approx(3.0)
    assert index.df.tolist() == [1, 2, 2, 1]
    assert index.cf.tolist() == [2, 2, 4, 1]
    docs, tf = index.postings_list("c")
    assert docs.tolist() == [1, 2] and tf.tolist() == [1, 3]
    docs, tf = index.postings_list("zebra")
    assert len(docs) == 0 and len(tf) == 0
    assert index.term_id("b") == 1 and index.term_id("bb") is None


def test_from_texts_uses_and_remembers_the_analyzer():
    analyzer = Analyzer(stem=True)
    index = InvertedIndex.from_texts(["Kings and kings", "a King"], analyzer)
    assert index.postings_list("king")[1].tolist() == [2, 1]
    assert index.analyze("KINGS") == ["king"]


def test_bad_input():
    with pytest.raises(ValueError, match="empty collection"):
        InvertedIndex.from_tokens([])
    with pytest.raises(TypeError, match="sequence of terms"):
        InvertedIndex.from_tokens(["not tokenised"])
    index = InvertedIndex.from_texts(["x"], Analyzer())
    with pytest.raises(TypeError, match="query must be a str"):
        index.analyze(42)
    with pytest.raises(ValueError, match="empty"):
        index.analyze("   ")


documents = st.lists(st.lists(st.sampled_from("abcdefg"), max_size=12), min_size=1, max_size=20)


@given(documents)
def test_statistics_match_a_brute_force_count(docs):
    index = InvertedIndex.from_tokens(docs)
    assert index.doc_lengths.tolist() == [len(d) for d in docs]
    for t, term in enumerate(index.terms):
        containing = [d for d, doc in enumerate(docs) if term in doc]
        docs_ids, tf = index.postings_list(term)
        assert docs_ids.tolist() == containing  # sorted by document id
        assert tf.tolist() == [Counter(docs[d])[term] for d in containing]
        assert index.df[t] == len(containing)
        assert index.cf[t] == sum(doc.count(term) for doc in docs)
    assert index.postings.nnz == sum(len(set(d)) for d in docs)
    if any(docs):
        assert np.isclose(index.avdl, np.mean([len(d) for d in docs]))
