"""The encoder-decoder with Bahdanau attention (mmir_lib.lm.seq2seq)."""

import numpy as np
import pytest
import torch

from mmir_lib.lm.seq2seq import Seq2Seq, load_models, pad_batch, seq2seq_loss, sequence_log_probs, translation_batches
from mmir_lib.training import save_atomically, train


def model64():
    return Seq2Seq(10, 9, embedding_dim=4, hidden=6, attention_dim=5, seed=1).double()


def test_attention_is_a_distribution_that_ignores_padding():
    model = model64()
    source, lengths = pad_batch([np.array([4, 5, 6, 7]), np.array([8, 9])], model.pad)
    _, weights = model(source, lengths, torch.tensor([[2, 4, 5], [2, 6, 6]]))
    assert torch.allclose(weights.sum(-1), torch.ones(2, 3, dtype=torch.float64), atol=1e-12)
    assert (weights[1, :, 2:] == 0).all()


def test_padding_does_not_change_a_sentence():
    model = model64()
    target = torch.tensor([[2, 4, 5]])
    alone, _ = model(torch.tensor([[8, 9]]), torch.tensor([2]), target)
    source, lengths = pad_batch([np.array([8, 9]), np.array([4, 5, 6, 7, 4])], model.pad)
    together, _ = model(source, lengths, torch.tensor([[2, 4, 5], [2, 4, 5]]))
    assert torch.allclose(alone[0], together[0], atol=1e-12)


def test_attention_by_its_formula():
    model = model64()
    source, lengths = torch.tensor([[4, 5, 6]]), torch.tensor([3])
    s0, annotations, keys, mask = model.encode(source, lengths)
    context, weights = model.attend(s0, annotations, keys, mask)
    W_s, b = model.attention_query.weight, model.attention_query.bias
    W_a, v = model.attention_key.weight, model.attention_v.weight[0]
    energies = torch.stack([v @ torch.tanh(W_s @ s0[0] + b + W_a @ annotations[0, j]) for j in range(3)])
    alpha = torch.exp(energies) / torch.exp(energies).sum()
    assert torch.allclose(weights[0], alpha, atol=1e-12)
    assert torch.allclose(context[0], (alpha[:, None] * annotations[0]).sum(0), atol=1e-12)


def test_step_matches_teacher_forcing():
    model = model64()
    source = np.array([4, 5, 6])
    logits, _ = model(torch.from_numpy(source[None]), torch.tensor([3]), torch.tensor([[2, 7, 8]]))
    state = model.start(source)
    for t, previous in enumerate([2, 7, 8]):
        log_probs, state = model.step(np.array([previous]), state)
        assert np.allclose(log_probs[0], torch.log_softmax(logits[0, t], 0).detach().numpy(), atol=1e-12)


def test_learns_to_copy_reversed_sequences():
    rng = np.random.default_rng(0)
    sources = [rng.integers(4, 9, size=rng.integers(2, 5)) for _ in range(300)]
    targets = [s[::-1] for s in sources]
    model = Seq2Seq(9, 9, embedding_dim=8, hidden=16, attention_dim=16, seed=0)
    history = train(model, seq2seq_loss, translation_batches(sources, targets, 32),
                    torch.optim.Adam(model.parameters(), lr=0.02), epochs=15, expect_decrease=True)
    assert history.epoch_losses[-1] < 0.3 * history.epoch_losses[0]


def test_without_attention_the_context_is_the_final_states_at_every_step():
    plain = Seq2Seq(10, 9, embedding_dim=4, hidden=6, attention_dim=5, attention=False, seed=1).double()
    source, lengths = pad_batch([np.array([4, 5, 6, 7]), np.array([8, 9])], plain.pad)
    s0, annotations, keys, mask = plain.encode(source, lengths)
    encoded, _ = plain.encoder(plain.source_embedding(torch.tensor([[8, 9]])))
    final = torch.cat([encoded[0, -1, :6], encoded[0, 0, 6:]])              # [a→⁽ᵀˣ⁾; a←⁽¹⁾] of the short sentence
    assert torch.allclose(annotations[1, 0], final, atol=1e-12) and annotations.shape == (2, 1, 12)
    context, weights = plain.attend(s0, annotations, keys, mask)
    assert torch.equal(context, annotations[:, 0]) and (weights == 1).all()
    logits, weights = plain(source, lengths, torch.tensor([[2, 4, 5], [2, 6, 6]]))
    assert logits.shape == (2, 3, 9) and weights.shape == (2, 3, 1)
    attention = sum(p.numel() for p in model64().parameters()) - sum(p.numel() for p in plain.parameters())
    assert attention == 6 * 5 + 5 + 12 * 5 + 5                              # W_s, b, W_a, v: all it drops
    state = plain.start(np.array([8, 9]))
    for t, previous in enumerate([2, 6, 6]):
        log_probs, state = plain.step(np.array([previous]), state)
        assert np.allclose(log_probs[0], torch.log_softmax(logits[1, t], 0).detach().numpy(), atol=1e-12)


def test_the_committed_snapshots_score_what_their_log_says():
    # tools/train_seq2seq_snapshots.py saved them; chapter V.5 quotes their greedy exact match on the test numbers
    from mmir_lib.chapter import load_tool
    from mmir_lib.lm.number_words import number_pairs, number_vocabularies

    script = load_tool("train_seq2seq_snapshots")
    models, log, settings = script.load_snapshots()
    assert sorted(models) == sorted([(True, s) for s in script.ATTENTION_SEEDS] + [(False, s) for s in script.FIXED_SEEDS])
    english, french = number_vocabularies()
    test_pairs = number_pairs("test")
    exact = {}
    for (attention, seed), model in models.items():
        name = f"{'attention' if attention else 'fixed'}-{seed}"
        assert len(log[name]["step_losses"]) == settings["steps"] == script.STEPS
        exact[attention, seed] = script.greedy_exact(model, english, french, test_pairs)
        assert abs(exact[attention, seed] - log[name]["test_exact"]) <= 0.3   # another CPU may flip a near-tie
    assert max(v for (a, _), v in exact.items() if not a) < min(v for (a, _), v in exact.items() if a)


def test_sequence_log_probs_equal_the_sum_of_the_decoders_steps():
    model = model64()
    rng = np.random.default_rng(3)
    sources = [rng.integers(4, 10, n) for n in (3, 5, 2)]
    targets = [rng.integers(4, 9, n) for n in (4, 0, 2)]            # an empty target: only P(</s> | x)
    stepwise = []
    for x, y in zip(sources, targets):
        state, previous, total = model.start(x), model.bos, 0.0
        for word in [*y, model.eos]:
            log_probs, state = model.step(np.array([previous]), state)
            total, previous = total + log_probs[0, word], word
        stepwise.append(total)
    got = sequence_log_probs(model, sources, targets)
    assert got.shape == (3,) and got.dtype == np.float64
    assert np.allclose(got, stepwise, rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="targets must hold one sentence per source"):
        sequence_log_probs(model, sources, targets[:2])


def test_load_models_rebuilds_what_a_script_saved(tmp_path):
    trained = {name: Seq2Seq(9, 8, embedding_dim=4, hidden=5, attention_dim=3, seed=seed)
               for seed, name in enumerate(["a", "b"])}
    path = save_atomically({"models": {n: m.state_dict() for n, m in trained.items()}, "log": {"a": 1},
                            "settings": {"hidden": 5}}, tmp_path / "models.pt")
    models, log, settings = load_models(path, lambda name: Seq2Seq(9, 8, embedding_dim=4, hidden=5, attention_dim=3))
    assert sorted(models) == ["a", "b"] and log == {"a": 1} and settings == {"hidden": 5}
    for name, model in models.items():
        assert not model.training
        assert all(torch.equal(p, q) for p, q in zip(model.parameters(), trained[name].parameters()))
    with pytest.raises(TypeError, match=r"build\('a'\) must be a Seq2Seq"):
        load_models(path, lambda name: torch.nn.Linear(2, 2))
