"""SIFT: keypoints that survive rotation and scaling, and the descriptors that match them.

Lowe's scale-invariant feature transform (2004) in five steps:

1. **Scale space.** The image is doubled (linear interpolation; a camera image is
   assumed blurred by σ = 0.5, so the doubled one by 1) and blurred to σ₀ = 1.6. Each
   **octave** holds s + 3 Gaussian images with σ = σ₀ k^i, k = 2^{1/s} (s = 3 scales), made
   by blurring each image a little more; the next octave starts from the image of 2σ₀,
   every second pixel. Neighbouring images give s + 2 differences of Gaussians (DoG),
   D ≈ (k − 1) σ² ∇²L (:mod:`.scale_space`).
2. **Keypoints.** Extrema of D among their 26 neighbours in (x, y, σ), in the s middle
   DoG layers. Each is refined by fitting a quadratic, D(x + δ) ≈ D + gᵀδ + ½ δᵀHδ, and
   moving to its top, δ = −H⁻¹g. A point is accepted once every |δ| < 0.6 (as in
   scikit-image); otherwise it moves to the nearest sample and the fit is repeated, at
   most 5 times. Points with weak contrast, |D(x + δ)| < 0.04 / s,
   are dropped, and so are points on edges, where one principal curvature of D is much
   larger than the other: tr(H₂)² / det(H₂) ≥ (r + 1)² / r with r = 10 (H₂ the spatial
   2 × 2 Hessian).
3. **Orientation.** Gradients of the Gaussian image of the keypoint's scale, in a window
   of radius 4.5σ, weighted by their magnitude and a Gaussian of 1.5σ, vote in a
   **36-bin histogram** of directions (10° each), smoothed. Its highest peak, refined by a
   parabola through three bins, is the keypoint's orientation; **every other peak of at
   least 0.8 of the highest** makes another keypoint at the same place (about 15% of
   keypoints have one).
4. **Descriptor.** A square window of 4 × 4 cells, each 3σ wide, is laid on the image
   **rotated to the keypoint's orientation**, and sampled on a 16 × 16 grid (bilinear
   interpolation). Each sample's gradient, turned by the same angle, is weighted by its
   magnitude and a Gaussian of half the window's width and spread over the two nearest
   cells in x, in y and the two nearest of **8 direction bins** (trilinear interpolation),
   so that a sample moving across a border changes the histogram smoothly. That gives
   4 × 4 × 8 = 128 numbers.
5. **Normalisation.** The vector is scaled to unit length (a change of contrast
   cancels), entries are **clamped at 0.2** (a few large gradients, e.g. from a lighting
   change, should not dominate), it is scaled to unit length again and **quantised** to
   bytes, min(⌊512 v⌉, 255): 128 bytes per keypoint.

Coordinates: x to the right, y down, in pixels of the input image; an orientation θ is the
direction atan2(g_y, g_x) of the dominant gradient in [0, 2π) (with y down, clockwise on
screen). A keypoint's ``sigma`` is its scale in input pixels.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_array, check_bool, check_count, check_mapping, check_number, describe
from .derivatives import _gaussian_filter
from .images import check_image
from .scale_space import local_maxima_3d

__all__ = ["Keypoints", "SiftPyramid", "sift_pyramid", "detect_keypoints", "orientation_histograms",
           "histogram_peaks", "assign_orientations", "describe_keypoints", "sift_features", "sift_features_of"]

ORIENTATION_BINS = 36
CELLS = 4             # the descriptor's grid is CELLS × CELLS cells ...
DIRECTION_BINS = 8    # ... of DIRECTION_BINS directions each
SAMPLES_PER_CELL = 4  # samples along each side of a cell
BORDER = 2            # keypoints closer than this to an octave's edge are not searched


@dataclass(frozen=True, eq=False)
class Keypoints:
    """n keypoints; every field is an array of length n.

    ``xy`` (n, 2) position (x, y) in input pixels; ``sigma`` (n,) scale in input pixels;
    ``orientation`` (n,) radians in [0, 2π) (0 before :func:`assign_orientations`);
    ``response`` (n,) the interpolated DoG value; ``octave`` (n,) int, the octave
    (−1 for the doubled image); ``layer`` (n,) the refined scale index within the octave.
    """

    xy: np.ndarray
    sigma: np.ndarray
    orientation: np.ndarray
    response: np.ndarray
    octave: np.ndarray
    layer: np.ndarray

    def __len__(self) -> int:
        return len(self.sigma)

    def take(self, index: object) -> "Keypoints":
        """The keypoints at ``index`` (a boolean mask of length n or integer positions in [−n, n))."""
        wanted = "a boolean mask or a list of integer positions"
        if isinstance(index, (str, bytes, dict)) or index is None:
            raise TypeError(f"index must be {wanted}, got {describe(index)}")
        try:
            index = np.asarray(index)
        except ValueError:  # a ragged list
            raise TypeError(f"index must be {wanted}, got {describe(index)}") from None
        if index.ndim != 1:
            raise ValueError(f"index must be {wanted} (1-dimensional), got shape {index.shape}")
        if index.dtype.kind == "b":
            if index.shape != (len(self),):
                raise ValueError(f"index as a boolean mask must have shape ({len(self)},), got {index.shape}")
        elif index.dtype.kind in "iu" or index.size == 0:
            index = index.astype(np.int64)
            if index.size and (index.min() < -len(self) or index.max() >= len(self)):
                raise ValueError(f"index must hold positions in [-{len(self)}, {len(self)}) for {len(self)} "
                                 f"keypoints, found {index.min() if index.min() < -len(self) else index.max()}")
        else:
            raise TypeError(f"index must be {wanted}, got dtype {index.dtype}")
        return Keypoints(*(getattr(self, f)[index] for f in self.__dataclass_fields__))

    @classmethod
    def concatenate(cls, parts: list["Keypoints"]) -> "Keypoints":
        if not parts:
            empty = np.zeros(0)
            return cls(np.zeros((0, 2)), empty, empty, empty, np.zeros(0, dtype=int), empty)
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))


@dataclass(frozen=True, eq=False)
class SiftPyramid:
    """The Gaussian and DoG images of each octave.

    ``gaussians[o]`` (s + 3, H_o, W_o): L(σ₀ k^i), i = 0 .. s + 2, in the octave's pixels;
    ``dogs[o]`` (s + 2, H_o, W_o): L(σ₀ k^{i+1}) − L(σ₀ k^i); octave o has pixels
    2^{o + first_octave} input pixels wide (first_octave −1 when the image was doubled).
    """

    gaussians: list
    dogs: list
    sigma0: float
    scales: int
    first_octave: int
    _gradients: dict = field(default_factory=dict, repr=False)

    def spacing(self, octave: object) -> np.ndarray:
        """Input pixels per octave pixel: 2^{octave}."""
        return 2.0 ** np.asarray(octave, dtype=float)

    def gradients(self, octave_index: int, layer: int) -> np.ndarray:
        """(H_o, W_o, 2): g_x and g_y of ``gaussians[octave_index][layer]`` by central
        differences (0 on the outermost pixels); computed once, then kept."""
        key = (octave_index, layer)
        if key not in self._gradients:
            image = self.gaussians[octave_index][layer]
            gradients = np.zeros(image.shape + (2,))
            gradients[1:-1, 1:-1, 0] = (image[1:-1, 2:] - image[1:-1, :-2]) / 2
            gradients[1:-1, 1:-1, 1] = (image[2:, 1:-1] - image[:-2, 1:-1]) / 2
            self._gradients[key] = gradients
        return self._gradients[key]


def _double(image: np.ndarray) -> np.ndarray:
    """(2H − 1, 2W − 1) linear interpolation: out[2i, 2j] = image[i, j], midpoints between."""
    rows = np.empty((2 * image.shape[0] - 1, image.shape[1]))
    rows[::2], rows[1::2] = image, (image[:-1] + image[1:]) / 2
    out = np.empty((rows.shape[0], 2 * image.shape[1] - 1))
    out[:, ::2], out[:, 1::2] = rows, (rows[:, :-1] + rows[:, 1:]) / 2
    return out


def sift_pyramid(image: object, sigma0: float = 1.6, scales: int = 3, double: bool = True,
                 min_size: int = 16) -> SiftPyramid:
    """The octaves of Gaussian and DoG images of a grey image (step 1 of the module notes).

    Octaves are added while the smaller side has at least ``min_size`` pixels.
    """
    image = check_image("image", image, channels=False, unit=True)  # uint8 0..255 -> [0, 1]
    return _sift_pyramid(image, sigma0, scales, double, min_size)


def _sift_pyramid(image: np.ndarray, sigma0: object, scales: object, double: object, min_size: object) -> SiftPyramid:
    """:func:`sift_pyramid` of a checked image (its other arguments are checked here)."""
    sigma0 = check_number("sigma0", sigma0, low=0.6, high=10.0)
    scales = check_count("scales", scales, low=1, high=10)
    double = check_bool("double", double)
    min_size = check_count("min_size", min_size, low=2 * BORDER + 3)
    if min(image.shape) < min_size:
        raise ValueError(f"image must be at least min_size = {min_size} pixels on each side, got shape {image.shape}")
    blur = 1.0 if double else 0.5  # the blur the base already has, in its own pixels
    first = np.sqrt(max(sigma0**2 - blur**2, 0.01))
    k = 2.0 ** (1.0 / scales)
    increments = [sigma0 * np.sqrt(k ** (2 * i) - k ** (2 * i - 2)) for i in range(1, scales + 3)]
    side = 2 * min(image.shape) - 1 if double else min(image.shape)
    smallest = side
    while (smallest + 1) // 2 >= min_size:  # the smallest octave's side: halved (rounding up) while >= min_size
        smallest = (smallest + 1) // 2
    for sigma, pixels in ((first, side), (max(increments), smallest)):
        reach = int(4 * sigma + 0.5)  # the radius of the blur's kernel, which a mirror supplies from pixels − 1
        if reach > pixels - 1:
            raise ValueError(f"sigma0 = {sigma0:g} and min_size = {min_size}: a blur of σ = {sigma:.3g} reaches "
                             f"{reach} pixels, but an octave of this image has only {pixels} on its smaller side; "
                             "raise min_size or lower sigma0")
    base = _gaussian_filter(_double(image) if double else image, first, "mirror")
    gaussians, dogs = [], []
    while min(base.shape) >= min_size:
        stack = np.empty((scales + 3,) + base.shape)
        stack[0] = base
        for i, step in enumerate(increments, start=1):
            stack[i] = _gaussian_filter(stack[i - 1], step, "mirror")
        gaussians.append(stack)
        dogs.append(stack[1:] - stack[:-1])
        base = stack[scales][::2, ::2]  # σ = 2σ₀: the next octave's first image
    return SiftPyramid(gaussians, dogs, sigma0, scales, -1 if double else 0)


def _dog_derivatives(dog: np.ndarray, i: np.ndarray, y: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient (m, 3) and Hessian (m, 3, 3) of D in (x, y, σ) at integer points, by central differences."""
    def d(di, dy, dx):
        return dog[i + di, y + dy, x + dx]
    centre = d(0, 0, 0)
    grad = np.stack([d(0, 0, 1) - d(0, 0, -1), d(0, 1, 0) - d(0, -1, 0), d(1, 0, 0) - d(-1, 0, 0)], axis=1) / 2
    dxx, dyy, dss = (d(0, 0, 1) + d(0, 0, -1) - 2 * centre, d(0, 1, 0) + d(0, -1, 0) - 2 * centre,
                     d(1, 0, 0) + d(-1, 0, 0) - 2 * centre)
    dxy = (d(0, 1, 1) - d(0, 1, -1) - d(0, -1, 1) + d(0, -1, -1)) / 4
    dxs = (d(1, 0, 1) - d(1, 0, -1) - d(-1, 0, 1) + d(-1, 0, -1)) / 4
    dys = (d(1, 1, 0) - d(1, -1, 0) - d(-1, 1, 0) + d(-1, -1, 0)) / 4
    hessian = np.stack([np.stack([dxx, dxy, dxs], 1), np.stack([dxy, dyy, dys], 1), np.stack([dxs, dys, dss], 1)], 1)
    return grad, hessian


def _refine(dog: np.ndarray, peaks: np.ndarray, scales: int, steps: int = 5):
    """Quadratic refinement of integer extrema (i, y, x): the points that converge, with
    their offsets δ = (δx, δy, δσ), interpolated values and spatial Hessians."""
    lower = np.array([1, BORDER, BORDER])
    upper = np.array([scales, dog.shape[1] - 1 - BORDER, dog.shape[2] - 1 - BORDER])
    points, found = peaks, []
    for _ in range(steps):
        i, y, x = points.T
        grad, hessian = _dog_derivatives(dog, i, y, x)
        solvable = np.linalg.cond(hessian) < 1e8  # a flat or degenerate fit has no top to move to
        points, grad, hessian = points[solvable], grad[solvable], hessian[solvable]
        offset = -np.linalg.solve(hessian, grad[..., None])[..., 0]  # (δx, δy, δσ)
        done = np.all(np.abs(offset) < 0.6, axis=1)
        found.append((points[done], offset[done], grad[done], hessian[done]))
        moved = points[~done] + np.round(offset[~done, ::-1]).astype(int)  # (i, y, x) += (δσ, δy, δx)
        points = moved[np.all((moved >= lower) & (moved <= upper), axis=1)]
        if len(points) == 0:
            break
    points, offset, grad, hessian = (np.concatenate(parts) for parts in zip(*found))
    value = dog[tuple(points.T)] + 0.5 * np.sum(grad * offset, axis=1)
    return points, offset, value, hessian[:, :2, :2]


def detect_keypoints(pyramid: SiftPyramid, contrast_threshold: float = 0.04, edge_ratio: float = 10.0) -> Keypoints:
    """Scale-space extrema of the DoG, refined, without weak or edge-like ones (step 2).

    A point is kept when |D(x̂)| ≥ contrast_threshold / s and tr(H₂)² / det(H₂) <
    (r + 1)² / r with r = ``edge_ratio``; candidates must first pass half the contrast
    threshold. Orientations are 0 until :func:`assign_orientations`.
    """
    if not isinstance(pyramid, SiftPyramid):
        raise TypeError(f"pyramid must be a SiftPyramid (from sift_pyramid), got {type(pyramid).__name__}")
    contrast_threshold = check_number("contrast_threshold", contrast_threshold, low=0.0, high=1.0)
    edge_ratio = check_number("edge_ratio", edge_ratio, low=1.0, low_open=True, high=1e6)
    s, parts = pyramid.scales, []
    for octave, dog in enumerate(pyramid.dogs):
        if min(dog.shape[1:]) <= 2 * BORDER + 2:
            continue
        threshold = 0.5 * contrast_threshold / s
        peaks = np.concatenate([local_maxima_3d(dog, threshold), local_maxima_3d(-dog, threshold)])
        inside = ((peaks[:, 0] >= 1) & (peaks[:, 0] <= s) & np.all(peaks[:, 1:] >= BORDER, axis=1)
                  & (peaks[:, 1] < dog.shape[1] - BORDER) & (peaks[:, 2] < dog.shape[2] - BORDER))
        peaks = peaks[inside]
        if len(peaks) == 0:
            continue
        points, offset, value, h2 = _refine(dog, peaks, s)
        trace, det = h2[:, 0, 0] + h2[:, 1, 1], np.linalg.det(h2)
        keep = ((np.abs(value) >= contrast_threshold / s) & (det > 0)
                & (trace**2 * edge_ratio < (edge_ratio + 1) ** 2 * det))
        points, offset, value = points[keep], offset[keep], value[keep]
        spacing = pyramid.spacing(octave + pyramid.first_octave)
        layer = points[:, 0] + offset[:, 2]
        parts.append(Keypoints(
            xy=(points[:, [2, 1]] + offset[:, :2]) * spacing,
            sigma=pyramid.sigma0 * 2.0 ** (layer / s) * spacing,
            orientation=np.zeros(len(points)), response=value,
            octave=np.full(len(points), octave + pyramid.first_octave), layer=layer))
    return Keypoints.concatenate(parts)


def _groups(pyramid: SiftPyramid, keypoints: Keypoints):
    """Keypoints grouped by (octave index, nearest Gaussian layer), with their positions
    and scales in that octave's pixels: yields (positions in keypoints, gradients (H, W, 2), xy, σ)."""
    octave_index = keypoints.octave - pyramid.first_octave
    layer = np.clip(np.round(keypoints.layer).astype(int), 1, pyramid.scales)
    for o, i in sorted(set(zip(octave_index.tolist(), layer.tolist()))):
        members = np.flatnonzero((octave_index == o) & (layer == i))
        spacing = pyramid.spacing(o + pyramid.first_octave)
        yield members, pyramid.gradients(o, i), keypoints.xy[members] / spacing, keypoints.sigma[members] / spacing


def _check_pair(pyramid: object, keypoints: object) -> None:
    if not isinstance(pyramid, SiftPyramid):
        raise TypeError(f"pyramid must be a SiftPyramid (from sift_pyramid), got {type(pyramid).__name__}")
    if not isinstance(keypoints, Keypoints):
        raise TypeError(f"keypoints must be Keypoints (from detect_keypoints), got {type(keypoints).__name__}")
    if not len(keypoints):
        return
    octave_index = keypoints.octave - pyramid.first_octave
    if octave_index.min() < 0 or octave_index.max() >= len(pyramid.gaussians):
        raise ValueError("keypoints must come from this pyramid: their octaves are outside it")
    for field_name in ("xy", "sigma", "orientation", "layer"):
        if not np.all(np.isfinite(getattr(keypoints, field_name))):
            raise ValueError(f"keypoints must have finite {field_name}, found NaN or infinity")
    # the input image's extent, in input pixels: the first octave's last pixel times its spacing
    height, width = (np.array(pyramid.gaussians[0].shape[1:]) - 1) * pyramid.spacing(pyramid.first_octave)
    x, y = keypoints.xy[:, 0], keypoints.xy[:, 1]
    if x.min() < -1 or y.min() < -1 or x.max() > width + 1 or y.max() > height + 1:
        raise ValueError(f"keypoints must lie on the image (x in [0, {width:g}], y in [0, {height:g}], within a "
                         f"pixel), found x from {x.min():.4g} to {x.max():.4g}, y from {y.min():.4g} to {y.max():.4g}")
    if keypoints.sigma.min() <= 0 or keypoints.sigma.max() > max(height, width) + 1:
        raise ValueError(f"keypoints must have scales sigma in (0, {max(height, width) + 1:g}] (the image's size), "
                         f"found {keypoints.sigma.min():.4g} to {keypoints.sigma.max():.4g}")


def orientation_histograms(pyramid: SiftPyramid, keypoints: Keypoints, bins: int = ORIENTATION_BINS) -> np.ndarray:
    """(n, bins) histograms of gradient direction around each keypoint (step 3).

    Pixels within 4.5σ (a square, as Lowe's code) vote with weight ‖∇L‖ · exp(−d² / (2 (1.5σ)²))
    for the bin of atan2(g_y, g_x); the histogram is then smoothed with [1, 4, 6, 4, 1] / 16
    (circularly, since directions wrap around).
    """
    _check_pair(pyramid, keypoints)
    bins = check_count("bins", bins, low=4, high=360)
    hist = np.zeros((len(keypoints), bins))
    for members, gradients, xy, sigma in _groups(pyramid, keypoints):
        radius = np.round(4.5 * sigma).astype(int)
        reach = radius.max()
        d = np.arange(-reach, reach + 1)
        dy, dx = d[None, :, None], d[None, None, :]
        centre = np.round(xy).astype(int)
        ys, xs = centre[:, 1, None, None] + dy, centre[:, 0, None, None] + dx  # (m, 2R + 1, 2R + 1)
        inside = ((np.maximum(np.abs(dy), np.abs(dx)) <= radius[:, None, None])
                  & (ys > 0) & (ys < gradients.shape[0] - 1) & (xs > 0) & (xs < gradients.shape[1] - 1))
        ys, xs = np.clip(ys, 0, gradients.shape[0] - 1), np.clip(xs, 0, gradients.shape[1] - 1)
        flat = ys * gradients.shape[1] + xs
        gxs, gys = np.moveaxis(np.take(gradients.reshape(-1, 2), flat, axis=0), -1, 0)
        weight = np.hypot(gxs, gys) * np.exp(-(dy**2 + dx**2) / (2 * (1.5 * sigma[:, None, None]) ** 2)) * inside
        which = np.round(np.mod(np.arctan2(gys, gxs), 2 * np.pi) * bins / (2 * np.pi)).astype(int) % bins
        flat = (np.arange(len(members))[:, None, None] * bins + which).ravel()
        hist[members] = np.bincount(flat, weight.ravel(), minlength=len(members) * bins).reshape(-1, bins)
    smooth = np.array([1.0, 4.0, 6.0, 4.0, 1.0]) / 16
    return sum(w * np.roll(hist, shift, axis=1) for shift, w in zip(range(-2, 3), smooth))


def histogram_peaks(histograms: object, peak_ratio: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """Peaks of circular histograms: (row, angle in [0, 2π)) for every bin larger than both
    neighbours and at least ``peak_ratio`` of its row's maximum, its position refined by the
    parabola through the bin and its neighbours: b + ½ (h₋ − h₊) / (h₋ − 2h + h₊)."""
    hist = check_array("histograms", histograms, ndim=2, low=0.0)
    peak_ratio = check_number("peak_ratio", peak_ratio, low=0.0, low_open=True, high=1.0)
    left, right = np.roll(hist, 1, axis=1), np.roll(hist, -1, axis=1)
    is_peak = (hist > left) & (hist > right) & (hist >= peak_ratio * hist.max(axis=1, keepdims=True))
    rows, b = np.nonzero(is_peak)
    hl, hc, hr = left[rows, b], hist[rows, b], right[rows, b]
    position = b + 0.5 * (hl - hr) / (hl - 2 * hc + hr)
    return rows, np.mod(position * 2 * np.pi / hist.shape[1], 2 * np.pi)


def assign_orientations(pyramid: SiftPyramid, keypoints: Keypoints, peak_ratio: float = 0.8) -> Keypoints:
    """One keypoint per peak of its orientation histogram (the 0.8 rule): the returned
    keypoints are the given ones, some repeated, with their orientations set."""
    rows, angles = histogram_peaks(orientation_histograms(pyramid, keypoints), peak_ratio)
    chosen = keypoints.take(rows)
    return Keypoints(chosen.xy, chosen.sigma, angles, chosen.response, chosen.octave, chosen.layer)


def _bilinear(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(…, C) values of the (H, W, C) ``image`` at real positions (x, y) of any shape, by
    bilinear interpolation (positions clipped to the image)."""
    x = np.clip(x, 0, image.shape[1] - 1.000001)
    y = np.clip(y, 0, image.shape[0] - 1.000001)
    x0, y0 = x.astype(int), y.astype(int)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    pixels, width = image.reshape(-1, image.shape[2]), image.shape[1]
    top_left = y0 * width + x0  # flat indices: np.take on one axis gathers fastest

    def at(offset):
        return np.take(pixels, top_left + offset, axis=0)

    return (1 - fy) * ((1 - fx) * at(0) + fx * at(1)) + fy * ((1 - fx) * at(width) + fx * at(width + 1))


def _descriptor_grid() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sample positions (u, v) in cells from the window's centre, (S,) each, and the
    (S, CELLS²) spatial weights of each sample for each cell: the Gaussian window times
    the bilinear share of the cell. Samples reach half a cell beyond the 4 × 4 cells, where
    they still vote for the outer cells a little. None of this depends on the keypoint."""
    side = (CELLS + 1) * SAMPLES_PER_CELL
    grid = (np.arange(side) + 0.5) / SAMPLES_PER_CELL - (CELLS + 1) / 2
    u, v = (g.ravel() for g in np.meshgrid(grid, grid))  # u along the keypoint's direction, v across it
    centres = np.arange(CELLS) - (CELLS - 1) / 2  # cell centres, in cells
    share_u = np.maximum(1 - np.abs(u[:, None] - centres), 0)  # (S, CELLS) bilinear shares
    share_v = np.maximum(1 - np.abs(v[:, None] - centres), 0)
    window = np.exp(-(u**2 + v**2) / (2 * (CELLS / 2) ** 2))  # Gaussian of half the window's width
    spatial = window[:, None, None] * share_v[:, :, None] * share_u[:, None, :]  # (S, row, column)
    return u, v, spatial.reshape(len(u), CELLS * CELLS)


def describe_keypoints(pyramid: SiftPyramid, keypoints: Keypoints, clamp: float = 0.2,
                       quantize: bool = True) -> np.ndarray:
    """SIFT descriptors (steps 4 and 5): (n, 128) uint8, or float64 unit vectors with
    ``quantize=False``; ``clamp`` is the cap on each entry of the unit vector (1: none).

    Each keypoint's samples vote for the two nearest of 8 directions, H[k, s, d]; the
    spatial weights W[s, cell] are the same for every keypoint, so the 4 × 4 × 8
    histograms are one matrix product, Σ_s H[k, s, d] W[s, cell].
    """
    _check_pair(pyramid, keypoints)
    clamp = check_number("clamp", clamp, low=0.0, low_open=True, high=1.0)
    quantize = check_bool("quantize", quantize)
    u, v, spatial = _descriptor_grid()
    descriptors = np.zeros((len(keypoints), CELLS * CELLS, DIRECTION_BINS))
    for members, gradients, xy, sigma in _groups(pyramid, keypoints):
        c, s = np.cos(keypoints.orientation[members])[:, None], np.sin(keypoints.orientation[members])[:, None]
        width = 3 * sigma[:, None]  # a cell is 3σ wide
        xs = xy[:, 0, None] + width * (c * u - s * v)  # (m, S): the window turned to the keypoint's direction
        ys = xy[:, 1, None] + width * (s * u + c * v)
        inside = (xs >= 0) & (xs <= gradients.shape[1] - 1) & (ys >= 0) & (ys <= gradients.shape[0] - 1)
        gx, gy = np.moveaxis(_bilinear(gradients, xs, ys), -1, 0)
        along, across = c * gx + s * gy, -s * gx + c * gy  # the gradient turned the same way
        magnitude = np.hypot(along, across) * inside
        direction = np.mod(np.arctan2(across, along), 2 * np.pi) * DIRECTION_BINS / (2 * np.pi)
        lower = np.floor(direction).astype(int) % DIRECTION_BINS
        upper_share = direction - np.floor(direction)
        votes = np.zeros(direction.shape + (DIRECTION_BINS,))  # H[k, s, d]
        np.put_along_axis(votes, lower[..., None], (magnitude * (1 - upper_share))[..., None], axis=2)
        np.put_along_axis(votes, ((lower + 1) % DIRECTION_BINS)[..., None], (magnitude * upper_share)[..., None], axis=2)
        descriptors[members] = np.matmul(votes.transpose(0, 2, 1), spatial).transpose(0, 2, 1)
    # (n, 128): cell-major, 8 directions per cell (spelled out, so that n = 0 reshapes too)
    vectors = descriptors.reshape(len(keypoints), CELLS * CELLS * DIRECTION_BINS)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    vectors = np.minimum(vectors, clamp)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    if not quantize:
        return vectors
    return np.minimum(np.round(512 * vectors), 255).astype(np.uint8)


def sift_features(image: object, contrast_threshold: float = 0.04, edge_ratio: float = 10.0, peak_ratio: float = 0.8,
         double: bool = True) -> tuple[Keypoints, np.ndarray]:
    """Keypoints and (n, 128) uint8 descriptors of a grey image in [0, 1] (an integer
    image is scaled by its dtype's range; a float image far outside [0, 1] is refused, as
    :func:`~.images.check_image` says): steps 1–5. A featureless image gives no
    keypoints and a (0, 128) array."""
    return _sift_features(check_image("image", image, channels=False, unit=True), contrast_threshold, edge_ratio,
                          peak_ratio, double)


def _sift_features(image: np.ndarray, contrast_threshold: object = 0.04, edge_ratio: object = 10.0,
                   peak_ratio: object = 0.8, double: object = True) -> tuple[Keypoints, np.ndarray]:
    """:func:`sift_features` of a checked image (the other arguments are checked on the way)."""
    pyramid = _sift_pyramid(image, 1.6, 3, double, 16)
    keypoints = assign_orientations(pyramid, detect_keypoints(pyramid, contrast_threshold, edge_ratio), peak_ratio)
    return keypoints, describe_keypoints(pyramid, keypoints)


def sift_features_of(images: Mapping[str, object], workers: int = 2) -> dict[str, tuple[Keypoints, np.ndarray]]:
    """:func:`sift_features` of every image of ``{name: image}``, shared out over
    ``workers`` processes: ``{name: (keypoints, descriptors)}``, in the mapping's order.

    Each image's features depend on that image alone, so the result is the one a loop
    over the images gives, whatever the number of workers; only the time changes: II.7's
    141 images take a little over half as long in two processes as in one, on two cores.
    """
    check_mapping("images", images)
    workers = check_count("workers", workers, low=1, high=64)
    names = list(images)
    checked = [check_image(f"images[{name!r}]", images[name], channels=False, unit=True) for name in names]
    if workers == 1 or len(checked) < 2:
        return dict(zip(names, map(_sift_features, checked)))
    # fork where there is one (Linux): the workers start at once, with the library loaded
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    with ProcessPoolExecutor(min(workers, len(checked)), mp_context=multiprocessing.get_context(method)) as pool:
        return dict(zip(names, pool.map(_sift_features, checked)))
