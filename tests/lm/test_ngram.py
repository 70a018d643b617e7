"""N-gram counting and models: equal to nltk.lm (MLE, Laplace, Lidstone, Kneser-Ney) on
the same padded sentences and vocabulary, and the properties every smoothed model must
have (each distribution sums to 1, no symbol gets 0)."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.lm import MLE as NltkMLE
from nltk.lm import KneserNeyInterpolated, Laplace, Lidstone
from nltk.lm import Vocabulary as NltkVocabulary
from nltk.lm.preprocessing import pad_both_ends
from nltk.util import everygrams, ngrams

from mmir_lib.data import shakespeare_speeches
from mmir_lib.lm.corpus import UNK, Vocabulary, tokenize
from mmir_lib.lm.ngram import (MAX_LAMBDA, MLE, AddK, Interpolated, KneserNey, Uniform, add_k_losses,
                               kneser_ney_losses,
                               count_ngrams, interpolation_weights, ngram_windows)

# ---- the reference: nltk.lm on 100 speeches of Macbeth, scored on the next 30 ------------------------

_SPEECHES = [tokenize(s.text) for s in shakespeare_speeches(["macbeth"])[:130]]
_TRAIN, _TEST = _SPEECHES[:100], _SPEECHES[100:]
_WORDS = sorted(w for w, n in Counter(w for s in _TRAIN for w in s).items() if n >= 2)
VOCAB = Vocabulary((UNK, "<s>", "</s>", *_WORDS))
V = len(VOCAB)


def _padded(sentences, order):
    """nltk's convention: rare words to <unk>, then order − 1 <s> before and </s> after."""
    return [list(pad_both_ends([w if w in VOCAB.index else UNK for w in s], n=order)) for s in sentences]


def _nltk(model_class, order, **kwargs):
    vocab = NltkVocabulary([t for t in VOCAB.tokens if t != UNK], unk_label=UNK)  # nltk adds <unk> itself
    assert len(vocab) == V
    model = model_class(order=order, vocabulary=vocab, **kwargs)
    model.fit([everygrams(s, max_len=order) for s in _padded(_TRAIN, order)])
    return model


def _ours(model_class, order, **kwargs):
    counts = count_ngrams([VOCAB.encode(s) for s in _padded(_TRAIN, order)], order, V)
    return model_class(counts, **kwargs)


REFERENCES = [  # (name, nltk model, ours, order)
    ("MLE", lambda n: _nltk(NltkMLE, n), lambda n: _ours(MLE, n)),
    ("Laplace", lambda n: _nltk(Laplace, n), lambda n: _ours(AddK, n, k=1.0)),
    ("Lidstone 0.1", lambda n: _nltk(Lidstone, n, gamma=0.1), lambda n: _ours(AddK, n, k=0.1)),
    ("Kneser-Ney", lambda n: _nltk(KneserNeyInterpolated, n, discount=0.75),
     lambda n: _ours(KneserNey, n, discount=0.75, variant="nltk")),
]


@pytest.mark.parametrize("order", [2, 3])
@pytest.mark.parametrize("name, theirs, ours", REFERENCES, ids=[r[0] for r in REFERENCES])
def test_probabilities_and_perplexity_equal_nltk(name, theirs, ours, order):
    theirs, ours = theirs(order), ours(order)
    grams = [g for s in _padded(_TEST, order) for g in ngrams(s, order)]  # only order-n grams, as nltk wants
    ids = np.array([VOCAB.encode(list(g)) for g in grams])
    reference = np.array([theirs.score(g[-1], g[:-1]) for g in grams])
    np.testing.assert_allclose(ours.prob(ids[:, :-1], ids[:, -1]), reference, rtol=0, atol=1e-9)
    if name != "MLE":  # the MLE's perplexity is infinite on unseen n-grams
        ours_perplexity = 2 ** np.mean(-np.log2(ours.prob(ids[:, :-1], ids[:, -1])))
        assert ours_perplexity == pytest.approx(theirs.perplexity(grams), rel=1e-9)
    # whole distributions after full and shorter contexts, unseen ones included
    for g in grams[:: len(grams) // 2]:  # (nltk's Kneser-Ney takes milliseconds per probability)
        for context in (g[:-1], g[-2:-1], ()):
            expected = [theirs.score(w, context or None) for w in VOCAB.tokens]
            np.testing.assert_allclose(ours.prob(VOCAB.encode(list(context)) if context else [], np.arange(V)),
                                       expected, rtol=0, atol=1e-9)


def test_nltk_kneser_ney_overshoots_after_the_padding_as_documented():
    """After <s> <s>, the nltk variant's distribution sums to a little more than 1, in nltk too;
    the Chen-Goodman variant's sums to 1."""
    theirs, ours = _nltk(KneserNeyInterpolated, 3, discount=0.75), _ours(KneserNey, 3, variant="nltk")
    start = VOCAB.encode(["<s>", "<s>"])
    total = ours.prob(start, np.arange(V)).sum()
    assert total > 1 + 1e-6
    assert total == pytest.approx(sum(theirs.score(w, ("<s>", "<s>")) for w in VOCAB.tokens), abs=1e-9)
    assert _ours(KneserNey, 3).next_distribution(start).sum() == pytest.approx(1.0, abs=1e-12)


# ---- counting -----------------------------------------------------------------------------------------

sequences_strategy = st.lists(st.lists(st.integers(0, 4), max_size=12), min_size=1, max_size=4).filter(
    lambda seqs: sum(map(len, seqs)) > 0)


@given(sequences_strategy, st.integers(1, 4))
def test_counts_equal_a_counter_inside_each_sequence(sequences, order):
    counts = count_ngrams(sequences, order, 5)
    for k in range(1, order + 1):
        expected = Counter(tuple(s[i:i + k]) for s in sequences for i in range(len(s) - k + 1))
        grams = np.array(sorted(expected), dtype=np.int64).reshape(-1, k)
        if len(grams):
            assert counts.count(grams).tolist() == [expected[tuple(g)] for g in grams]
        assert counts.counts[k - 1].sum() == sum(expected.values())
    totals, types = counts.context_count(np.zeros((1, order - 1), dtype=np.int64))
    followers = Counter(tuple(s[i:i + order]) for s in sequences for i in range(len(s) - order + 1)
                        if tuple(s[i:i + order - 1]) == (0,) * (order - 1))
    assert (totals[0], types[0]) == (sum(followers.values()), len(followers))


def test_windows_with_and_without_a_pad():
    assert ngram_windows([5, 6, 7], 2).tolist() == [[5, 6], [6, 7]]
    assert ngram_windows([5, 6, 7], 3, pad=1).tolist() == [[1, 1, 5], [1, 5, 6], [5, 6, 7]]
    with pytest.raises(ValueError, match="ids must hold at least order = 4 symbols"):
        ngram_windows([5, 6, 7], 4)


# ---- properties of the models ----------------------------------------------------------------------------

TRAIN = np.array([0, 1, 2, 3, 1, 2, 4, 1, 2, 3, 5, 1, 6, 2, 3, 1, 2, 2, 1])
COUNTS = count_ngrams(TRAIN, 3, 8)  # symbol 7 never occurs, 0 never follows another


def smoothed_models():
    return [Uniform(8), AddK(COUNTS, 1.0), AddK(COUNTS, 0.01, order=2),
            Interpolated(COUNTS, [0.5, 0.6, 0.7]), Interpolated(COUNTS, [0.9, 0.0], order=2),
            KneserNey(COUNTS), KneserNey(COUNTS, discount=0.1, order=2), KneserNey(COUNTS, discount=1.0)]


@settings(max_examples=60)
@given(st.lists(st.integers(0, 7), max_size=2))
def test_every_distribution_sums_to_one_and_has_no_zero(context):
    for model in smoothed_models():
        if len(context) <= model.order - 1:
            p = model.next_distribution(context)
            assert p.sum() == pytest.approx(1.0, abs=1e-12), model
            assert p.min() > 0, model


def test_mle_distributions_and_its_unseen_contexts():
    model = MLE(COUNTS)
    assert model.next_distribution([1, 2]).sum() == pytest.approx(1.0)
    assert model.prob([1, 2], [3])[0] == pytest.approx(2 / 4)  # "1 2" is followed by 3, 4, 3, 2
    with pytest.raises(ValueError, match="context was never seen in training"):
        model.next_distribution([7, 7])
    assert MLE(COUNTS, order=1).prob([], [7])[0] == 0.0


def test_log_loss_is_minus_log_prob_at_each_position():
    text = np.array([1, 2, 3, 7, 1, 6, 0])
    for model in smoothed_models():
        losses = model.log_loss(text, pad=1)
        padded = np.concatenate([np.ones(model.order - 1, dtype=np.int64), text])
        expected = [-np.log(model.prob(padded[i:i + model.order - 1], [padded[i + model.order - 1]])[0])
                    for i in range(len(text))]
        np.testing.assert_allclose(losses, expected, rtol=1e-12)
        assert len(model.log_loss(text)) == len(text) - model.order + 1  # no pad: full contexts only


def test_add_k_losses_equal_the_models_losses():
    held_out = np.array([1, 2, 3, 1, 2, 7, 2, 3])
    ks = [0.01, 0.1, 1.0, 3.0]
    expected = [AddK(COUNTS, k).log_loss(held_out, pad=1).mean() for k in ks]
    np.testing.assert_allclose(add_k_losses(COUNTS, held_out, ks, pad=1), expected, rtol=1e-12)


@pytest.mark.parametrize("variant", ["chen-goodman", "nltk"])
@pytest.mark.parametrize("order", [2, 3])
def test_kneser_ney_losses_equal_the_models_losses(variant, order):
    held_out = np.array([1, 2, 3, 1, 2, 7, 2, 3, 5, 1])
    discounts = [0.1, 0.5, 0.75, 0.9, 1.0]
    expected = [KneserNey(COUNTS, D, order=order, variant=variant).log_loss(held_out, pad=1).mean() for D in discounts]
    np.testing.assert_allclose(kneser_ney_losses(COUNTS, held_out, discounts, pad=1, order=order, variant=variant),
                               expected, rtol=1e-12)
    assert KneserNey(COUNTS, np.float64(0.9)).discount == 0.9  # numpy scalars accepted


def test_kneser_ney_losses_refusals():
    with pytest.raises(ValueError, match="discounts must be > 0"):
        kneser_ney_losses(COUNTS, [1, 2, 3], [0.0, 0.5], pad=1)
    with pytest.raises(ValueError, match="discounts"):
        kneser_ney_losses(COUNTS, [1, 2, 3], [0.5, 1.5], pad=1)
    with pytest.raises(ValueError, match="order"):
        kneser_ney_losses(COUNTS, [1, 2, 3], [0.5], pad=1, order=1)
    with pytest.raises(ValueError, match="variant"):
        kneser_ney_losses(COUNTS, [1, 2, 3], [0.5], pad=1, variant="modified")


def test_em_weights_maximise_the_held_out_likelihood():
    rng = np.random.default_rng(0)
    train, held_out = rng.integers(0, 6, 3000), rng.integers(0, 6, 800)
    train[1::3] = (train[::3] + 1) % 6  # some structure for the higher orders to find
    held_out[1::3] = (held_out[::3] + 1) % 6
    counts = count_ngrams(train, 3, 7)
    lambdas = interpolation_weights(counts, held_out, pad=0, tol=1e-10, max_iter=2000)
    assert np.all(lambdas > 0) and lambdas.max() == MAX_LAMBDA  # the uniform level is of no use here
    best = Interpolated(counts, lambdas).log_loss(held_out, pad=0).mean()
    for change in np.eye(3) * 0.02:  # every nearby point is worse
        for sign in (1, -1):
            assert Interpolated(counts, np.clip(lambdas + sign * change, 0, 0.999)).log_loss(
                held_out, pad=0).mean() >= best - 1e-9
    assert best < Interpolated(counts, [0.5, 0.5, 0.5]).log_loss(held_out, pad=0).mean()


def test_kneser_ney_prefers_words_seen_in_many_contexts():
    """"Francisco" is frequent but only after "San": after an unseen context, a word seen after
    many different words is the more probable continuation."""
    words = {"<unk>": 0, "\n": 1, "San": 2, "Francisco": 3, "glasses": 4, "my": 5, "your": 6, "his": 7, "new": 8}
    text = ["San", "Francisco"] * 6 + ["my", "glasses", "your", "glasses", "his", "glasses", "new"]
    counts = count_ngrams(np.array([words[w] for w in text]), 2, len(words))
    assert counts.count([[3]])[0] > counts.count([[4]])[0]
    p = KneserNey(counts).prob([words["new"]], [words["Francisco"], words["glasses"]])
    assert p[1] > p[0]


def test_refusals():
    with pytest.raises(ValueError, match="context holds 3 symbols, more than the 2"):
        KneserNey(COUNTS).prob([1, 2, 3], [1])
    with pytest.raises(ValueError, match="order must be >= 1"):
        count_ngrams(TRAIN, 0, 8)
    with pytest.raises(ValueError, match="order 5 is too high for vocab_size 16000"):
        count_ngrams(TRAIN, 5, 16000)
    with pytest.raises(ValueError, match="order must be >= 2"):
        KneserNey(COUNTS, order=1)
    with pytest.raises(ValueError, match="counts hold no bigram"):
        KneserNey(count_ngrams([[1], [2]], 2, 8))
    with pytest.raises(ValueError, match="lambdas must be < 1"):
        Interpolated(COUNTS, [0.5, 1.0, 0.5])
    with pytest.raises(ValueError, match="word must hold values <= 7"):
        AddK(COUNTS).prob([1], [8])
    with pytest.raises(ValueError, match="context and word must have one row per position"):
        AddK(COUNTS).prob([[1, 2]], [1, 2])
