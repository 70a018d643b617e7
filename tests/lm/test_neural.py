"""Tests of mmir_lib.lm.neural: parameter counts, gradients in float64, and the bigram
network learning a known table."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.func import functional_call

from mmir_lib.lm.neural import (BigramLM, NeuralNGram, count_loss, next_symbol_loss, ngram_table_size,
                                parameter_count, window_batches)
from mmir_lib.lm.ngram import MLE, count_ngrams
from mmir_lib.lm.sampling import softmax
from mmir_lib.training import train

#: A known 4-state Markov chain (rows: previous symbol; one transition impossible).
TABLE = np.array([[0.1, 0.6, 0.3, 0.0],
                  [0.5, 0.1, 0.2, 0.2],
                  [0.25, 0.25, 0.25, 0.25],
                  [0.7, 0.1, 0.1, 0.1]])


def markov_text(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    ids = np.zeros(n, dtype=np.int64)
    u = rng.random(n)
    cumulative = np.cumsum(TABLE, axis=1)
    for t in range(1, n):
        ids[t] = min(np.searchsorted(cumulative[ids[t - 1]], u[t], side="right"), 3)
    return ids


def pair_counts(ids: np.ndarray, vocab_size: int) -> np.ndarray:
    return np.bincount(ids[:-1] * vocab_size + ids[1:], minlength=vocab_size**2).reshape(vocab_size, vocab_size)


@given(st.integers(1, 40), st.integers(2, 6), st.integers(1, 8), st.integers(1, 16))
@settings(max_examples=25, deadline=None)
def test_parameter_count_is_bengio_formula(vocab_size, order, dim, hidden):
    model = NeuralNGram(vocab_size, order, dim, hidden)
    expected = vocab_size * dim + (order - 1) * dim * hidden + hidden + hidden * vocab_size + vocab_size
    assert parameter_count(model) == expected
    assert parameter_count(BigramLM(vocab_size)) == vocab_size**2


def test_ngram_table_size():
    assert ngram_table_size(77, 2) == 77 * 76
    assert ngram_table_size(15929, 3) == 15929**2 * 15928  # exact, beyond float precision
    assert ngram_table_size(5, 1) == 4


def test_same_seed_same_model_and_global_generator_untouched():
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a, b = NeuralNGram(10, 3, 4, 5, seed=7), NeuralNGram(10, 3, 4, 5, seed=7)
    assert torch.rand(1).item() == before.item()
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))
    c = NeuralNGram(10, 3, 4, 5, seed=8)
    assert not torch.equal(a.embedding.weight, c.embedding.weight)


def test_forward_is_the_formula():
    model = NeuralNGram(7, 4, 3, 5, seed=1)
    context = torch.tensor([[1, 2, 3], [6, 0, 0]])
    x = torch.cat([model.embedding.weight[context[:, i]] for i in range(3)], dim=1)
    a = torch.tanh(x @ model.hidden.weight.T + model.hidden.bias)
    expected = a @ model.output.weight.T + model.output.bias
    torch.testing.assert_close(model(context), expected)


@pytest.mark.parametrize("model", [NeuralNGram(6, 3, 3, 4, seed=2).double(), BigramLM(6).double()],
                         ids=["bengio", "bigram"])
def test_gradcheck_float64(model):
    rng = np.random.default_rng(0)
    batch = torch.from_numpy(rng.integers(0, 6, size=(9, model.order)))
    names = [name for name, _ in model.named_parameters()]
    params = tuple((p.detach() + 0.1 * torch.randn_like(p)).requires_grad_() for p in model.parameters())

    def loss(*values):
        logits = functional_call(model, dict(zip(names, values)), (batch[:, :-1],))
        return F.cross_entropy(logits, batch[:, -1])

    assert torch.autograd.gradcheck(loss, params, eps=1e-6, atol=1e-7)


def test_bigram_gradient_is_probability_minus_mle():
    """∂L/∂Ŵ_cw = (N_c/N) (P_θ[w|c] − P̂[w|c]), for the count loss."""
    counts = torch.tensor(pair_counts(markov_text(2000), 4), dtype=torch.float64)
    model = BigramLM(4).double()
    with torch.no_grad():
        model.logits.normal_(generator=torch.Generator().manual_seed(0))
    count_loss(model, counts).backward()
    n_c = counts.sum(1, keepdim=True)
    expected = n_c / counts.sum() * (torch.softmax(model.logits.detach(), 1) - counts / n_c)
    torch.testing.assert_close(model.logits.grad, expected)


def test_count_loss_equals_text_loss():
    ids = markov_text(3000)
    model = BigramLM(4).double()
    with torch.no_grad():
        model.logits.normal_(generator=torch.Generator().manual_seed(1))
    counts = torch.tensor(pair_counts(ids, 4), dtype=torch.float64)
    text = next_symbol_loss(model, torch.from_numpy(np.stack([ids[:-1], ids[1:]], axis=1)))
    assert count_loss(model, counts).item() == pytest.approx(text.item(), rel=1e-12)
    assert model.log_loss(ids[1:], pad=int(ids[0])).mean() == pytest.approx(text.item(), rel=1e-12)


def test_bigram_learns_the_mle_table():
    """Full-batch gradient descent on the count loss: the excess loss over the MLE table is
    the count-weighted KL divergence, and it goes to 0. The table has a 0, which softmax
    reaches only as its logit goes to −∞, so the gap shrinks slowly: below 1e-3 nats
    after 400 Adam steps (2.0e-4 measured), every probability within 0.01 of the MLE."""
    ids = markov_text(20_000)
    counts = pair_counts(ids, 4)
    mle = counts / counts.sum(1, keepdims=True)
    model = BigramLM(4)
    c = torch.tensor(counts, dtype=torch.float32)
    history = train(model, count_loss, [c], torch.optim.Adam(model.parameters(), lr=0.1), 400,
                    expect_decrease=True)
    learned = softmax(model.logits.detach().double().numpy())
    weights = counts.sum(1) / counts.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(mle > 0, mle * np.log(mle / learned), 0.0).sum(1)
    mle_loss = -np.sum(counts[mle > 0] * np.log(mle[mle > 0])) / counts.sum()
    final = count_loss(model, c.double()).item()
    assert final - mle_loss == pytest.approx(np.sum(weights * kl), abs=1e-6)
    assert final - mle_loss < 1e-3
    assert np.abs(learned - mle).max() < 0.01
    assert np.abs(learned - TABLE).max() < 0.03  # and the MLE is near the true table
    assert history.epoch_losses[-1] < history.epoch_losses[0]


def test_bengio_bigram_learns_the_table_from_windows():
    ids = markov_text(20_000, seed=1)
    model = NeuralNGram(4, 2, dim=4, hidden=16, seed=0)
    train(model, next_symbol_loss, window_batches(ids, 2, 2048, seed=0),
          torch.optim.Adam(model.parameters(), lr=0.01), 20, expect_decrease=True)
    learned = np.stack([model.next_distribution(np.array([c])) for c in range(4)])
    mle = MLE(count_ngrams(ids, 2, 4), order=2)
    table = np.stack([mle.next_distribution(np.array([c])) for c in range(4)])
    assert np.abs(learned - table).max() < 0.03


def test_next_distribution_and_log_loss_agree():
    model = NeuralNGram(9, 3, 4, 8, seed=3)
    ids = np.array([1, 4, 2, 8, 0, 3, 3, 5])
    losses = model.log_loss(ids, pad=1)
    padded = np.concatenate([[1, 1], ids])
    expected = [-np.log(model.next_distribution(padded[t:t + 2])[padded[t + 2]]) for t in range(len(ids))]
    np.testing.assert_allclose(losses, expected, rtol=1e-6)
    p = model.next_distribution(np.array([5, 1, 2]))  # only the last two are read
    np.testing.assert_allclose(p, model.next_distribution(np.array([1, 2])))
    assert p.sum() == pytest.approx(1.0) and p.dtype == np.float64
    with torch.no_grad():
        np.testing.assert_allclose(p, torch.softmax(model(torch.tensor([[1, 2]])).double(), 1)[0].numpy())
    assert len(model.log_loss(ids)) == len(ids) - 2


def test_window_batches_cover_every_window_once_and_repeat():
    ids = np.arange(50) % 7
    batches = window_batches(ids, 3, 8, pad=0, seed=5)
    epoch1 = torch.cat(list(batches(1)))
    assert epoch1.shape == (50, 3)
    windows = np.lib.stride_tricks.sliding_window_view(np.concatenate([[0, 0], ids]), 3)
    assert sorted(map(tuple, epoch1.tolist())) == sorted(map(tuple, windows.tolist()))
    assert torch.equal(epoch1, torch.cat(list(batches(1))))
    assert not torch.equal(epoch1, torch.cat(list(batches(2))))
    assert len(list(window_batches(ids, 3, 8, max_batches=2)(1))) == 2


def test_bad_inputs():
    model = NeuralNGram(5, 3, 2, 3)
    with pytest.raises(ValueError, match="order - 1"):
        model.next_distribution(np.array([1]))
    with pytest.raises(ValueError, match="ids"):
        model.log_loss(np.array([1, 7]))
    with pytest.raises(TypeError, match="batch"):
        next_symbol_loss(model, torch.zeros(4, 2, dtype=torch.int64))
    with pytest.raises(ValueError, match="batch"):
        next_symbol_loss(model, torch.full((4, 3), 5))
    with pytest.raises(TypeError, match="counts"):
        count_loss(BigramLM(3), torch.ones(2, 2))
    with pytest.raises(ValueError, match="counts"):
        count_loss(BigramLM(2), torch.zeros(2, 2))
    with pytest.raises(TypeError, match="model"):
        count_loss(model, torch.ones(5, 5))
