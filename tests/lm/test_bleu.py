"""Corpus BLEU written out (mmir_lib.lm.bleu) against sacrebleu's corpus_bleu."""

import math

import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.bleu import bleu_statistics, corpus_bleu, ngram_counts

WORDS = st.sampled_from(["un", "deux", "trois", "cent", "mille", "-", "et", "vingt"])
SENTENCE = st.lists(WORDS, min_size=0, max_size=9).map(" ".join)


def sacre(hyps, refs, **kwargs):
    return sacrebleu.corpus_bleu(hyps, [refs], tokenize="none", **kwargs)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE.filter(bool)), min_size=1, max_size=12))
def test_equals_sacrebleu_on_generated_corpora(pairs):
    hyps, refs = [h for h, _ in pairs], [r for _, r in pairs]
    ours, theirs = corpus_bleu(hyps, refs), sacre(hyps, refs)
    assert abs(ours.score - theirs.score) <= 1e-9
    assert ours.brevity_penalty == pytest.approx(theirs.bp, abs=1e-12)
    assert list(ours.matches) == list(theirs.counts) and list(ours.totals) == list(theirs.totals)
    assert (ours.hypothesis_length, ours.reference_length) == (theirs.sys_len, theirs.ref_len)
    assert abs(corpus_bleu(hyps, refs, smooth="none").score - sacre(hyps, refs, smooth_method="none").score) <= 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SENTENCE, SENTENCE.filter(bool), SENTENCE.filter(bool)), min_size=1, max_size=8))
def test_equals_sacrebleu_with_two_references(triples):
    hyps = [h for h, _, _ in triples]
    first, second = [a for _, a, _ in triples], [b for _, _, b in triples]
    theirs = sacrebleu.corpus_bleu(hyps, [first, second], tokenize="none")
    assert abs(corpus_bleu(hyps, [[a, b] for a, b in zip(first, second)]).score - theirs.score) <= 1e-9


def test_course_example_modified_precision():
    # "the the the the the the the" against "the cat is on the mat": unigram precision 2/7
    stats = bleu_statistics(["the the the the the the the"], ["the cat is on the mat"])
    assert stats[2][0] == 2 and stats[3][0] == 7


def test_perfect_and_empty():
    assert corpus_bleu(["a b c d e"], ["a b c d e"]).score == pytest.approx(100.0, abs=1e-12)
    empty = corpus_bleu([""], ["a b c"])
    assert empty.score == 0.0 and empty.brevity_penalty == 0.0


def test_brevity_penalty_by_formula():
    result = corpus_bleu(["a b c"], ["a b c d e f"])
    assert result.brevity_penalty == pytest.approx(math.exp(1 - 6 / 3), abs=1e-15)


def test_ngram_counts():
    counts = ngram_counts(["a", "b", "a", "b"], 2)
    assert counts[("a",)] == 2 and counts[("a", "b")] == 2 and counts[("b", "a")] == 1 and sum(counts.values()) == 7


@pytest.mark.parametrize("hyps, refs, error", [
    ([], [], ValueError), (["a"], [], ValueError), (["a"], [[]], TypeError), ([1], ["a"], TypeError),
])
def test_bad_corpora(hyps, refs, error):
    with pytest.raises(error):
        corpus_bleu(hyps, refs)
