"""Known changes to an image, for ground truth: geometry, light, noise and compression.

To measure how well features survive a change, apply the change yourself: then the true
answer is known, not guessed. A **similarity transform** (rotation by θ, scaling by s,
then a shift t) maps a point p = (x, y) of the source image to

    p' = s R(θ) (p − c) + c' ,    R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]],

here written as a 3 × 3 matrix M acting on (x, y, 1), rotating about the centre c of the
source and landing on the centre c' of the target. With y pointing down, a positive θ
turns the picture clockwise on the screen. :func:`warp` resamples the image so that the
pixel at p moves to p' (bilinear interpolation, black outside), and
:func:`transform_points` moves keypoints the same way, so a match (p, q) is correct when
q is within a few pixels of M p.

The photometric changes keep the geometry: :func:`adjust_brightness` (gain and bias),
:func:`add_noise` (Gaussian, seeded) and :func:`jpeg` (a round trip through the JPEG
codec of Pillow at a given quality).
"""

from __future__ import annotations

import io
import math

import numpy as np
import scipy.ndimage as ndi
from PIL import Image

from ..validation import check_array, check_count, check_memory, check_number
from .images import check_image, to_float, to_uint8

__all__ = ["similarity_matrix", "transform_points", "warp", "adjust_brightness", "add_noise", "jpeg"]


def similarity_matrix(angle: float = 0.0, scale: float = 1.0, center: object = (0.0, 0.0),
                      target_center: object | None = None) -> np.ndarray:
    """M (3, 3) with M (x, y, 1)ᵀ = (s R(θ) (p − c) + c', 1)ᵀ; ``angle`` θ in degrees,
    ``center`` c and ``target_center`` c' as (x, y) (c' defaults to c)."""
    angle = check_number("angle", angle, low=-360.0, high=360.0)
    scale = check_number("scale", scale, low=0.0, low_open=True, high=100.0)
    c = check_array("center", center, shape=(2,))
    c2 = c if target_center is None else check_array("target_center", target_center, shape=(2,))
    t = np.deg2rad(angle)
    linear = scale * np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    matrix = np.eye(3)
    matrix[:2, :2] = linear
    matrix[:2, 2] = c2 - linear @ c
    return matrix


def _check_matrix(matrix: object) -> np.ndarray:
    matrix = check_array("matrix", matrix, shape=(3, 3))
    if not np.allclose(matrix[2], [0.0, 0.0, 1.0]) or abs(np.linalg.det(matrix[:2, :2])) < 1e-12:
        raise ValueError("matrix must be an invertible affine matrix with last row (0, 0, 1)")
    return matrix


def transform_points(matrix: object, points: object) -> np.ndarray:
    """M p for each row (x, y) of ``points`` (n, 2); returns (n, 2) float64."""
    matrix = _check_matrix(matrix)
    points = check_array("points", points, ndim=2, shape=(None, 2))
    return points @ matrix[:2, :2].T + matrix[:2, 2]


def warp(image: object, matrix: object, shape: object | None = None) -> np.ndarray:
    """The image moved by M: out(M p) = image(p), bilinear, 0 outside the source.

    Parameters
    ----------
    image : (H, W) or (H, W, C); matrix : (3, 3) affine, as :func:`similarity_matrix`;
    shape : (H', W') of the result (default: the image's).

    ``scipy.ndimage.affine_transform`` does the resampling: it wants, for each output
    pixel in (row, column) order, where to read in the input, i.e. M⁻¹ with x and y swapped.
    """
    image = check_image("image", image)
    matrix = _check_matrix(matrix)
    shape = image.shape[:2] if shape is None else tuple(check_array("shape", shape, kind="int", shape=(2,), low=1))
    check_memory("shape", math.prod(shape) * (image.shape[2] if image.ndim == 3 else 1))
    inverse = np.linalg.inv(matrix)
    swap = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1]])  # (x, y, 1) <-> (row, column, 1)
    rowcol = swap @ inverse @ swap
    if image.ndim == 2:
        return ndi.affine_transform(image, rowcol, output_shape=shape, order=1, mode="constant", cval=0.0)
    return np.stack([ndi.affine_transform(image[..., c], rowcol, output_shape=shape, order=1, mode="constant")
                     for c in range(image.shape[2])], axis=2)


def adjust_brightness(image: object, gain: float = 1.0, bias: float = 0.0) -> np.ndarray:
    """clip(gain · f + bias, 0, 1) for an image in [0, 1]."""
    image = to_float(image)
    gain = check_number("gain", gain, low=0.0, high=100.0)
    bias = check_number("bias", bias, low=-1.0, high=1.0)
    return np.clip(gain * image + bias, 0.0, 1.0)


def add_noise(image: object, sigma: float, seed: int = 0) -> np.ndarray:
    """clip(f + n, 0, 1) with n ~ N(0, σ²) per pixel, from numpy's Generator seeded ``seed``."""
    image = to_float(image)
    sigma = check_number("sigma", sigma, low=0.0, high=1.0)
    seed = check_count("seed", seed, low=0)
    return np.clip(image + np.random.default_rng(seed).normal(0.0, sigma, image.shape), 0.0, 1.0)


def jpeg(image: object, quality: int = 75) -> np.ndarray:
    """The image after a JPEG round trip at ``quality`` (1..95, Pillow), as float64 in [0, 1]."""
    image = to_float(image)
    quality = check_count("quality", quality, low=1, high=95)
    buffer = io.BytesIO()
    Image.fromarray(to_uint8(image)).save(buffer, format="JPEG", quality=quality)
    return np.asarray(Image.open(io.BytesIO(buffer.getvalue())), dtype=float) / 255.0
