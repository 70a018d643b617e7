"""The classic kernels: their sums, their shapes, and scipy's and skimage's versions."""

import math

import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.filters

from mmir_lib.vision import (binomial_kernel, box_kernel, correlate, derivative_kernel, gaussian_kernel,
                             gaussian_kernel_2d, laplacian_kernel, load_photo, scharr_kernels, sharpen_kernel,
                             sobel_kernels)

CAMERA = load_photo("camera")[:96, :128]


def test_smoothing_kernels_sum_to_one_and_derivatives_to_zero():
    for kernel in [box_kernel(5), gaussian_kernel_2d(1.3), np.outer(binomial_kernel(2), binomial_kernel(2)),
                   sharpen_kernel(0.7)]:
        assert math.isclose(kernel.sum(), 1.0, abs_tol=1e-12)
    for kernel in [derivative_kernel("central"), derivative_kernel("forward"), derivative_kernel("backward"),
                   *sobel_kernels(), *scharr_kernels(), laplacian_kernel()]:
        assert abs(kernel.sum()) <= 1e-12


@pytest.mark.parametrize("sigma, truncate", [(0.5, 4.0), (1.0, 4.0), (2.0, 3.0), (8.0, 4.0)])
def test_gaussian_radius_and_weights_match_scipy(sigma, truncate):
    g = gaussian_kernel(sigma, truncate)
    radius = int(truncate * sigma + 0.5)
    assert g.shape == (2 * radius + 1,) and np.array_equal(g, g[::-1])
    impulse = np.zeros(4 * radius + 1)
    impulse[2 * radius] = 1.0
    response = ndi.gaussian_filter1d(impulse, sigma, truncate=truncate, mode="constant")
    assert np.abs(response[radius:3 * radius + 1] - g).max() <= 1e-15


def test_binomial_is_the_integer_one_sixteenth_kernel():
    b = binomial_kernel(2)
    assert np.array_equal(np.outer(b, b) * 16, [[1, 2, 1], [2, 4, 2], [1, 2, 1]])
    assert np.array_equal(binomial_kernel(4) * 16, [1, 4, 6, 4, 1])


def test_derivatives_on_a_ramp():
    ramp = np.tile(np.arange(10.0) * 0.5, (5, 1))  # f(x) = x / 2
    for kind in ["central", "forward", "backward"]:
        assert np.allclose(correlate(ramp, derivative_kernel(kind), "extend")[:, 2:-2], 0.5)


def test_sobel_and_laplacian_equal_scipy():
    kx, ky = sobel_kernels()
    assert np.abs(correlate(CAMERA, kx, "symmetric") - ndi.sobel(CAMERA, axis=1)).max() <= 1e-12
    assert np.abs(correlate(CAMERA, ky, "symmetric") - ndi.sobel(CAMERA, axis=0)).max() <= 1e-12
    assert np.abs(correlate(CAMERA, laplacian_kernel(), "symmetric") - ndi.laplace(CAMERA)).max() <= 1e-12


def test_scharr_equals_skimage_up_to_its_normalisation():
    kx, ky = scharr_kernels()
    inner = (slice(1, -1), slice(1, -1))  # skimage treats the outermost pixels its own way
    assert np.abs(correlate(CAMERA, ky)[inner] / 16 - skimage.filters.scharr_h(CAMERA)[inner]).max() <= 1e-12
    assert np.abs(correlate(CAMERA, kx)[inner] / 16 - skimage.filters.scharr_v(CAMERA)[inner]).max() <= 1e-12


@pytest.mark.parametrize("call, error, words", [
    (lambda: box_kernel(4), ValueError, "odd"),
    (lambda: box_kernel(0), ValueError, "size"),
    (lambda: gaussian_kernel(0.0), ValueError, "sigma"),
    (lambda: gaussian_kernel(-1.0), ValueError, "sigma"),
    (lambda: gaussian_kernel(float("nan")), ValueError, "sigma"),
    (lambda: gaussian_kernel(True), TypeError, "sigma"),
    (lambda: gaussian_kernel(1.0, truncate=0), ValueError, "truncate"),
    (lambda: binomial_kernel(3), ValueError, "order"),
    (lambda: derivative_kernel("sideways"), ValueError, "kind"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_numpy_scalars_are_numbers():
    assert np.array_equal(gaussian_kernel(np.float32(1.5)), gaussian_kernel(1.5))
    assert np.array_equal(box_kernel(np.int64(3)), box_kernel(3))
