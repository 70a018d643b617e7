"""The sigmoid and the two cross-entropy losses of classification, each beside its gradient.

A classifier outputs **logits** z, one real number per example (two classes) or one per
class (C classes), and turns them into probabilities:

==================================  ========================================  =============================
loss                                per example i                             gradient ∂J/∂z (J = mean)
==================================  ========================================  =============================
binary cross-entropy (sigmoid)      −y log σ(z) − (1 − y) log(1 − σ(z))        (σ(z) − y) / m
softmax cross-entropy               −log softmax(z)_y = −z_y + log Σ_c e^{z_c}  (softmax(z) − onehot(y)) / m
==================================  ========================================  =============================

with σ(z) = 1 / (1 + e^{−z}) and m the number of examples. Both are the negative log
likelihood of the labels under the model (chapter IV.1 derives them), and both have the
same gradient, *prediction minus target*, which is why the logit is the quantity to
differentiate: the two exponentials cancel against the logarithm.

Computed as written, both overflow or lose everything to rounding for large |z|:
e^{−z} overflows for z < −709, and 1 − σ(z) is exactly 0 in float64 for z > 37, whose
log is −∞. The stable forms used here never exponentiate a positive number:

* σ(z) = 1 / (1 + e^{−z}) for z ≥ 0 and e^{z} / (1 + e^{z}) for z < 0;
* the binary loss is max(z, 0) − z y + log(1 + e^{−|z|}) (log1p), exact for any z;
* the softmax loss uses :func:`mmir_lib.softmax.log_softmax`, which subtracts the
  largest logit first (a deliberate reuse of chapter III.3's softmax, not a second copy).

These are torch's ``torch.sigmoid``, ``F.binary_cross_entropy_with_logits`` and
``F.cross_entropy`` (the tests check equality to 1e-12 in float64, gradients against
``torch.autograd``). ``reduction`` chooses the mean over examples (the default, as in
torch), their sum, or the per-example values ("none"); each gradient follows the same
choice ("none": the gradient of each example's own loss).

Examples
--------
>>> float(binary_cross_entropy_with_logits([1000.0, -1000.0], [0.0, 0.0], reduction="sum"))
1000.0
>>> softmax_cross_entropy_gradient([[0.0, 0.0]], [1])
array([[ 0.5, -0.5]])
"""

from __future__ import annotations

import numpy as np

# the book's one stable log-softmax, on the ground floor (mmir_lib.softmax), shared with Part III
from ..softmax import log_softmax
from ..validation import check_array, check_choice

__all__ = ["REDUCTIONS", "sigmoid", "sigmoid_derivative", "binary_cross_entropy_with_logits",
           "binary_cross_entropy_gradient", "softmax_cross_entropy", "softmax_cross_entropy_gradient"]

#: How a loss combines its per-example values: their mean, their sum, or none (all of them).
REDUCTIONS = ("mean", "sum", "none")


def _scalar_or_array(value: np.ndarray) -> float | np.ndarray:
    return float(value) if value.ndim == 0 else value


def sigmoid(z) -> float | np.ndarray:
    """σ(z) = 1 / (1 + e^{−z}), elementwise, computed without overflow for any finite z.

    ``z``: a number or an array of any shape; returns a float or an array of the same
    shape, every value in [0, 1] (exactly 0 or 1 only where float64 cannot tell)."""
    z = check_array("z", z)
    e = np.exp(-np.abs(z))                              # ≤ 1: never overflows
    return _scalar_or_array(np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e)))


def sigmoid_derivative(z) -> float | np.ndarray:
    """dσ/dz = σ(z) (1 − σ(z)), elementwise: at most 1/4, at z = 0."""
    s = np.asarray(sigmoid(z))
    return _scalar_or_array(s * (1.0 - s))


def _check_binary(logits, targets) -> tuple[np.ndarray, np.ndarray]:
    logits = check_array("logits", logits, ndim=(1, 2), nonempty=True)
    targets = check_array("targets", targets, ndim=(1, 2), low=0, high=1)
    if targets.shape != logits.shape:
        raise ValueError(f"targets must have the shape of logits, {logits.shape}, got {targets.shape}")
    return logits, targets


def _reduce(values: np.ndarray, reduction: str) -> float | np.ndarray:
    reduction = check_choice("reduction", reduction, REDUCTIONS)
    if reduction == "none":
        return values
    return float(values.mean() if reduction == "mean" else values.sum())


def _scale(gradient: np.ndarray, reduction: str) -> np.ndarray:
    """The gradient of the mean is 1/m times that of the sum (m: the number of values)."""
    reduction = check_choice("reduction", reduction, REDUCTIONS)
    return gradient / gradient.size if reduction == "mean" else gradient


def _binary_losses(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-value losses max(z, 0) − z y + log(1 + e^{−|z|}) and their derivatives σ(z) − y
    (arguments already checked)."""
    e = np.exp(-np.abs(z))                              # ≤ 1: never overflows
    losses = np.maximum(z, 0.0) - z * y + np.log1p(e)
    p = np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))   # σ(z), as in sigmoid
    return losses, p - y


def binary_cross_entropy_with_logits(logits, targets, reduction: str = "mean") -> float | np.ndarray:
    """Binary cross-entropy of targets y ∈ [0, 1] under p = σ(z), from the logits z.

    Per value: −y log σ(z) − (1 − y) log(1 − σ(z)) = max(z, 0) − z y + log(1 + e^{−|z|}),
    finite for every finite z. ``logits`` and ``targets``: the same shape, (m,) (or
    (m, k) for k independent yes/no outputs); returns the mean (a float), the sum, or
    the per-value losses (``reduction="none"``)."""
    z, y = _check_binary(logits, targets)
    return _reduce(_binary_losses(z, y)[0], reduction)


def binary_cross_entropy_gradient(logits, targets, reduction: str = "mean") -> np.ndarray:
    """∂J/∂z of :func:`binary_cross_entropy_with_logits`: σ(z) − y, divided by the number
    of values for the mean; the shape of ``logits``."""
    z, y = _check_binary(logits, targets)
    return _scale(_binary_losses(z, y)[1], reduction)


def _check_softmax(logits, labels) -> tuple[np.ndarray, np.ndarray]:
    logits = check_array("logits", logits, ndim=2, nonempty=True)
    if logits.shape[1] < 2:
        raise ValueError(f"logits must have one column per class, at least 2, got shape {logits.shape}")
    labels = check_array("labels", labels, kind="int", ndim=1, low=0, high=logits.shape[1] - 1)
    if len(labels) != len(logits):
        raise ValueError(f"labels must hold one class per row of logits ({len(logits)}), got {len(labels)}")
    return logits, labels


def _softmax_losses(z: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-example losses −log softmax(z_i)_{y_i}, (m,), and their gradients
    softmax(z_i) − onehot(y_i), (m, C) (arguments already checked)."""
    rows = np.arange(len(y))
    log_p = log_softmax(z)                              # (m, C), stable
    gradient = np.exp(log_p)                            # softmax(z), (m, C)
    gradient[rows, y] -= 1.0
    return -log_p[rows, y], gradient


def softmax_cross_entropy(logits, labels, reduction: str = "mean") -> float | np.ndarray:
    """Cross-entropy of integer class labels under softmax(logits): −log softmax(z_i)_{y_i}.

    ``logits``: (m, C), one row of C class scores per example; ``labels``: (m,) ints in
    0 … C − 1. Returns the mean over the m examples (a float), the sum, or the (m,)
    per-example losses. Equal to torch's ``F.cross_entropy``."""
    z, y = _check_softmax(logits, labels)
    return _reduce(_softmax_losses(z, y)[0], reduction)


def softmax_cross_entropy_gradient(logits, labels, reduction: str = "mean") -> np.ndarray:
    """∂J/∂z of :func:`softmax_cross_entropy`: softmax(z) − onehot(y), divided by m for
    the mean; (m, C) like ``logits``."""
    z, y = _check_softmax(logits, labels)
    gradient = _softmax_losses(z, y)[1]
    return gradient / len(y) if check_choice("reduction", reduction, REDUCTIONS) == "mean" else gradient
