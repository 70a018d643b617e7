"""Logistic and softmax regression: one neuron (or one layer of C), trained by gradient descent.

Shapes follow numpy, torch and scikit-learn, one example per **row** (the course notes
stack examples as columns; their X is this module's X transposed):

=========================  ============================  ===============================
                           :class:`LogisticRegression`    :class:`SoftmaxRegression`
=========================  ============================  ===============================
inputs X                   (m, n)                        (m, n)
labels y                   (m,) in {0, 1}                (m,) in {0, …, C − 1}
weights W, bias b          (n,), ()                      (n, C), (C,)
logits z = X W + b         (m,)                          (m, C)
probabilities              σ(z): P(y = 1 | x), (m,)       softmax(z) by row, (m, C)
loss per example           binary cross-entropy          softmax cross-entropy
=========================  ============================  ===============================

Both minimise the course notes' regularised cost

    J(W, b) = (1/m) Σ_i L(z_i, y_i) + (λ / 2m) ‖W‖²,

the bias not penalised; its gradient is ∂J/∂W = Xᵀ (P − Y) / m + (λ/m) W and
∂J/∂b = Σ_i (P − Y)_i / m, with P the predicted probabilities and Y the labels (one-hot
for softmax), computed by :mod:`.losses`. Multiplying J by C·m shows that this is
scikit-learn's objective C Σ_i L + ½‖W‖² with C = 1/λ: the same minimiser, which the
tests and chapter IV.1 check.

:meth:`~LogisticRegression.fit` runs full-batch or mini-batch gradient descent (with
optional momentum) through :class:`mmir_lib.nn.optim.SGD`, starting from zero weights
(a second call continues from where the first stopped).

Examples
--------
>>> X, y = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]]), np.array([0, 0, 1, 1])
>>> model = LogisticRegression(n_features=2, lam=0.1)
>>> losses = model.fit(X, y, lr=0.5, epochs=200)
>>> bool(losses[-1] < losses[0]), model.predict(X).tolist()
(True, [0, 0, 1, 1])
"""

from __future__ import annotations

import numpy as np

# the book's one stable softmax, on the ground floor (mmir_lib.softmax), shared with Part III
from ..softmax import softmax
from ..validation import check_array, check_count, check_memory, check_number, check_optional, describe
from .losses import _binary_losses, _softmax_losses, sigmoid
from .optim import SGD

__all__ = ["LogisticRegression", "SoftmaxRegression", "accuracy"]

#: Most epochs one call of fit may run (a bound on a typo, not on patience).
MAX_EPOCHS = 10**7


class _LinearClassifier:
    """What both models share: logits z = X W + b, the regularised cost J and its
    gradient, and the training loop. Subclasses set the loss, its gradient and the labels."""

    def __init__(self, n_features: int, lam: float, out_shape: tuple):
        self.n_features = check_count("n_features", n_features, low=1, high=10**8)
        self.lam = check_number("lam", lam, low=0)
        check_memory("n_features", self.n_features * int(np.prod(out_shape, dtype=object)))
        self.W = np.zeros((self.n_features, *out_shape))     # (n,) or (n, C)
        self.b = np.zeros(out_shape)                          # () or (C,)

    @property
    def params(self) -> list[np.ndarray]:
        """[W, b]: the arrays the optimiser changes in place."""
        return [self.W, self.b]

    # ---- inputs ---------------------------------------------------------------------------
    def _check_X(self, X) -> np.ndarray:
        return check_array("X", X, ndim=2, shape=(None, self.n_features), nonempty=True)

    def _check_y(self, y) -> np.ndarray:  # pragma: no cover - each model checks its labels
        raise NotImplementedError

    def _check_Xy(self, X, y) -> tuple[np.ndarray, np.ndarray]:
        X, y = self._check_X(X), self._check_y(y)
        if len(y) != len(X):
            raise ValueError(f"y must hold one label per row of X ({len(X)}), got {len(y)}")
        return X, y

    # ---- the model --------------------------------------------------------------------------
    def logits(self, X) -> np.ndarray:
        """z = X W + b: (m,) for logistic, (m, C) for softmax regression."""
        return self._check_X(X) @ self.W + self.b

    def _loss_and_gradients(self, X, y, m: int) -> tuple[float, list[np.ndarray]]:
        """J on the rows X (k of the m training examples) and [∂J/∂W, ∂J/∂b]."""
        k = len(X)
        z = X @ self.W + self.b                                   # (k,) or (k, C)
        losses, dz = self._losses(z, y)                           # L(z_i, y_i), (k,); P − Y, the shape of z
        J = losses.mean() + self.lam / (2 * m) * np.sum(self.W ** 2)
        dz /= k                                                   # ∂J/∂z: the mean over the k rows
        dW = X.T @ dz + (self.lam / m) * self.W                   # (n,) or (n, C)
        db = dz.sum(axis=0)                                       # () or (C,)
        return float(J), [dW, np.asarray(db)]

    def objective(self, X, y) -> float:
        """The regularised cost J(W, b) = (1/m) Σ_i L(z_i, y_i) + (λ/2m) ‖W‖² on (X, y)."""
        X, y = self._check_Xy(X, y)
        return self._loss_and_gradients(X, y, len(X))[0]

    def gradients(self, X, y) -> list[np.ndarray]:
        """[∂J/∂W, ∂J/∂b] of :meth:`objective` on (X, y), shaped like [W, b]."""
        X, y = self._check_Xy(X, y)
        return self._loss_and_gradients(X, y, len(X))[1]

    def fit(self, X, y, *, lr: float = 0.1, epochs: int = 100, batch_size: int | None = None,
            momentum: float = 0.0, tol: float | None = None, seed: int = 0) -> np.ndarray:
        """Gradient descent on J from the current weights (zeros for a new model).

        Each epoch visits the m rows once, in batches of ``batch_size`` rows in a random
        order drawn from ``seed`` (None: one full-batch step per epoch), each batch one
        step of :class:`~mmir_lib.nn.optim.SGD` with learning rate ``lr`` and
        ``momentum`` on (1/k) Σ_batch ∇L + (λ/m) W, an unbiased estimate of ∇J. Stops
        early once every component of the full gradient ∇J is below ``tol`` in size.
        Returns J on all of (X, y) after each epoch run, (epochs run,)."""
        X, y = self._check_Xy(X, y)
        lr = check_number("lr", lr, low=0, low_open=True)
        epochs = check_count("epochs", epochs, low=1, high=MAX_EPOCHS)
        batch_size = check_optional(check_count, "batch_size", batch_size, low=1)
        momentum = check_number("momentum", momentum, low=0, high=1, high_open=True)
        tol = check_optional(check_number, "tol", tol, low=0)
        seed = check_count("seed", seed)
        m = len(X)
        k = m if batch_size is None else min(batch_size, m)
        optimizer = SGD(self.params, lr, momentum=momentum)
        order_rng = np.random.default_rng(seed)
        initial = [p.copy() for p in self.params]                 # restored if training diverges
        history = []
        with np.errstate(over="ignore", invalid="ignore"):  # divergence is caught below, by name
            J, grads = self._loss_and_gradients(X, y, m)
            for _ in range(epochs):
                if k == m:
                    optimizer.step(grads)                         # the full gradient, computed below
                else:
                    order = order_rng.permutation(m)
                    for start in range(0, m, k):
                        rows = order[start:start + k]
                        optimizer.step(self._loss_and_gradients(X[rows], y[rows], m)[1])
                J, grads = self._loss_and_gradients(X, y, m)
                if not np.isfinite(J) or not all(np.isfinite(g).all() for g in grads):
                    for p, saved in zip(self.params, initial):
                        p[...] = saved
                    raise ValueError(f"training diverged (J is no longer finite) with lr = {lr:g}: lower lr")
                history.append(J)
                if tol is not None and max(np.abs(g).max() for g in grads) < tol:
                    break
        return np.array(history)

    def predict(self, X) -> np.ndarray:  # pragma: no cover - each model predicts its labels
        raise NotImplementedError


class LogisticRegression(_LinearClassifier):
    """Two classes: P(y = 1 | x) = σ(x · w + b), trained on binary cross-entropy.

    ``n_features``: n, the length of an input row; ``lam``: the L2 strength λ ≥ 0 of
    J = (1/m) Σ L + (λ/2m) ‖w‖² (scikit-learn's ``C`` = 1/λ)."""

    _losses = staticmethod(_binary_losses)  # per-example loss and ∂L/∂z (mmir_lib.nn.losses)

    def __init__(self, n_features: int, lam: float = 0.0):
        super().__init__(n_features, lam, ())

    def _check_y(self, y) -> np.ndarray:
        if isinstance(y, np.ndarray) and y.dtype == bool:
            y = y.astype(np.int64)
        return check_array("y", y, kind="int", ndim=1, low=0, high=1).astype(np.float64)

    def predict_proba(self, X) -> np.ndarray:
        """P(y = 1 | x) for each row of X: σ(X w + b), (m,)."""
        return sigmoid(self.logits(X))

    def predict(self, X) -> np.ndarray:
        """The more probable class of each row, 1 where X w + b ≥ 0: (m,) int64."""
        return (self.logits(X) >= 0).astype(np.int64)


class SoftmaxRegression(_LinearClassifier):
    """C classes: P(y = c | x) = softmax(x W + b)_c, trained on softmax cross-entropy.

    ``n_features``: n; ``n_classes``: C ≥ 2; ``lam``: the L2 strength λ ≥ 0 (on all of W)."""

    _losses = staticmethod(_softmax_losses)

    def __init__(self, n_features: int, n_classes: int, lam: float = 0.0):
        self.n_classes = check_count("n_classes", n_classes, low=2, high=10**6)
        super().__init__(n_features, lam, (self.n_classes,))

    def _check_y(self, y) -> np.ndarray:
        return check_array("y", y, kind="int", ndim=1, low=0, high=self.n_classes - 1)

    def predict_proba(self, X) -> np.ndarray:
        """P(y = c | x) for each row and class: softmax(X W + b) by row, (m, C)."""
        return softmax(self.logits(X))

    def predict(self, X) -> np.ndarray:
        """The most probable class of each row (the largest logit; ties to the smaller class): (m,)."""
        return np.argmax(self.logits(X), axis=1)


def accuracy(labels, predictions) -> float:
    """The fraction of ``predictions`` equal to ``labels`` (two int arrays of the same length)."""
    labels = check_array("labels", labels, kind="int", ndim=1, nonempty=True)
    predictions = check_array("predictions", predictions, kind="int", ndim=1)
    if len(predictions) != len(labels):
        raise ValueError(f"predictions must have the length of labels, {len(labels)}, got {describe(predictions)}")
    return float(np.mean(labels == predictions))
