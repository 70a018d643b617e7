"""Edge detection: thresholded gradients, Canny's detector, Laplacian-of-Gaussian zero crossings.

An edge is a curve along which the brightness changes fast. Three detectors, from the
simplest to the classic:

* **Thresholded gradient**: a pixel is an edge where ‖∇f‖ > t. Simple, but edges come
  out several pixels thick, and noise breaks them up or adds false ones.
* **Canny** (1986): (1) smooth with a Gaussian of scale σ; (2) take the gradient
  (Sobel); (3) **non-maximum suppression**: keep a pixel only if its magnitude is at
  least that of its two neighbours along the gradient direction, which thins every edge
  to one pixel; (4) **hysteresis**: keep the thinned pixels above a high threshold, and
  those above a low threshold that are connected (8-neighbourhood) to one of them, so an
  edge may fade without breaking while isolated weak responses are dropped.
* **Zero crossings of the Laplacian of Gaussian** (Marr–Hildreth): ∇²(G_σ ∗ f) changes
  sign where the slope is steepest; a zero crossing with a large enough jump is an edge.

Magnitudes and thresholds are in the units of :func:`.derivatives.gradient`: the slope
in grey levels (0..1) per pixel.
"""

from __future__ import annotations

import numpy as np
import scipy.ndimage

from ..validation import check_number
from .derivatives import GRADIENT_OPERATORS, _gaussian_filter, _gradient, _polar, check_gaussian_sigma
from .filters import _separable, check_kernel_size
from .images import check_image
from .kernels import gaussian_kernel

__all__ = ["non_maximum_suppression", "hysteresis", "canny", "laplacian_of_gaussian", "zero_crossings"]

#: The neighbour offset (dy, dx) along each of the four quantised gradient directions.
_NEIGHBOURS = {0: (0, 1), 45: (1, 1), 90: (1, 0), 135: (1, -1)}


def non_maximum_suppression(magnitude: object, orientation: object) -> np.ndarray:
    """Thin edges: True where the magnitude is positive, larger than the neighbour ahead
    and at least the neighbour behind along the gradient direction, quantised to 0°, 45°,
    90° or 135° (y pointing down). The asymmetric test keeps one pixel of a two-pixel
    plateau. False on the outermost pixels, which lack a neighbour. (H, W) bool."""
    magnitude = check_image("magnitude", magnitude, channels=False)
    orientation = check_image("orientation", orientation, channels=False)
    if magnitude.shape != orientation.shape:
        raise ValueError(f"magnitude and orientation must have the same shape, got {magnitude.shape} "
                         f"and {orientation.shape}")
    return _non_maximum_suppression(magnitude, orientation)


def _non_maximum_suppression(magnitude: np.ndarray, orientation: np.ndarray) -> np.ndarray:
    """:func:`non_maximum_suppression` of checked (H, W) arrays of one shape."""
    sector = (np.round(np.rad2deg(orientation) / 45.0).astype(int) % 4) * 45  # 0, 45, 90, 135
    padded = np.pad(magnitude, 1)
    height, width = magnitude.shape
    keep = np.zeros(magnitude.shape, dtype=bool)
    for angle, (dy, dx) in _NEIGHBOURS.items():
        ahead = padded[1 + dy:1 + dy + height, 1 + dx:1 + dx + width]
        behind = padded[1 - dy:1 - dy + height, 1 - dx:1 - dx + width]
        keep |= (sector == angle) & (magnitude > ahead) & (magnitude >= behind)
    keep[[0, -1], :] = keep[:, [0, -1]] = False  # a border pixel lacks a neighbour
    return keep & (magnitude > 0)


def hysteresis(weak: object, strong: object) -> np.ndarray:
    """The pixels of ``weak`` that are 8-connected, through weak pixels, to a pixel of
    ``strong`` (strong pixels must also be weak). (H, W) bool arrays in and out."""
    weak = np.asarray(check_image("weak", weak, channels=False), dtype=bool)
    strong = np.asarray(check_image("strong", strong, channels=False), dtype=bool)
    if weak.shape != strong.shape:
        raise ValueError(f"weak and strong must have the same shape, got {weak.shape} and {strong.shape}")
    if np.any(strong & ~weak):
        raise ValueError("strong must be a subset of weak (every strong pixel is also above the low threshold)")
    return _hysteresis(weak, strong)


def _hysteresis(weak: np.ndarray, strong: np.ndarray) -> np.ndarray:
    """:func:`hysteresis` of checked (H, W) bool arrays, strong a subset of weak."""
    labels, count = scipy.ndimage.label(weak, structure=np.ones((3, 3), dtype=bool))
    keep = np.zeros(count + 1, dtype=bool)
    keep[labels[strong]] = True
    keep[0] = False  # the background
    return keep[labels]


def canny(image: object, sigma: float = 1.0, low: float = 0.02, high: float = 0.05,
          mode: str = "extend") -> np.ndarray:
    """Canny's edge detector: Gaussian smoothing, Sobel gradient, non-maximum suppression,
    hysteresis between ``low`` and ``high`` (slopes per pixel, 0 <= low <= high).

    The thresholds are slopes of intensities in [0, 1] (:func:`~.images.check_image`'s
    rule): an integer image (uint8 0..255) is scaled to [0, 1] by its dtype's range first,
    so it gives the same edges as the same image / 255; a float image far outside [0, 1]
    (beyond :data:`~.images.UNIT_SCALE`) is refused. Returns an (H, W) bool edge map, one pixel wide."""
    image = check_image("image", image, channels=False, unit=True)
    low = check_number("low", low, low=0.0)
    high = check_number("high", high, low=0.0)
    if low > high:
        raise ValueError(f"low ({low:g}) must not exceed high ({high:g})")
    sigma = check_gaussian_sigma(image, sigma, mode)
    smoothed = _gaussian_filter(image, sigma, mode)
    check_kernel_size("mode", GRADIENT_OPERATORS["sobel"][0].shape, smoothed, mode)
    magnitude, orientation = _polar(*_gradient(smoothed, "sobel", mode))
    thin = _non_maximum_suppression(magnitude, orientation)
    return _hysteresis(thin & (magnitude >= low), thin & (magnitude >= high))


def laplacian_of_gaussian(image: object, sigma: float, mode: str = "mirror") -> np.ndarray:
    """∇²(G_σ ∗ f) = (∂²G/∂x²) ∗ f + (∂²G/∂y²) ∗ f, each term separable:
    G''(t) = (t² − σ²) / σ⁴ · G(t) along one axis and G across. Same shape as the image."""
    image = check_image("image", image, channels=False)
    return _laplacian_of_gaussian(image, check_gaussian_sigma(image, sigma, mode), mode)


def _laplacian_of_gaussian(image: np.ndarray, sigma: float, mode: str) -> np.ndarray:
    """:func:`laplacian_of_gaussian` of a checked image and σ: ∇²(G_σ ∗ f), each of its two
    terms separable, G''(t) = (t² − σ²) / σ⁴ · G(t) along one axis and G across."""
    g = gaussian_kernel(sigma)
    t = np.arange(len(g)) - len(g) // 2
    g2 = (t**2 - sigma**2) / sigma**4 * g  # symmetric: correlation = convolution
    return _separable(image, g, g2, mode) + _separable(image, g2, g, mode)


def zero_crossings(response: object, threshold: float = 0.0) -> np.ndarray:
    """True at pixels where ``response`` changes sign towards the right or downward
    neighbour and the jump |r(p) − r(q)| exceeds ``threshold``. (H, W) bool."""
    response = check_image("response", response, channels=False)
    threshold = check_number("threshold", threshold, low=0.0)
    edges = np.zeros(response.shape, dtype=bool)
    for axis in (0, 1):
        here = response.take(np.arange(response.shape[axis] - 1), axis=axis)
        there = response.take(np.arange(1, response.shape[axis]), axis=axis)
        crossing = (np.sign(here) * np.sign(there) < 0) & (np.abs(here - there) > threshold)
        index = [slice(None), slice(None)]
        index[axis] = slice(0, -1)
        edges[tuple(index)] |= crossing
    return edges
