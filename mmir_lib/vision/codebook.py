"""k-means: a codebook of visual words, learnt from descriptors (Lloyd's algorithm).

A **codebook** (or visual vocabulary) is a set of k centres c_1 … c_k in descriptor
space. Each descriptor is then replaced by the number of its nearest centre, a
**visual word** (:mod:`.bovw`); the centres cut the space into Voronoi cells, one per
word. k-means chooses the centres that make this replacement cost least, the
**inertia**

    J = Σ_i ‖x_i − c_{label(i)}‖²,      label(i) = argmin_j ‖x_i − c_j‖².

**Lloyd's algorithm** lowers J by alternating two steps, each of which can only
lower it:

1. *assign*: give each point the label of its nearest centre (best labels for the
   centres);
2. *update*: move each centre to the mean of its points (the point that minimises the
   sum of squared distances to them: best centres for the labels);

until the labels stop changing, or the centres move less than ``tol`` (the squared
shift Σ_j ‖c_j^new − c_j‖², relative to the data's mean variance per dimension, as
scikit-learn measures it). J never increases, and there are finitely many labellings,
so it stops, but at a *local* minimum that depends on the start.

**k-means++** (Arthur and Vassilvitskii 2007) starts well: the first centre is a random
point, each next one a point drawn with probability proportional to D(x)², its squared
distance to the nearest centre chosen so far, so that the centres spread out. Its
expected inertia is within O(log k) of the optimum.

An **empty cluster** (a centre no point is nearest to) would have no mean. Its centre
is moved onto the point farthest from its own centre, as scikit-learn does (several
empty clusters take the farthest points in turn); that cannot raise J, and the point
is then assigned to it at the next step.

All distances come from :func:`.matching.pairwise_distances` (squared).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_choice, check_count, check_number
from .matching import _check_descriptors, pairwise_distances

__all__ = ["KMeansResult", "assign", "kmeans_plus_plus", "kmeans"]

INITS = ("k-means++", "random")


@dataclass(frozen=True)
class KMeansResult:
    """What :func:`kmeans` found.

    ``centres``          (k, d) float64
    ``labels``           (n,) int64, each point's nearest centre
    ``inertia``          J = Σ_i ‖x_i − c_{label(i)}‖² for these centres and labels
    ``iterations``       the number of assign-update rounds run
    ``inertia_history``  (iterations,) float64, J after each assignment step (non-increasing)
    ``converged``        True if it stopped before ``max_iter`` (labels unchanged, or shift ≤ tol)
    """

    centres: np.ndarray
    labels: np.ndarray
    inertia: float
    iterations: int
    inertia_history: np.ndarray
    converged: bool

    def __repr__(self) -> str:
        k, d = self.centres.shape
        state = "converged" if self.converged else "not converged"
        return (f"KMeansResult(k={k} centres in {d}-D, inertia={self.inertia:.6g}, "
                f"{self.iterations} iterations, {state})")


def assign(points: object, centres: object) -> np.ndarray:
    """label(i) = argmin_j ‖x_i − c_j‖²: the nearest centre of every point, (n,) int64
    (among equally near centres, the one with the smaller index)."""
    points, centres = _check_descriptors(points, centres, "points", "centres")
    if len(centres) == 0:
        raise ValueError("centres must hold at least one centre")
    return np.argmin(pairwise_distances(points, centres, squared=True), axis=1)


def _check_points_and_k(points: object, k: object) -> tuple[np.ndarray, int]:
    points = check_array("points", points, ndim=2, nonempty=True)
    k = check_count("k", k, low=1)
    if k > len(points):
        raise ValueError(f"k must be at most the number of points, {len(points)}; got k={k}")
    return points, k


def kmeans_plus_plus(points: object, k: int, seed: int = 0) -> np.ndarray:
    """k initial centres by D² sampling: a uniform first pick, then each point with
    probability D(x)² / Σ D², D(x) the distance to the nearest centre so far; (k, d).

    Uses ``numpy.random.default_rng(seed)``. (scikit-learn's "greedy" variant draws
    several candidates per step and keeps the best; this is the original algorithm.)"""
    points, k = _check_points_and_k(points, k)
    rng = np.random.default_rng(check_count("seed", seed))
    chosen = [int(rng.integers(len(points)))]
    d2 = pairwise_distances(points, points[chosen], squared=True)[:, 0]  # D(x)², (n,)
    for _ in range(1, k):
        cumulative = np.cumsum(d2)
        if cumulative[-1] > 0:  # the roulette wheel: each point gets a slice of width D(x)²
            pick = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        else:  # every point already is a centre (fewer distinct points than k)
            pick = int(rng.integers(len(points)))
        chosen.append(pick)
        d2 = np.minimum(d2, pairwise_distances(points, points[[pick]], squared=True)[:, 0])
    return points[chosen]


def _update(points: np.ndarray, labels: np.ndarray, d2_own: np.ndarray, k: int) -> np.ndarray:
    """The mean of each cluster's points; an empty cluster's centre goes to the point
    farthest from its own centre (``d2_own``, (n,)); (k, d)."""
    counts = np.bincount(labels, minlength=k)  # (k,)
    sums = np.zeros((k, points.shape[1]))
    np.add.at(sums, labels, points)  # sums[labels[i]] += points[i]
    centres = sums / np.maximum(counts, 1)[:, None]
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        farthest = np.argsort(-d2_own, kind="stable")[:len(empty)]
        centres[empty] = points[farthest]
    return centres


def _initial_centres(points: np.ndarray, k: int, init: object, seed: int) -> np.ndarray:
    """The (k, d) starting centres that ``init`` names (see :func:`kmeans`)."""
    if isinstance(init, str):
        check_choice("init", init, INITS)
        if init == "k-means++":
            return kmeans_plus_plus(points, k, seed)
        return points[np.random.default_rng(seed).choice(len(points), size=k, replace=False)]
    return check_array("init", init, ndim=2, shape=(k, points.shape[1])).copy()


def kmeans(points: object, k: int, init: str | object = "k-means++", max_iter: int = 300, tol: float = 1e-4,
           seed: int = 0) -> KMeansResult:
    """Lloyd's algorithm for k centres of ``points`` (n, d).

    Parameters
    ----------
    init : "k-means++" (:func:`kmeans_plus_plus`), "random" (k distinct points drawn
        uniformly) or a (k, d) array of initial centres.
    max_iter : at most this many assign-update rounds.
    tol : stop when Σ_j ‖c_j^new − c_j‖² ≤ tol · (mean variance of the dimensions);
        it also stops as soon as the labels repeat. tol = 0: only then.
    seed : for ``numpy.random.default_rng``, used by the two random inits.

    Returns
    -------
    :class:`KMeansResult`. The final labels and inertia are computed for the final
    centres (one more assignment step), as scikit-learn's ``KMeans(algorithm="lloyd")``
    reports them: from the same initial centres it reaches the same result.
    """
    points, k = _check_points_and_k(points, k)
    max_iter = check_count("max_iter", max_iter, low=1)
    tol = check_number("tol", tol, low=0.0)
    seed = check_count("seed", seed)
    centres = _initial_centres(points, k, init, seed)
    n = len(points)
    tol = tol * float(np.var(points, axis=0).mean())
    history, previous, converged = [], None, False
    for iteration in range(1, max_iter + 1):
        d2 = pairwise_distances(points, centres, squared=True)  # (n, k)
        labels = np.argmin(d2, axis=1)  # assign
        d2_own = d2[np.arange(n), labels]
        history.append(d2_own.sum())
        new_centres = _update(points, labels, d2_own, k)  # update
        shift = float(((new_centres - centres) ** 2).sum())
        centres = new_centres
        if (previous is not None and np.array_equal(labels, previous)) or shift <= tol:
            converged = True
            break
        previous = labels
    d2 = pairwise_distances(points, centres, squared=True)  # labels and inertia of the final centres
    labels = np.argmin(d2, axis=1)
    inertia = float(d2[np.arange(n), labels].sum())
    return KMeansResult(centres, labels, inertia, iteration, np.array(history), converged)
