"""k-means: a codebook of k centres learnt from points (Lloyd's algorithm, k-means++).

A **codebook** is a set of k centres c_1 … c_k in the points' space. Each point is then
replaced by the number of its nearest centre (a **visual word** when the points are
image descriptors, :mod:`mmir_lib.vision.bovw`); the centres cut the space into Voronoi cells, one per
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
is moved onto the point farthest from its own centre, and that point is taken out of
the mean of the cluster it was in, as scikit-learn does (several empty clusters take
the farthest points in turn); that cannot raise J, and the point is then assigned to it
at the next step.

**Squared distances, computed stably.** Lloyd's assignment needs ‖x − c‖² for every
point and centre. Expanded as ‖x‖² + ‖c‖² − 2 x·c, it is one matrix product (what makes
k-means fast), but it subtracts numbers of the size of ‖x‖² to get a result of the size
of ‖x − c‖²: for points near 10⁸ (‖x‖² ≈ 10¹⁶) a distance of 1 is lost to rounding
entirely. Distances do not change when every point and centre moves by the same vector,
so the algorithm first **centres** the data on its mean; then ‖x‖² is of the size of the
data's spread, and the expansion keeps its digits. k-means++ computes its distances
from the differences x − c directly (one centre at a time, no cancellation).

Used by Part II (codebooks of visual words, :mod:`mmir_lib.vision.bovw`) and Part III
(:mod:`mmir_lib.lm.bias`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from .validation import check_array, check_choice, check_count, check_number

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


#: Points per block of the assignment step: a (256, k) block of scores stays in the
#: processor's cache between the matrix product and the argmin (scikit-learn's choice too).
CHUNK = 256


def _with_ones(x: np.ndarray) -> np.ndarray:
    """[x, 1]: the points (n, d) with a column of ones appended, (n, d + 1)."""
    return np.hstack([x, np.ones((len(x), 1))])


def _nearest(x1: np.ndarray, x_sq: np.ndarray, centres: np.ndarray,
             exact: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each point's nearest centre and its squared distance to it: (labels (n,), d2 (n,)).

    ‖x − c‖² = ‖x‖² + ‖c‖² − 2 x·c; the argmin over c needs only ‖c‖² − 2 x·c, which is
    one dot product, [x, 1]·[−2c, ‖c‖²]: a matrix product, taken in blocks of ``CHUNK``
    points. ``x1`` = [x, 1] (:func:`_with_ones`, (n, d + 1)) and ``centres`` (k, d) must
    already be centred (see the module notes), ``x_sq`` = ‖x‖² per row.

    **Ties.** The product's rounding can order two centres wrongly when their distances
    are equal or nearly so. Every centre whose score is within a bound on that rounding
    of the smallest, :func:`_tie_margin`, is a candidate; a point with more than one
    candidate is decided on the float distances from the differences, fl(Σ_m (x_m − c_m)²),
    and among equal ones the smaller index wins; the differences are those of ``exact`` =
    (points (n, d), centres (k, d)) when given (the caller's own coordinates), else of the
    centred ones."""
    n, d = len(x1), centres.shape[1]
    exact_points, exact_centres = exact if exact is not None else (x1[:, :d], centres)
    c_sq = np.einsum("ij,ij->i", centres, centres)  # (k,)
    augmented = np.vstack([-2.0 * centres.T, c_sq])  # (d + 1, k): x1 @ augmented = ‖c‖² − 2 x·c
    margin = _tie_margin(x_sq, float(np.sqrt(c_sq.max())), d)  # (n,)
    labels, d2 = np.empty(n, dtype=np.int64), np.empty(n)
    for start in range(0, n, CHUNK):
        block = slice(start, start + CHUNK)
        scores = x1[block] @ augmented  # (CHUNK, k)
        nearest = np.argmin(scores, axis=1)
        best = scores[np.arange(len(nearest)), nearest]
        close = scores <= (best + margin[block])[:, None]  # (CHUNK, k): the candidates
        several = np.flatnonzero(np.count_nonzero(close, axis=1) > 1)
        if len(several):
            nearest[several] = _exact_nearest(exact_points[block][several], exact_centres, close[several])
        labels[block] = nearest
        d2[block] = scores[np.arange(len(nearest)), nearest]
    d2 += x_sq  # rounding can leave −1e-15 where a point is a centre
    return labels, np.maximum(d2, 0.0, out=d2)


def _tie_margin(x_sq: np.ndarray, largest_centre: float, d: int) -> np.ndarray:
    """How far the product's score ‖c‖² − 2 x·c, and the float distance from the
    differences, can each be from the exact ‖x − c‖² − ‖x‖², per point (n,): both err by at
    most (d + 2) u (‖x‖ + ‖c‖)² (u = 2⁻⁵³, the unit roundoff; Higham's bound for a dot
    product of length d + 1), taken 8 times over for safety."""
    return 8.0 * (d + 2) * np.finfo(np.float64).eps * (np.sqrt(x_sq) + largest_centre) ** 2


def _exact_nearest(x: np.ndarray, centres: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """For points ``x`` (r, d) and boolean ``candidates`` (r, k), the candidate with the
    smallest float distance fl(Σ_m (x_m − c_m)²), the smaller index among equal ones; (r,)."""
    rows, columns = np.nonzero(candidates)
    difference = x[rows] - centres[columns]
    distances = np.full(candidates.shape, np.inf)
    distances[rows, columns] = np.einsum("ij,ij->i", difference, difference)
    return np.argmin(distances, axis=1)  # the first of equal minima


def assign(points: object, centres: object) -> np.ndarray:
    """label(i) = argmin_j ‖x_i − c_j‖²: the nearest centre of every point, (n,) int64.

    ``points`` (n, d), ``centres`` (k, d). Exactly: label(i) is the smallest j whose
    distance is least, the distances taken in floating point from the differences,
    fl(Σ_m (x_im − c_jm)²) (numpy's ``einsum`` of (x − c)·(x − c)), so equal distances
    (equal in real arithmetic and in floats) go to the smaller index. The search itself is a
    matrix product on centred data (see the module notes); the few points whose nearest
    two centres are within its rounding of each other are decided on those distances."""
    points = check_array("points", points, ndim=2)
    centres = check_array("centres", centres, ndim=2)
    if points.shape[1] != centres.shape[1]:
        raise ValueError(f"points and centres must have the same number of columns (the dimension d); "
                         f"points has shape {points.shape}, centres has {centres.shape}")
    if len(centres) == 0:
        raise ValueError("centres must hold at least one centre")
    shift = centres.mean(axis=0)  # both moved by the same vector: the distances do not change
    x = points - shift
    return _nearest(_with_ones(x), np.einsum("ij,ij->i", x, x), centres - shift, exact=(points, centres))[0]


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

    def d2_to(row: int) -> np.ndarray:  # ‖x − x_row‖² of every point, from the differences: no cancellation
        d2 = np.empty(len(points))
        for start in range(0, len(points), CHUNK):  # in blocks that stay in the processor's cache
            difference = points[start:start + CHUNK] - points[row]
            d2[start:start + CHUNK] = np.einsum("ij,ij->i", difference, difference)
        return d2

    chosen = [int(rng.integers(len(points)))]
    d2 = d2_to(chosen[0])  # D(x)², (n,)
    for _ in range(1, k):
        cumulative = np.cumsum(d2)
        if cumulative[-1] > 0:  # the roulette wheel: each point gets a slice of width D(x)²
            pick = int(np.searchsorted(cumulative, rng.random() * cumulative[-1], side="right"))
        else:  # every point already is a centre (fewer distinct points than k)
            pick = int(rng.integers(len(points)))
        chosen.append(pick)
        d2 = np.minimum(d2, d2_to(pick))
    return points[chosen]


def _update(x: np.ndarray, labels: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The mean of each cluster's points, for the points ``x`` (n, d) with ``labels`` (n,)
    given by ``centres`` (k, d); (k, d).

    An empty cluster's centre goes to the point farthest from its own centre, and that
    point leaves its old cluster's mean, exactly as scikit-learn's
    ``_relocate_empty_clusters_dense``: distances fl(Σ_m (x_m − c_m)²) from the
    differences, the e farthest points (e empty clusters) taken in the order of
    ``numpy.argpartition(distances, −e)[:−e−1:−1]``, the i-th to the i-th empty cluster in
    index order. If every point sits on its centre, the empty centres stay at the data's
    mean (0 in the centred coordinates), as there."""
    n, k = len(x), len(centres)
    members = scipy.sparse.csr_array((np.ones(n), (labels, np.arange(n))), shape=(k, n))  # (k, n), one 1 per column
    counts = np.bincount(labels, minlength=k).astype(np.float64)  # (k,)
    sums = members @ x  # (k, d): the sums of each cluster's points
    empty = np.flatnonzero(counts == 0)
    if len(empty):
        distances = ((x - centres[labels]) ** 2).sum(axis=1)  # (n,), as scikit-learn computes them
        if distances.max() > 0:
            farthest = np.argpartition(distances, -len(empty))[:-len(empty) - 1:-1]
            for new, far in zip(empty, farthest):
                old = labels[far]
                sums[old] -= x[far]
                sums[new] = x[far]
                counts[new], counts[old] = 1.0, counts[old] - 1.0
    return sums * (1.0 / np.maximum(counts, 1.0))[:, None]  # times the reciprocal, as scikit-learn rounds it


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
    mean = points.mean(axis=0)  # work on centred points: see the module notes
    x = points - mean  # (n, d)
    x_sq = np.einsum("ij,ij->i", x, x)  # ‖x‖², (n,), once
    x1 = _with_ones(x)  # [x, 1], (n, d + 1), once
    centres = _initial_centres(points, k, init, seed) - mean
    tol = tol * float(x_sq.sum()) / x.size  # the mean variance of the dimensions (x is centred)
    history, previous, converged = [], None, False
    for iteration in range(1, max_iter + 1):
        labels, d2_own = _nearest(x1, x_sq, centres)  # assign
        history.append(d2_own.sum())
        new_centres = _update(x, labels, centres)  # update
        shift = float(((new_centres - centres) ** 2).sum())
        centres = new_centres
        if (previous is not None and np.array_equal(labels, previous)) or shift <= tol:
            converged = True
            break
        previous = labels
    if shift != 0.0:  # labels and inertia of the final centres (unless they did not move at all)
        labels, d2_own = _nearest(x1, x_sq, centres)
    return KMeansResult(centres + mean, labels, float(d2_own.sum()), iteration, np.array(history), converged)
