"""Edge detectors: Canny against skimage's, the LoG against scipy's, and the steps by hand."""

import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.feature

from mmir_lib.vision import load_photo
from mmir_lib.vision.edges import canny, hysteresis, laplacian_of_gaussian, non_maximum_suppression, zero_crossings

CAMERA = load_photo("camera")
COINS = load_photo("coins")


@pytest.mark.parametrize("image", [CAMERA, COINS], ids=["camera", "coins"])
@pytest.mark.parametrize("sigma, low, high", [(1.0, 0.02, 0.05), (2.0, 0.01, 0.03)])
def test_canny_agrees_with_skimage(image, sigma, low, high):
    """skimage thresholds the unnormalised Sobel magnitude (8 × ours) and interpolates
    between neighbours in non-maximum suppression where we quantise to four directions,
    so a few pixels differ; measured on these two photographs: 98.8 % to 99.6 % of all
    pixels agree, and 93 % to 99 % of each detector's edge pixels lie within one pixel of
    the other's."""
    ours = canny(image, sigma, low, high)
    reference = skimage.feature.canny(image, sigma=sigma, low_threshold=8 * low, high_threshold=8 * high,
                                      mode="nearest")
    near = np.ones((3, 3), dtype=bool)
    assert (ours == reference).mean() >= 0.985
    assert (ours & ndi.binary_dilation(reference, near)).sum() >= 0.9 * ours.sum()
    assert (reference & ndi.binary_dilation(ours, near)).sum() >= 0.95 * reference.sum()


def test_non_maximum_suppression_thins_a_blurred_edge_to_one_pixel():
    step = np.zeros((20, 30))
    step[:, 15:] = 1.0
    blurred = ndi.gaussian_filter(step, 2.0, mode="nearest")
    magnitude = np.abs(np.gradient(blurred, axis=1))  # a symmetric ridge: equal maxima at columns 14 and 15
    thin = non_maximum_suppression(magnitude, np.zeros_like(magnitude))
    assert np.array_equal(np.flatnonzero(thin.any(axis=0)), [15]) and thin[1:-1, 15].all()
    assert not thin[0].any() and not thin[-1].any()  # the outermost pixels are never kept


def test_hysteresis_keeps_weak_pixels_connected_to_strong_ones():
    weak = np.array([[1, 1, 0, 1],
                     [0, 1, 0, 1],
                     [0, 0, 0, 0]], dtype=bool)
    strong = np.zeros_like(weak)
    strong[0, 0] = True
    assert hysteresis(weak, strong).tolist() == [[True, True, False, False], [False, True, False, False],
                                                 [False, False, False, False]]


def test_canny_finds_a_step_once_and_grows_with_lower_thresholds():
    # The step is centred on column 29 (0, …, 0, 0.5, 1, …, 1), so the gradient magnitude has
    # one largest column. A step between two columns would give two equal magnitudes, and which
    # of the two non-maximum suppression keeps would depend on the last bit of the arithmetic.
    step = np.zeros((40, 60))
    step[:, 29] = 0.5
    step[:, 30:] = 1.0
    edges = canny(step, 2.0, 0.02, 0.05)
    assert np.array_equal(np.flatnonzero(edges.any(axis=0)), [29]) and edges[1:-1, 29].all()
    few, more = canny(CAMERA, 2.0, 0.02, 0.05), canny(CAMERA, 2.0, 0.01, 0.05)
    assert np.all(few <= more) and more.sum() > few.sum()  # a lower low threshold only adds connected pixels


@pytest.mark.parametrize("sigma", [1.0, 2.5])
def test_laplacian_of_gaussian_equals_scipy(sigma):
    assert np.abs(laplacian_of_gaussian(CAMERA, sigma) - ndi.gaussian_laplace(CAMERA, sigma, mode="mirror")).max() <= 1e-12


def test_zero_crossings_of_a_step_lie_at_the_step():
    step = np.zeros((9, 20))
    step[:, 10:] = 1.0
    crossings = zero_crossings(laplacian_of_gaussian(step, 1.5, mode="extend"), threshold=0.01)
    assert set(np.flatnonzero(crossings.any(axis=0))) == {9}


@pytest.mark.parametrize("call, words", [
    (lambda: canny(CAMERA, 1.0, 0.1, 0.05), "low"),
    (lambda: canny(CAMERA, 0.0), "sigma"),
    (lambda: canny(CAMERA, 1.0, -0.1, 0.05), "low"),
    (lambda: hysteresis(np.zeros((3, 3), bool), np.ones((3, 3), bool)), "strong"),
    (lambda: non_maximum_suppression(np.zeros((3, 3)), np.zeros((3, 4))), "orientation"),
    (lambda: zero_crossings(np.zeros((3, 3)), threshold=-1), "threshold"),
])
def test_bad_input(call, words):
    with pytest.raises(ValueError, match=words):
        call()
