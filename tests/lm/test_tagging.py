import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib import data
from mmir_lib.lm.tagging import (_viterbi_second_order, brute_force, confusion_matrix, fit_hmm, fit_lexicon,
                                 forward, most_frequent_tagger, sentence_accuracy, tag_accuracy, viterbi,
                                 viterbi_many)

TOY = [(("the", "dog", "barks"), ("DET", "NOUN", "VERB")),
       (("the", "cat", "sleeps"), ("DET", "NOUN", "VERB")),
       (("a", "dog", "sleeps"), ("DET", "NOUN", "VERB")),
       (("dogs", "bark"), ("NOUN", "VERB"))]


@pytest.fixture(scope="module")
def ewt():
    return {split: [(s.words, s.upos) for s in data.ud_english_ewt(split)] for split in ("train", "test")}


def lattices(max_tags=4, max_words=5):
    """Random scores (with some −inf: impossible events) for a lattice of n words and N tags."""
    def build(shape):
        n, n_tags = shape
        score = st.one_of(st.floats(-20, 5), st.just(-np.inf))
        return st.tuples(arrays(np.float64, n_tags, elements=score), arrays(np.float64, (n_tags, n_tags), elements=score),
                         arrays(np.float64, (n, n_tags), elements=st.floats(-20, 5)),
                         arrays(np.float64, n_tags, elements=score))
    return st.tuples(st.integers(1, max_words), st.integers(1, max_tags)).flatmap(build)


@settings(max_examples=150, deadline=None)
@given(lattices())
def test_viterbi_and_forward_equal_brute_force(lattice):
    path, score = viterbi(*lattice)
    best_path, best_score, log_total = brute_force(*lattice)
    if np.isfinite(best_score):
        assert score == pytest.approx(best_score, rel=1e-12, abs=1e-9)
        start, transition, emissions, end = lattice
        rescored = (start[path[0]] + end[path[-1]] + emissions[np.arange(len(path)), path].sum()
                    + transition[path[:-1], path[1:]].sum())
        assert rescored == pytest.approx(best_score, rel=1e-12, abs=1e-9)  # the path is one that scores the max
        assert forward(*lattice) == pytest.approx(log_total, rel=1e-12, abs=1e-9)
    else:  # every path impossible
        assert score == -np.inf and forward(*lattice) == -np.inf


def test_viterbi_on_a_hand_worked_lattice():
    # Two tags, three words; the best path 0 -> 1 -> 1 scores 1 + 2 + 0.5 + 1 + 3 = 7.5.
    start, end = np.array([1.0, 0.0]), np.zeros(2)
    transition = np.array([[0.0, 0.5], [-1.0, 1.0]])
    emissions = np.array([[0.0, 0.0], [0.0, 2.0], [1.0, 3.0]])
    assert viterbi(start, transition, emissions, end) == ([0, 1, 1], 7.5)
    total = np.log(sum(np.exp(start[a] + emissions[0, a] + transition[a, b] + emissions[1, b] + transition[b, c]
                              + emissions[2, c]) for a, b, c in itertools.product(range(2), repeat=3)))
    assert forward(start, transition, emissions, end) == pytest.approx(total, rel=1e-14)


def test_second_order_viterbi_equals_enumeration():
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 5):
        n_tags = 3
        log_transition = np.log(rng.dirichlet(np.ones(n_tags + 1), size=(n_tags + 1, n_tags + 1)))
        emissions = rng.normal(size=(n, n_tags))
        boundary = n_tags

        def score(path):
            padded = [boundary, boundary, *path, boundary]
            return (sum(log_transition[a, b, c] for a, b, c in zip(padded, padded[1:], padded[2:]))
                    + emissions[np.arange(n), path].sum())

        best = max(itertools.product(range(n_tags), repeat=n), key=score)
        assert _viterbi_second_order(log_transition, emissions) == list(best)


def test_hmm_distributions_are_normalised():
    hmm = fit_hmm(TOY, order=1)
    assert np.exp(hmm.log_start).sum() + 0 == pytest.approx(1.0, abs=1e-12)
    rows = np.exp(hmm.log_transition).sum(axis=1) + np.exp(hmm.log_end)
    np.testing.assert_allclose(rows, 1.0, atol=1e-12)  # each tag goes to another tag or ends
    second = fit_hmm(TOY, order=2)
    np.testing.assert_allclose(np.exp(second.log_transition).sum(axis=2)[:, :-1].max(), 1.0, atol=1e-9)
    assert sum(second.lambdas) == pytest.approx(1.0)
    lexicon = fit_lexicon(TOY)
    for p in lexicon.word_tags.values():
        assert p.sum() == pytest.approx(1.0, abs=1e-12) and (p > 0).all()  # every tag keeps some probability
    assert lexicon.new_word("cats").sum() == pytest.approx(1.0, abs=1e-12)


def test_hmm_tags_the_toy_sentences_and_new_words():
    hmm = fit_hmm(TOY, order=1)
    assert hmm.tag(["the", "dog", "sleeps"]) == ["DET", "NOUN", "VERB"]
    assert hmm.tag(["the", "puppy", "barks"]) == ["DET", "NOUN", "VERB"]  # a new word between DET and VERB
    assert hmm.tag([]) == []
    assert fit_hmm(TOY, order=2).tag(["a", "cat", "barks"]) == ["DET", "NOUN", "VERB"]


def test_hmm_forward_is_a_likelihood_up_to_the_word_factors():
    # With emission scores log P(t|w) − log P(t) = log P(w|t) − log P(w), forward() is
    # log P(words) − Σ log P(w_i). For training words P(w) is the relative frequency, so
    # the score of the only possible tagging of an unambiguous sentence is checkable by hand.
    hmm = fit_hmm(TOY, order=1, mu=0.0)
    words = ["the", "dog", "barks"]
    emissions = hmm.lexicon.scores(words)
    brute = brute_force(hmm.log_start, hmm.log_transition, emissions, hmm.log_end)
    assert forward(hmm.log_start, hmm.log_transition, emissions, hmm.log_end) == pytest.approx(brute[2], rel=1e-12)


def test_hmm_accuracy_on_held_out_ewt(ewt):
    gold = [t for _, t in ewt["test"]]
    taggers = [most_frequent_tagger(ewt["train"]), fit_hmm(ewt["train"], order=1).tag,
               fit_hmm(ewt["train"], order=2).tag]
    baseline, first, second = (tag_accuracy(gold, [tag(w) for w, _ in ewt["test"]]) for tag in taggers)
    assert 0.85 < baseline < first < second
    assert second >= 0.93  # the book's target for the HMM (issue 16)


def test_hmm_viterbi_paths_equal_nltk_on_its_own_model(ewt):
    from nltk.probability import LidstoneProbDist
    from nltk.tag.hmm import HiddenMarkovModelTrainer

    train = [list(zip(w, t)) for w, t in ewt["train"][:2000]]
    tagger = HiddenMarkovModelTrainer().train_supervised(train, estimator=lambda fd, bins: LidstoneProbDist(fd, 0.1, bins))
    sentences = [w for w, _ in ewt["test"][:200]]
    same = 0
    for words in sentences:
        theirs = tagger.best_path(list(words))
        prior, outputs, transition, symbols = tagger._cache
        emissions = outputs[:, [symbols[w] for w in words]].T.astype(np.float64)
        path, _ = viterbi(prior.astype(np.float64), transition.astype(np.float64), emissions)
        same += [tagger._states[j] for j in path] == list(theirs)
    assert same >= 199  # float32 tables: a near tie may break the other way once


def test_confusion_matrix_and_accuracy_count_words():
    gold = [["A", "B"], ["B"]]
    predicted = [["A", "A"], ["B"]]
    assert tag_accuracy(gold, predicted) == pytest.approx(2 / 3)
    assert sentence_accuracy(gold, predicted) == pytest.approx(1 / 2)  # the first sentence has a wrong tag
    np.testing.assert_array_equal(confusion_matrix(gold, predicted, ["A", "B"]), [[1, 0], [1, 1]])
    # one wrong tag in a long sentence costs the whole sentence: 1 of 2 sentences, 5 of 8 words
    assert sentence_accuracy([["A"], ["A"] * 7], [["A"], ["A"] * 3 + ["B"] * 4]) == pytest.approx(1 / 2)
    assert sentence_accuracy([[], ["A"]], [[], ["B"]]) == 0  # an empty sentence is not counted


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from("AB"), st.sampled_from("AB")), min_size=1, max_size=6),
                min_size=1, max_size=8))
def test_sentence_accuracy_counts_sentences_all_right(sentences):
    gold = [[g for g, _ in s] for s in sentences]
    predicted = [[p for _, p in s] for s in sentences]
    expected = sum(g == p for g, p in zip(gold, predicted)) / len(gold)
    assert sentence_accuracy(gold, predicted) == pytest.approx(expected)
    assert (sentence_accuracy(gold, predicted) == 1) == (tag_accuracy(gold, predicted) == 1)
    singles = [[t] for s in gold for t in s], [[t] for s in predicted for t in s]
    assert sentence_accuracy(*singles) == pytest.approx(tag_accuracy(gold, predicted))  # one-word sentences


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="one tag per word"):
        fit_hmm([(("a", "b"), ("X",))])
    with pytest.raises(ValueError, match="order"):
        fit_hmm(TOY, order=3)
    with pytest.raises(ValueError, match="log_transition"):
        viterbi(np.zeros(2), np.zeros((3, 3)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="emissions"):
        viterbi(np.zeros(2), np.zeros((2, 2)), np.array([[np.nan, 0.0]]))
    with pytest.raises(ValueError, match="emissions"):
        forward(np.zeros(2), np.zeros((2, 2)), np.zeros((0, 2)))
    with pytest.raises(ValueError, match="sequences"):
        brute_force(np.zeros(17), np.zeros((17, 17)), np.zeros((10, 17)))
    with pytest.raises(ValueError, match="gold"):
        tag_accuracy([["A"]], [["A"], ["B"]])
    with pytest.raises(ValueError, match="gold"):
        sentence_accuracy([["A"]], [["A"], ["B"]])
    with pytest.raises(ValueError, match=r"predicted\[0\]"):
        sentence_accuracy([["A", "B"]], [["A"]])
    with pytest.raises(ValueError, match="tags must list"):
        confusion_matrix([["A"]], [["C"]], ["A"])


def test_viterbi_many_equals_viterbi_one_by_one():
    rng = np.random.default_rng(5)
    n_tags = 4
    start, transition, end = rng.normal(size=n_tags), rng.normal(size=(n_tags, n_tags)), rng.normal(size=n_tags)
    transition[0, 1] = -np.inf  # an impossible step
    sentences = [rng.normal(size=(n, n_tags)) for n in (1, 3, 3, 5, 2, 3, 1)]
    sentences.append(np.zeros((4, n_tags)))  # all ties: the lowest index wins, as in viterbi
    assert viterbi_many(start, transition, sentences, end) == [viterbi(start, transition, e, end)[0]
                                                               for e in sentences]
    with pytest.raises(ValueError, match="emissions"):
        viterbi_many(start, transition, [np.zeros((2, 3))], end)
