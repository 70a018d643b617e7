"""Information, entropy, cross-entropy, KL divergence and perplexity (Shannon, 1948).

An event of probability P[x] carries the **information** (surprise)

    I[x] = −log P[x]:

a certain event tells nothing (I = 0), a rare one a lot. The **entropy** of a
distribution P over a finite set X is the information to expect,

    H(P) = E[I] = −Σ_x P[x] log P[x],        0 ≤ H(P) ≤ log |X|,

(with 0 log 0 = 0): 0 when one event is certain, log |X| when all are equally likely.
The **cross-entropy** is the information to expect when events follow P but are
coded (predicted) with a model Q,

    H(P, Q) = −Σ_x P[x] log Q[x],

and the **Kullback–Leibler divergence** is what using Q instead of P costs:

    D_KL(P ‖ Q) = H(P, Q) − H(P) = Σ_x P[x] log (P[x] / Q[x]) ≥ 0    (Gibbs' inequality),

zero only when Q = P, and not symmetric: D_KL(P ‖ Q) ≠ D_KL(Q ‖ P) in general. Since
H(P) does not depend on Q, minimising the cross-entropy over models Q minimises the
divergence from the true P. For a language model, H(P, Q) is estimated on a long
held-out text w_1 … w_T by the mean log-loss (Shannon–McMillan–Breiman),

    H(P, Q) ≈ −(1/T) Σ_t log Q[w_t | w_1 … w_{t−1}],

and the **perplexity** is its exponential, PP = b^H for logarithms to base b: the
number of equally likely choices that would be as hard to predict. The uniform model
over a vocabulary V has PP = |V|.

Every function takes ``base``: 2 gives bits, e (``math.e``) gives nats; one bit is
ln 2 ≈ 0.693 nats. A distribution is an array whose last axis sums to 1; rows of a
2-D array are several distributions at once. ``scipy.stats.entropy`` computes the same
entropy and divergence (the tests compare), but silently rescales an input that does
not sum to 1; these functions refuse it, since such an input is usually a bug.
"""

from __future__ import annotations

import math

import numpy as np

from ..validation import check_array, check_broadcast, check_distribution, check_number

__all__ = ["information", "entropy", "cross_entropy", "kl_divergence", "perplexity"]


def _log_base(base: object) -> float:
    """ln(base), for a base > 0 other than 1."""
    base = check_number("base", base, low=0, low_open=True)
    if base == 1:
        raise ValueError("base must not be 1 (log base 1 is undefined)")
    return math.log(base)


def _check_pair(p: object, q: object) -> tuple[np.ndarray, np.ndarray]:
    p, q = check_distribution("p", p), check_distribution("q", q)
    if p.shape[-1] != q.shape[-1]:
        raise ValueError(f"p and q must be distributions over the same outcomes; their last axes have "
                         f"{p.shape[-1]} and {q.shape[-1]}")
    check_broadcast(p=p, q=q)
    return p, q


def information(p, base: float = 2.0) -> np.ndarray:
    """I = −log_b p for each probability in p (any shape); an impossible event (p = 0)
    has infinite information."""
    p = check_array("p", p, kind="number", nonempty=True, low=0, high=1)
    with np.errstate(divide="ignore"):
        return -np.log(p) / _log_base(base) + 0.0  # + 0.0: I = 0, not -0, for p = 1


def entropy(p, base: float = 2.0) -> np.ndarray | float:
    """H(P) = −Σ_x P[x] log_b P[x] over the last axis of p (0 log 0 = 0); a float for
    one distribution, an array of shape p.shape[:-1] for several."""
    p = check_distribution("p", p)
    terms = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return _result(terms.sum(axis=-1) / _log_base(base))


def cross_entropy(p, q, base: float = 2.0) -> np.ndarray | float:
    """H(P, Q) = −Σ_x P[x] log_b Q[x] over the last axis; infinite when Q gives 0 to an
    outcome that P does not."""
    p, q = _check_pair(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 · log 0 where p = 0: dropped by the where
        terms = np.where(p > 0, -p * np.log(q), 0.0)
    return _result(terms.sum(axis=-1) / _log_base(base))


def kl_divergence(p, q, base: float = 2.0) -> np.ndarray | float:
    """D_KL(P ‖ Q) = Σ_x P[x] log_b (P[x] / Q[x]) over the last axis: ≥ 0, and 0 only
    for Q = P; infinite when Q gives 0 to an outcome that P does not."""
    p, q = _check_pair(p, q)
    with np.errstate(divide="ignore", invalid="ignore"):  # 0 · log 0 where p = 0: dropped by the where
        terms = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1.0)) - np.log(q)), 0.0)
    return _result(terms.sum(axis=-1) / _log_base(base))


def perplexity(mean_loss, base: float = 2.0) -> np.ndarray | float:
    """PP = b^H for a mean log-loss H in units of log base b (bits for b = 2, nats for
    b = e); H = ∞ (a model that gave a test symbol probability 0) gives PP = ∞."""
    mean_loss = check_array("mean_loss", mean_loss, kind="number", nonempty=True, low=0, finite=False)
    if np.isnan(mean_loss).any():
        raise ValueError("mean_loss must not be NaN")
    with np.errstate(over="ignore"):
        return _result(np.exp(mean_loss * _log_base(base)))


def _result(values: np.ndarray) -> np.ndarray | float:
    """A 0-d result as a Python float, others as arrays."""
    return float(values) if np.ndim(values) == 0 else values
