"""Bias in embeddings: a planted direction is recovered, neutralised vectors are orthogonal to
it, equalised pairs are symmetric about it; on GloVe, the known findings (Bolukbasi et al.)
and the known limit (Gonen and Goldberg: the bias stays in the neighbourhoods)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.data import glove_6b_50d
from mmir_lib.kmeans import kmeans
from mmir_lib.lm.bias import (GENDER_PAIRS, bias_direction, cluster_agreement, cluster_starts, equalize,
                              neighbour_bias, neutralize, pair_spectrum, project)
from mmir_lib.lm.vectors import normalize_rows

_unit = arrays(np.float64, 6, elements=st.floats(-1, 1)).filter(lambda v: np.linalg.norm(v) > 0.1).map(
    lambda v: v / np.linalg.norm(v))


def _planted(seed=0, d=20, pairs=8, strength=0.6):
    """Pairs (f_i, m_i) = base_i ± strength·g plus small noise, and a few neutral words."""
    rng = np.random.default_rng(seed)
    g = rng.normal(size=d)
    g /= np.linalg.norm(g)
    base = rng.normal(size=(pairs, d))
    noise = 0.05 * rng.normal(size=(2, pairs, d))
    vectors = np.concatenate([base + strength * g + noise[0], base - strength * g + noise[1], rng.normal(size=(5, d))])
    vocab = [f"f{i}" for i in range(pairs)] + [f"m{i}" for i in range(pairs)] + [f"n{i}" for i in range(5)]
    return vectors, vocab, [(f"f{i}", f"m{i}") for i in range(pairs)], g


@pytest.mark.parametrize("method", ["pca", "mean"])
def test_the_planted_direction_is_recovered_and_oriented(method):
    vectors, vocab, pairs, g = _planted()
    found = bias_direction(vectors, vocab, pairs, method=method)
    assert np.linalg.norm(found) == pytest.approx(1.0)
    assert found @ g > 0.98  # the same direction, and the first words of the pairs on the + side
    assert bias_direction(vectors, vocab, [(b, a) for a, b in pairs], method=method) @ g < -0.98


def test_pair_spectrum_shows_one_dominant_direction():
    vectors, vocab, pairs, _ = _planted()
    shares = pair_spectrum(vectors, vocab, pairs)
    assert shares.sum() == pytest.approx(1.0) and np.all(np.diff(shares) <= 1e-12) and shares[0] > 0.8


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, (4, 6), elements=st.floats(-10, 10)), _unit)
def test_neutralised_vectors_are_orthogonal_unit_vectors(vectors, g):
    orthogonal = vectors - np.outer(project(vectors, g), g)
    assume(np.linalg.norm(orthogonal, axis=1).min() > 1e-6)
    neutral = neutralize(vectors, g)
    assert np.abs(neutral @ g).max() <= 1e-9
    np.testing.assert_allclose(np.linalg.norm(neutral, axis=1), 1.0, atol=1e-12)
    # nothing else changes: the part orthogonal to g keeps its direction
    np.testing.assert_allclose(neutral * np.linalg.norm(orthogonal, axis=1)[:, None], orthogonal, atol=1e-9)
    np.testing.assert_allclose(neutralize(neutral, g), neutral, atol=1e-12)


def test_neutralising_a_row_along_the_direction_is_refused():
    g = np.array([0.0, 1.0, 0.0])
    with pytest.raises(ValueError, match=r"vectors\[1\] has no component orthogonal to direction"):
        neutralize(np.array([[1.0, 2.0, 0.0], [0.0, -3.0, 0.0]]), g)
    with pytest.raises(ValueError, match=r"vectors\[0\] has no component orthogonal"):
        neutralize(np.zeros((1, 3)), g)


@settings(max_examples=80, deadline=None)
@given(_unit, _unit, _unit)
def test_equalised_pairs_are_unit_vectors_symmetric_about_the_direction(first, second, g):
    a, b = equalize(first[None], second[None], g)
    np.testing.assert_allclose(np.linalg.norm(a), 1.0, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(b), 1.0, atol=1e-9)
    np.testing.assert_allclose(a - np.outer(a @ g, g), b - np.outer(b @ g, g), atol=1e-9)  # the same orthogonal part
    assert (a @ g)[0] == pytest.approx(-(b @ g)[0], abs=1e-9)
    assert (a @ g)[0] * ((first - second) @ g) >= -1e-9  # the one that was higher stays higher


def test_a_neutral_word_is_equally_near_both_words_of_an_equalised_pair():
    vectors, vocab, pairs, g = _planted(seed=1)
    unit = normalize_rows(vectors)
    direction = bias_direction(vectors, vocab, pairs)
    a, b = equalize(unit[:1], unit[8:9], direction)
    neutral = neutralize(unit[-1:], direction)
    assert (neutral @ a.T).item() == pytest.approx((neutral @ b.T).item(), abs=1e-12)


def test_neighbour_bias_and_clusters_on_two_planted_groups():
    rng = np.random.default_rng(2)
    centres = rng.normal(size=(2, 10))
    vectors = np.concatenate([centres[0] + 0.3 * rng.normal(size=(30, 10)), centres[1] + 0.3 * rng.normal(size=(30, 10))])
    scores = np.r_[np.ones(30), -np.ones(30)]
    shares = neighbour_bias(vectors, scores, k=10)
    assert shares[:30].min() > 0.9 and shares[30:].max() < 0.1
    assert cluster_agreement(vectors, (scores > 0).astype(int)) == 1.0
    assert cluster_agreement(vectors, rng.integers(0, 2, 60)) < 0.75


def test_cluster_agreement_keeps_the_start_of_lowest_inertia():
    rng = np.random.default_rng(3)
    vectors, labels = rng.normal(size=(80, 5)), rng.integers(0, 2, 80)
    agreements, inertias = cluster_starts(vectors, labels, starts=6, seed=2)
    assert agreements.shape == inertias.shape == (6,)
    assert np.all((agreements >= 0.5) & (agreements <= 1.0))
    assert cluster_agreement(vectors, labels, seed=2, starts=6) == agreements[np.argmin(inertias)]
    unit = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    for i, seed in enumerate(range(2, 8)):  # start i is mmir_lib.kmeans.kmeans with seed 2 + i on the unit rows
        assert inertias[i] == pytest.approx(kmeans(unit, 2, seed=seed).inertia, rel=1e-12)
    assert cluster_agreement(vectors, labels, seed=2, starts=1) == agreements[0]


# ---------------------------------------------------------------------------------------------
# GloVe 6B 50-d: the findings of Bolukbasi et al. and of Gonen and Goldberg, in small
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def glove():
    words, vectors = glove_6b_50d(max_words=50_000)
    return words, normalize_rows(vectors).astype(np.float64)


def test_glove_occupations_lean_as_bolukbasi_et_al_found(glove):
    words, unit = glove
    g = bias_direction(unit, words, GENDER_PAIRS)
    index = {w: i for i, w in enumerate(words)}
    lean = project(unit[[index[w] for w in ("nurse", "receptionist", "homemaker", "engineer", "architect", "boss")]], g)
    assert np.all(lean[:3] > 0.2) and np.all(lean[3:] < -0.2)
    assert project(unit[[index["she"]]], g)[0] > 0 > project(unit[[index["he"]]], g)[0]
    assert bias_direction(unit, words, GENDER_PAIRS, method="mean") @ g > 0.95


def test_neutralising_glove_leaves_the_bias_in_the_neighbourhoods(glove):
    """Gonen and Goldberg (2019): after neutralising, the most biased words still cluster by their
    old bias above chance, and a word's neighbours still predict it."""
    words, unit = glove
    g = bias_direction(unit, words, GENDER_PAIRS)
    bias = unit @ g
    order = np.argsort(bias)
    chosen = np.concatenate([order[:500], order[-500:]])  # the 500 most male- and female-leaning words
    labels = np.r_[np.zeros(500, int), np.ones(500, int)]
    neutral = neutralize(unit[chosen], g)
    assert np.abs(neutral @ g).max() < 1e-12 and np.allclose(np.linalg.norm(neutral, axis=1), 1.0)
    assert cluster_agreement(unit[chosen], labels) > 0.95
    agreements, inertias = cluster_starts(neutral, labels, starts=10)
    assert cluster_agreement(neutral, labels) == agreements[np.argmin(inertias)] > 0.58  # 0.5 ± 0.016 by chance
    before = np.corrcoef(neighbour_bias(unit[chosen], bias[chosen], k=100), bias[chosen])[0, 1]
    after = np.corrcoef(neighbour_bias(neutral, bias[chosen], k=100), bias[chosen])[0, 1]
    assert before > after > 0.5
