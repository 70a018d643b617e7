"""Correlation, convolution, border modes and separable filters: checked against
scipy.ndimage and torch, and by the properties of linear shift-invariant filters."""

import numpy as np
import pytest
import scipy.ndimage as ndi
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.vision import (BORDER_MODES, box_kernel, convolve, correlate, correlate1d, gaussian_kernel, gaussian_kernel_2d,
                             laplacian_kernel, load_photo, separable_factors, separable_filter, sobel_kernels)

PADDED_MODES = ["zero", "extend", "mirror", "symmetric", "wrap"]
RNG = np.random.default_rng(0)
CAMERA = load_photo("camera")[100:228, 150:310]  # a 128 × 160 crop keeps the tests fast
KERNELS = [RNG.normal(size=shape) for shape in [(1, 1), (3, 3), (5, 3), (1, 7), (9, 5)]]


@pytest.mark.parametrize("mode", PADDED_MODES)
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda k: "x".join(map(str, k.shape)))
def test_correlate_and_convolve_equal_scipy(mode, kernel):
    scipy_mode = BORDER_MODES[mode]["scipy"]
    assert np.abs(correlate(CAMERA, kernel, mode) - ndi.correlate(CAMERA, kernel, mode=scipy_mode)).max() <= 1e-12
    assert np.abs(convolve(CAMERA, kernel, mode) - ndi.convolve(CAMERA, kernel, mode=scipy_mode)).max() <= 1e-12


def test_zero_mode_uses_cval():
    kernel = KERNELS[2]
    ours = correlate(CAMERA, kernel, "zero", cval=0.5)
    assert np.abs(ours - ndi.correlate(CAMERA, kernel, mode="constant", cval=0.5)).max() <= 1e-12


@pytest.mark.parametrize("mode", ["zero", "extend", "mirror", "wrap"])
@pytest.mark.parametrize("kernel", KERNELS[1:], ids=lambda k: "x".join(map(str, k.shape)))
def test_correlate_equals_torch_conv2d(mode, kernel):
    """torch's conv2d is a correlation; its padding modes have their own names."""
    a, b = kernel.shape[0] // 2, kernel.shape[1] // 2
    x = torch.from_numpy(CAMERA)[None, None]
    x = torch.nn.functional.pad(x, (b, b, a, a), mode=BORDER_MODES[mode]["torch"])
    reference = torch.nn.functional.conv2d(x, torch.from_numpy(kernel)[None, None])[0, 0].numpy()
    assert np.abs(correlate(CAMERA, kernel, mode) - reference).max() <= 1e-12


def test_valid_mode_keeps_only_full_windows():
    kernel = KERNELS[4]  # 9 × 5
    out = correlate(CAMERA, kernel, "valid")
    assert out.shape == (CAMERA.shape[0] - 8, CAMERA.shape[1] - 4)
    reference = torch.nn.functional.conv2d(torch.from_numpy(CAMERA)[None, None],
                                           torch.from_numpy(kernel)[None, None])[0, 0].numpy()
    assert np.abs(out - reference).max() <= 1e-12


def test_border_modes_by_hand():
    """The first row 1 2 3 seen through a 1 × 5 kernel that picks the pixel two to the left."""
    row = np.array([[1.0, 2.0, 3.0]])
    pick_left_two = np.array([[1.0, 0.0, 0.0, 0.0, 0.0]])
    expected = {"zero": [0, 0, 1], "extend": [1, 1, 1], "mirror": [3, 2, 1], "symmetric": [2, 1, 1], "wrap": [2, 3, 1]}
    for mode, values in expected.items():
        assert correlate(row, pick_left_two, mode).tolist() == [values], mode


def test_convolution_flips_the_kernel():
    impulse = np.zeros((5, 5))
    impulse[2, 2] = 1.0
    kernel = np.arange(9.0).reshape(3, 3)
    assert np.array_equal(convolve(impulse, kernel, "zero")[1:4, 1:4], kernel)  # impulse response = kernel
    assert np.array_equal(correlate(impulse, kernel, "zero")[1:4, 1:4], kernel[::-1, ::-1])


def test_channels_are_filtered_one_by_one():
    photo = load_photo("chelsea")[:60, :80]
    kernel = KERNELS[2]
    out = correlate(photo, kernel)
    for c in range(3):
        assert np.array_equal(out[..., c], correlate(photo[..., c], kernel))


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0, 4.0])
@pytest.mark.parametrize("mode", PADDED_MODES)
def test_separable_gaussian_equals_scipy_gaussian_filter(sigma, mode):
    g = gaussian_kernel(sigma)
    ours = separable_filter(CAMERA, g, g, mode)
    assert np.abs(ours - ndi.gaussian_filter(CAMERA, sigma, mode=BORDER_MODES[mode]["scipy"], truncate=4.0)).max() <= 1e-12


@pytest.mark.parametrize("mode", PADDED_MODES)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("size", [1, 3, 17, 65])
def test_correlate1d_equals_scipy(mode, axis, size):
    kernel = RNG.normal(size=size)
    image = RNG.normal(size=(300, 140))  # more lines than one strip or block
    expected = ndi.correlate1d(image, kernel, axis=axis, mode=BORDER_MODES[mode]["scipy"], cval=0.5)
    assert np.abs(correlate1d(image, kernel, axis, mode, cval=0.5) - expected).max() <= 1e-12


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 40)), elements=st.floats(-10, 10)),
       st.integers(0, 6), st.sampled_from(list(BORDER_MODES)), st.integers(0, 1))
def test_correlate1d_equals_shift_and_add(image, half, mode, axis):
    """The banded-matrix route and the shift-and-add route agree in every mode and shape,
    including "valid" and kernels as long as the image allows."""
    kernel = RNG.normal(size=2 * half + 1)
    as_2d = kernel[:, None] if axis == 0 else kernel[None, :]
    try:
        expected = correlate(image, as_2d, mode, cval=-1.5)
    except ValueError:  # the kernel reaches too far for this mode: both must refuse
        with pytest.raises(ValueError):
            correlate1d(image, kernel, axis, mode, cval=-1.5)
        return
    assert np.abs(correlate1d(image, kernel, axis, mode, cval=-1.5) - expected).max() <= 1e-12


def test_separable_filter_in_strips_equals_two_dimensional():
    image = RNG.normal(size=(300, 70, 2))  # three strips of rows, two channels
    v, h = RNG.normal(size=7), RNG.normal(size=5)
    for mode in BORDER_MODES:
        assert np.abs(separable_filter(image, v, h, mode) - correlate(image, np.outer(v, h), mode)).max() <= 1e-12


@pytest.mark.parametrize("mode", PADDED_MODES)
def test_separable_equals_two_dimensional(mode):
    v, h = RNG.normal(size=5), RNG.normal(size=3)
    assert np.abs(separable_filter(CAMERA, v, h, mode) - correlate(CAMERA, np.outer(v, h), mode)).max() <= 1e-12


def test_separable_factors():
    for kernel in [gaussian_kernel_2d(1.5), box_kernel(5), sobel_kernels()[0]]:
        v, h = separable_factors(kernel)
        assert np.abs(np.outer(v, h) - kernel).max() <= 1e-12
    with pytest.raises(ValueError, match="not separable"):
        separable_factors(laplacian_kernel())


small_images = arrays(np.float64, st.tuples(st.integers(5, 12), st.integers(5, 12)),
                      elements=st.floats(-10, 10, allow_nan=False))
small_kernels = arrays(np.float64, st.sampled_from([(1, 3), (3, 1), (3, 3), (5, 3)]),
                       elements=st.floats(-2, 2, allow_nan=False))


@settings(max_examples=60, deadline=None)
@given(small_images, small_images, small_kernels, st.floats(-3, 3), st.floats(-3, 3), st.sampled_from(PADDED_MODES))
def test_linearity(f, g, kernel, a, b, mode):
    g = np.resize(g, f.shape)
    lhs = correlate(a * f + b * g, kernel, mode)
    rhs = a * correlate(f, kernel, mode) + b * correlate(g, kernel, mode)
    assert np.allclose(lhs, rhs, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(small_images, small_kernels, st.integers(-4, 4), st.integers(-4, 4))
def test_shift_invariance(f, kernel, dy, dx):
    """With periodic borders, filtering a shifted image = shifting the filtered image."""
    shifted = np.roll(f, (dy, dx), axis=(0, 1))
    assert np.allclose(correlate(shifted, kernel, "wrap"), np.roll(correlate(f, kernel, "wrap"), (dy, dx), axis=(0, 1)))


@settings(max_examples=40, deadline=None)
@given(small_images, small_kernels, small_kernels)
def test_convolution_is_associative(f, k1, k2):
    """(f ∗ K1) ∗ K2 = f ∗ (K1 ∗ K2) with periodic borders; K1 ∗ K2 is the full convolution of the kernels."""
    full = np.zeros((k1.shape[0] + k2.shape[0] - 1, k1.shape[1] + k2.shape[1] - 1))
    for (i, j), w in np.ndenumerate(k2):
        full[i:i + k1.shape[0], j:j + k1.shape[1]] += w * k1
    assert np.allclose(convolve(convolve(f, k1, "wrap"), k2, "wrap"), convolve(f, full, "wrap"), atol=1e-9)


@pytest.mark.parametrize("call, error, words", [
    (lambda: correlate(CAMERA, np.ones((2, 3))), ValueError, "odd"),
    (lambda: correlate(CAMERA, np.ones((3, 3)), mode="reflect"), ValueError, "mode"),
    (lambda: correlate(np.zeros((2, 2)), np.ones((3, 3)), mode="valid"), ValueError, "valid"),
    (lambda: correlate(np.zeros((2, 2)), np.ones((7, 7)), mode="mirror"), ValueError, "reaches"),
    (lambda: correlate(np.zeros(5), np.ones((3, 3))), ValueError, "image"),
    (lambda: correlate(np.zeros((0, 4)), np.ones((3, 3))), ValueError, "image"),
    (lambda: correlate(np.full((4, 4), np.nan), np.ones((3, 3))), ValueError, "image"),
    (lambda: correlate(CAMERA, np.ones((3, 3, 3))), ValueError, "kernel"),
    (lambda: separable_filter(CAMERA, np.ones(3), np.ones(3), "zero", cval=1.0), ValueError, "cval"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
