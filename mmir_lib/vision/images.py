"""Images as arrays: the book's photographs, checks and pixel conversions.

An image is a numpy array: ``(H, W)`` for a grey image, ``(H, W, C)`` for C channels
(3 for RGB, 4 with an alpha channel). Pixels are stored as unsigned 8-bit integers
(0 to 255) on disk and converted to float64 in [0, 1] for computing, so that filters
can produce negative values and fractions without overflowing or rounding.

One rule holds for all of Part II (:func:`check_image`): a function whose thresholds
mean intensities in [0, 1] converts an integer image by its dtype's range (uint8 / 255)
and refuses a float image far outside [0, 1] (a 0..255 float image: any value beyond
[−1, 2], :data:`UNIT_SCALE`), naming the argument.
Each public function checks its image once at the door and then calls private kernels
(``_correlate``, ``_gaussian_filter``, ...), which trust what they are given.

The photographs come from scikit-image's bundled data: files inside the installed
wheel, read without a network (some ``skimage.data`` images are downloaded on first
use; they are not in :data:`PHOTOS`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..validation import check_array, check_bool, check_choice, check_count, describe

__all__ = ["PHOTOS", "LUMA", "UNIT_SCALE", "check_image", "load_photo", "load_stereo_disparity", "to_float", "to_uint8", "to_gray", "quantize",
           "histogram", "equalize"]

#: The values a float image may hold where intensities mean [0, 1] (``check_image(unit=True)``):
#: the unit range widened by its own width on each side, room for noise added to a [0, 1]
#: image (II.4's noisy step reaches −0.2) and a filter's overshoot; a 0..255 image is beyond it.
UNIT_SCALE = (-1.0, 2.0)

#: ITU-R BT.601 luma weights of R, G and B: the grey level a viewer perceives.
LUMA = (0.299, 0.587, 0.114)

#: Photographs shipped inside the scikit-image wheel: name -> (file, what it shows).
PHOTOS = {
    "camera": ("camera.png", "a cameraman on a field, 512 × 512 grey"),
    "astronaut": ("astronaut.png", "astronaut Eileen Collins, 512 × 512 RGB"),
    "chelsea": ("chelsea.png", "Chelsea the cat, 300 × 451 RGB"),
    "coffee": ("coffee.png", "a cup of coffee, 400 × 600 RGB"),
    "coins": ("coins.png", "Greek coins from Pompeii, 303 × 384 grey"),
    "rocket": ("rocket.jpg", "a Falcon 9 rocket on the pad, 427 × 640 RGB"),
    "brick": ("brick.png", "a brick wall texture, 512 × 512 grey"),
    "grass": ("grass.png", "a grass texture, 512 × 512 grey"),
    "gravel": ("gravel.png", "a gravel texture, 512 × 512 grey"),
    "text": ("text.png", "text on a page, photographed at an angle, 172 × 448 grey"),
    "page": ("page.png", "a scanned page with uneven lighting, 191 × 384 grey"),
    "moon": ("moon.png", "the Moon's surface, 512 × 512 grey"),
    "retina": ("retina.jpg", "a human retina, 1411 × 1411 RGB"),
    "hubble": ("hubble_deep_field.jpg", "the Hubble Deep Field, 872 × 1000 RGB"),
    "motorcycle_left": ("motorcycle_left.png", "left view of a stereo pair, 500 × 741 RGB"),
    "motorcycle_right": ("motorcycle_right.png", "right view of a stereo pair, 500 × 741 RGB"),
    "cell": ("cell.png", "a cell floating in saline, a quantitative phase image from a hologram, 660 × 550 grey"),
    "ihc": ("ihc.png", "colonic glands stained for a protein (DAB, brown) and haematoxylin (blue), 512 × 512 RGB"),
}


def check_image(name: str, image: object, *, channels: bool | None = None, unit: bool = False) -> np.ndarray:
    """An image as a float64 array: (H, W), or (H, W, C) with C in 1..4; not empty, finite.

    ``channels`` True requires (H, W, C), False requires (H, W), None accepts both.

    ``unit`` is the **one rule of Part II for intensities**. A function whose thresholds
    or output mean intensities in [0, 1] (:func:`to_gray`, :func:`~.edges.canny`,
    :func:`~.scale_space.find_blobs`, :func:`~.sift.sift_features`, ...) checks with
    ``unit=True``:

    * an integer image is converted, explicitly, by its dtype's largest value, as
      skimage's ``img_as_float`` does (uint8 0..255 → 0..1; a signed image by its positive
      maximum), so a uint8 image and the same image / 255 give the same result;
    * a float image must already be on that scale: its values must lie in
      :data:`UNIT_SCALE` = [−1, 2] (room for noise added to a [0, 1] image); a float image
      of 0..255 (a uint8 image cast with ``astype(float)``) is refused with a message
      naming the argument, since its thresholds would mean 255 times less than the text
      says. (A nearly black 0..255 image, all values ≤ 2, cannot be told apart.)

    Without ``unit`` (filters, derivatives: linear operations on any real values, e.g. on
    gradients) integer and bool images are converted to float64 without rescaling.

    >>> check_image("image", np.array([[0, 51, 255]], dtype=np.uint8), unit=True)
    array([[0. , 0.2, 1. ]])
    >>> check_image("image", np.array([[0.0, 51.0, 255.0]]), unit=True)
    Traceback (most recent call last):
    ...
    ValueError: image must hold intensities on the scale of [0, 1] (a float image: values in [-1, 2]), found values from 0 to 255: divide by 255, or pass the uint8 image itself
    """
    if channels is not None:
        check_bool("channels", channels)
    check_bool("unit", unit)
    integer = isinstance(image, np.ndarray) and image.dtype.kind in "iu"
    array = check_array(name, image, kind="float", ndim=(2, 3), nonempty=True)
    if unit and integer:
        array = array / np.iinfo(image.dtype).max
    elif unit and (array.min() < UNIT_SCALE[0] or array.max() > UNIT_SCALE[1]):
        raise ValueError(f"{name} must hold intensities on the scale of [0, 1] (a float image: values in "
                         f"[{UNIT_SCALE[0]:g}, {UNIT_SCALE[1]:g}]), found values from {array.min():.4g} to "
                         f"{array.max():.4g}: divide by 255, or pass the uint8 image itself")
    if channels is not None and array.ndim != (3 if channels else 2):
        wanted = "(H, W, C)" if channels else "(H, W)"
        raise ValueError(f"{name} must have shape {wanted} (channels={channels}), got shape {array.shape}")
    if array.ndim == 3 and not 1 <= array.shape[2] <= 4:
        raise ValueError(f"{name} must have 1 to 4 channels in its last axis, got shape {array.shape}")
    if min(array.shape[:2]) < 1:
        raise ValueError(f"{name} must have at least one row and one column, got shape {array.shape}")
    return array


def to_float(image: object) -> np.ndarray:
    """uint8 pixels 0..255 → float64 in [0, 1] (a float image is checked and returned as float64)."""
    array = np.asarray(image) if isinstance(image, np.ndarray) else image
    if isinstance(array, np.ndarray) and array.dtype == np.uint8:
        return check_image("image", array) / 255.0
    array = check_image("image", image)
    if array.min() < 0 or array.max() > 1:
        raise ValueError(f"image must be uint8 or hold floats in [0, 1], found {array.min():g} to {array.max():g}")
    return array


def to_uint8(image: object) -> np.ndarray:
    """float in [0, 1] → uint8 0..255, rounding to the nearest level (values outside are clipped)."""
    array = check_image("image", image)
    return np.round(np.clip(array, 0.0, 1.0) * 255.0).astype(np.uint8)


def load_photo(name: str, *, gray: bool = False) -> np.ndarray:
    """A photograph of :data:`PHOTOS` as float64 in [0, 1]: (H, W) grey or (H, W, 3) RGB.

    ``gray=True`` converts a colour photo with the ITU-R 601 luma weights
    Y = 0.299 R + 0.587 G + 0.114 B (a grey photo is returned as it is).
    """
    check_choice("name", name, PHOTOS)
    check_bool("gray", gray)
    try:
        import skimage
        from skimage import io
    except ImportError:  # pragma: no cover - scikit-image is in requirements.txt
        from ..data import DataNotInstalledError

        raise DataNotInstalledError("scikit-image is not installed: pip install scikit-image==0.26.0") from None
    path = Path(skimage.__file__).parent / "data" / PHOTOS[name][0]
    if not path.exists():  # pragma: no cover
        raise FileNotFoundError(f"{path} is missing from the scikit-image wheel ({describe(name)})")
    image = io.imread(path)
    if image.ndim == 3:
        image = image[..., :3]  # drop an alpha channel
    image = to_float(image)
    return to_gray(image) if gray and image.ndim == 3 else image


def load_stereo_disparity() -> np.ndarray:
    """The measured disparity of the motorcycle stereo pair (Middlebury 2014), (500, 741) float64.

    The pair is rectified: a scene point seen at (x, y) in ``motorcycle_left`` is seen at
    (x − d(x, y), y) in ``motorcycle_right``, d in pixels; ``inf`` where the point is hidden
    in the right view or was not measured. The disparities come from a structured-light
    scan of the scene (Scharstein et al. 2014), not from image matching.
    """
    try:
        import skimage
    except ImportError:  # pragma: no cover - scikit-image is in requirements.txt
        from ..data import DataNotInstalledError

        raise DataNotInstalledError("scikit-image is not installed: pip install scikit-image==0.26.0") from None
    path = Path(skimage.__file__).parent / "data" / "motorcycle_disp.npz"
    if not path.exists():  # pragma: no cover
        raise FileNotFoundError(f"{path} is missing from the scikit-image wheel")
    with np.load(path) as archive:
        return archive["arr_0"].astype(float)


def to_gray(image: object) -> np.ndarray:
    """(H, W, 3) RGB → (H, W) grey in [0, 1], Y = 0.299 R + 0.587 G + 0.114 B (:data:`LUMA`).

    Intensities follow :func:`check_image`'s rule (``unit=True``): a uint8 image is
    scaled to [0, 1] first; a float image must be on that scale (within :data:`UNIT_SCALE`)."""
    image = check_image("image", image, channels=True, unit=True)
    if image.shape[2] != 3:
        raise ValueError(f"image must have 3 channels (R, G, B), got shape {image.shape}")
    return image @ np.array(LUMA)


def _levels(image: np.ndarray, levels: int) -> np.ndarray:
    """The integer level 0 .. levels − 1 of each pixel of a [0, 1] image."""
    return np.round(image * (levels - 1)).astype(np.int64)


def _check_unit_image(image: object) -> np.ndarray:
    image = check_image("image", image)
    if image.min() < 0 or image.max() > 1:
        raise ValueError(f"image must hold values in [0, 1], found {image.min():g} to {image.max():g}")
    return image


def quantize(image: object, bits: int) -> np.ndarray:
    """The image with only 2^bits grey levels: round(f · (2^b − 1)) / (2^b − 1), f in [0, 1].

    8 bits keep the 256 levels of a uint8 image; 1 bit leaves black and white."""
    image = _check_unit_image(image)
    bits = check_count("bits", bits, low=1, high=16)
    levels = 2**bits
    return _levels(image, levels) / (levels - 1)


def histogram(image: object, levels: int = 256) -> np.ndarray:
    """h[k] = number of pixels at level k, k = 0 .. levels − 1, for an image in [0, 1]
    (each pixel rounded to the nearest of the ``levels`` levels); (levels,) int64."""
    image = _check_unit_image(image)
    levels = check_count("levels", levels, low=2, high=65536)
    return np.bincount(_levels(image, levels).ravel(), minlength=levels)


def equalize(image: object, levels: int = 256) -> np.ndarray:
    """Histogram equalisation: each pixel at level k becomes T(k) = Σ_{j ≤ k} h[j] / N,
    the fraction of pixels at or below its level (the empirical CDF).

    The result's levels are spread so that its cumulative histogram is as close to a
    straight line (a flat histogram) as the discrete levels allow; the order of the grey
    levels is kept (T is non-decreasing). Returns float64 in (0, 1], the image's shape.
    """
    image = _check_unit_image(image)
    levels = check_count("levels", levels, low=2, high=65536)
    cdf = np.cumsum(histogram(image, levels)) / image.size
    return cdf[_levels(image, levels)]
