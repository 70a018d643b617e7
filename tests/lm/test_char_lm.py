"""Tests of mmir_lib.lm.char_lm: truncated-BPTT batches, the carried state, the held-out
losses read in parts against one pass, sampling through generate (re-reading the window
or carrying the state), the three cells, and the checkpoint's held-out bits per character."""

from importlib.resources import files

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.char_lm import CarriedStateLoss, CharLSTM, CharRNN, load_checkpoint, tbptt_batches
from mmir_lib.lm.sampling import generate, greedy_decode
from mmir_lib.training import train

V = 7


def one_pass_losses(model, ids, pad=1):
    """−ln P of every id, reading the whole stream in one pass from the zero state after one pad."""
    inputs = torch.from_numpy(np.concatenate([[pad], ids[:-1]]))[None]
    with torch.no_grad():
        logits, _ = model(inputs)
    return F.cross_entropy(logits[0].double(), torch.from_numpy(ids), reduction="none").numpy()


@given(st.integers(1, 6), st.integers(1, 9), st.integers(0, 100), st.integers(0, 5))
@settings(max_examples=30, deadline=None)
def test_tbptt_windows_are_consecutive_text(batch_size, context, extra, epoch):
    ids = np.arange(batch_size * (2 * context + 2) + context + extra) % 1000
    windows = list(tbptt_batches(ids, batch_size, context, seed=3)(epoch))
    assert windows and windows[0][1] and not any(first for _, first in windows[1:])
    for j, (window, _) in enumerate(windows):
        assert window.shape == (batch_size, context + 1) and window.dtype == torch.int64
        for row in window.numpy():   # each row a stretch of the text
            assert np.all(np.diff(row) == 1) or np.all(np.diff(row) % 1000 == 1)
        if j:                        # the next window starts where the last one ended
            assert torch.equal(window[:, 0], windows[j - 1][0][:, -1])


def test_carried_state_is_what_one_long_pass_gives():
    model = CharLSTM(V, 4, embedding=3, hidden=5).double()
    ids = np.random.default_rng(0).integers(0, V, 4 * 9 + 4)
    windows = list(tbptt_batches(ids, 1, 4, seed=0)(1))
    loss_fn, losses = CarriedStateLoss(), []
    with torch.no_grad():
        for window in windows:
            losses.append(float(loss_fn(model, window)))
        stream = torch.cat([windows[0][0][0]] + [w[0][0, 1:] for w in windows[1:]])
        logits, _ = model(stream[None, :-1])
        whole = F.cross_entropy(logits[0], stream[1:], reduction="none").reshape(len(windows), 4).mean(1)
    assert np.allclose(losses, whole.numpy(), atol=1e-12)


@pytest.mark.parametrize("parts, warmup", [(1, 0), (3, 20), (5, 7), (4, 0)])
def test_log_loss_reads_each_part_from_its_warmup(parts, warmup):
    model = CharLSTM(V, 4, embedding=3, hidden=6).double()
    ids = np.random.default_rng(1).integers(0, V, 101)
    ours = model.log_loss(ids, pad=1, parts=parts, warmup=warmup, block=13)
    assert ours.shape == (101,)
    if parts == 1 and warmup == 0:
        assert np.allclose(ours, one_pass_losses(model, ids), atol=1e-12)
    size = -(-101 // parts)
    stream = np.concatenate([np.ones(warmup + 1, dtype=np.int64), ids])   # pads before the text
    for k in range(parts):   # part k: from the zero state, warmup ids before its first, then its own
        first, last = k * size, min(101, (k + 1) * size)
        inputs = torch.from_numpy(stream[first:last + warmup])[None]
        with torch.no_grad():
            logits, _ = model(inputs)
        expected = F.cross_entropy(logits[0, warmup:].double(), torch.from_numpy(ids[first:last]), reduction="none")
        assert np.allclose(ours[first:last], expected.numpy(), atol=1e-12)


def test_training_lowers_the_loss_and_generate_samples():
    ids = np.tile(np.array([2, 3, 4, 1, 5, 6]), 300)      # a periodic text the model can learn
    model = CharLSTM(V, 8, embedding=4, hidden=16)
    history = train(model, CarriedStateLoss(), tbptt_batches(ids, 4, 8, max_batches=40),
                    torch.optim.Adam(model.parameters(), lr=0.05), 3, clip_norm=1.0, expect_decrease=True)
    assert history.epoch_losses[-1] < 0.5
    sample = generate(model, np.array([2, 3]), 12, np.random.default_rng(0), temperature=0.5)
    assert len(sample) == 12 and set(sample) <= set(range(V))
    assert model.next_distribution(np.array([], dtype=np.int64)).sum() == pytest.approx(1.0)


@given(st.sampled_from(["lstm", "gru", "rnn"]), st.lists(st.integers(0, V - 1), max_size=5),
       st.lists(st.integers(0, V - 1), max_size=5), st.integers(0, 3))
@settings(max_examples=30, deadline=None)
def test_carried_state_gives_the_distributions_of_the_whole_context(cell, prompt, sent, seed):
    """While the newline, prompt and sent ids fit the context, carrying the state (one step
    per id, float32) gives next_distribution's answer on the whole context to 1e-6."""
    model = CharRNN(V, 10, cell, embedding=3, hidden=8, layers=2, seed=seed)
    carried = model.next_distributions(np.array(prompt, dtype=np.int64))
    p = next(carried)
    for k, symbol in enumerate(sent):
        np.testing.assert_allclose(p, model.next_distribution(np.array(prompt + sent[:k], dtype=np.int64)),
                                   atol=1e-6)
        p = carried.send(symbol)
    np.testing.assert_allclose(p, model.next_distribution(np.array(prompt + sent, dtype=np.int64)), atol=1e-6)
    assert p.dtype == np.float64 and p.sum() == pytest.approx(1.0)


def test_carried_state_reads_past_the_context():
    """A prompt longer than the context is refused by next_distribution, not by the carried
    state; its distribution is that of one pass over newline + prompt (torch, float64)."""
    model = CharLSTM(V, 4, embedding=3, hidden=5).double()
    prompt = np.random.default_rng(2).integers(0, V, 30)
    with pytest.raises(ValueError, match="context"):
        model.next_distribution(prompt)
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(np.concatenate([[1], prompt]))[None])
    np.testing.assert_allclose(next(model.next_distributions(prompt)), torch.softmax(logits[0, -1], -1).numpy(),
                               atol=1e-12)


@pytest.mark.parametrize("cell", ["lstm", "gru", "rnn"])
def test_generate_carrying_the_state(cell):
    model = CharRNN(V, 40, cell, embedding=3, hidden=8, seed=1).double()
    prompt = np.array([2, 3, 4])
    a = generate(model, prompt, 30, np.random.default_rng(5), temperature=0.7, carry_state=True)
    b = generate(model, prompt, 30, np.random.default_rng(5), temperature=0.7, carry_state=True)
    windowed = generate(model, prompt, 30, np.random.default_rng(5), temperature=0.7)
    assert np.array_equal(a, b) and len(a) == 30          # same seed, same text
    assert np.array_equal(a, windowed)                    # 1 + 3 + 30 ids fit the context of 40: the same draws
    assert np.array_equal(greedy_decode(model, prompt, 30, carry_state=True), greedy_decode(model, prompt, 30))
    stopped = generate(model, prompt, 30, np.random.default_rng(5), temperature=0.7, stop=int(a[3]),
                       carry_state=True)
    assert np.array_equal(stopped, a[:list(a).index(a[3]) + 1])
    never = generate(model, prompt, 200, np.random.default_rng(5), exclude=[0, 1], carry_state=True)
    assert len(never) == 200 and not np.isin(never, [0, 1]).any()   # 200 > context: the state goes on


@pytest.mark.parametrize("cell, gates", [("rnn", 1), ("gru", 3), ("lstm", 4)])
def test_cells_and_their_parameter_counts(cell, gates):
    model = CharRNN(V, 4, cell, embedding=3, hidden=5)
    assert sum(p.numel() for p in model.parameters()) == V * 3 + gates * (5 * (3 + 5) + 2 * 5) + 5 * V + V
    history = train(model, CarriedStateLoss(), tbptt_batches(np.tile(np.arange(V), 40), 2, 4, max_batches=5),
                    torch.optim.Adam(model.parameters(), lr=0.01), 2)
    assert len(history.step_losses) == 10 and np.isfinite(history.step_losses).all()


@pytest.mark.parametrize("call, match", [
    (lambda m: m.next_distribution(np.zeros(9, dtype=np.int64)), "context"),
    (lambda m: m.log_loss(np.array([], dtype=np.int64)), "ids"),
    (lambda m: m.log_loss(np.array([1, 2]), parts=3), "parts"),
    (lambda m: generate(m, np.array([1]), 0, np.random.default_rng(0)), "length"),
    (lambda m: generate(m, np.array([1]), 5, np.random.default_rng(0), temperature=0.0), "temperature"),
    (lambda m: generate(m, np.array([1]), 5, np.random.default_rng(0), temperature=-1.0), "temperature"),
    (lambda m: tbptt_batches(np.arange(10), 2, 8), "ids"),
    (lambda m: tbptt_batches(np.arange(100), 2, 0), "context"),
    (lambda m: CarriedStateLoss()(m, torch.zeros(2, 3)), "batch"),
    (lambda m: m.next_distributions(np.array([1, V])), "prompt"),
    (lambda m: m.next_distributions(np.array([1.5])), "prompt"),
    (lambda m: m.next_distributions(np.array([1]), pad=-1), "pad"),
    (lambda m: (g := m.next_distributions(np.array([1]))) is not None and next(g) is not None and g.send(V),
     "symbol"),
    (lambda m: generate(m, np.array([1]), 5, np.random.default_rng(0), carry_state=1), "carry_state"),
    (lambda m: generate(m, np.array([1]), 0, np.random.default_rng(0), carry_state=True), "length"),
    (lambda m: generate(m, np.array([1]), 5, "seed", carry_state=True), "rng"),
    (lambda m: generate(m, np.array([1]), 5, np.random.default_rng(0), temperature=0.0, carry_state=True),
     "temperature"),
    (lambda m: CharRNN(V, 4, "transformer"), "cell"),
])
def test_bad_input(call, match):
    model = CharLSTM(V, 8, embedding=2, hidden=3)
    with pytest.raises((ValueError, TypeError), match=match):
        call(model)


@pytest.mark.skipif(not files("mmir_lib").joinpath("checkpoints/char_lstm.pt").is_file(), reason="no checkpoint")
def test_checkpoint_held_out_bits_per_character():
    from mmir_lib.lm.corpus import corpus_ids
    from mmir_lib.lm.heldout import held_out_result

    model = load_checkpoint()
    row = held_out_result("LSTM", "character", model.log_loss(corpus_ids("test", "character"), pad=1))
    assert round(row.bits_per_char, 2) == CHECKPOINT_TEST_BPC


#: The test bits per character the chapter quotes for the checkpoint (2 decimals).
CHECKPOINT_TEST_BPC = 2.13


@pytest.mark.skipif(not files("mmir_lib").joinpath("checkpoints/char_lstm.pt").is_file(), reason="no checkpoint")
def test_reading_in_parts_costs_the_checkpoint_almost_nothing():
    """The chapter's parts with a warm-up against one pass over 20,000 test characters."""
    from mmir_lib.lm.corpus import corpus_ids

    model, ids = load_checkpoint(), corpus_ids("test", "character")[:20_000]
    one_pass, in_parts = model.log_loss(ids, parts=1, warmup=0), model.log_loss(ids)
    assert abs(one_pass.mean() - in_parts.mean()) / np.log(2) < 1e-3
