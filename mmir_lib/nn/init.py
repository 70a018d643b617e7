"""Initialising the weights of a deep network, and the variances that initialisation sets.

A fully connected layer computes z = a W + b from the activations a of the layer below
(rows are examples: a is (N, n_in), W is (n_in, n_out), b is (n_out,); the course notes
write the transpose, W^[l] of shape (n^[l], n^[l-1]) acting on columns). With weights
drawn independently, zero-mean, of variance Var(w), and inputs independent of them,

    Var(z_j) = n_in · Var(w) · E[a²]                        (one unit, summed over n_in terms)

so each scheme below picks Var(w) to keep that product steady from layer to layer:

===========  ==============================  ======================================================
scheme       W ~ N(0, σ²) with σ² =           keeps steady (Glorot & Bengio 2010; He et al. 2015)
===========  ==============================  ======================================================
``zeros``    0                                nothing: every unit of a layer computes the same thing
``small``    scale² (default scale = 0.01)    nothing: the signal shrinks by √n_in · scale per layer
``xavier``   2 / (n_in + n_out)               Var(z) forwards and Var(∂J/∂a) backwards, for tanh
                                              (a compromise of 1/n_in and 1/n_out; = 1/n_in when equal)
``he``       2 / n_in                         Var(z) forwards through ReLU, which zeroes half of z
===========  ==============================  ======================================================

The biases start at 0 in every scheme. ``xavier`` is torch's ``xavier_normal_`` and
``he`` its ``kaiming_normal_(mode="fan_in", nonlinearity="relu")`` (same σ; the draws
come from numpy's generator, not torch's).

:func:`activation_variances` measures what the table predicts: it pushes data through a
deep stack of equal layers and back, and returns the variance of the activations and of
the back-propagated gradient at every layer (chapter IV.4's figure).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_choice, check_count, check_instance, check_memory, check_number

__all__ = ["INIT_SCHEMES", "ACTIVATIONS", "zeros_init", "small_normal", "xavier_normal", "he_normal",
           "MAX_SCALE", "init_std", "init_weights", "DepthProfile", "activation_variances"]

#: The initialisation schemes by name (see the module's table).
INIT_SCHEMES = ("zeros", "small", "xavier", "he")

#: Largest σ of ``"small"`` and largest ``gain`` accepted (far beyond any sensible value).
MAX_SCALE = 100.0

#: Activations :func:`activation_variances` can stack: name -> (g, g').
ACTIVATIONS = {
    "tanh": (np.tanh, lambda z, a: 1.0 - a * a),
    "relu": (lambda z: np.maximum(z, 0.0), lambda z, a: (z > 0).astype(np.float64)),
    "linear": (lambda z: z, lambda z, a: np.ones_like(z)),
}


def _check_fans(fan_in: object, fan_out: object) -> tuple[int, int]:
    fan_in, fan_out = check_count("fan_in", fan_in, low=1), check_count("fan_out", fan_out, low=1)
    check_memory("fan_out", fan_in * fan_out)
    return fan_in, fan_out


def _check_rng(rng: object) -> np.random.Generator:
    return check_instance("rng", rng, np.random.Generator)


def init_std(scheme: str, fan_in: int, fan_out: int, scale: float = 0.01) -> float:
    """σ of a scheme's weights for a layer with ``fan_in`` inputs and ``fan_out`` units."""
    check_choice("scheme", scheme, INIT_SCHEMES)
    fan_in, fan_out = _check_fans(fan_in, fan_out)
    scale = check_number("scale", scale, low=0, low_open=True, high=MAX_SCALE)
    return _std(scheme, fan_in, fan_out, scale)


def _std(scheme: str, fan_in: int, fan_out: int, scale: float) -> float:
    return {"zeros": 0.0, "small": scale, "xavier": math.sqrt(2.0 / (fan_in + fan_out)),
            "he": math.sqrt(2.0 / fan_in)}[scheme]


def zeros_init(fan_in: int, fan_out: int) -> np.ndarray:
    """W = 0, shape (fan_in, fan_out): every unit of the layer gets the same gradient."""
    fan_in, fan_out = _check_fans(fan_in, fan_out)
    return np.zeros((fan_in, fan_out))


def small_normal(fan_in: int, fan_out: int, rng: np.random.Generator, scale: float = 0.01) -> np.ndarray:
    """W ~ N(0, scale²), shape (fan_in, fan_out), whatever the layer's size."""
    fan_in, fan_out = _check_fans(fan_in, fan_out)
    _check_rng(rng)
    scale = check_number("scale", scale, low=0, low_open=True, high=MAX_SCALE)
    return rng.standard_normal((fan_in, fan_out)) * scale


def xavier_normal(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """Glorot and Bengio's W ~ N(0, 2 / (fan_in + fan_out)), shape (fan_in, fan_out)."""
    fan_in, fan_out = _check_fans(fan_in, fan_out)
    _check_rng(rng)
    return rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / (fan_in + fan_out))


def he_normal(fan_in: int, fan_out: int, rng: np.random.Generator) -> np.ndarray:
    """He et al.'s W ~ N(0, 2 / fan_in), shape (fan_in, fan_out), for ReLU layers."""
    fan_in, fan_out = _check_fans(fan_in, fan_out)
    _check_rng(rng)
    return rng.standard_normal((fan_in, fan_out)) * math.sqrt(2.0 / fan_in)


def init_weights(scheme: str, sizes, rng: np.random.Generator, scale: float = 0.01) -> list[np.ndarray]:
    """Parameters [W1, b1, W2, b2, ...] of a network with layer sizes n0, n1, ..., nL.

    ``W_l`` is (n_{l-1}, n_l), drawn by ``scheme`` (one of :data:`INIT_SCHEMES`; ``scale``
    is the σ of ``"small"``); every ``b_l`` is zeros (n_l,). The flat list of float64
    arrays is what the optimisers of :mod:`mmir_lib.nn.optim` update in place.
    """
    check_choice("scheme", scheme, INIT_SCHEMES)
    sizes = check_array("sizes", sizes, kind="int", ndim=1, low=1)
    if len(sizes) < 2:
        raise ValueError(f"sizes must list at least two layer sizes (inputs and outputs), got {len(sizes)}")
    check_memory("sizes", int(np.sum(sizes[:-1].astype(object) * sizes[1:].astype(object))))
    _check_rng(rng)
    scale = check_number("scale", scale, low=0, low_open=True, high=MAX_SCALE)
    params = []
    for fan_in, fan_out in zip(sizes[:-1].tolist(), sizes[1:].tolist()):
        params += [rng.standard_normal((fan_in, fan_out)) * _std(scheme, fan_in, fan_out, scale), np.zeros(fan_out)]
    return params


@dataclass(frozen=True)
class DepthProfile:
    """What :func:`activation_variances` measured, one value per layer l = 1 … L.

    ``activations``  Var(a^[l]) over all examples and units of layer l
    ``gradients``    Var(∂J/∂z^[l]), the gradient that reaches layer l's pre-activations
    """

    activations: np.ndarray
    gradients: np.ndarray


def activation_variances(x, scheme: str, activation: str, depth: int, width: int, rng: np.random.Generator,
                         gain: float = 1.0, scale: float = 0.01) -> DepthProfile:
    """Variances of the activations and of the gradients through ``depth`` equal layers.

    Forward: a^[0] = x (N, n0); z^[l] = a^[l-1] W^[l] (biases 0) with W^[1] of shape
    (n0, width) and the others (width, width), drawn by ``scheme`` and multiplied by
    ``gain``; a^[l] = g(z^[l]). Backward: J = Σ a^[L] ⊙ r with r ~ N(0, 1) fixed, so a
    gradient of variance 1 enters the top; ∂J/∂z^[l] = ∂J/∂a^[l] ⊙ g'(z^[l]) and
    ∂J/∂a^[l-1] = ∂J/∂z^[l] W^[l]ᵀ.

    Returns
    -------
    DepthProfile
        ``activations[l-1]`` = Var(a^[l]) and ``gradients[l-1]`` = Var(∂J/∂z^[l]); inf
        where the values overflowed float64 (an exploding network), never NaN.
    """
    x = check_array("x", x, ndim=2, nonempty=True)
    check_choice("scheme", scheme, INIT_SCHEMES)
    check_choice("activation", activation, ACTIVATIONS)
    depth = check_count("depth", depth, low=1, high=10_000)
    width = check_count("width", width, low=1)
    check_memory("width", (depth + 2) * width * max(width, x.shape[0], x.shape[1]))
    _check_rng(rng)
    gain = check_number("gain", gain, low=0, low_open=True, high=MAX_SCALE)
    scale = check_number("scale", scale, low=0, low_open=True, high=MAX_SCALE)
    g, g_prime = ACTIVATIONS[activation]
    weights, zs, activations = [], [], [x]
    with np.errstate(over="ignore", invalid="ignore"):  # an exploding scheme may overflow: it shows as inf
        for fan_in in [x.shape[1]] + [width] * (depth - 1):
            W = rng.standard_normal((fan_in, width)) * (gain * _std(scheme, fan_in, width, scale))
            weights.append(W)
            zs.append(activations[-1] @ W)
            activations.append(g(zs[-1]))
        grad_a = rng.standard_normal(activations[-1].shape)  # ∂J/∂a^[L] = r
        grads = []
        for W, z, a in zip(reversed(weights), reversed(zs), reversed(activations[1:])):
            grad_z = grad_a * g_prime(z, a)  # (N, width)
            grads.append(_variance(grad_z))
            grad_a = grad_z @ W.T  # (N, fan_in)
    return DepthProfile(np.array([_variance(a) for a in activations[1:]]), np.array(grads[::-1]))


def _variance(a: np.ndarray) -> float:
    """Var(a), or inf for a layer whose values overflowed (an exploding network)."""
    return float(a.var()) if np.all(np.isfinite(a)) else math.inf
