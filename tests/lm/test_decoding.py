"""Greedy, beam, exhaustive search and sampling (mmir_lib.lm.decoding) on toy models and on a Seq2Seq."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.decoding import (beam_search, exhaustive_search, greedy_search, length_normalised,
                                  sample_search)
from mmir_lib.lm.sampling import log_softmax
from mmir_lib.lm.seq2seq import Seq2Seq


class PrefixModel:
    """A toy conditional model: the next word's log-probabilities depend on the whole
    prefix, drawn once per prefix from a seeded generator. The state of a hypothesis is
    its prefix (a row of an object array of tuples)."""

    def __init__(self, vocab_size, seed, sharpness=2.0):
        self.vocab_size, self.bos, self.eos, self.seed, self.sharpness = vocab_size, vocab_size, 0, seed, sharpness

    def log_probs(self, prefix):
        rng = np.random.default_rng([self.seed, len(prefix), *prefix])
        return log_softmax(self.sharpness * rng.normal(size=self.vocab_size))

    def start(self):
        state = np.empty(1, dtype=object)
        state[0] = ()
        return state

    def step(self, tokens, state):
        new = np.empty(len(state), dtype=object)
        for i, (prefix, token) in enumerate(zip(state, tokens)):
            new[i] = prefix if token == self.bos else prefix + (int(token),)
        return np.stack([self.log_probs(p) for p in new]), new


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(1, 4), st.integers(0, 10**6), st.sampled_from([0.0, 0.7, 1.0]))
def test_beam_of_width_v_to_the_l_is_exhaustive_search(vocab_size, max_length, seed, alpha):
    model = PrefixModel(vocab_size, seed)
    beam = beam_search(model, model.start(), vocab_size**max_length, max_length, alpha)
    brute = exhaustive_search(model, model.start(), max_length, alpha)
    assert len(beam) == len(brute)
    assert sorted((h.tokens, h.finished) for h in beam) == sorted((h.tokens, h.finished) for h in brute)
    by_tokens = {(h.tokens, h.finished): h for h in brute}
    for h in beam:
        assert abs(h.log_prob - by_tokens[h.tokens, h.finished].log_prob) < 1e-12
    assert beam[0].tokens == brute[0].tokens and abs(beam[0].score - brute[0].score) < 1e-12


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.integers(1, 8), st.integers(0, 10**6))
def test_greedy_is_beam_of_width_one(vocab_size, max_length, seed):
    model = PrefixModel(vocab_size, seed)
    greedy = greedy_search(model, model.start(), max_length)[0]
    beam = beam_search(model, model.start(), 1, max_length)
    assert len(beam) == 1 and beam[0].tokens == greedy.tokens and beam[0].finished == greedy.finished
    assert abs(beam[0].log_prob - greedy.log_prob) < 1e-12


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.integers(1, 5), st.integers(0, 10**6), st.integers(1, 6))
def test_beam_scores_are_the_models(vocab_size, max_length, seed, width):
    model = PrefixModel(vocab_size, seed)
    for h in beam_search(model, model.start(), width, max_length, alpha=0.7):
        prefix, log_p = (), 0.0
        for w in h.tokens + ((model.eos,) if h.finished else ()):
            log_p += model.log_probs(prefix)[w]
            prefix += (w,)
        assert abs(h.log_prob - log_p) < 1e-12
        assert abs(h.score - length_normalised(h.log_prob, h.length, 0.7)) < 1e-12


def test_wider_beam_never_finds_a_worse_best_on_a_model_that_ends():
    # Not a theorem (beam search is not monotone in B), but the best of B = V^L is the optimum
    model = PrefixModel(3, 5)
    best = exhaustive_search(model, model.start(), 4)[0]
    assert beam_search(model, model.start(), 3**4, 4)[0].log_prob == pytest.approx(best.log_prob, abs=1e-12)
    for width in (1, 2, 5):
        assert beam_search(model, model.start(), width, 4)[0].log_prob <= best.log_prob + 1e-12


def test_sampling_top_k_one_is_greedy_and_temperature_concentrates():
    model = PrefixModel(5, 3)
    greedy = greedy_search(model, model.start(), 6)[0]
    for seed in range(5):
        drawn = sample_search(model, model.start(), 6, np.random.default_rng(seed), top_k=1)
        assert drawn.tokens == greedy.tokens
        cold = sample_search(model, model.start(), 6, np.random.default_rng(seed), temperature=1e-3)
        assert cold.tokens == greedy.tokens
    first_words = {sample_search(model, model.start(), 1, np.random.default_rng(s), top_k=2).tokens[:1]
                   for s in range(60)}
    top_two = set(np.argsort(-model.log_probs(()))[:2].tolist())
    assert {w for t in first_words for w in t} <= top_two


def test_sampling_top_p_draws_only_from_the_nucleus():
    model = PrefixModel(6, 4)
    probs = np.exp(model.log_probs(()))
    order = np.argsort(-probs, kind="stable")
    for top_p in (1e-9, 0.5, 0.9):
        before = np.r_[0.0, np.cumsum(probs[order])[:-1]]
        nucleus = set(order[before < top_p].tolist())           # the smallest head whose mass reaches p
        first_words = {sample_search(model, model.start(), 1, np.random.default_rng(s), top_p=top_p).tokens[:1]
                       for s in range(80)}
        assert {w for t in first_words for w in t} <= nucleus
    greedy = greedy_search(model, model.start(), 6)[0]
    assert sample_search(model, model.start(), 6, np.random.default_rng(0), top_p=1e-9).tokens == greedy.tokens
    with pytest.raises(ValueError, match="top_p"):
        sample_search(model, model.start(), 3, np.random.default_rng(0), top_p=0.0)


def test_guards_on_width_length_and_temperature():
    model = PrefixModel(3, 0)
    with pytest.raises(ValueError, match="beam_width"):
        beam_search(model, model.start(), 0, 3)
    for bad in (0, None, float("inf")):
        with pytest.raises((ValueError, TypeError), match="max_length"):
            beam_search(model, model.start(), 2, bad)
        with pytest.raises((ValueError, TypeError), match="max_length"):
            greedy_search(model, model.start(), bad)
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match="temperature"):
            sample_search(model, model.start(), 3, np.random.default_rng(0), temperature=bad)
    with pytest.raises(ValueError, match="sequences"):
        exhaustive_search(model, model.start(), 40)


def test_a_model_that_never_ends_stops_at_the_limit():
    class Babbler(PrefixModel):
        def log_probs(self, prefix):
            out = np.full(self.vocab_size, np.log(1 / (self.vocab_size - 1)))
            out[self.eos] = -np.inf
            return out

    model = Babbler(3, 0)
    assert not greedy_search(model, model.start(), 7)[0].finished
    beams = beam_search(model, model.start(), 4, 7)
    assert all(len(h.tokens) == 7 and not h.finished for h in beams)
    assert len(sample_search(model, model.start(), 7, np.random.default_rng(0)).tokens) == 7


def test_batched_greedy_on_seq2seq_equals_one_at_a_time():
    model = Seq2Seq(9, 8, embedding_dim=4, hidden=5, attention_dim=3, seed=2)
    sources = [np.array([4, 5, 6]), np.array([7]), np.array([8, 4, 4, 5, 6])]
    together = greedy_search(model, model.start(sources), 6)
    for source, h in zip(sources, together):
        alone = greedy_search(model, model.start(source), 6)[0]
        assert alone.tokens == h.tokens and abs(alone.log_prob - h.log_prob) < 1e-5
        assert beam_search(model, model.start(source), 1, 6)[0].tokens == h.tokens
