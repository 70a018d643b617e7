"""Bias in word embeddings: a gender direction, projections on it, neutralising, and its limits.

Embeddings learn the associations of their text, the unwanted ones too: in vectors
trained on news, *programmer* lies nearer *he* than *she* (Bolukbasi et al. 2016).
Their recipe, "hard debiasing", in three steps:

1. **A bias direction g.** Take definitional pairs that differ only in gender
   (she–he, woman–man, mother–father, …). Each pair's difference e_a − e_b points
   roughly the same way; the direction they share is the first principal component
   of the pairs' centred vectors ±(e_a − e_b)/2 (Bolukbasi et al.), or simply their
   mean difference (the seed's version). g is a unit vector, oriented so that the
   first words of the pairs (she, woman, …) project positively.
2. **Neutralise** every word that should carry no gender (doctor, nurse,
   programmer): remove its component along g and renormalise, as Bolukbasi et al. do
   (their vectors are unit vectors, and stay so),

       e⊥ = (e − (e · g) g) / ‖e − (e · g) g‖,       so that e⊥ · g = 0 and ‖e⊥‖ = 1.

3. **Equalise** each definitional pair around the neutral axis: both words get the
   same component orthogonal to g (their mean's, ν) and opposite components along
   it, of the size that keeps them unit vectors,

       μ = (e_a + e_b)/2,   ν = μ − (μ · g) g,
       e_a ← ν + √(1 − ‖ν‖²) · sign((e_a − e_b) · g) g,   e_b likewise with the other sign,

   so that every neutral word is equally far from she and he.

**The limit** (Gonen and Goldberg 2019, "Lipstick on a pig"): neutralising zeroes one
coordinate, but the bias lives in the whole geometry. Words that were male-biased
stay near each other after neutralising, so their neighbours still give them away:
k-means on the neutralised vectors of the most biased words still sorts them by
their old bias (:func:`cluster_agreement`, the best of several starts), and the share of a word's nearest
neighbours that were biased one way still predicts its own bias
(:func:`neighbour_bias`).

Functions take unit-normalised vectors where the method needs them (neutralising
and equalising as Bolukbasi et al. define them, for unit vectors); normalise rows
first with :func:`mmir_lib.lm.vectors.normalize_rows`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..validation import check_array, check_choice, check_count, check_list, describe
from ..kmeans import kmeans
from .vectors import _check_vectors_and_vocab, _dense, _word_id

__all__ = [
    "GENDER_PAIRS",
    "DIRECTION_METHODS",
    "bias_direction",
    "pair_spectrum",
    "project",
    "neutralize",
    "equalize",
    "neighbour_bias",
    "cluster_starts",
    "cluster_agreement",
]

#: Bolukbasi et al.'s (2016) ten definitional pairs, (female, male).
GENDER_PAIRS = (("woman", "man"), ("girl", "boy"), ("she", "he"), ("mother", "father"), ("daughter", "son"),
                ("gal", "guy"), ("female", "male"), ("her", "his"), ("herself", "himself"), ("mary", "john"))

DIRECTION_METHODS = ("pca", "mean")


def _pair_vectors(vectors: object, vocab: Sequence[str], pairs: object) -> tuple[np.ndarray, np.ndarray]:
    """The unit vectors (n, d) of the first and of the second words of the pairs."""
    vectors, index = _check_vectors_and_vocab(vectors, vocab)
    pairs = check_list("pairs", pairs, tuple, nonempty=True)
    ids = []
    for i, pair in enumerate(pairs):
        if len(pair) != 2:
            raise TypeError(f"pairs[{i}] must be a pair of words, got {describe(pair)}")
        if pair[0] == pair[1]:  # a word paired with itself differs along no direction: it only dilutes the others
            raise ValueError(f"pairs[{i}] must name two different words, got {pair!r}")
        ids.append([_word_id(f"pairs[{i}][{j}]", word, index) for j, word in enumerate(pair)])
    ids = np.array(ids)
    rows = _dense(vectors[ids.ravel()]).astype(np.float64)  # (2n, d)
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise ValueError("pairs must not hold a word whose vector is zero")
    rows = (rows / norms).reshape(len(ids), 2, -1)
    return rows[:, 0], rows[:, 1]


def _centred_pairs(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The pairs' vectors minus their pair's mean, ±(e_a − e_b)/2, stacked: (2n, d)."""
    half = (first - second) / 2
    return np.concatenate([half, -half])


def bias_direction(vectors: object, vocab: Sequence[str], pairs: Sequence[tuple[str, str]] = GENDER_PAIRS,
                   method: str = "pca") -> np.ndarray:
    """The unit direction g (d,) that the pairs (a, b) differ along, oriented so that
    Σ (e_a − e_b) · g > 0 (vectors are unit-normalised first).

    ``method="pca"``: the first principal component of the centred pairs (Bolukbasi et
    al. 2016); ``"mean"``: the normalised mean difference (1/n) Σ (e_a − e_b).
    """
    first, second = _pair_vectors(vectors, vocab, pairs)
    check_choice("method", method, DIRECTION_METHODS)
    if method == "mean":
        g = (first - second).mean(axis=0)
    else:  # the pairs' centred vectors have mean 0: their first right singular vector is the first PC
        g = np.linalg.svd(_centred_pairs(first, second), full_matrices=False)[2][0]
    norm = np.linalg.norm(g)
    if norm == 0:
        raise ValueError("pairs must differ: every pair's two vectors are equal, so there is no direction")
    g = g / norm
    return g if ((first - second) @ g).sum() >= 0 else -g


def pair_spectrum(vectors: object, vocab: Sequence[str], pairs: Sequence[tuple[str, str]] = GENDER_PAIRS) -> np.ndarray:
    """The share of the centred pairs' variance along each principal component, largest
    first ((min(2n, d),), summing to 1). One dominant share means the pairs really
    differ along one direction (Bolukbasi et al.'s figure 6)."""
    first, second = _pair_vectors(vectors, vocab, pairs)
    s = np.linalg.svd(_centred_pairs(first, second), compute_uv=False)
    return s**2 / (s**2).sum()


def _check_direction(direction: object, d: int | None = None) -> np.ndarray:
    direction = check_array("direction", direction, ndim=1, nonempty=True)
    if d is not None and len(direction) != d:
        raise ValueError(f"direction must have the vectors' length {d}, got {len(direction)}")
    if not np.isclose(np.linalg.norm(direction), 1.0):
        raise ValueError(f"direction must be a unit vector, got norm {np.linalg.norm(direction):g}")
    return direction


def _check_rows(name: str, vectors: object) -> np.ndarray:
    return check_array(name, vectors, ndim=2, nonempty=True)


def _check_per_row(name: str, values: object, vectors: np.ndarray, **limits) -> np.ndarray:
    """One value per row of ``vectors``, (n,)."""
    values = check_array(name, values, ndim=1, **limits)
    if len(values) != len(vectors):
        raise ValueError(f"{name} must hold one value per row of vectors, {len(vectors)}; got {len(values)}")
    return values


def project(vectors: object, direction: object) -> np.ndarray:
    """e · g for every row e of ``vectors`` (n, d) and the unit direction g (d,): (n,)
    float64. With unit rows it is the cosine with g: > 0 towards the pairs' first words."""
    vectors = _check_rows("vectors", vectors)
    direction = _check_direction(direction, vectors.shape[1])
    return vectors @ direction


def neutralize(vectors: object, direction: object) -> np.ndarray:
    """Bolukbasi et al.'s neutralise step: for every row e of ``vectors`` (n, d), remove
    its component along the unit direction g and renormalise,

        e⊥ = (e − (e · g) g) / ‖e − (e · g) g‖,

    (n, d): unit vectors orthogonal to g. Refuses a row with nothing left once its
    component along g is removed (a zero row, or one along g)."""
    vectors = _check_rows("vectors", vectors)
    direction = _check_direction(direction, vectors.shape[1])
    orthogonal = vectors - np.outer(vectors @ direction, direction)
    norms = np.linalg.norm(orthogonal, axis=1)
    flat = np.flatnonzero(norms <= 1e-12 * np.maximum(np.linalg.norm(vectors, axis=1), 1.0))
    if len(flat):
        raise ValueError(f"vectors[{flat[0]}] has no component orthogonal to direction (it is zero or lies along "
                         "it): it cannot be neutralised to a unit vector")
    return orthogonal / norms[:, None]


def equalize(first: object, second: object, direction: object) -> tuple[np.ndarray, np.ndarray]:
    """Bolukbasi et al.'s equalise step for pairs of unit vectors: rows i of ``first`` and
    ``second`` (n, d) become ν_i ± √(1 − ‖ν_i‖²) g, with ν_i their mean's part
    orthogonal to g; the one that projected higher on g gets the + sign.

    Returns two (n, d) arrays of unit vectors, with equal parts orthogonal to g and
    opposite projections on it.
    """
    first, second = _check_rows("first", first), _check_rows("second", second)
    if first.shape != second.shape:
        raise ValueError(f"first and second must have the same shape; got {first.shape} and {second.shape}")
    if not np.allclose(np.linalg.norm(first, axis=1), 1) or not np.allclose(np.linalg.norm(second, axis=1), 1):
        raise ValueError("first and second must hold unit vectors (normalise the rows first)")
    g = _check_direction(direction, first.shape[1])
    mean = (first + second) / 2
    nu = mean - np.outer(mean @ g, g)  # (n, d), orthogonal to g
    height = np.sqrt(np.maximum(1.0 - (nu * nu).sum(axis=1), 0.0))  # (n,)
    sign = np.where((first - second) @ g >= 0, 1.0, -1.0)
    return nu + np.outer(sign * height, g), nu - np.outer(sign * height, g)


def neighbour_bias(vectors: object, scores: object, k: int = 100) -> np.ndarray:
    """For each row, the share of its k nearest other rows (by cosine) whose score is > 0.

    Given the rows of words and their original bias scores (projections on g, before
    any debiasing), it measures how much a word's neighbourhood leans one way. Gonen
    and Goldberg correlate it with the original bias, before and after neutralising:
    the correlation barely drops.

    Returns
    -------
    (n,) float64 in [0, 1].
    """
    vectors = _check_rows("vectors", vectors)
    scores = _check_per_row("scores", scores, vectors)
    k = check_count("k", k, low=1, high=len(vectors) - 1)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms > 0, norms, 1.0)
    cosines = unit @ unit.T  # (n, n)
    np.fill_diagonal(cosines, -np.inf)
    nearest = np.argpartition(-cosines, k - 1, axis=1)[:, :k]  # (n, k), in no order
    return (scores[nearest] > 0).mean(axis=1)


def cluster_starts(vectors: object, labels: object, starts: int = 10, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two k-means clusters of the rows from each of ``starts`` starts
    (:func:`mmir_lib.kmeans.kmeans`, k-means++, seeds ``seed``, ``seed + 1``, …), scored
    against the 0/1 ``labels``.

    The agreement of a start is the share of rows in the cluster of their label's
    majority, under the better of the two ways to match clusters to labels,
    a = max(m, 1 − m) with m = mean(cluster_i == label_i) (0.5: no better than chance;
    1: the clusters are the labels). Rows are unit-normalised first.

    Returns
    -------
    (agreements, inertias): two (starts,) float64 arrays, one entry per start; the
    k-means objective tells the starts apart without looking at the labels.
    """
    vectors = _check_rows("vectors", vectors)
    labels = _check_per_row("labels", labels, vectors, kind="int", low=0, high=1)
    starts = check_count("starts", starts, low=1)
    seed = check_count("seed", seed, high=2**32 - starts)
    if len(vectors) < 2:
        raise ValueError(f"vectors must have at least 2 rows to cluster, got {len(vectors)}")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms > 0, norms, 1.0)
    agreements, inertias = np.empty(starts), np.empty(starts)
    for i in range(starts):
        result = kmeans(unit, 2, seed=seed + i)
        match = float((result.labels == labels).mean())
        agreements[i], inertias[i] = max(match, 1.0 - match), result.inertia
    return agreements, inertias


def cluster_agreement(vectors: object, labels: object, seed: int = 0, starts: int = 10) -> float:
    """How well two k-means clusters of the rows recover the 0/1 ``labels``: the
    agreement (see :func:`cluster_starts`) of the start with the lowest inertia among
    ``starts`` k-means++ starts (seeds ``seed``, ``seed + 1``, …), the rule Chapter II.7
    teaches: a single start can land in a poor local minimum.

    Run on the unit vectors of the most male- and female-biased words, neutralised, it
    shows how much of the removed bias the geometry still holds.
    """
    agreements, inertias = cluster_starts(vectors, labels, starts=starts, seed=seed)
    return float(agreements[np.argmin(inertias)])
