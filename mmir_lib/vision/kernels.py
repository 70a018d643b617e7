"""The classic filter kernels, as correlation kernels (see :mod:`.filters`).

==================== ================================ =====================================
kernel               weights                          what it does
==================== ================================ =====================================
identity             [[0,0,0],[0,1,0],[0,0,0]]          nothing (a test of the machinery)
box (n × n)          1/n² everywhere                    local mean: blurs, keeps the mean
binomial (3 × 3)     [1,2,1]ᵀ[1,2,1] / 16               integer Gaussian, σ ≈ 0.85
Gaussian (σ)         e^{−x²/(2σ²)}, normalised          smooths; the scale-space kernel
difference           [−1/2, 0, 1/2] (central)           ∂f/∂x, sums to 0
Sobel                [1,2,1]ᵀ[−1,0,1]                   smoothed ∂f/∂x (and its transpose)
Scharr               [3,10,3]ᵀ[−1,0,1]                  Sobel with better rotation symmetry
Laplacian            [[0,1,0],[1,−4,1],[0,1,0]]         ∂²f/∂x² + ∂²f/∂y², sums to 0
sharpen              identity − Laplacian               f − ∇²f: boosts edges, sums to 1
==================== ================================ =====================================

Smoothing kernels sum to 1 (a flat image stays the same); derivative kernels sum to 0
(a flat image gives 0). Sobel, Scharr and the difference kernels here are not
normalised, as in scipy.ndimage; divide by the sum of their absolute smoothing weights
(4 for Sobel, 16 for Scharr) times 2 to get a gradient per pixel.
"""

from __future__ import annotations

import math

import numpy as np

from ..validation import check_choice, check_count, check_memory, check_number

__all__ = [
    "box_kernel", "binomial_kernel", "gaussian_kernel", "gaussian_kernel_2d", "derivative_kernel",
    "sobel_kernels", "scharr_kernels", "laplacian_kernel", "sharpen_kernel",
]


def box_kernel(size: int = 3) -> np.ndarray:
    """(size, size) array of 1/size²: the moving average. ``size`` odd, >= 1."""
    size = check_count("size", size, low=1, high=1001)
    if size % 2 == 0:
        raise ValueError(f"size must be odd (a centre pixel), got {size}")
    return np.full((size, size), 1.0 / size**2)


def binomial_kernel(order: int = 2) -> np.ndarray:
    """The 1-D binomial kernel C(order, k) / 2^order, k = 0..order (order even, >= 2).

    order 2 gives [1, 2, 1] / 4, whose outer product with itself is the integer
    3 × 3 kernel [[1, 2, 1], [2, 4, 2], [1, 2, 1]] / 16; its variance is order / 4, so
    it approximates a Gaussian of σ = √(order) / 2 (σ ≈ 0.71 for order 2; sampled
    Gaussians of σ ≈ 0.85 give nearly the same 3 × 3 weights).
    """
    order = check_count("order", order, low=2, high=1000)
    if order % 2:
        raise ValueError(f"order must be even (an odd length), got {order}")
    return np.array([math.comb(order, k) for k in range(order + 1)], dtype=float) / 2.0**order


def gaussian_kernel(sigma: float, truncate: float = 4.0) -> np.ndarray:
    """The sampled, normalised 1-D Gaussian G[x] ∝ exp(−x² / (2σ²)), x = −r..r.

    The radius is r = ⌊truncate · σ + 1/2⌋ (scipy.ndimage's rule), so the weights cut
    off carry less than erfc(truncate / √2) of the mass (6e-5 for truncate = 4); the
    kernel is divided by its sum, so it sums to 1 exactly up to rounding.

    Returns
    -------
    (2r + 1,) float64
    """
    sigma = check_number("sigma", sigma, low=0.0, low_open=True, high=1e4)
    truncate = check_number("truncate", truncate, low=0.0, low_open=True, high=100.0)
    radius = int(truncate * sigma + 0.5)
    x = np.arange(-radius, radius + 1, dtype=float)
    weights = np.exp(-0.5 * (x / sigma) ** 2)
    return weights / weights.sum()


def gaussian_kernel_2d(sigma: float, truncate: float = 4.0) -> np.ndarray:
    """The 2-D Gaussian as the outer product of two 1-D ones: G(x, y) = G(x) G(y) (separable)."""
    g = gaussian_kernel(sigma, truncate)
    check_memory("sigma", len(g) ** 2)
    return np.outer(g, g)


#: Correlation kernels of the three first differences (f sampled at x − 1, x, x + 1).
_DIFFERENCES = {
    "central": [-0.5, 0.0, 0.5],   # (f(x + 1) − f(x − 1)) / 2, error O(h²)
    "forward": [0.0, -1.0, 1.0],   # f(x + 1) − f(x), error O(h)
    "backward": [-1.0, 1.0, 0.0],  # f(x) − f(x − 1), error O(h)
}


def derivative_kernel(kind: str = "central") -> np.ndarray:
    """(3,) correlation kernel of a first difference along x: "central", "forward" or "backward"."""
    check_choice("kind", kind, _DIFFERENCES)
    return np.array(_DIFFERENCES[kind])


def sobel_kernels() -> tuple[np.ndarray, np.ndarray]:
    """(K_x, K_y): Sobel's 3 × 3 kernels, K_x = [1, 2, 1]ᵀ [−1, 0, 1] and K_y = K_xᵀ
    (as scipy.ndimage.sobel, not normalised)."""
    kx = np.outer([1.0, 2.0, 1.0], [-1.0, 0.0, 1.0])
    return kx, kx.T.copy()


def scharr_kernels() -> tuple[np.ndarray, np.ndarray]:
    """(K_x, K_y): Scharr's 3 × 3 kernels, K_x = [3, 10, 3]ᵀ [−1, 0, 1], K_y = K_xᵀ (not normalised)."""
    kx = np.outer([3.0, 10.0, 3.0], [-1.0, 0.0, 1.0])
    return kx, kx.T.copy()


def laplacian_kernel() -> np.ndarray:
    """The 5-point Laplacian [[0, 1, 0], [1, −4, 1], [0, 1, 0]] (as scipy.ndimage.laplace)."""
    return np.array([[0.0, 1.0, 0.0], [1.0, -4.0, 1.0], [0.0, 1.0, 0.0]])


def sharpen_kernel(amount: float = 1.0) -> np.ndarray:
    """identity − amount · Laplacian: f − amount · ∇²f (amount 1: [[0,−1,0],[−1,5,−1],[0,−1,0]]).

    ``amount`` in [0, 100]."""
    amount = check_number("amount", amount, low=0.0, high=100.0)
    identity = np.zeros((3, 3))
    identity[1, 1] = 1.0
    return identity - amount * laplacian_kernel()
