"""Bad-input cases for Part V.1's convolution layers (mmir_lib.vision.conv)."""

import numpy as np

from mmir_lib.vision import conv
from tests.api_fuzz import Case


def _x():
    return np.random.default_rng(0).normal(size=(2, 3, 8, 7))


def _w():
    return np.random.default_rng(1).normal(size=(4, 3, 3, 2))


GEOMETRY = {"padding": {"zero"}}

CASES = [
    Case(conv.conv_output_size, dict(n=28, k=5, stride=2, padding=1, dilation=1), accepts=GEOMETRY),
    Case(conv.conv2d_loops, dict(x=_x(), w=_w(), b=np.zeros(4), stride=2, padding=1, dilation=2),
         accepts={"b": {"none"}, **GEOMETRY}),
    Case(conv.im2col, dict(x=_x(), kernel_size=(3, 2), stride=2, padding=1, dilation=1), accepts=GEOMETRY),
    Case(conv.conv2d, dict(x=_x(), w=_w(), b=np.zeros(4), stride=1, padding=1, dilation=2),
         accepts={"b": {"none"}, **GEOMETRY}),
    Case(conv.conv2d_backward, dict(x=_x(), w=_w(), grad_out=np.ones((2, 4, 4, 4)), stride=2, padding=1,
                                    dilation=1), accepts=GEOMETRY),
    # ReLU is defined for any real array, of any shape: a number, a matrix, an empty one
    Case(conv.relu, dict(x=np.array([-1.0, 2.0])),
         accepts={"x": {"bool", "negative", "negative_float", "zero", "huge_int", "huge_float", "empty_list",
                        "matrix"}}),
    Case(conv.max_pool2d, dict(x=_x(), kernel_size=3, stride=2, padding=1),
         accepts={"stride": {"none"}, **GEOMETRY}),
    Case(conv.avg_pool2d, dict(x=_x(), kernel_size=3, stride=2, padding=1),
         accepts={"stride": {"none"}, **GEOMETRY}),
    Case(conv.receptive_field, dict(layers=[(5, 1), (2, 2), (3, 1, 2)])),
]
