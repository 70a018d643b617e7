"""Softmax with temperature (equal to torch.softmax, stable for large logits, with the
right limits as T → 0 and T → ∞), sampling with a numpy Generator, top-k and top-p
truncation (properties, and against a torch reference written as Hugging Face's logits
warpers are), greedy and sampled generation."""

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.lm.information import entropy
from mmir_lib.lm.ngram import MLE, KneserNey, count_ngrams
from mmir_lib.lm.sampling import generate, greedy_decode, log_softmax, sample, softmax, truncate

RNG = np.random.default_rng(0)
logit_rows = arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(2, 8)), elements=st.floats(-50, 50))
# logits a whole number apart: the limit T → 0 shows at T = 1e-6 (near-ties need a smaller T)
integer_logit_rows = arrays(np.float64, st.tuples(st.integers(1, 3), st.integers(2, 8)), elements=st.integers(-50, 50))


@pytest.mark.parametrize("temperature", [0.1, 0.5, 1.0, 2.0, 10.0])
def test_equal_to_torch(temperature):
    logits = RNG.normal(scale=5.0, size=(6, 11))
    expected = torch.softmax(torch.from_numpy(logits) / temperature, dim=-1).numpy()
    np.testing.assert_allclose(softmax(logits, temperature), expected, rtol=1e-12, atol=1e-15)
    expected_log = torch.log_softmax(torch.from_numpy(logits) / temperature, dim=-1).numpy()
    np.testing.assert_allclose(log_softmax(logits, temperature), expected_log, rtol=1e-12, atol=1e-12)


def test_stable_for_large_logits():
    logits = np.array([[1e4, 1e4 - 1.0, -1e4], [-1e4, -1e4 - 2.0, -1e4 - 2.0], [800.0, 0.0, -np.inf]])
    p = softmax(logits)
    assert np.isfinite(p).all() and np.allclose(p.sum(axis=1), 1.0)
    np.testing.assert_allclose(p, torch.softmax(torch.from_numpy(logits), dim=-1).numpy(), atol=1e-15)
    np.testing.assert_allclose(log_softmax(logits)[0, :2], [np.log(p[0, 0]), np.log(p[0, 1])], rtol=1e-12)
    assert log_softmax(logits)[0, 2] == pytest.approx(-2e4 - np.log1p(np.exp(-1.0)), rel=1e-12)  # p itself is 0.0
    assert p[2, 2] == 0.0  # -inf masks a symbol


@given(logit_rows)
def test_rows_are_distributions_and_shifts_do_not_matter(logits):
    p = softmax(logits)
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(softmax(logits + 123.0), p, atol=1e-12)


@given(integer_logit_rows)
def test_temperature_limits(logits):
    cold, hot = softmax(logits, 1e-6), softmax(logits, 1e9)
    for row, p in zip(logits, cold):  # all the mass on the largest logit(s)
        winners = row == row.max()
        assert p[winners].sum() == pytest.approx(1.0) and np.allclose(p[winners], 1 / winners.sum())
    np.testing.assert_allclose(hot, 1 / logits.shape[1], atol=1e-6)


def test_entropy_rises_with_temperature():
    logits = RNG.normal(size=20)
    entropies = [entropy(softmax(logits, t)) for t in (0.1, 0.3, 1.0, 3.0, 10.0, 100.0)]
    assert np.all(np.diff(entropies) > 0) and entropies[-1] < np.log2(20)


def test_sampling_follows_the_distribution():
    probs = np.array([0.5, 0.0, 0.2, 0.3])
    rng = np.random.default_rng(1)
    draws = np.array([sample(probs, rng) for _ in range(20_000)])
    frequencies = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(frequencies, probs, atol=0.015)
    assert frequencies[1] == 0.0  # never a symbol of probability 0
    rows = sample(np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]), rng)
    assert rows.tolist() == [1, 2]


TEXT = np.array([1, 2, 3, 2, 3, 4, 1, 2, 3, 2, 5, 1, 2, 3, 4])
COUNTS = count_ngrams(TEXT, 2, 6)


def test_greedy_follows_the_most_probable_path_and_stops():
    # MLE bigram: after 1 comes 2; after 2, 3 (4 times out of 5); after 3, 2 or 4 (tie: smaller id)
    assert greedy_decode(MLE(COUNTS), [1], 5).tolist() == [2, 3, 2, 3, 2]
    assert greedy_decode(MLE(COUNTS), [1], 5, stop=3).tolist() == [2, 3]


def test_generation_is_reproducible_and_cools_to_greedy():
    model = KneserNey(COUNTS)
    a = generate(model, [1], 30, np.random.default_rng(7))
    b = generate(model, [1], 30, np.random.default_rng(7))
    assert a.tolist() == b.tolist() and len(a) == 30 and a.max() < 6
    assert not np.array_equal(a, generate(model, [1], 30, np.random.default_rng(8)))
    cold = generate(model, [1], 12, np.random.default_rng(0), temperature=1e-3)
    assert cold.tolist() == greedy_decode(model, [1], 12).tolist()


def test_excluded_symbols_are_never_produced():
    # Greedy after 1 is 2, 3, 2, 3, ...; without 3 it must take the next best each time.
    assert 3 not in greedy_decode(MLE(COUNTS), [1], 6, exclude=3).tolist()
    model = KneserNey(COUNTS)
    drawn = generate(model, [1], 300, np.random.default_rng(0), exclude=[0, 2])
    assert len(drawn) == 300 and not np.isin(drawn, [0, 2]).any()
    with pytest.raises(ValueError, match="exclude"):
        greedy_decode(MLE(COUNTS), [1], 3, exclude=list(range(6)))
    with pytest.raises(ValueError, match="exclude"):
        generate(model, [1], 3, np.random.default_rng(0), exclude=[6])


@pytest.mark.parametrize("temperature", [0, -1.0, np.inf, np.nan])
def test_bad_temperatures_are_refused(temperature):
    with pytest.raises(ValueError, match="temperature"):
        softmax([1.0, 2.0], temperature)
    with pytest.raises(ValueError, match="temperature"):
        generate(KneserNey(COUNTS), [1], 3, np.random.default_rng(0), temperature=temperature)


def test_other_refusals():
    with pytest.raises(ValueError, match="probs must sum to 1"):
        sample([0.5, 0.4], np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a Generator"):
        sample([0.5, 0.5], 0)
    with pytest.raises(ValueError, match="logits must not hold NaN"):
        softmax([1.0, np.nan])
    with pytest.raises(ValueError, match="logits must hold a finite value in every row"):
        softmax([-np.inf, -np.inf])
    with pytest.raises(TypeError, match="model must be a language model"):
        greedy_decode("bigram", [1], 3)


# --- top-k and top-p -------------------------------------------------------------------------------------------

def reference_warpers(logits, top_k=None, top_p=None, temperature=1.0):
    """Top-k then top-p as Hugging Face's TopKLogitsWarper and TopPLogitsWarper compute them
    (transformers is not installed here; written from their published code in plain torch):
    scores / T; top-k removes what lies below the k-th largest score; top-p sorts the
    probabilities in descending order, takes the cumulative sum, removes where it exceeds
    p, and shifts that mask right by one so that the symbol crossing p stays."""
    scores = torch.from_numpy(np.asarray(logits, dtype=np.float64)) / temperature
    if top_k is not None:
        kth = torch.topk(scores, min(top_k, scores.shape[-1]), dim=-1).values[..., -1:]
        scores = scores.masked_fill(scores < kth, -torch.inf)
    if top_p is not None:
        sorted_scores, sorted_ids = torch.sort(scores, descending=True, dim=-1)
        cumulative = sorted_scores.softmax(dim=-1).cumsum(dim=-1)
        remove = cumulative > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        scores = scores.masked_fill(remove.scatter(-1, sorted_ids, remove), -torch.inf)
    return torch.isfinite(scores).numpy()


@pytest.mark.parametrize("top_k, top_p, temperature", [(5, None, 1.0), (None, 0.9, 1.0), (None, 0.5, 0.7),
                                                       (12, 0.8, 1.3), (1, None, 2.0), (None, 0.05, 1.0)])
def test_truncation_equals_the_reference_warpers(top_k, top_p, temperature):
    rng = np.random.default_rng(1)
    for _ in range(50):
        logits = rng.normal(scale=3.0, size=(4, 40))   # continuous: no ties, no sum landing on p exactly
        kept = np.isfinite(truncate(logits, top_k, top_p, temperature))
        np.testing.assert_array_equal(kept, reference_warpers(logits, top_k, top_p, temperature))
        if top_p is not None:   # the reference keeps a symbol whose predecessors sum to p exactly; no such row here
            probs = np.sort(softmax(np.where(kept | (top_k is None), logits, -np.inf), temperature), axis=-1)[:, ::-1]
            assert (np.abs(np.cumsum(probs, axis=-1) - top_p) > 1e-9).all()


distributions = arrays(np.float64, st.integers(1, 12), elements=st.floats(1e-3, 1.0)).map(lambda w: w / w.sum())


@given(distributions, st.floats(0.01, 1.0), st.floats(0.2, 3.0))
def test_top_p_keeps_the_smallest_head_that_reaches_p(probs, top_p, temperature):
    logits = np.log(probs)
    kept = np.isfinite(truncate(logits, top_p=top_p, temperature=temperature))
    tempered = softmax(logits, temperature)
    order = np.argsort(-logits, kind="stable")
    ranked_kept = kept[order]
    n = int(ranked_kept.sum())
    assert ranked_kept[:n].all() and not ranked_kept[n:].any()          # a head of the ranking: order preserved
    mass = tempered[kept].sum()
    assert mass >= top_p - 1e-12 or n == len(probs)                      # it reaches p ...
    assert tempered[order[:n - 1]].sum() < top_p + 1e-12                 # ... and one symbol fewer does not
    truncated = softmax(truncate(logits, top_p=top_p, temperature=temperature), temperature)
    assert truncated.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(truncated[kept], tempered[kept] / mass, rtol=1e-9)   # renormalised, ratios kept
    assert (truncated[~kept] == 0).all()


@given(distributions, st.integers(1, 15))
def test_top_k_keeps_exactly_k_ties_going_to_the_smaller_id(probs, top_k):
    logits = np.log(probs)
    kept = np.isfinite(truncate(logits, top_k=top_k))
    assert kept.sum() == min(top_k, len(probs))
    assert probs[kept].min() >= probs[~kept].max(initial=0.0)           # none dropped beats one kept
    boundary = probs[kept].min()                                          # at a tie, the smaller ids stay
    tied = np.flatnonzero(probs == boundary)
    assert (np.diff(kept[tied].astype(int)) <= 0).all()
    truncated = softmax(truncate(logits, top_k=top_k))
    assert truncated.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(truncated[kept], probs[kept] / probs[kept].sum(), rtol=1e-9)


def test_truncation_boundaries_and_ties():
    p = np.array([0.4, 0.2, 0.2, 0.1, 0.1])
    logits = np.log(p)
    kept = lambda **kw: np.flatnonzero(np.isfinite(truncate(logits, **kw))).tolist()  # noqa: E731
    assert kept(top_k=2) == [0, 1] and kept(top_k=3) == [0, 1, 2] and kept(top_k=9) == [0, 1, 2, 3, 4]
    assert kept(top_p=0.39) == [0] and kept(top_p=0.41) == [0, 1]
    assert kept(top_p=1.0) == [0, 1, 2, 3, 4] and kept(top_p=1e-9) == [0]
    assert kept(top_p=0.45) == [0, 1] and kept(top_k=3, top_p=0.45) == [0]   # top-p on the renormalised
    assert kept(top_k=3, top_p=0.55) == [0, 1]                                 # survivors 0.5, 0.25, 0.25
    quarters = np.isfinite(truncate(np.zeros(4), top_p=0.5))   # 0.25 each, exactly: two reach 0.5 exactly
    assert quarters.tolist() == [True, True, False, False]      # and the set stops there (minimal)
    rows = np.log(np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7]]))
    assert np.isfinite(truncate(rows, top_k=1)).tolist() == [[True, False, False], [False, False, True]]
    with np.errstate(divide="ignore"):
        zeros = np.log([0.0, 0.5, 0.0, 0.5])
    assert np.isfinite(truncate(zeros, top_k=3)).sum() == 2          # a symbol of probability 0 stays at −∞
    np.testing.assert_array_equal(truncate(logits), logits)          # no truncation: unchanged


def test_truncated_generation():
    model = KneserNey(COUNTS)
    plain = generate(model, [1], 40, np.random.default_rng(7))
    assert generate(model, [1], 40, np.random.default_rng(7), top_p=1.0).tolist() == plain.tolist()
    assert (generate(model, [1], 40, np.random.default_rng(3), top_k=1).tolist()
            == greedy_decode(model, [1], 40).tolist())
    assert (generate(model, [1], 40, np.random.default_rng(3), top_p=1e-9).tolist()
            == greedy_decode(model, [1], 40).tolist())
    history = [1]
    for symbol in generate(model, [1], 200, np.random.default_rng(5), top_k=2, temperature=1.5):
        p = model.next_distribution(np.array(history[-(model.order - 1):]))
        assert symbol in np.argsort(-p, kind="stable")[:2]            # every draw among the two most probable
        history.append(int(symbol))


def test_truncation_refuses_bad_input():
    for bad, match in [(dict(logits=[np.nan, 1.0]), "logits"), (dict(logits=[np.inf, 1.0]), "logits"),
                       (dict(logits=[-np.inf, -np.inf]), "logits"), (dict(logits=[1.0], top_k=0), "top_k"),
                       (dict(logits=[1.0], top_p=0.0), "top_p"), (dict(logits=[1.0], top_p=1.5), "top_p"),
                       (dict(logits=[1.0], temperature=0.0), "temperature"),
                       (dict(logits=np.ones((2, 2, 2))), "logits")]:
        with pytest.raises(ValueError, match=match):
            truncate(**bad)
    with pytest.raises(ValueError, match="top_k"):
        generate(KneserNey(COUNTS), [1], 3, np.random.default_rng(0), top_k=7)
    with pytest.raises(TypeError, match="top_p"):
        generate(KneserNey(COUNTS), [1], 3, np.random.default_rng(0), top_p="0.9")

class _Recorder:
    """A model of order 5 that remembers the contexts it is asked about (uniform answers)."""
    order, vocab_size = 5, 4

    def __init__(self):
        self.contexts = []

    def next_distribution(self, context):
        self.contexts.append(list(context))
        return np.full(4, 0.25)


@pytest.mark.parametrize("start", [[], [3], [1, 2], [1, 2, 3, 0, 1, 2]])
def test_the_window_is_the_last_order_minus_one_symbols(start):
    """Shorter histories are read whole (a negative slice start once dropped their beginning)."""
    model = _Recorder()
    generated = list(generate(model, start, 6, np.random.default_rng(0)))
    history = start + generated
    assert model.contexts == [history[max(0, k - 4):k] for k in range(len(start), len(history))]


def test_carry_state_needs_a_model_with_a_state():
    with pytest.raises(TypeError, match="carry_state"):
        generate(_Recorder(), [1], 3, np.random.default_rng(0), carry_state=True)
    with pytest.raises(TypeError, match="carry_state"):
        greedy_decode(_Recorder(), [1], 3, carry_state="yes")
