"""word2vec: the SGNS loss against its formula, its gradients against the seed's and gradcheck,
the sampling pieces against their definitions (and gensim's subsampling), and training that
learns planted structure, as gensim's Word2Vec does on the same corpus."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.vectors import cosine_similarity, word_ids
from mmir_lib.lm.word2vec import (CBOW, SkipGram, cbow_windows, draw_negatives, keep_probabilities, noise_distribution,
                                  noise_table, sgns_loss, skipgram_pairs, subsample, train_word2vec)

# ---------------------------------------------------------------------------------------------
# The loss and its gradients
# ---------------------------------------------------------------------------------------------


def _random_batch(seed, b=6, k=4, d=5, dtype=torch.float64):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=generator, dtype=dtype, requires_grad=True)
            for shape in ((b, d), (b, d), (b, k, d))]


def test_sgns_loss_is_the_formula():
    w, c_pos, c_neg = _random_batch(0)
    expected = -(torch.log(torch.sigmoid((c_pos * w).sum(1)))
                 + torch.log(torch.sigmoid(-torch.einsum("bkd,bd->bk", c_neg, w))).sum(1)).mean()
    assert sgns_loss(w, c_pos, c_neg).item() == pytest.approx(expected.item(), abs=1e-12)


def test_sgns_loss_passes_gradcheck():
    assert torch.autograd.gradcheck(sgns_loss, tuple(_random_batch(1)), eps=1e-6, atol=1e-8)


def test_sgns_gradients_are_the_seeds_formulas():
    """∂L/∂c_pos = (σ(c_pos·w) − 1) w, ∂L/∂c_neg = σ(c_neg·w) w,
    ∂L/∂w = (σ(c_pos·w) − 1) c_pos + Σ σ(c_neg·w) c_neg (for one example: B = 1)."""
    w, c_pos, c_neg = _random_batch(2, b=1)
    sgns_loss(w, c_pos, c_neg).backward()
    with torch.no_grad():
        positive = torch.sigmoid((c_pos * w).sum()) - 1
        negative = torch.sigmoid((c_neg[0] * w[0]).sum(1))  # (k,)
        torch.testing.assert_close(c_pos.grad[0], positive * w[0])
        torch.testing.assert_close(c_neg.grad[0], negative[:, None] * w[0])
        torch.testing.assert_close(w.grad[0], positive * c_pos[0] + (negative[:, None] * c_neg[0]).sum(0))


def test_sgns_loss_stays_finite_for_huge_dot_products():
    w = torch.full((1, 3), 100.0)
    loss = sgns_loss(w, -w, w[:, None, :])  # log σ(−30000) would round to log 0
    assert torch.isfinite(loss) and loss.item() == pytest.approx(60000.0)


def test_sgns_loss_refuses_mismatched_shapes():
    w, c_pos, c_neg = _random_batch(3)
    with pytest.raises(ValueError, match=r"w \(B, d\), c_pos \(B, d\) and c_neg \(B, k, d\) must agree"):
        sgns_loss(w, c_pos[:, :4], c_neg)


# ---------------------------------------------------------------------------------------------
# Sampling: noise, subsampling, windows, negatives
# ---------------------------------------------------------------------------------------------

def test_noise_distribution_is_the_three_quarter_power():
    counts = np.array([1000.0, 10.0, 0.0, 1.0])
    noise = noise_distribution(counts)
    np.testing.assert_allclose(noise, counts**0.75 / (counts**0.75).sum())
    assert noise[1] / noise[0] > 10 / 1000  # rare words gain
    np.testing.assert_allclose(noise_distribution(counts, power=0), [1 / 3, 1 / 3, 0, 1 / 3])


def test_keep_probabilities_equal_gensims_subsampling():
    """gensim stores each word's keep probability as sample_int = P · 2³²."""
    from gensim.models import Word2Vec

    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    zipf = 1 / np.arange(1, 301)
    sentences = [list(rng.choice(words, size=50, p=zipf / zipf.sum())) for _ in range(200)]
    ids, vocab = word_ids(sentences)
    counts = np.bincount(np.concatenate(ids), minlength=len(vocab)).astype(float)
    model = Word2Vec(vector_size=4, min_count=1, sample=1e-3, workers=1)
    model.build_vocab(sentences)
    gensim_keep = np.array([model.wv.get_vecattr(w, "sample_int") / 2**32 for w in vocab])
    np.testing.assert_allclose(keep_probabilities(counts, sample=1e-3), gensim_keep, atol=1e-9)
    paper = keep_probabilities(counts, sample=1e-3, rule="paper")
    assert np.all(paper <= keep_probabilities(counts, sample=1e-3)) and paper.min() < 1


def test_subsampling_keeps_each_word_at_its_rate():
    sequence = np.repeat(np.arange(3), 20_000)
    kept = subsample([sequence], np.array([1.0, 0.5, 0.1]), np.random.default_rng(1))[0]
    np.testing.assert_allclose(np.bincount(kept, minlength=3) / 20_000, [1.0, 0.5, 0.1], atol=0.01)
    pieces = subsample([np.array([0, 1, 0]), np.array([], dtype=int), np.array([1, 0])], np.array([1.0, 0.0]),
                       np.random.default_rng(2))
    assert [s.tolist() for s in pieces] == [[0, 0], [], [0]]  # each sequence stays itself


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=5), st.integers(1, 4), st.integers(0, 2**16))
def test_windows_never_cross_from_one_sequence_to_the_next(lengths, window, seed):
    sequences = [np.full(n, i) for i, n in enumerate(lengths)]  # the id says the sequence
    centres, contexts = skipgram_pairs(sequences, len(lengths), window, np.random.default_rng(seed))
    assert np.array_equal(centres, contexts)
    windows, centres = cbow_windows(sequences, len(lengths), window, np.random.default_rng(seed))
    assert np.all((windows == centres[:, None]) | (windows == -1))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.integers(1, 6), st.integers(0, 2**16))
def test_skipgram_pairs_are_each_centres_dynamic_window(n, window, seed):
    """With ids equal to positions, a pair reveals its positions: centre i pairs with every
    j ≠ i with |i − j| ≤ b_i, and b_i is one draw from 1 … L."""
    centres, contexts = skipgram_pairs([np.arange(n)], n, window, np.random.default_rng(seed))
    b = np.random.default_rng(seed).integers(1, window + 1, n)  # the same draws
    expected = {(i, j) for i in range(n) for j in range(n) if 0 < abs(i - j) <= b[i]}
    assert sorted(zip(centres.tolist(), contexts.tolist())) == sorted(expected)


def test_dynamic_windows_weight_near_words_more():
    """A context at distance d is used with probability (L − d + 1)/L."""
    window, n = 5, 200_000
    centres, contexts = skipgram_pairs([np.arange(n)], n, window, np.random.default_rng(2))
    share = np.bincount(np.abs(contexts - centres), minlength=window + 1)[1:] / (2 * n)
    np.testing.assert_allclose(share, (window - np.arange(window)) / window, atol=0.01)


def test_cbow_windows_hold_the_skipgram_contexts_of_each_centre():
    rng_seed, sequence = 3, np.array([4, 1, 3, 3, 0, 2, 4])
    windows, centres = cbow_windows([sequence], 5, 3, np.random.default_rng(rng_seed))
    pair_centres, pair_contexts = skipgram_pairs([np.arange(7)], 7, 3, np.random.default_rng(rng_seed))
    assert windows.shape == (7, 6) and np.array_equal(centres, sequence)
    for i in range(7):
        expected = sorted(sequence[pair_contexts[pair_centres == i]].tolist())
        assert sorted(windows[i][windows[i] >= 0].tolist()) == expected


def test_the_noise_table_gives_each_word_its_share():
    noise = noise_distribution(np.array([5000.0, 0.0, 300.0, 1.0, 20.0]))
    table = noise_table(noise)
    np.testing.assert_allclose(np.bincount(table, minlength=5) / len(table), noise, atol=1e-6)
    assert np.count_nonzero(noise_table(np.array([1 - 1e-9, 1e-9]), size=100) == 1) == 1  # rare, yet drawable


def test_negatives_follow_the_noise_distribution():
    noise = np.array([0.5, 0.0, 0.3, 0.2])
    drawn = draw_negatives(noise_table(noise), (100_000, 5), np.random.default_rng(4))
    assert drawn.shape == (100_000, 5) and not np.any(drawn == 1)
    np.testing.assert_allclose(np.bincount(drawn.ravel(), minlength=4) / drawn.size, noise, atol=0.005)


# ---------------------------------------------------------------------------------------------
# Models and training
# ---------------------------------------------------------------------------------------------

def test_models_start_as_word2vec_does():
    model = SkipGram(50, 8, seed=3)
    w = model.input_vectors.weight
    assert w.abs().max() <= 0.5 / 8 and w.std() > 0.01 and model.output_vectors.weight.abs().max() == 0
    assert torch.equal(w, SkipGram(50, 8, seed=3).input_vectors.weight)


def test_cbow_averages_the_window_and_ignores_padding():
    model = CBOW(10, 4, seed=0)
    with torch.no_grad():
        model.output_vectors.weight.normal_()
    windows = torch.tensor([[1, 2, -1, -1], [3, -1, -1, 5]])
    centres, negatives = torch.tensor([0, 4]), torch.tensor([[6, 7], [8, 9]])
    mean = torch.stack([model.input_vectors.weight[[1, 2]].mean(0), model.input_vectors.weight[[3, 5]].mean(0)])
    expected = sgns_loss(mean, model.output_vectors(centres), model.output_vectors(negatives))
    torch.testing.assert_close(model.loss(windows, centres, negatives), expected)


def _topic_corpus(seed=0, sentences=400):
    """Two topics of 20 words each; a sentence draws its 12 words from one topic: words of a
    topic share their contexts, and nothing else is in the text."""
    rng = np.random.default_rng(seed)
    topics = [[f"a{i}" for i in range(20)], [f"b{i}" for i in range(20)]]
    return [list(rng.choice(topics[s % 2], size=12)) for s in range(sentences)]


def _same_topic_share(vectors, vocab, k=5):
    """The share of each word's k nearest neighbours from its own topic."""
    cosines = cosine_similarity(vectors)
    np.fill_diagonal(cosines, -np.inf)
    nearest = np.argsort(-cosines, axis=1)[:, :k]
    topic = np.array([w[0] for w in vocab])
    return float((topic[nearest] == topic[:, None]).mean())


@pytest.mark.parametrize("architecture", ["skipgram", "cbow"])
def test_training_learns_the_planted_topics(architecture):
    ids, vocab = word_ids(_topic_corpus())
    model, history = train_word2vec(ids, len(vocab), architecture=architecture, dim=10, window=3, epochs=3,
                                    sample=0, lr=0.02, batch_size=256, seed=0)
    assert history.epoch_losses[-1] < history.epoch_losses[0]
    assert _same_topic_share(model.word_vectors(), vocab) > 0.95


def test_training_is_the_same_on_every_run():
    ids, vocab = word_ids(_topic_corpus(sentences=60))
    first, _ = train_word2vec(ids, len(vocab), dim=8, epochs=2, batch_size=128, seed=5)
    second, _ = train_word2vec(ids, len(vocab), dim=8, epochs=2, batch_size=128, seed=5)
    assert np.array_equal(first.word_vectors(), second.word_vectors())


def test_gensim_learns_the_same_topics_from_the_same_corpus():
    """The reference: gensim's Word2Vec with the same settings finds the same structure."""
    from gensim.models import Word2Vec

    sentences = _topic_corpus()
    ids, vocab = word_ids(sentences)
    reference = Word2Vec(sentences, vector_size=10, window=3, negative=5, epochs=3, sample=0, min_count=1, sg=1,
                         workers=1, seed=0)
    ours, _ = train_word2vec(ids, len(vocab), dim=10, window=3, negatives=5, epochs=3, sample=0, lr=0.02,
                             batch_size=256)
    theirs = np.stack([reference.wv[w] for w in vocab])
    assert _same_topic_share(theirs, vocab) > 0.95 and _same_topic_share(ours.word_vectors(), vocab) > 0.95


def test_ids_outside_the_vocabulary_are_refused():
    with pytest.raises(ValueError, match=r"sequences\[1\] must hold values <= 9"):
        train_word2vec([np.array([1, 2]), np.array([3, 10])], 10)
