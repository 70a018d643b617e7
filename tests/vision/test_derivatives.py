"""Gaussian smoothing, gradients and the Laplacian, against scipy.ndimage and by hand."""

import math

import numpy as np
import pytest
import scipy.ndimage as ndi
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision import (BORDER_MODES, GRADIENT_OPERATORS, gaussian_filter, gaussian_gradient, gradient,
                             gradient_polar, laplacian, load_photo)

CAMERA = load_photo("camera")[200:328, 180:340]
MODES = ["zero", "extend", "mirror", "symmetric", "wrap"]


@pytest.mark.parametrize("sigma", [0.7, 2.0, 5.0])
@pytest.mark.parametrize("mode", MODES)
def test_gaussian_filter_equals_scipy(sigma, mode):
    ours = gaussian_filter(CAMERA, sigma, mode)
    assert np.abs(ours - ndi.gaussian_filter(CAMERA, sigma, mode=BORDER_MODES[mode]["scipy"])).max() <= 1e-12


@pytest.mark.parametrize("mode", MODES)
def test_sobel_gradient_and_laplacian_equal_scipy(mode):
    fx, fy = gradient(CAMERA, "sobel", mode)
    scipy_mode = BORDER_MODES[mode]["scipy"]
    assert np.abs(fx - ndi.sobel(CAMERA, axis=1, mode=scipy_mode) / 8).max() <= 1e-12
    assert np.abs(fy - ndi.sobel(CAMERA, axis=0, mode=scipy_mode) / 8).max() <= 1e-12
    assert np.abs(laplacian(CAMERA, mode) - ndi.laplace(CAMERA, mode=scipy_mode)).max() <= 1e-12


@pytest.mark.parametrize("sigma", [1.0, 3.0])
def test_derivative_of_gaussian_equals_scipy(sigma):
    gx, gy = gaussian_gradient(CAMERA, sigma)
    assert np.abs(gx - ndi.gaussian_filter(CAMERA, sigma, order=(0, 1), mode="mirror")).max() <= 1e-12
    assert np.abs(gy - ndi.gaussian_filter(CAMERA, sigma, order=(1, 0), mode="mirror")).max() <= 1e-12


@settings(max_examples=30, deadline=None)
@given(st.floats(-2, 2), st.floats(-2, 2), st.sampled_from(sorted(GRADIENT_OPERATORS)))
def test_every_operator_gives_the_slope_of_a_plane(a, b, operator):
    """f = a x + b y: every operator returns (a, b) away from the border, magnitude √(a² + b²)."""
    y, x = np.mgrid[0:12, 0:14].astype(float)
    fx, fy = gradient(a * x + b * y, operator, "extend")
    inner = (slice(2, -2), slice(2, -2))
    assert np.allclose(fx[inner], a) and np.allclose(fy[inner], b)
    magnitude, theta = gradient_polar(fx, fy)
    assert np.allclose(magnitude[inner], math.hypot(a, b))
    if math.hypot(a, b) > 1e-6:
        assert np.allclose(np.angle(np.exp(1j * (theta[inner] - math.atan2(b, a)))), 0)  # equal as angles: π = −π


def test_laplacian_of_a_paraboloid_is_constant():
    y, x = np.mgrid[0:10, 0:10].astype(float)
    assert np.allclose(laplacian(x**2 + 3 * y**2, "extend")[1:-1, 1:-1], 2 + 6)


def test_orientation_points_down_for_an_image_brighter_below():
    rows = np.repeat(np.arange(8.0)[:, None], 8, axis=1)  # brighter downwards
    _, theta = gradient_polar(*gradient(rows, "central", "extend"))
    assert np.allclose(theta[2:-2, 2:-2], math.pi / 2)


@pytest.mark.parametrize("call, error, words", [
    (lambda: gaussian_filter(CAMERA, 0.0), ValueError, "sigma"),
    (lambda: gaussian_filter(CAMERA, float("inf")), ValueError, "sigma"),
    (lambda: gradient(CAMERA, "prewitt"), ValueError, "operator"),
    (lambda: gradient(np.zeros((4, 4, 3))), ValueError, "image"),
    (lambda: gradient_polar(np.zeros((3, 3)), np.zeros((3, 4))), ValueError, "fx and fy"),
    (lambda: gaussian_gradient(CAMERA, -1.0), ValueError, "sigma"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
