"""Tests of mmir_lib.lm.knn_lm and mmir_lib.lm.retrieval: the kNN distribution and its
invariants (hypothesis), the log-space mixture, the keys and losses of the checkpoint
(equal to held_out_losses), exact search's kNN distribution against one from
faiss.IndexFlatL2 on the same keys, the datastore's errors, retrieve-then-read against a
window read by hand, the copying measures against brute force, and the results file of
tools/build_knn_datastore.py: its transformer losses recomputed, and a small index rebuilt
over a slice of the training plays that recomputes the slice of kNN figures it stores."""

import json
import math
from pathlib import Path

import faiss
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.ivfpq import IVFPQ
from mmir_lib.ann.pq import ProductQuantizer
from mmir_lib.chapter import load_tool
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary
from mmir_lib.lm.knn_lm import (Datastore, check_model, hidden_states, knn_distribution, knn_log_prob,
                                mix_log_probs)
from mmir_lib.lm.retrieval import longest_copied_span, ngram_overlap, read_after_passages, word_ngrams
from mmir_lib.lm.transformer import (HELD_OUT_STRIDE, CharTransformer, TransformerConfig, held_out_losses,
                                     load_checkpoint)

ROOT = Path(__file__).resolve().parents[2]
NEWLINE = vocabulary("character").index[BOUNDARY]


def datastore_tool():
    return load_tool("build_knn_datastore")


@pytest.fixture(scope="module")
def model():
    torch.set_num_threads(2)
    return load_checkpoint()


@pytest.fixture(scope="module")
def results():
    with np.load(ROOT / "mmir_lib" / "checkpoints" / "knn_lm_results.npz") as data:
        arrays = {name: data[name] for name in data.files}
    return json.loads(str(arrays.pop("meta"))), arrays


neighbours = st.integers(1, 12).flatmap(lambda k: st.tuples(
    st.lists(st.floats(0, 500, allow_nan=False), min_size=k, max_size=k),
    st.lists(st.integers(0, 4), min_size=k, max_size=k),
    st.floats(0.1, 100), st.floats(-300, 300)))


@given(neighbours)
@settings(max_examples=80, deadline=None)
def test_knn_distribution_sums_to_one_and_ignores_a_shift(case):
    distances, values, tau, shift = case
    d, v = np.array([distances]), np.array([values])
    p = knn_distribution(d, v, 5, tau)
    assert abs(p.sum() - 1) < 1e-12 and (p >= 0).all()
    assert np.allclose(knn_distribution(d + abs(shift), v, 5, tau), p, atol=1e-9)
    assert (p[0, np.setdiff1d(np.arange(5), values)] == 0).all()  # no neighbour, no probability
    for target in range(5):                                          # the target's log probability, without the table
        expected = np.log(p[0, target]) if p[0, target] > 0 else -np.inf
        got = knn_log_prob(d, v, [target], tau)[0]
        assert got == expected or abs(got - expected) < 1e-9


def test_knn_distribution_by_hand():
    p = knn_distribution([[0.0, 1.0, 1.0]], [[2, 3, 2]], 4, 1.0)[0]
    z = 1 + 2 * math.exp(-1)
    assert np.allclose(p, [0, 0, (1 + math.exp(-1)) / z, math.exp(-1) / z], atol=1e-15)
    assert knn_distribution([[0.0, 5.0]], [[1, 2]], 3, 1e-6)[0, 1] == 1.0  # τ → 0: the nearest neighbour's value
    assert np.allclose(knn_distribution([[0.0, 5.0]], [[1, 2]], 3, 1e9)[0], [0, 0.5, 0.5])  # τ → ∞: alike


def test_missing_neighbours_count_for_nothing():
    p = knn_distribution([[1.0, np.inf]], [[2, -1]], 3, 1.0)
    assert p[0].tolist() == [0.0, 0.0, 1.0]
    assert knn_log_prob([[1.0, np.inf]], [[2, -1]], [2], 1.0)[0] == 0.0


@given(st.floats(0, 1), st.lists(st.floats(-800, 0), min_size=2, max_size=2))
@settings(max_examples=60, deadline=None)
def test_mixture_in_log_space(weight, pair):
    knn, lm = np.array([pair[0]]), np.array([pair[1]])
    got = mix_log_probs(np.stack([knn, lm]), [weight, 1 - weight])[0]
    direct = np.logaddexp(np.log(weight) + knn, np.log1p(-weight) + lm) if 0 < weight < 1 else None
    if direct is not None:
        assert abs(got - direct[0]) < 1e-9
    assert min(pair) - 1e-9 <= got <= max(pair) + 1e-9                  # a mixture lies between its parts


def test_mixture_edges_are_exact():
    lm, knn = np.array([-0.3, -2.5, -40.0]), np.array([-np.inf, -1.0, -1000.0])
    assert mix_log_probs(np.stack([knn, lm]), [0.0, 1.0]).tolist() == lm.tolist()   # λ = 0: p_LM exactly
    assert mix_log_probs(np.stack([knn, lm]), [1.0, 0.0]).tolist() == knn.tolist()
    mixed = mix_log_probs(np.stack([knn, lm]), [0.5, 0.5])
    assert abs(mixed[0] - (lm[0] + math.log(0.5))) < 1e-12                             # p_kNN = 0 there
    assert abs(mixed[2] - (-40.0 + math.log(0.5))) < 1e-12                            # no underflow at e^−1000
    with pytest.raises(ValueError, match="sum to 1"):
        mix_log_probs(np.stack([knn, lm]), [0.5, 0.6])
    with pytest.raises(ValueError, match="weights"):
        mix_log_probs(np.stack([knn, lm]), [1.5, -0.5])
    with pytest.raises(ValueError, match="temperature"):
        knn_log_prob([[1.0]], [[1]], [1], 0.0)


def test_keys_and_losses_are_the_models(model):
    ids = corpus_ids("test", "character")[:1_500]
    keys, nats = hidden_states(model, ids, NEWLINE, stride=HELD_OUT_STRIDE)
    assert np.array_equal(nats, held_out_losses(model, ids, start=NEWLINE, stride=HELD_OUT_STRIDE))
    window = torch.from_numpy(np.concatenate([[NEWLINE], ids[:255]]).astype(np.int64))[None]
    with torch.no_grad():
        h = model.embedding(window) + model.position.weight[:256]
        for block in model.blocks[:-1]:
            h = block(h)
        last = model.blocks[-1]
        a = h + last.attention._attend(last.norm1(h), last.norm1(h), last.norm1(h), is_causal=True)
        ffn_input = last.norm2(a)[0].numpy()                 # Khandelwal et al.'s key
        final = model.norm(a + last.feed_forward(last.norm2(a)))[0].numpy()  # what the output layer reads
    assert np.abs(keys[:256] - final).max() < 1e-5
    ffn_keys, ffn_nats = hidden_states(model, ids, NEWLINE, stride=HELD_OUT_STRIDE, layer="ffn_input")
    assert np.abs(ffn_keys[:256] - ffn_input).max() < 1e-5 and np.array_equal(ffn_nats, nats)
    logits = torch.from_numpy(keys[:256]) @ model.embedding.weight.T.detach()
    direct = torch.nn.functional.cross_entropy(logits, torch.from_numpy(ids[:256].astype(np.int64)), reduction="none")
    assert np.abs(direct.numpy() - nats[:256]).max() < 1e-4   # the key alone gives the model's prediction


def test_exact_knn_distribution_equals_faiss(model):
    keys, _ = hidden_states(model, corpus_ids("train", "character")[:10_000], NEWLINE)
    queries, _ = hidden_states(model, corpus_ids("validation", "character")[:600], NEWLINE)
    values = corpus_ids("train", "character")[:10_000]
    store = Datastore(keys, values, model.config.as_dict())
    distances, found = store.search(queries, 16)
    index = faiss.IndexFlatL2(keys.shape[1])
    index.add(keys)
    faiss_d, faiss_ids = index.search(queries, 16)
    ours = knn_distribution(distances, found, len(vocabulary("character")), 8.0)
    theirs = knn_distribution(faiss_d, values[faiss_ids], len(vocabulary("character")), 8.0)
    assert np.abs(ours - theirs).max() < 1e-3                    # the same neighbours, up to float32 ties
    assert np.mean(found == values[faiss_ids]) > 0.99


def test_datastore_refuses_what_does_not_fit(model):
    config = model.config.as_dict()
    keys = np.random.default_rng(0).normal(size=(20, config["width"])).astype(np.float32)
    values = np.arange(20) % config["vocab_size"]
    with pytest.raises(ValueError, match="empty"):
        Datastore(np.zeros((0, config["width"]), dtype=np.float32), np.zeros(0, int), config)
    empty = IVFPQ(keys[:2], ProductQuantizer(np.ones((config["width"] // 8, 4, 8))))
    with pytest.raises(ValueError, match="empty"):
        Datastore(empty, np.zeros(0, int), config)
    with pytest.raises(ValueError, match="width"):
        Datastore(keys[:, :64], values, config)
    store = Datastore(keys, values, config)
    with pytest.raises(ValueError, match="width of the datastore"):
        store.search(keys[:, :64], 3)
    with pytest.raises(ValueError, match="at most the number of keys in the datastore, 20"):
        store.search(keys, 21)
    other = CharTransformer(TransformerConfig(vocab_size=config["vocab_size"], context=64, width=32, layers=1,
                                              heads=2))
    with pytest.raises(ValueError, match="does not match config.*width = 32"):
        store.check_model(other)
    with pytest.raises(ValueError, match="does not match config"):
        check_model(other)
    assert store.check_model(model) is model


def test_retrieve_then_read_reads_the_passage_first(model):
    ids = corpus_ids("test", "character")[:400]
    passages = np.tile(corpus_ids("train", "character")[:128], (7, 1))
    losses = read_after_passages(model, ids, NEWLINE, 64, passages, 128)
    stream = np.concatenate([[NEWLINE], ids])
    window = np.concatenate([passages[3], stream[256 - 128:256]])  # block 3: targets ids[192:256]
    with torch.no_grad():
        logits = model(torch.from_numpy(window.astype(np.int64))[None])[0, -64:]
    direct = torch.nn.functional.cross_entropy(logits, torch.from_numpy(stream[193:257].astype(np.int64)),
                                               reduction="none").numpy()
    assert np.abs(direct - losses[192:256]).max() < 1e-5
    short = read_after_passages(model, ids[:300], NEWLINE, 64, None, 128)  # no passage: the own text alone
    with torch.no_grad():
        logits = model(torch.from_numpy(stream[:64].astype(np.int64))[None])[0]
    first = torch.nn.functional.cross_entropy(logits, torch.from_numpy(stream[1:65].astype(np.int64)),
                                              reduction="none").numpy()
    assert np.abs(first - short[:64]).max() < 1e-5


@given(st.text("ab ", max_size=12), st.text("ab ", max_size=30))
@settings(max_examples=100, deadline=None)
def test_longest_copied_span_is_brute_force(sample, source):
    length, at = longest_copied_span(sample, source)
    brute = max([j - i for i in range(len(sample)) for j in range(i, len(sample) + 1) if sample[i:j] in source],
                default=0)
    assert length == brute and sample[at:at + length] in source


def test_ngram_overlap():
    source = word_ngrams("to be or not to be".split(), 2)
    assert source == {("to", "be"), ("be", "or"), ("or", "not"), ("not", "to")}
    assert ngram_overlap("to be or to be".split(), source, 2) == 0.75
    with pytest.raises(ValueError, match="words must hold at least n = 2"):
        ngram_overlap(["to"], source, 2)


def test_stored_results_recomputed(model, results):
    meta, arrays = results
    test = corpus_ids("test", "character")
    # the first 2,900 characters are scored by the same windows in a slice of 3,000 as in the whole text
    lm = held_out_losses(model, test[:3_000], start=NEWLINE, stride=HELD_OUT_STRIDE)[:2_900]
    stored = -arrays["test_lm"][:2_900].astype(np.float64)
    assert np.abs(stored - lm).max() < 5e-3 * max(1.0, lm.max())  # float16 storage
    assert abs(stored.mean() - lm.mean()) < 1e-3
    # a small index rebuilt over a slice of the training plays recomputes the slice figures the file stores
    tool = datastore_tool()
    knn = tool.slice_figures(model, meta["k"], meta["temperature"])
    kept = arrays["slice_knn"].astype(np.float64)
    assert knn.shape == kept.shape
    finite = np.isfinite(kept) & np.isfinite(knn)
    assert np.mean(np.isfinite(kept) == np.isfinite(knn)) > 0.99
    assert np.abs(knn[finite] - kept[finite]).mean() < 0.02
    assert abs(-np.log2(np.exp(knn[finite])).mean() - (-np.log2(np.exp(kept[finite]))).mean()) < 0.01
