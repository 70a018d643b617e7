"""Tests of mmir_lib.lm.char_lm: truncated-BPTT batches, the carried state, the held-out
losses read in parts against one pass, sampling through generate, and the checkpoint's
held-out bits per character."""

from importlib.resources import files

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.char_lm import CarriedStateLoss, CharLSTM, load_checkpoint, tbptt_batches
from mmir_lib.lm.sampling import generate
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
