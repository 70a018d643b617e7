"""Tests of mmir_lib.ir.dense: inverse-cloze pairs, the bag encoder, BM25 hard negatives,
training and the dense run (InfoNCE itself: tests/test_contrastive.py)."""

import numpy as np
import pytest
import torch

from mmir_lib.ir.dense import (BagEncoder, TrainingSetup, Vocabulary, bag_batch, dense_run, encode, glove_init,
                               hard_negatives, inverse_cloze_pairs, sentences, train_bi_encoder)
from mmir_lib.ir.index import InvertedIndex
from mmir_lib.ir.text import ENGLISH_STOP_WORDS, Analyzer

TEXTS = ["The ghost walks tonight. Speak to it, Horatio! It will not answer.",
         "Poison in the cup; the king drinks. He dies.",
         "Music, the food of love. Play on.",
         "Sleep no more."]


def test_sentences_split_at_sentence_ends():
    assert sentences("The ghost walks tonight. Speak to it, Horatio! It will not answer.") == [
        "The ghost walks tonight.", "Speak to it, Horatio!", "It will not answer."]
    assert sentences("") == []
    with pytest.raises(TypeError, match="text"):
        sentences(3)


def test_inverse_cloze_pairs_cut_one_sentence_out():
    pairs = inverse_cloze_pairs(TEXTS, seed=0, min_words=2)
    assert [p.source for p in pairs] == [0, 1, 2]  # "Sleep no more." has one sentence only
    for p in pairs:
        parts = sentences(TEXTS[p.source])
        assert p.query in parts
        assert sentences(p.context) == [s for s in parts if s != p.query]


def test_inverse_cloze_pairs_keep_and_seed():
    assert all(p.context == TEXTS[p.source] for p in inverse_cloze_pairs(TEXTS, seed=3, min_words=2, keep=1.0))
    assert inverse_cloze_pairs(TEXTS, seed=5, min_words=1) == inverse_cloze_pairs(TEXTS, seed=5, min_words=1)
    drawn = {inverse_cloze_pairs(TEXTS, seed=s, min_words=1)[0].query for s in range(30)}
    assert len(drawn) == 3  # every sentence of the first text is drawn by some seed
    with pytest.raises(ValueError, match="keep"):
        inverse_cloze_pairs(TEXTS, keep=1.5)


def test_vocabulary_idf_and_ids():
    vocab = Vocabulary(TEXTS)
    assert "the" not in vocab.words and "ghost" in vocab.words  # stop words out, no stemming
    assert vocab.idf[vocab.index["ghost"]] == pytest.approx(np.log(4 / 1))
    assert vocab.ids("ghost GHOST zebra") == [vocab.index["ghost"]] * 2
    assert [b.tolist() for b in vocab.bags(["king", ""])] == [[vocab.index["king"]], []]


def _encoder(dim=4, seed=0):
    vocab = Vocabulary(TEXTS)
    rng = np.random.default_rng(seed)
    words = vocab.words[::2]
    init = glove_init(vocab, words, rng.normal(size=(len(words), dim)).astype(np.float32), seed=seed)
    return vocab, BagEncoder(init, vocab.idf + 0.5)


def test_glove_init_copies_known_words():
    vocab = Vocabulary(TEXTS)
    vectors = np.arange(6, dtype=np.float32).reshape(3, 2)
    init = glove_init(vocab, ["ghost", "king", "nonsense"], vectors, seed=1)
    assert init[vocab.index["ghost"]].tolist() == [0, 1] and init[vocab.index["king"]].tolist() == [2, 3]
    assert init.shape == (len(vocab), 2) and init.dtype == np.float32


def test_untrained_encoder_is_the_weighted_mean():
    vocab, model = _encoder()
    weights = vocab.idf + 0.5
    vectors = model.vectors.weight.detach().numpy()
    for text in TEXTS:
        ids = vocab.ids(text)
        mean = (weights[ids, None] * vectors[ids]).sum(0) / weights[ids].sum()
        expected = mean / np.linalg.norm(mean)
        assert np.allclose(encode(model, [np.array(ids)])[0], expected, atol=1e-5)


def test_encoder_unit_vectors_and_empty_text():
    vocab, model = _encoder()
    out = encode(model, vocab.bags(TEXTS + ["zebra"]), batch_size=2)
    assert np.allclose(np.linalg.norm(out[:-1], axis=1), 1, atol=1e-5)
    assert np.all(out[-1] == 0)  # no known word: the zero vector
    flat, offsets = bag_batch([np.array([1, 2]), np.array([], dtype=np.int64), np.array([3])])
    assert flat.tolist() == [1, 2, 3] and offsets.tolist() == [0, 2, 2]


def test_hard_negatives_are_bm25s_best_other_document():
    index = InvertedIndex.from_texts(TEXTS, Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True))
    found = hard_negatives(index, ["the king drinks", "ghost music", "zebra"], [1, 0, 2])
    assert found.tolist() == [-1, 2, -1]  # the king's text is its own source; "music" is text 2
    assert hard_negatives(index, ["ghost music"], [0], allowed=np.array([1, 1, 0, 1], bool)).tolist() == [-1]


def test_training_lowers_the_loss_and_is_seeded():
    rng = np.random.default_rng(0)
    size = 40
    vectors = rng.normal(size=(size, 8)).astype(np.float32)
    queries = [rng.integers(0, size, 3) for _ in range(64)]
    contexts = [np.concatenate([q[:1], rng.integers(0, size, 4)]) for q in queries]
    setup = TrainingSetup(temperature=0.1, epochs=6, batch_size=16, lr=0.05)
    runs = []
    for _ in range(2):
        model = BagEncoder(vectors, np.ones(size))
        history = train_bi_encoder(model, queries, contexts, None, setup, seed=3)
        runs.append(model.vectors.weight.detach().clone())
    assert history.epoch_losses[-1] < history.epoch_losses[0]
    assert torch.equal(runs[0], runs[1])
    with pytest.raises(ValueError, match="negatives"):
        train_bi_encoder(model, queries, contexts, None, TrainingSetup(hard=True, batch_size=16), seed=0)
    with pytest.raises(ValueError, match="temperature"):
        TrainingSetup(temperature=0)


def test_dense_run_is_exact_inner_product_search():
    rng = np.random.default_rng(1)
    docs, queries = rng.normal(size=(30, 5)).astype(np.float32), rng.normal(size=(3, 5)).astype(np.float32)
    run = dense_run(docs, queries, [f"d{i}" for i in range(30)], ["a", "b", "c"], depth=7)
    for qid, q in zip("abc", queries):
        expected = np.argsort(-(docs @ q), kind="stable")[:7]
        assert list(run[qid]) == [f"d{i}" for i in expected]
        assert np.allclose(list(run[qid].values()), (docs @ q)[expected], atol=1e-5)
    with pytest.raises(ValueError, match="docnos"):
        dense_run(docs, queries, ["d0"], ["a", "b", "c"])
