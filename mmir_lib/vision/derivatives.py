"""Smoothing and derivatives of images: the Gaussian, gradients, the Laplacian.

An image is a sampled function f(x, y), x along the columns (to the right) and y along
the rows (**downwards**, as arrays are stored). Its derivatives are estimated by
correlating with small kernels (:mod:`.kernels`):

* ∂f/∂x by a central difference (f(x + 1) − f(x − 1)) / 2, or by Sobel's or Scharr's
  kernel, which also smooth across (normalised here by 8 and 32, so that every
  operator gives the slope per pixel of a linear ramp);
* the **gradient** ∇f = (f_x, f_y), its magnitude ‖∇f‖ = √(f_x² + f_y²) and its
  orientation θ = atan2(f_y, f_x) (radians; with y downwards, θ = +π/2 points down);
* the **Laplacian** ∇²f = f_xx + f_yy;
* the same after Gaussian smoothing, computed in one pass with the derivative of the
  Gaussian: ∂/∂x (G_σ ∗ f) = (∂G_σ/∂x) ∗ f, because differentiation and convolution
  commute. Smoothing first is what makes derivatives usable on noisy images.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_choice, check_number
from .filters import BORDER_MODES, _correlate, _separable, check_kernel_size
from .images import check_image
from .kernels import derivative_kernel, gaussian_kernel, laplacian_kernel, scharr_kernels, sobel_kernels

__all__ = ["GRADIENT_OPERATORS", "gaussian_filter", "gradient", "gradient_polar", "laplacian",
           "gaussian_gradient"]

#: Gradient operators: name -> (K_x, K_y), each normalised to give the slope per pixel.
GRADIENT_OPERATORS = {
    "central": (derivative_kernel("central")[None, :], derivative_kernel("central")[:, None]),
    "sobel": tuple(k / 8.0 for k in sobel_kernels()),
    "scharr": tuple(k / 32.0 for k in scharr_kernels()),
}


def check_gaussian_sigma(image: np.ndarray, sigma: object, mode: object, truncate: object = 4.0, *,
                         name: str = "sigma") -> float:
    """σ of a Gaussian to filter ``image`` with in ``mode``, checked at the door (returned
    as a float): a σ so large that its kernel of length 2r + 1, r = ⌊truncate · σ + 1/2⌋,
    cannot be applied (a mirror cannot supply it, or it would exceed the memory limit) is
    refused naming ``name`` (the argument that gave σ), before the kernel is made."""
    check_choice("mode", mode, BORDER_MODES)
    sigma = check_number(name, sigma, low=0.0, low_open=True, high=1e4)
    truncate = check_number("truncate", truncate, low=0.0, low_open=True, high=100.0)
    length = 2 * int(truncate * sigma + 0.5) + 1
    check_kernel_size(name, (length, length), image, mode)
    return sigma


def gaussian_filter(image: object, sigma: float, mode: str = "mirror", truncate: float = 4.0) -> np.ndarray:
    """G_σ ∗ f, separably: the 1-D Gaussian of :func:`~.kernels.gaussian_kernel` down the
    columns, then along the rows. Same shape as the image (each channel on its own)."""
    image = check_image("image", image)
    return _gaussian_filter(image, check_gaussian_sigma(image, sigma, mode, truncate), mode, truncate)


def _gaussian_filter(image: np.ndarray, sigma: float, mode: str, truncate: float = 4.0) -> np.ndarray:
    """:func:`gaussian_filter` of a checked image with a checked σ."""
    g = gaussian_kernel(sigma, truncate)
    return _separable(image, g, g, mode)


def gradient(image: object, operator: str = "sobel", mode: str = "mirror") -> tuple[np.ndarray, np.ndarray]:
    """(f_x, f_y), each of the image's shape, with an operator of :data:`GRADIENT_OPERATORS`."""
    image = check_image("image", image, channels=False)
    check_choice("operator", operator, GRADIENT_OPERATORS)
    check_choice("mode", mode, BORDER_MODES)
    check_kernel_size("operator", GRADIENT_OPERATORS[operator][0].shape, image, mode)
    return _gradient(image, operator, mode)


def _gradient(image: np.ndarray, operator: str, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gradient` of a checked image: the two correlations."""
    kx, ky = GRADIENT_OPERATORS[operator]
    return _correlate(image, kx, mode, 0.0), _correlate(image, ky, mode, 0.0)


def gradient_polar(fx: object, fy: object) -> tuple[np.ndarray, np.ndarray]:
    """(‖∇f‖, θ) = (√(f_x² + f_y²), atan2(f_y, f_x)) with θ in (−π, π]; fx and fy of one shape."""
    fx = check_image("fx", fx, channels=False)
    fy = check_image("fy", fy, channels=False)
    if fx.shape != fy.shape:
        raise ValueError(f"fx and fy must have the same shape, got {fx.shape} and {fy.shape}")
    return _polar(fx, fy)


def _polar(fx: np.ndarray, fy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gradient_polar` of checked arrays."""
    return np.hypot(fx, fy), np.arctan2(fy, fx)


def laplacian(image: object, mode: str = "mirror") -> np.ndarray:
    """∇²f = f_xx + f_yy with the 5-point kernel [[0, 1, 0], [1, −4, 1], [0, 1, 0]]."""
    image = check_image("image", image, channels=False)
    check_choice("mode", mode, BORDER_MODES)
    kernel = laplacian_kernel()
    check_kernel_size("mode", kernel.shape, image, mode)
    return _correlate(image, kernel, mode, 0.0)


def gaussian_gradient(image: object, sigma: float, mode: str = "mirror",
                      truncate: float = 4.0) -> tuple[np.ndarray, np.ndarray]:
    """(∂/∂x (G_σ ∗ f), ∂/∂y (G_σ ∗ f)): correlation with the Gaussian across and its
    derivative G'(t) = −t / σ² · G(t) along; the derivative kernel is flipped because
    ∂/∂x (G ∗ f) is a *convolution* with G'."""
    image = check_image("image", image, channels=False)
    sigma = check_gaussian_sigma(image, sigma, mode, truncate)
    g = gaussian_kernel(sigma, truncate)
    t = np.arange(len(g)) - len(g) // 2
    dg = (-t / sigma**2 * g)[::-1]  # correlation kernel of the convolution with G'
    return _separable(image, g, dg, mode), _separable(image, dg, g, mode)
