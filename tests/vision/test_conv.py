"""Convolution layers by hand (mmir_lib.vision.conv): forward, backward and pooling equal to
torch's in float64 on hypothesis-generated shapes; loops equal im2col; the output-size and
receptive-field formulas on hand-worked cases; Part II's correlate equals a conv layer."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision import correlate, gaussian_kernel_2d, load_photo, sobel_kernels
from mmir_lib.vision.conv import (avg_pool2d, conv2d, conv2d_backward, conv2d_loops, conv_output_size, im2col,
                                  max_pool2d, receptive_field, relu)


@st.composite
def layers(draw):
    """A batch, weights, a bias, stride, padding and dilation that fit together."""
    n, c, f = draw(st.integers(1, 3)), draw(st.integers(1, 3)), draw(st.integers(1, 4))
    kh, kw = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    stride, padding, dilation = draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    h = draw(st.integers(max(1, dilation * (kh - 1) + 1 - 2 * padding), 11))
    w = draw(st.integers(max(1, dilation * (kw - 1) + 1 - 2 * padding), 11))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    return (rng.normal(size=(n, c, h, w)), rng.normal(size=(f, c, kh, kw)), rng.normal(size=f),
            stride, padding, dilation)


def _torch(array, grad=False):
    return torch.tensor(array, dtype=torch.float64, requires_grad=grad)


@settings(max_examples=60, deadline=None)
@given(layers())
def test_conv2d_and_the_loops_equal_torch(layer):
    x, w, b, stride, padding, dilation = layer
    reference = F.conv2d(_torch(x), _torch(w), _torch(b), stride=stride, padding=padding, dilation=dilation).numpy()
    ours = conv2d(x, w, b, stride, padding, dilation)
    assert ours.shape == reference.shape
    assert np.abs(ours - reference).max() <= 1e-12
    assert np.abs(conv2d_loops(x, w, b, stride, padding, dilation) - ours).max() <= 1e-12


@settings(max_examples=60, deadline=None)
@given(layers())
def test_backward_equals_autograd(layer):
    x, w, b, stride, padding, dilation = layer
    xt, wt, bt = _torch(x, True), _torch(w, True), _torch(b, True)
    z = F.conv2d(xt, wt, bt, stride=stride, padding=padding, dilation=dilation)
    grad_out = np.random.default_rng(1).normal(size=tuple(z.shape))
    z.backward(_torch(grad_out))
    grad_x, grad_w, grad_b = conv2d_backward(x, w, grad_out, stride, padding, dilation)
    assert np.abs(grad_x - xt.grad.numpy()).max() <= 1e-12
    assert np.abs(grad_w - wt.grad.numpy()).max() <= 1e-12
    assert np.abs(grad_b - bt.grad.numpy()).max() <= 1e-12


@settings(max_examples=40, deadline=None)
@given(layers())
def test_im2col_times_the_weights_is_the_convolution(layer):
    x, w, _, stride, padding, dilation = layer
    columns = im2col(x, w.shape[2:], stride, padding, dilation)
    out = conv2d(x, w, None, stride, padding, dilation)
    n, f, out_h, out_w = out.shape
    assert columns.shape == (w[0].size, n * out_h * out_w)
    product = (w.reshape(f, -1) @ columns).reshape(f, n, out_h, out_w).transpose(1, 0, 2, 3)
    assert np.abs(product - out).max() <= 1e-12


@settings(max_examples=40, deadline=None)
@given(layers())
def test_the_output_size_formula_is_torchs(layer):
    x, w, _, stride, padding, dilation = layer
    out = F.conv2d(_torch(x), _torch(w), stride=stride, padding=padding, dilation=dilation)
    assert out.shape[2] == conv_output_size(x.shape[2], w.shape[2], stride, padding, dilation)
    assert out.shape[3] == conv_output_size(x.shape[3], w.shape[3], stride, padding, dilation)


def test_output_size_by_hand():
    assert conv_output_size(28, 5) == 24                      # LeNet's first layer, valid
    assert conv_output_size(28, 5, padding=2) == 28           # same padding p = (k − 1)/2
    assert conv_output_size(7, 3, stride=2) == 3              # ⌊(7 − 3)/2⌋ + 1
    assert conv_output_size(8, 3, stride=2) == 3              # the floor drops the last row
    assert conv_output_size(9, 3, dilation=2) == 5            # a dilated 3-tap kernel spans 5
    with pytest.raises(ValueError, match="k must fit"):
        conv_output_size(4, 5)


def test_im2col_by_hand():
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    # four 2 × 2 windows, each a column: [[0, 1, 3, 4], [1, 2, 4, 5], ...]
    expected = np.array([[0, 1, 3, 4], [1, 2, 4, 5], [3, 4, 6, 7], [4, 5, 7, 8]], dtype=float).T
    assert np.array_equal(im2col(x, 2), expected)


@pytest.mark.parametrize("kernel, stride, padding", [(2, None, 0), (3, 2, 1), (3, 1, 1), (4, 3, 2), (2, 1, 0)])
def test_pooling_equals_torch(kernel, stride, padding):
    x = np.random.default_rng(0).normal(size=(2, 3, 9, 8))
    xt = _torch(x)
    assert np.array_equal(max_pool2d(x, kernel, stride, padding), F.max_pool2d(xt, kernel, stride, padding).numpy())
    assert np.abs(avg_pool2d(x, kernel, stride, padding) - F.avg_pool2d(xt, kernel, stride, padding).numpy()).max() \
        <= 1e-12


def test_relu_equals_torch():
    x = np.random.default_rng(0).normal(size=(3, 4))
    assert np.array_equal(relu(x), F.relu(_torch(x)).numpy())


def test_receptive_field_by_hand():
    # conv 3×3, conv 3×3, max pool 2 stride 2, conv 3×3 dilation 2:
    # r = 1 + 2 = 3; 3 + 2 = 5; 5 + 1 = 6 (jump 2); 6 + 2·2·2 = 14
    assert receptive_field([(3, 1), (3, 1), (2, 2), (3, 1, 2)]) == [(3, 1), (5, 1), (6, 2), (14, 2)]
    assert receptive_field([(5, 1), (2, 2), (5, 1), (2, 2)])[-1] == (16, 4)


def test_receptive_field_is_the_support_of_the_gradient():
    # One output of a stack depends on exactly r × r input pixels: its gradient's support
    # (average pooling, so that every pixel of a window gets a share of the gradient)
    stack = [(3, 1), (2, 2), (3, 1)]
    x = torch.zeros(1, 1, 20, 20, dtype=torch.float64, requires_grad=True)
    z = F.conv2d(F.avg_pool2d(F.conv2d(x, torch.ones(1, 1, 3, 3, dtype=torch.float64)), 2, 2),
                 torch.ones(1, 1, 3, 3, dtype=torch.float64))
    z[0, 0, 2, 2].backward()
    rows, cols = np.nonzero(x.grad[0, 0].numpy())
    size = receptive_field(stack)[-1][0]
    assert rows.max() - rows.min() + 1 == size and cols.max() - cols.min() + 1 == size


def test_part_two_kernels_as_a_conv_layer_equal_correlate():
    camera = load_photo("camera")[:128, :128]
    sobel_x, sobel_y = sobel_kernels()
    weights = np.zeros((3, 1, 5, 5))  # Sobel x, Sobel y (zero-framed to 5 × 5) and a Gaussian
    weights[0, 0, 1:4, 1:4], weights[1, 0, 1:4, 1:4] = sobel_x, sobel_y
    weights[2, 0] = gaussian_kernel_2d(1.0, truncate=2.0)
    out = conv2d(camera[None, None], weights)
    for f in range(3):
        assert np.abs(out[0, f] - correlate(camera, weights[f, 0], mode="valid")).max() <= 1e-12


@pytest.mark.parametrize("call, message", [
    (lambda: conv2d(np.ones((1, 2, 5, 5)), np.ones((1, 3, 3, 3))), "w must have as many input channels"),
    (lambda: conv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 5, 5))), "w is larger than the padded input"),
    (lambda: conv2d(np.ones((1, 1, 3, 3)), np.ones((1, 1, 5, 5)), padding=1), None),
    (lambda: conv2d(np.ones((1, 1, 5, 5)), np.ones((1, 1, 3, 3)), stride=0), "stride must be >= 1"),
    (lambda: conv2d(np.ones((5, 5)), np.ones((1, 1, 3, 3))), "x must be 4-dimensional"),
    (lambda: conv2d(np.full((1, 1, 5, 5), np.nan), np.ones((1, 1, 3, 3))), "x must hold finite"),
    (lambda: conv2d(np.ones((1, 1, 5, 5)), np.ones((2, 1, 3, 3)), b=np.ones(3)), "b must have shape"),
    (lambda: max_pool2d(np.ones((1, 1, 5, 5)), 2, padding=2), "padding must be at most half"),
    (lambda: conv2d_backward(np.ones((1, 1, 5, 5)), np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))),
     "grad_out must have shape"),
    (lambda: im2col(np.ones((1, 1, 4, 4)), 2, padding=10**5),
     "padding asks for an array"),
])
def test_bad_layers_are_refused_clearly(call, message):
    if message is None:
        assert call().shape == (1, 1, 1, 1)  # padding 1 makes a 5 × 5 kernel fit a 3 × 3 input
        return
    with pytest.raises(ValueError, match=message):
        call()
