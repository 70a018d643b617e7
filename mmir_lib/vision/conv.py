"""Convolution layers by hand (Part V.1): forward, backward, pooling, receptive fields.

A convolution layer maps a batch ``x`` of shape (N, C, H, W) -- N images of C channels
-- with F filters ``w`` of shape (F, C, k_h, k_w) and a bias ``b`` of shape (F,) to

    z[n, f, y, x] = b[f] + Σ_c Σ_i Σ_j w[f, c, i, j] · x_p[n, c, s·y + d·i, s·x + d·j]

where x_p is x padded with p zeros on every side, s is the **stride** and d the
**dilation**. Like ``torch.nn.functional.conv2d`` (and Part II's
:func:`mmir_lib.vision.filters.correlate`) it is a correlation: the kernel is not
flipped. Along each axis the output has

    n' = ⌊(n + 2p − d(k − 1) − 1) / s⌋ + 1

positions (:func:`conv_output_size`; Dumoulin and Visin, *A guide to convolution
arithmetic*, 2016). Three ways to compute it, all float64 and equal:

=================== ==============================================================
:func:`conv2d_loops` one output position at a time (the definition)
:func:`im2col`       every receptive window as a column of one matrix
:func:`conv2d`       im2col, then one matrix product  W (F, C·k_h·k_w) @ columns
=================== ==============================================================

The backward pass is made of convolutions too (:func:`conv2d_backward`): the gradient
with respect to the input is a *full* correlation of the output gradient (spread out by
the stride) with the flipped kernel, computed as im2col's transpose (col2im: each
window's gradient Wᵀg added back onto the pixels the window was read from), and the
gradient with respect to the weights is a correlation of the input with the output
gradient, in which stride and dilation trade places. Pooling (:func:`max_pool2d`, :func:`avg_pool2d`) and :func:`relu` complete a
LeNet-style layer; :func:`receptive_field` says how much of the input one output of a
stack of layers sees.

Strides, paddings and dilations are single ints (the same along both axes). All
arguments are checked at the door; :func:`im2col` refuses a matrix over the library's
memory limit before it is built.
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..validation import (check_array, check_count, check_list, check_memory, check_optional,
                          describe)

__all__ = ["conv_output_size", "conv2d_loops", "im2col", "conv2d", "conv2d_backward", "relu", "max_pool2d",
           "avg_pool2d", "receptive_field"]


def conv_output_size(n: int, k: int, stride: int = 1, padding: int = 0, dilation: int = 1) -> int:
    """Output length ⌊(n + 2p − d(k − 1) − 1)/s⌋ + 1 of a convolution along one axis.

    >>> conv_output_size(28, 5), conv_output_size(28, 5, padding=2), conv_output_size(7, 3, stride=2, padding=1)
    (24, 28, 4)
    """
    n = check_count("n", n, low=1)
    k = check_count("k", k, low=1)
    stride, padding, dilation = _check_geometry(stride, padding, dilation)
    span = dilation * (k - 1) + 1  # the kernel's extent, holes included
    if span > n + 2 * padding:
        raise ValueError(f"k must fit the padded input: a kernel spanning {span} > n + 2·padding = {n + 2 * padding}")
    return _output_size(n, k, stride, padding, dilation)


def _output_size(n: int, k: int, stride: int, padding: int, dilation: int) -> int:
    """:func:`conv_output_size` on checked arguments."""
    return (n + 2 * padding - dilation * (k - 1) - 1) // stride + 1


# ---- checks ----------------------------------------------------------------------------


def _check_geometry(stride: object, padding: object, dilation: object) -> tuple[int, int, int]:
    return (check_count("stride", stride, low=1), check_count("padding", padding),
            check_count("dilation", dilation, low=1))


def _check_batch(x: object) -> np.ndarray:
    x = check_array("x", x, ndim=4, nonempty=True)
    return x


def _check_kernel_size(kernel_size: object) -> tuple[int, int]:
    if isinstance(kernel_size, (tuple, list)):
        if len(kernel_size) != 2:
            raise ValueError(f"kernel_size must be an int or a pair (k_h, k_w), got {describe(kernel_size)}")
        return check_count("kernel_size", kernel_size[0], low=1), check_count("kernel_size", kernel_size[1], low=1)
    k = check_count("kernel_size", kernel_size, low=1)
    return k, k


def _check_fits(x_shape: tuple, kernel: tuple[int, int], padding: int, dilation: int, name: str) -> None:
    for axis, (n, k) in zip(("height", "width"), zip(x_shape[2:], kernel)):
        span = dilation * (k - 1) + 1
        if span > n + 2 * padding:
            raise ValueError(f"{name} is larger than the padded input: its {axis} spans {span} pixels "
                             f"(dilation included), the padded input has {n + 2 * padding}")


def _check_layer(x: object, w: object, b: object, stride: object, padding: object, dilation: object):
    x = _check_batch(x)
    w = check_array("w", w, ndim=4, nonempty=True)
    if w.shape[1] != x.shape[1]:
        raise ValueError(f"w must have as many input channels as x: w has shape {w.shape} "
                         f"(C = {w.shape[1]}), x has {x.shape} (C = {x.shape[1]})")
    b = check_optional(check_array, "b", b, ndim=1, shape=(w.shape[0],))
    stride, padding, dilation = _check_geometry(stride, padding, dilation)
    _check_fits(x.shape, w.shape[2:], padding, dilation, "w")
    return x, w, b, stride, padding, dilation


# ---- forward ------------------------------------------------------------------------------


def _pad(x: np.ndarray, ph: int, pw: int, value: float = 0.0) -> np.ndarray:
    if ph == 0 and pw == 0:
        return x
    return np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=value)


def _windows(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """A read-only view (N, C, k_h, k_w, H', W') of the already padded x: element
    [n, c, i, j, y, x] is x[n, c, s·y + d·i, s·x + d·j]. No copy."""
    n, c, height, width = x.shape
    out_h = (height - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    out_w = (width - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    sn, sc, sh, sw = x.strides
    return as_strided(x, shape=(n, c, kh, kw, out_h, out_w),
                      strides=(sn, sc, dilation[0] * sh, dilation[1] * sw, stride[0] * sh, stride[1] * sw),
                      writeable=False)


def _columns(x: np.ndarray, kh: int, kw: int, stride: tuple[int, int], dilation: tuple[int, int]) -> np.ndarray:
    """im2col of the already padded x: (C·k_h·k_w, N·H'·W'), rows in (c, i, j) order."""
    view = _windows(x, kh, kw, stride, dilation)
    n, c, _, _, out_h, out_w = view.shape
    check_memory("x", c * kh * kw * n * out_h * out_w)
    return view.transpose(1, 2, 3, 0, 4, 5).reshape(c * kh * kw, n * out_h * out_w)  # one copy


def _conv(x: np.ndarray, w: np.ndarray, stride: tuple[int, int], padding: tuple[int, int],
          dilation: tuple[int, int]) -> np.ndarray:
    """The convolution as one matrix product (trusted arguments; pairs per axis)."""
    n_filters, _, kh, kw = w.shape
    xp = _pad(x, *padding)
    columns = _columns(xp, kh, kw, stride, dilation)            # (C·kh·kw, N·H'·W')
    out = w.reshape(n_filters, -1) @ columns                    # (F, N·H'·W')
    view_shape = _windows(xp, kh, kw, stride, dilation).shape   # (N, C, kh, kw, H', W')
    out = out.reshape(n_filters, x.shape[0], *view_shape[4:])   # (F, N, H', W')
    return np.ascontiguousarray(out.transpose(1, 0, 2, 3))      # (N, F, H', W')


def conv2d_loops(x: object, w: object, b: object = None, stride: int = 1, padding: int = 0,
                 dilation: int = 1) -> np.ndarray:
    """The convolution layer by its definition, one output position (y, x) at a time.

    x (N, C, H, W), w (F, C, k_h, k_w), b (F,) or None  ->  (N, F, H', W'), float64:
    z[n, f, y, x] = b[f] + Σ_{c,i,j} w[f, c, i, j] · x_p[n, c, s·y + d·i, s·x + d·j].
    """
    x, w, b, stride, padding, dilation = _check_layer(x, w, b, stride, padding, dilation)
    n_filters, _, kh, kw = w.shape
    xp = _pad(x, padding, padding)
    out_h = _output_size(x.shape[2], kh, stride, padding, dilation)
    out_w = _output_size(x.shape[3], kw, stride, padding, dilation)
    out = np.zeros((x.shape[0], n_filters, out_h, out_w))
    for y in range(out_h):
        for x_ in range(out_w):
            top, left = y * stride, x_ * stride
            patch = xp[:, :, top:top + dilation * (kh - 1) + 1:dilation,
                       left:left + dilation * (kw - 1) + 1:dilation]          # (N, C, kh, kw)
            out[:, :, y, x_] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3]))  # (N, F)
    if b is not None:
        out += b[:, None, None]
    return out


def im2col(x: object, kernel_size: int | tuple[int, int], stride: int = 1, padding: int = 0,
           dilation: int = 1) -> np.ndarray:
    """Every receptive window of x as a column: the matrix (C·k_h·k_w, N·H'·W').

    Row (c, i, j) and column (n, y, x) hold x_p[n, c, s·y + d·i, s·x + d·j], so that a
    convolution is the matrix product w.reshape(F, −1) @ im2col(x, ...). The matrix holds
    every pixel about k_h·k_w/s² times: it is refused when over the library's memory limit.
    """
    x = _check_batch(x)
    kh, kw = _check_kernel_size(kernel_size)
    stride, padding, dilation = _check_geometry(stride, padding, dilation)
    _check_fits(x.shape, (kh, kw), padding, dilation, "kernel_size")
    check_memory("padding", x.shape[0] * x.shape[1] * (x.shape[2] + 2 * padding) * (x.shape[3] + 2 * padding))
    return _columns(_pad(x, padding, padding), kh, kw, (stride, stride), (dilation, dilation))


def conv2d(x: object, w: object, b: object = None, stride: int = 1, padding: int = 0, dilation: int = 1) -> np.ndarray:
    """The convolution layer as im2col and one matrix product; as :func:`conv2d_loops`.

    x (N, C, H, W), w (F, C, k_h, k_w), b (F,) or None  ->  (N, F, H', W'), float64,
    equal to ``torch.nn.functional.conv2d`` with the same stride, padding and dilation.
    """
    x, w, b, stride, padding, dilation = _check_layer(x, w, b, stride, padding, dilation)
    check_memory("padding", x.shape[0] * x.shape[1] * (x.shape[2] + 2 * padding) * (x.shape[3] + 2 * padding))
    out = _conv(x, w, (stride, stride), (padding, padding), (dilation, dilation))
    if b is not None:
        out += b[:, None, None]
    return out


# ---- backward ----------------------------------------------------------------------------


def conv2d_backward(x: object, w: object, grad_out: object, stride: int = 1, padding: int = 0,
                    dilation: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gradients of a loss L with respect to x, w and b, given g = ∂L/∂z of shape (N, F, H', W').

    * ∂L/∂x_p[n, c, u, v] = Σ_{f, i, j} w[f, c, i, j] · g̃[n, f, u − d·i, v − d·j], with g̃ the
      gradient spread out by the stride: a *full* correlation with the flipped kernel.
      Computed as col2im, the transpose of im2col: the columns' gradient Wᵀ g (C·k_h·k_w,
      N·H'·W') holds each window's share, and each kernel offset (i, j) adds its row block
      onto the strided slice x_p[:, :, d·i::s, d·j::s] it was read from; crop the padding p.
      This builds a matrix of the output's size times C·k_h·k_w / F, not the full
      correlation's im2col of the (larger, zero-padded) spread gradient.
    * ∂L/∂w[f, c, i, j] = Σ_{n,y,x} g[n, f, y, x] · x_p[n, c, s·y + d·i, s·x + d·j]: a
      correlation of x_p with g as the kernel, batch and channel axes swapped, with
      stride d and dilation s (the forward pass's two trade places).
    * ∂L/∂b[f] = Σ_{n,y,x} g[n, f, y, x].

    Returns (grad_x, grad_w, grad_b) of the shapes of x, w and (F,).
    """
    x, w, _, stride, padding, dilation = _check_layer(x, w, None, stride, padding, dilation)
    n_filters, channels, kh, kw = w.shape
    out_h = _output_size(x.shape[2], kh, stride, padding, dilation)
    out_w = _output_size(x.shape[3], kw, stride, padding, dilation)
    g = check_array("grad_out", grad_out, ndim=4)
    if g.shape != (x.shape[0], n_filters, out_h, out_w):
        raise ValueError(f"grad_out must have shape {(x.shape[0], n_filters, out_h, out_w)}, the output's for x, w "
                         f"and this stride, padding and dilation; got {g.shape}")
    height, width = x.shape[2] + 2 * padding, x.shape[3] + 2 * padding

    # ∂L/∂x (col2im): the gradient of every window's column, Wᵀ g, added back onto the pixels
    # the window was read from, one kernel offset (i, j) at a time. The batch axis goes last,
    # so that each offset's strided slice is made of long contiguous runs.
    check_memory("grad_out", channels * kh * kw * g.size // n_filters)           # the columns' gradient
    g_rows = np.ascontiguousarray(g.transpose(1, 2, 3, 0)).reshape(n_filters, -1)  # (F, H'·W'·N)
    columns = (w.reshape(n_filters, -1).T @ g_rows).reshape(channels, kh, kw, out_h, out_w, x.shape[0])
    grad_xp = np.zeros((channels, height, width, x.shape[0]))                     # (C, H_p, W_p, N)
    for i, j in itertools.product(range(kh), range(kw)):
        grad_xp[:, dilation * i:dilation * i + stride * (out_h - 1) + 1:stride,
                dilation * j:dilation * j + stride * (out_w - 1) + 1:stride] += columns[:, i, j]
    grad_x = grad_xp[:, padding:height - padding, padding:width - padding].transpose(3, 0, 1, 2)

    # ∂L/∂w: correlate the padded input with the output gradient; stride and dilation swap
    xp = _pad(x, padding, padding).transpose(1, 0, 2, 3)                           # (C, N, H_p, W_p)
    kernel = g.transpose(1, 0, 2, 3)                                               # (F, N, H', W')
    grad_w = _conv(np.ascontiguousarray(xp), np.ascontiguousarray(kernel), (dilation, dilation), (0, 0),
                   (stride, stride))                                               # (C, F, ≥kh, ≥kw)
    grad_w = np.ascontiguousarray(grad_w[:, :, :kh, :kw].transpose(1, 0, 2, 3))   # (F, C, kh, kw)
    return np.ascontiguousarray(grad_x), grad_w, g.sum(axis=(0, 2, 3))


# ---- activation and pooling -----------------------------------------------------------------


def relu(x: object) -> np.ndarray:
    """max(0, x), element by element (any shape), float64."""
    return np.maximum(check_array("x", x), 0.0)


def _check_pool(x: object, kernel_size: object, stride: object, padding: object) -> tuple:
    x = _check_batch(x)
    k = check_count("kernel_size", kernel_size, low=1)
    stride = k if stride is None else check_count("stride", stride, low=1)
    padding = check_count("padding", padding)
    if 2 * padding > k:
        raise ValueError(f"padding must be at most half the kernel size ({k // 2}), got {padding}")
    _check_fits(x.shape, (k, k), padding, 1, "kernel_size")
    return x, k, stride, padding


def _fold_offsets(combine: np.ufunc, windows: np.ndarray) -> np.ndarray:
    """Combine a window view (N, C, k, k, H', W') over its k × k offsets -> (N, C, H', W'):
    k² whole-array steps, each on one offset's strided slice (N, C, H', W'). The same
    result as reducing axes 2 and 3 (``windows.max(axis=(2, 3))``), many times faster:
    that reduction runs over two tiny axes per output pixel."""
    out = windows[:, :, 0, 0].copy()
    for i, j in itertools.product(range(windows.shape[2]), range(windows.shape[3])):
        if i or j:
            combine(out, windows[:, :, i, j], out=out)
    return out


def max_pool2d(x: object, kernel_size: int, stride: int | None = None, padding: int = 0) -> np.ndarray:
    """The largest value of each k × k window, channel by channel; windows every ``stride``
    pixels (default: k, no overlap), the border padded with −∞ (it never wins).

    x (N, C, H, W)  ->  (N, C, H', W') with H' = ⌊(H + 2p − k)/s⌋ + 1, as ``F.max_pool2d``.
    """
    x, k, stride, padding = _check_pool(x, kernel_size, stride, padding)
    windows = _windows(_pad(x, padding, padding, -np.inf), k, k, (stride, stride), (1, 1))  # (N, C, k, k, H', W')
    return _fold_offsets(np.maximum, windows)


def avg_pool2d(x: object, kernel_size: int, stride: int | None = None, padding: int = 0) -> np.ndarray:
    """The mean of each k × k window, channel by channel; padded zeros count in the mean
    (torch's default ``count_include_pad=True``). Shapes as :func:`max_pool2d`, as ``F.avg_pool2d``."""
    x, k, stride, padding = _check_pool(x, kernel_size, stride, padding)
    windows = _windows(_pad(x, padding, padding), k, k, (stride, stride), (1, 1))
    return _fold_offsets(np.add, windows) / (k * k)


# ---- receptive fields -----------------------------------------------------------------------


def receptive_field(layers: object) -> list[tuple[int, int]]:
    """Receptive field r and jump j after each layer of a stack, along one axis.

    Each layer is a tuple (k, s) or (k, s, d): kernel size, stride, dilation (a pooling
    layer is (k, s)). Starting from r₀ = 1 and j₀ = 1 (one input pixel),

        r_l = r_{l−1} + d_l (k_l − 1) j_{l−1},     j_l = j_{l−1} s_l,

    where j_l is the distance, in input pixels, between neighbouring outputs of layer l.

    >>> receptive_field([(3, 1), (3, 1)])      # two 3 × 3 convolutions see 5 × 5
    [(3, 1), (5, 1)]
    >>> receptive_field([(5, 1), (2, 2), (5, 1), (2, 2)])  # LeNet-5's first four layers
    [(5, 1), (6, 2), (14, 2), (16, 4)]
    """
    layers = check_list("layers", layers, tuple, nonempty=True)
    size, jump, out = 1, 1, []
    for i, layer in enumerate(layers):
        if len(layer) not in (2, 3):
            raise ValueError(f"layers[{i}] must be (kernel, stride) or (kernel, stride, dilation), got {layer!r}")
        k = check_count(f"layers[{i}] kernel", layer[0], low=1)
        s = check_count(f"layers[{i}] stride", layer[1], low=1)
        d = check_count(f"layers[{i}] dilation", layer[2], low=1) if len(layer) == 3 else 1
        size, jump = size + d * (k - 1) * jump, jump * s
        check_count("layers", size)  # an int64 still
        out.append((size, jump))
    return out
