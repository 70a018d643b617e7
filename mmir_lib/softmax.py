"""Softmax and log-softmax with temperature: the ground floor that Part III's language
models and Part IV's classifiers both stand on (one softmax in the book).

A model that outputs one real number per class or symbol, a **logit** z_i, turns them
into probabilities with the **softmax**

    softmax(z / T)_i = exp(z_i / T) / Σ_j exp(z_j / T),

with a **temperature** T > 0. At T = 1 the model's own distribution; as T → 0 all
the mass goes to the largest logit (argmax, greedy decoding); as T → ∞ the
distribution tends to uniform. Computed as written, exp overflows for logits above
~709 (float64), so the largest logit is subtracted first: softmax(z) = softmax(z − max z),
the same distribution, with every exponent ≤ 0. The **log-softmax**
z_i/T − m − log Σ_j exp(z_j/T − m) (m = max z/T) stays exact where the probability
itself would underflow to 0. A logit of −∞ (a masked symbol) gets probability 0.

Shapes: ``logits`` is (V,) or (m, V); the result has the same shape, normalised along
the last axis. :mod:`mmir_lib.lm.sampling` (Chapter III.3, where the book introduces it)
and :mod:`mmir_lib.nn` (the softmax regression and cross-entropy of Part IV) use it.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array, check_number

__all__ = ["softmax", "log_softmax"]


def _shifted_logits(logits: object, temperature: object) -> np.ndarray:
    """(logits − max) / T along the last axis, checked: no NaN, no +∞ (−∞ masks a
    symbol), a finite logit in every row; T finite and > 0. The largest entry of each
    row is 0, whatever T; the others may underflow to −∞ (probability 0) as T → 0."""
    temperature = check_number("temperature", temperature, low=0, low_open=True)
    logits = check_array("logits", logits, ndim=(1, 2), nonempty=True, finite=False)
    if np.isnan(logits).any() or (logits == np.inf).any():
        raise ValueError("logits must not hold NaN or +inf (-inf masks a symbol)")
    if not np.isfinite(logits).any(axis=-1).all():
        raise ValueError("logits must hold a finite value in every row (all -inf leaves nothing to choose)")
    with np.errstate(over="ignore"):
        return (logits - logits.max(axis=-1, keepdims=True)) / temperature


def log_softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """log softmax(logits / T) along the last axis, stable: (V,) or (m, V) like ``logits``."""
    z = _shifted_logits(logits, temperature)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def softmax(logits, temperature: float = 1.0) -> np.ndarray:
    """softmax(logits / T) along the last axis, stable for large logits: (V,) or (m, V)."""
    e = np.exp(_shifted_logits(logits, temperature))
    return e / e.sum(axis=-1, keepdims=True)
