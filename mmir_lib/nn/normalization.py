"""Normalisation: of the inputs once (standardisation), and of a layer's values per batch (batch norm).

Rows are examples and columns features throughout: x is (N, n).

* **Input standardisation** (:func:`standardization`, :func:`standardize`):
  x ← (x − μ) / σ with μ and σ per feature, measured on the **training** set and applied
  unchanged to the development and test sets. A feature that never varies in the
  training set (σ = 0, a pixel that is always blank) is only centred.
* **Batch normalisation** (:class:`BatchNorm`, Ioffe & Szegedy 2015), per feature j of a
  batch of N rows, in training mode::

      μ_j = (1/N) Σ_i x_ij          σ²_j = (1/N) Σ_i (x_ij − μ_j)²       (biased: divides by N)
      x̂_ij = (x_ij − μ_j) / √(σ²_j + ε)
      y_ij = γ_j x̂_ij + β_j

  and a running estimate for test time, in torch's convention (``momentum`` is the weight
  of the *new* batch; the course notes' β is 1 − momentum; no bias correction: the
  estimates start at mean 0 and variance 1)::

      running_mean ← (1 − momentum) running_mean + momentum μ
      running_var  ← (1 − momentum) running_var  + momentum σ² N / (N − 1)   (unbiased)

  In test mode (``training=False``) x̂ uses running_mean and running_var instead, so each
  row's output depends on that row alone. :meth:`BatchNorm.backward` takes ∂J/∂y and
  returns ∂J/∂x, storing ∂J/∂γ and ∂J/∂β; in training mode, with g = ∂J/∂y ⊙ γ,

      ∂J/∂x_ij = 1 / (N √(σ²_j + ε)) · (N g_ij − Σ_k g_kj − x̂_ij Σ_k g_kj x̂_kj)

  (the chapter derives it: μ and σ² depend on every row, hence the two sums, which are
  γ_j ∂J/∂β_j and γ_j ∂J/∂γ_j, so the code reuses those). These are
  torch's ``BatchNorm1d`` outputs, running statistics and gradients (tests: 1e-10, float64).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_bool, check_count, check_memory, check_number, describe

__all__ = ["standardization", "standardize", "BatchNorm"]


def standardization(x) -> tuple[np.ndarray, np.ndarray]:
    """μ and σ per feature (column) of a training set x (N, n); σ = 0 is replaced by 1."""
    x = check_array("x", x, ndim=2, nonempty=True)
    mean, std = x.mean(axis=0), x.std(axis=0)
    return mean, np.where(std > 0, std, 1.0)


def standardize(x, mean, std) -> np.ndarray:
    """(x − μ) / σ per feature, with μ and σ from :func:`standardization` of the training set."""
    x = check_array("x", x, ndim=2)
    mean = check_array("mean", mean, shape=(x.shape[1],))
    std = check_array("std", std, shape=(x.shape[1],))
    if np.any(std <= 0):
        raise ValueError("std must be positive in every feature (standardization() replaces σ = 0 by 1)")
    return (x - mean) / std


class BatchNorm:
    """Batch normalisation of ``num_features`` features, forward and backward, like torch's BatchNorm1d.

    Attributes: ``gamma`` (ones) and ``beta`` (zeros), the learned scale and shift;
    ``running_mean`` (zeros) and ``running_var`` (ones), the test-time estimates;
    ``num_batches_tracked``; after :meth:`backward`, ``grad_gamma`` and ``grad_beta``.
    ``params`` and ``grads`` list [gamma, beta] and their gradients for an optimiser of
    :mod:`mmir_lib.nn.optim` (which updates gamma and beta in place).
    """

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1):
        self.num_features = check_count("num_features", num_features, low=1)
        check_memory("num_features", 4 * self.num_features)
        self.eps = check_number("eps", eps, low=0, low_open=True)
        self.momentum = check_number("momentum", momentum, low=0, high=1)
        self.gamma, self.beta = np.ones(self.num_features), np.zeros(self.num_features)
        self.running_mean, self.running_var = np.zeros(self.num_features), np.ones(self.num_features)
        self.num_batches_tracked = 0
        self.grad_gamma = self.grad_beta = None
        self._cache = None

    def __repr__(self) -> str:
        return f"BatchNorm({self.num_features}, eps={self.eps:g}, momentum={self.momentum:g})"

    @property
    def params(self) -> list[np.ndarray]:
        return [self.gamma, self.beta]

    @property
    def grads(self) -> list[np.ndarray]:
        return [self.grad_gamma, self.grad_beta]

    def forward(self, x, training: bool = True) -> np.ndarray:
        """y = γ x̂ + β for a batch x (N, num_features); training mode uses and tracks the batch's statistics."""
        x = check_array("x", x, ndim=2, shape=(None, self.num_features), nonempty=True)
        training = check_bool("training", training)
        if training and x.shape[0] == 1:
            raise ValueError("x holds a batch of 1 row: its variance is undefined in training mode "
                             "(torch raises too); use a batch of 2 or more rows, or training=False")
        n = x.shape[0]  # batch size N
        if training:
            mean = x.mean(axis=0)  # batch statistics (num_features,)
            centred = x - mean  # (N, num_features)
            var = np.mean(centred * centred, axis=0)  # biased: divides by N
            m = self.momentum
            self.running_mean = (1 - m) * self.running_mean + m * mean
            self.running_var = (1 - m) * self.running_var + m * var * (n / (n - 1))  # unbiased estimate
            self.num_batches_tracked += 1
        else:
            centred, var = x - self.running_mean, self.running_var
        inv_std = 1.0 / np.sqrt(var + self.eps)  # (num_features,)
        x_hat = centred * inv_std  # (N, num_features)
        self._cache = (x_hat, inv_std, training)
        return self.gamma * x_hat + self.beta

    def backward(self, grad_out) -> np.ndarray:
        """∂J/∂x from ∂J/∂y (N, num_features) of the last :meth:`forward`; stores grad_gamma, grad_beta."""
        if self._cache is None:
            raise RuntimeError("backward needs a forward pass first: call forward(x) before backward(grad_out)")
        grad_out = check_array("grad_out", grad_out, ndim=2)
        if grad_out.shape != self._cache[0].shape:
            raise ValueError(f"grad_out must have the shape {self._cache[0].shape} of the last forward's output, "
                             f"got {describe(grad_out)}")
        x_hat, inv_std, training = self._cache  # from the forward pass: x̂ (N, n), 1/√(σ² + ε) (n,), mode
        self.grad_gamma = np.sum(grad_out * x_hat, axis=0)  # (num_features,)
        self.grad_beta = np.sum(grad_out, axis=0)
        scale = self.gamma * inv_std  # ∂J/∂x = ∂J/∂y · γ/√(σ² + ε) when the statistics are fixed
        if not training:
            return grad_out * scale
        # with g = γ ∂J/∂y: Σ_i g_ij = γ_j grad_beta_j and Σ_i g_ij x̂_ij = γ_j grad_gamma_j
        n = x_hat.shape[0]
        return scale / n * (n * grad_out - self.grad_beta - x_hat * self.grad_gamma)
