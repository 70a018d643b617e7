"""Regularisation: the L2 penalty (weight decay) and inverted dropout.

Both fight variance, a model that fits its training set better than new data:

============================  ==================================================  =========================
method                        what changes                                        source
============================  ==================================================  =========================
:func:`l2_penalty`            J += λ/(2m) Σ_l ‖W^[l]‖²_F;  ∂/∂W^[l] += (λ/m) W^[l]  the course notes (001 §2.2)
                              (a step multiplies W by 1 − αλ/m: weight decay)
:func:`dropout` (inverted)    training: a ← a ⊙ d / p with d ~ Bernoulli(p);       Srivastava et al. 2014
                              test: a unchanged
============================  ==================================================  =========================

Inverted dropout divides by the **keep probability** p at training time, so that
E[a ⊙ d / p] = a · P(d = 1) / p = a: every unit's expected output is the same with and
without dropout, and the network runs unchanged at test time. (torch's ``nn.Dropout(q)``
takes the *drop* probability q = 1 − p.) Its backward pass uses the same mask:
∂J/∂a = ∂J/∂out ⊙ d / p (:func:`dropout_backward`).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_bool, check_count, check_instance, check_list, check_number, describe

__all__ = ["l2_penalty", "dropout", "dropout_backward"]

_AT_LEAST_1D = tuple(range(1, 33))  # an array of activations, not a single number


def l2_penalty(weights, lambd: float, m: int) -> tuple[float, list[np.ndarray]]:
    """The L2 penalty λ/(2m) Σ ‖W‖²_F of a list of weight matrices, and its gradients (λ/m) W.

    Parameters
    ----------
    weights : list of arrays (the weights only: biases are usually not penalised).
    lambd : λ >= 0, the regularisation strength (``lambda`` is a Python keyword).
    m : the number of training examples the data term averages over (>= 1).

    Returns
    -------
    (penalty, grads) with one gradient per weight array, of its shape.
    """
    weights = _check_weights(weights)
    lambd = check_number("lambd", lambd, low=0)
    m = check_count("m", m, low=1)
    penalty = lambd / (2 * m) * sum(float(np.sum(w * w)) for w in weights)
    return penalty, [(lambd / m) * w for w in weights]


def _check_weights(weights: object) -> list[np.ndarray]:
    """A non-empty list of finite float arrays (a lone array is refused: pass [array])."""
    if isinstance(weights, np.ndarray):
        raise TypeError("weights must be a list of arrays; for a single array pass [array]")
    weights = check_list("weights", weights, np.ndarray, nonempty=True)
    return [check_array(f"weights[{i}]", w) for i, w in enumerate(weights)]


def dropout(x, keep_prob: float, rng: np.random.Generator, training: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Inverted dropout: keep each entry of ``x`` with probability ``keep_prob`` and divide by it.

    Parameters
    ----------
    x : array of any shape, the activations of a layer (e.g. (N, n) for N examples).
    keep_prob : p in (0, 1]; p = 1 keeps everything (no dropout).
    rng : numpy Generator that draws the mask.
    training : False (test time) returns ``x`` unchanged with a mask of ones.

    Returns
    -------
    (out, mask) : out = x ⊙ mask / p, and the boolean mask d (True = kept), both of x's shape.
    """
    x = check_array("x", x, ndim=_AT_LEAST_1D, nonempty=True)
    keep_prob = check_number("keep_prob", keep_prob, low=0, low_open=True, high=1)
    check_instance("rng", rng, np.random.Generator)
    training = check_bool("training", training)
    if not training:
        return x.copy(), np.ones(x.shape, dtype=bool)
    mask = rng.random(x.shape) < keep_prob  # d ~ Bernoulli(p), one draw per entry
    return x * mask / keep_prob, mask


def dropout_backward(grad_out, mask, keep_prob: float) -> np.ndarray:
    """The gradient through inverted dropout: ∂J/∂x = ∂J/∂out ⊙ mask / p (the forward's mask)."""
    grad_out = check_array("grad_out", grad_out, ndim=_AT_LEAST_1D, nonempty=True)
    mask = check_array("mask", mask, kind="bool")
    if mask.shape != grad_out.shape:
        raise ValueError(f"mask must have grad_out's shape {grad_out.shape}, got {describe(mask)}")
    keep_prob = check_number("keep_prob", keep_prob, low=0, low_open=True, high=1)
    return grad_out * mask / keep_prob
