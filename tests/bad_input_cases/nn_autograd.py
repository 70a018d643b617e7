"""Bad-input cases for Part IV's autograd engine (mmir_lib.nn.autograd)."""

import numpy as np

from mmir_lib.nn import autograd
from tests.api_fuzz import Case


def _leaf():
    return autograd.Tensor(np.array([[0.5, -1.0], [2.0, 0.25]]), requires_grad=True, name="w")


def _loss_of(w):
    return lambda: (w * w).sum()


_W = _leaf()
SCALARS = {"negative", "negative_float", "zero", "huge_float"}  # a number is a 0-d array: legal data

CASES = [
    Case(autograd.Tensor, dict(data=[[1.0, 2.0]], requires_grad=False, name="x"),
         accepts={"data": SCALARS | {"matrix"}, "requires_grad": {"bool"}, "name": {"str"}}),
    # grad of shape (2, 3) is (3,) broadcast over rows: a matrix is legal; () is a scalar's shape
    Case(autograd.unbroadcast, dict(grad=np.ones((4, 3)), shape=(3,)),
         accepts={"grad": {"matrix"}, "shape": {"empty_list"}}),
    Case(autograd.topological_order, dict(root=_leaf() * 2.0)),
    Case(autograd.softmax_cross_entropy, dict(logits=autograd.Tensor(np.zeros((3, 3)), True), labels=[0, 2, 1],
                                              axis=-1), accepts={"axis": {"zero", "negative"}}),
    Case(autograd.numerical_gradient, dict(f=lambda x: float(np.sum(np.tanh(x))), x=[1.0, -2.0], eps=1e-6),
         accepts={"x": SCALARS | {"matrix"}}),
    Case(autograd.relative_error, dict(g=[1.0, 2.0, 3.0], g_num=[1.0, 2.0, 3.000001])),
    Case(autograd.gradient_check, dict(loss=_loss_of(_W), params=[_W], eps=1e-6)),
]
