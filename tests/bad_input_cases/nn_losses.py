"""Bad-input cases for Part IV's losses and linear classifiers (mmir_lib.nn.losses, mmir_lib.nn.logistic)."""

import numpy as np

from mmir_lib.nn import logistic, losses
from tests.api_fuzz import Case

# Any finite number is a logit: 0, negative and huge values are legal (σ saturates, no overflow).
NUMBERS = {"zero", "negative", "negative_float", "huge_int", "huge_float", "bool"}
_X = np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5], [1.0, 1.0]])
_LABELS = np.array([0, 1, 1, 0])

CASES = [
    Case(losses.sigmoid, dict(z=[0.0, 2.0]), accepts={"z": NUMBERS | {"matrix", "empty_list"}}),
    Case(losses.sigmoid_derivative, dict(z=[0.0, 2.0]), accepts={"z": NUMBERS | {"matrix", "empty_list"}}),
    Case(losses.binary_cross_entropy_with_logits, dict(logits=[0.5, -1.0], targets=[1.0, 0.0], reduction="sum")),
    Case(losses.binary_cross_entropy_gradient, dict(logits=[0.5, -1.0], targets=[1.0, 0.0], reduction="mean")),
    # (the bad "matrix", ones of shape (2, 3), is a valid pair of logit rows for these labels)
    Case(losses.softmax_cross_entropy, dict(logits=np.zeros((2, 3)), labels=[0, 2], reduction="none"),
         accepts={"logits": {"matrix"}}),
    Case(losses.softmax_cross_entropy_gradient, dict(logits=np.zeros((2, 3)), labels=[0, 2], reduction="mean"),
         accepts={"logits": {"matrix"}}),
    Case(logistic.LogisticRegression, dict(n_features=2, lam=0.5), accepts={"lam": {"zero", "huge_int", "huge_float"}}),
    Case(logistic.SoftmaxRegression, dict(n_features=2, n_classes=3, lam=0.5), accepts={"lam": {"zero", "huge_int", "huge_float"}}),
    Case(logistic.LogisticRegression(2, lam=0.5).fit,
         dict(X=_X, y=[0, 1, 1, 0], lr=0.1, epochs=3, batch_size=2, momentum=0.5, tol=1e-6, seed=1),
         # a batch larger than the data is the full batch; momentum 0 is plain descent; tol 0 never stops early
         accepts={"batch_size": {"none", "huge_int"}, "momentum": {"zero"}, "tol": {"none", "zero", "huge_int",
                                                                                     "huge_float"},
                  "seed": {"zero"}, "lr": {"huge_int", "huge_float"}}),
    Case(logistic.SoftmaxRegression(2, 3).predict_proba, dict(X=_X)),
    Case(logistic.SoftmaxRegression(2, 3).objective, dict(X=_X, y=_LABELS)),
    Case(logistic.accuracy, dict(labels=_LABELS, predictions=[0, 1, 0, 0])),
]
