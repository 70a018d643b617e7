"""Bad-input cases for Part IV's initialisation, regularisation and normalisation
(mmir_lib.nn.init, mmir_lib.nn.regularization, mmir_lib.nn.normalization)."""

import numpy as np

from mmir_lib.nn import init, normalization, regularization
from tests.api_fuzz import Case


def _rng():
    return np.random.default_rng(0)


def _trained_batch_norm():
    bn = normalization.BatchNorm(3)
    bn.forward(np.arange(12.0).reshape(4, 3))
    return bn


HUGE = {"huge_int", "huge_float"}

CASES = [
    Case(init.init_std, dict(scheme="he", fan_in=4, fan_out=3, scale=0.01)),
    Case(init.zeros_init, dict(fan_in=4, fan_out=3)),
    Case(init.small_normal, dict(fan_in=4, fan_out=3, rng=_rng(), scale=0.01)),
    Case(init.xavier_normal, dict(fan_in=4, fan_out=3, rng=_rng())),
    Case(init.he_normal, dict(fan_in=4, fan_out=3, rng=_rng())),
    Case(init.init_weights, dict(scheme="xavier", sizes=[4, 3, 2], rng=_rng(), scale=0.01)),
    Case(init.activation_variances, dict(x=np.ones((5, 4)), scheme="he", activation="relu", depth=3, width=6,
                                         rng=_rng(), gain=1.0, scale=0.01),
         accepts={"x": {"matrix"}}),
    Case(regularization.l2_penalty, dict(weights=[np.ones((2, 3)), np.ones(3)], lambd=0.1, m=10),
         accepts={"lambd": {"zero", *HUGE}}),
    Case(regularization.dropout, dict(x=np.ones((3, 4)), keep_prob=0.5, rng=_rng(), training=True),
         accepts={"x": {"matrix"}, "training": {"bool"}}),
    Case(regularization.dropout_backward, dict(grad_out=np.ones((3, 4)), mask=np.ones((3, 4), bool), keep_prob=0.5)),
    Case(normalization.standardization, dict(x=np.arange(12.0).reshape(4, 3)), accepts={"x": {"matrix"}}),
    Case(normalization.standardize, dict(x=np.ones((4, 3)), mean=np.zeros(3), std=np.ones(3)),
         accepts={"x": {"matrix"}}),
    Case(normalization.BatchNorm, dict(num_features=3, eps=1e-5, momentum=0.1),
         accepts={"momentum": {"zero"}, "eps": HUGE}),
    Case(normalization.BatchNorm(4).forward, dict(x=np.arange(12.0).reshape(3, 4), training=True),
         accepts={"training": {"bool"}}),
    Case(_trained_batch_norm().backward, dict(grad_out=np.ones((4, 3)))),
]

EXEMPT = {"mmir_lib.nn.init.DepthProfile": "a record of two arrays that activation_variances returns"}
