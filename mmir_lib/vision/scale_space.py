"""Scale space and blobs: the image at every scale, and the places and sizes of its blobs.

The **Gaussian scale space** of an image is the family L(x, y; σ) = G_σ ∗ f for all
σ > 0: the image seen at every level of blur (:mod:`.derivatives` explains why the
Gaussian, and no other kernel, is the one to use). Sampled at geometric steps
σ_i = σ₀ · k^i, it is a stack of images of shape (n, H, W).

A **blob**, a bright or dark spot of some size, gives a strong response to the
Laplacian of Gaussian of about its own size. Derivatives of blurred images shrink as σ
grows (a blurred step has slope ∝ 1/σ), so responses at different scales are compared
after **scale normalisation**: the normalised Laplacian

    σ² ∇²L(x, y; σ)

responds equally to a pattern and to the same pattern magnified. A blob is then a local
extremum of the normalised Laplacian in (x, y, σ): larger than its 26 neighbours in
space and scale. The σ at which it peaks is the blob's **characteristic scale**; for a
disk of radius r it is about r / √2.

The **difference of Gaussians** approximates the normalised Laplacian cheaply: since
∂L/∂σ = σ ∇²L (the heat equation),

    L(x, y; kσ) − L(x, y; σ) ≈ (k − 1) σ · ∂L/∂σ = (k − 1) σ² ∇²L,

so DoG ≈ (k − 1) · NLoG, with an error that vanishes as k → 1. SIFT uses it, and
:func:`find_dog_blobs` finds blobs with it as scikit-image's ``blob_dog`` does.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_count, check_number
from .derivatives import _gaussian_filter, check_gaussian_sigma
from .edges import _laplacian_of_gaussian
from .images import check_image

__all__ = ["geometric_sigmas", "gaussian_scale_space", "normalized_laplacian", "difference_of_gaussians",
           "local_maxima_3d", "find_blobs", "find_dog_blobs"]


def geometric_sigmas(sigma0: float, k: float, count: int) -> np.ndarray:
    """σ_i = σ₀ · k^i for i = 0 .. count − 1; (count,) float64. σ₀ > 0, k > 1."""
    sigma0 = check_number("sigma0", sigma0, low=0.0, low_open=True, high=1e3)
    k = check_number("k", k, low=1.0, low_open=True, high=10.0)
    count = check_count("count", count, low=1, high=100)
    return sigma0 * k ** np.arange(count)


def _check_sigmas(sigmas: object, image: np.ndarray, mode: object) -> np.ndarray:
    """Positive increasing σ's, the largest of which can filter ``image`` in ``mode``."""
    sigmas = check_array("sigmas", sigmas, ndim=1, nonempty=True, low=0.0, high=1e3)
    if np.any(sigmas <= 0) or np.any(np.diff(sigmas) <= 0):
        raise ValueError("sigmas must be positive and increasing")
    check_gaussian_sigma(image, sigmas[-1], mode, name="sigmas")
    return sigmas


def gaussian_scale_space(image: object, sigmas: object, mode: str = "mirror") -> np.ndarray:
    """L[i] = G_{σ_i} ∗ f for each σ_i of ``sigmas`` (increasing); (n, H, W)."""
    image = check_image("image", image, channels=False)
    return _scale_space(image, _check_sigmas(sigmas, image, mode), mode)


def _scale_space(image: np.ndarray, sigmas: np.ndarray, mode: str) -> np.ndarray:
    """:func:`gaussian_scale_space` of a checked image and σ's."""
    return np.stack([_gaussian_filter(image, s, mode) for s in sigmas])


def normalized_laplacian(image: object, sigmas: object, mode: str = "mirror") -> np.ndarray:
    """N[i] = σ_i² ∇²(G_{σ_i} ∗ f): the scale-normalised Laplacian at each σ_i; (n, H, W)."""
    image = check_image("image", image, channels=False)
    return _normalized_laplacian(image, _check_sigmas(sigmas, image, mode), mode)


def _normalized_laplacian(image: np.ndarray, sigmas: np.ndarray, mode: str) -> np.ndarray:
    """:func:`normalized_laplacian` of a checked image and σ's."""
    return np.stack([s**2 * _laplacian_of_gaussian(image, s, mode) for s in sigmas])


def difference_of_gaussians(image: object, sigmas: object, mode: str = "mirror") -> np.ndarray:
    """D[i] = L(σ_{i+1}) − L(σ_i) for consecutive σ of ``sigmas``; (n − 1, H, W).

    With σ_{i+1} = k σ_i, D[i] ≈ (k − 1) · σ_i² ∇²L(σ_i)."""
    image = check_image("image", image, channels=False)
    sigmas = _check_sigmas(sigmas, image, mode)
    if len(sigmas) < 2:
        raise ValueError("sigmas must hold at least two scales for a difference")
    return _difference_of_gaussians(image, sigmas, mode)


def _difference_of_gaussians(image: np.ndarray, sigmas: np.ndarray, mode: str) -> np.ndarray:
    """:func:`difference_of_gaussians` of a checked image and σ's."""
    space = _scale_space(image, sigmas, mode)
    return space[1:] - space[:-1]


def local_maxima_3d(cube: object, threshold: float) -> np.ndarray:
    """(i, y, x) of every entry of the (n, H, W) ``cube`` that is at least each of its 26
    neighbours in (scale, y, x) (fewer at the faces) and above ``threshold``; (m, 3) int64,
    sorted by (i, y, x)."""
    cube = check_array("cube", cube, ndim=3, nonempty=True)
    return _local_maxima_3d(cube, check_number("threshold", threshold))


def _local_maxima_3d(cube: np.ndarray, threshold: float) -> np.ndarray:
    """:func:`local_maxima_3d` of a checked cube and threshold."""
    # An entry is a maximum of its 3 × 3 × 3 neighbourhood when it is the maximum of the
    # 3 × 3 square in its own layer and at least the maxima of the squares above and below.
    # The square's maximum is separable: the largest of three along x, then along y (4
    # comparisons per entry instead of 8). Layer by layer, each square maximum is made once
    # and used three times. At a face the missing neighbour is left out, which is what the
    # entry itself stands in for.
    found = []
    below, here = None, _square_maxima(cube[0])
    for i in range(len(cube)):
        above = _square_maxima(cube[i + 1]) if i + 1 < len(cube) else None
        y, x = np.nonzero((cube[i] >= here) & (cube[i] > threshold))
        keep = np.ones(len(y), dtype=bool)
        for neighbour in (below, above):
            if neighbour is not None:
                keep &= cube[i, y, x] >= neighbour[y, x]
        found.append(np.column_stack([np.full(keep.sum(), i), y[keep], x[keep]]))
        below, here = here, above
    return np.concatenate(found)


def _square_maxima(layer: np.ndarray) -> np.ndarray:
    """max of the 3 × 3 square around each entry (fewer at the edges), separably."""
    return _max_of_three(_max_of_three(layer, 0), 1)


def _max_of_three(array: np.ndarray, axis: int) -> np.ndarray:
    """max(a[j − 1], a[j], a[j + 1]) along ``axis`` (two neighbours' max at the ends)."""
    out = array.copy()
    a = np.moveaxis(array, axis, 0)
    o = np.moveaxis(out, axis, 0)
    np.maximum(o[1:], a[:-1], out=o[1:])
    np.maximum(o[:-1], a[1:], out=o[:-1])
    return out


def find_blobs(image: object, sigmas: object, threshold: float = 0.05, bright: bool = True,
               mode: str = "mirror") -> np.ndarray:
    """Blobs as extrema of the normalised Laplacian in (x, y, σ).

    Bright blobs on a dark background make the Laplacian negative at their centre, so
    maxima of −σ²∇²L are searched (of +σ²∇²L for dark blobs with ``bright=False``).

    Returns
    -------
    (m, 3) float64 rows (y, x, σ), as skimage.feature.blob_log returns them (before it
    prunes overlapping blobs); the blob's radius is about √2 σ. ``threshold`` is on the
    scale of intensities in [0, 1] (:func:`~.images.check_image`'s rule): an integer
    image is scaled by its dtype's range first; a float image far outside [0, 1] (beyond
    :data:`~.images.UNIT_SCALE`) is refused.
    """
    image, sigmas = _check_blob_arguments(image, sigmas, bright, mode)
    return _blobs(_normalized_laplacian(image, sigmas, mode), sigmas, threshold, bright)


def find_dog_blobs(image: object, sigmas: object, threshold: float = 0.05, bright: bool = True,
                   mode: str = "mirror") -> np.ndarray:
    """Blobs as extrema in (x, y, σ) of the differences of Gaussians scaled by 1 / (k − 1).

    ``sigmas`` must be geometric, σ_{i+1} = k σ_i (:func:`geometric_sigmas`); level i is
    D[i] / (k − 1) = (L(σ_{i+1}) − L(σ_i)) / (k − 1) ≈ σ_i² ∇²L, on the scale of
    :func:`find_blobs`' response, and a blob found in it is reported at σ_i, as
    skimage.feature.blob_dog reports it (before pruning overlaps). One level fewer than
    ``sigmas``. (The DoG is closer to ln k / (k − 1) times the NLoG at σ_i √k: II.5.)

    Returns (m, 3) float64 rows (y, x, σ)."""
    image, sigmas = _check_blob_arguments(image, sigmas, bright, mode)
    if len(sigmas) < 2:
        raise ValueError("sigmas must hold at least two scales for a difference")
    ratios = sigmas[1:] / sigmas[:-1]
    if not np.allclose(ratios, ratios[0], rtol=1e-9, atol=0.0):
        raise ValueError("sigmas must be geometric (the same ratio k between neighbours), "
                         f"got ratios from {ratios.min():g} to {ratios.max():g}")
    return _blobs(_difference_of_gaussians(image, sigmas, mode) / (ratios[0] - 1.0), sigmas[:-1], threshold, bright)


def _check_blob_arguments(image: object, sigmas: object, bright: object, mode: object) -> tuple[np.ndarray, np.ndarray]:
    image = check_image("image", image, channels=False, unit=True)
    if not isinstance(bright, (bool, np.bool_)):
        raise TypeError(f"bright must be True or False, got {type(bright).__name__}")
    return image, _check_sigmas(sigmas, image, mode)


def _blobs(response: np.ndarray, sigmas: np.ndarray, threshold: object, bright: bool) -> np.ndarray:
    """(y, x, σ) rows of the maxima of −response (bright blobs) or +response (dark)."""
    threshold = check_number("threshold", threshold)
    peaks = _local_maxima_3d(-response if bright else response, threshold)
    return np.column_stack([peaks[:, 1], peaks[:, 2], sigmas[peaks[:, 0]]]).astype(float)
