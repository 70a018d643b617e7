"""The book's image retrieval collection: transformed views of real photographs.

To measure image retrieval the way Part I measured text retrieval (chapter I.4) needs a
test collection: images, queries, and judgements saying which images answer which
query. None can be installed offline, so the book builds one, and its judgements come
from **how the images were made**, never from a system's output:

* **sources**: 16 photographs bundled with scikit-image (:data:`~.images.PHOTOS`), grey
  and reduced so that the longer side is at most :data:`MAX_SIDE` = 256 pixels
  (:func:`downscale`); reduced, a SIFT pass over the whole collection takes seconds;
* **views**: each source is changed in the 8 ways of :data:`VIEWS`, with known
  parameters (:func:`make_view`): a rotation, a zoom out and a zoom in, a crop, washed-out
  contrast, strong noise, strong JPEG compression, and all of these at once. A
  geometric change is a similarity transform M mapping a pixel p = (x, y) of the source
  to M p in the view (:mod:`.transforms`), recorded with the view, so a keypoint's true
  position in every view is known. The motorcycle has a 9th view that no formula
  makes: the right camera of its stereo pair, a second photograph of the same scene;
* **documents**: the views, named ``"<source>/<view>"`` (``"coffee/rot30"``);
* **queries**: the untransformed source photograph of each of the 12 **topics**
  (:data:`TOPICS`); a query is never itself in the collection, only its views are;
* **distractors**: 4 more photographs (:data:`DISTRACTORS`: two textures and two
  microscope images) whose views are in the collection but which are no query's topic:
  they can only be retrieved by mistake;
* **qrels**: for each query, the views of its own source are relevant (grade 1);
  every other image is not relevant. The judgements are complete by construction.

Statistics (tested):

==============================  =====================================
images in the collection        129 (97 views of topics, 32 of distractors)
queries (topics)                12
relevant images per query       8 (9 for the motorcycle: its stereo view)
relevant images in all          97
==============================  =====================================

What the collection cannot tell: every relevant image is a copy of the query's own
photograph, so it measures **near-duplicate retrieval** under known changes (with one
real change of viewpoint), not retrieval of *other* photographs of the same object or
place; and 12 queries can tell large differences between systems apart, not small ones.

Every random draw (the noise) is seeded by the CRC-32 of the view's name, so the
collection is the same on every machine and in every session.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from ..validation import check_choice, check_count, check_instance, check_number, check_optional, check_str
from .derivatives import gaussian_filter
from .images import check_image, load_photo
from .transforms import add_noise, adjust_brightness, jpeg, similarity_matrix, warp

__all__ = ["MAX_SIDE", "TOPICS", "DISTRACTORS", "STEREO_VIEW", "Recipe", "VIEWS", "View", "ImageCollection",
           "downscale", "make_view", "source_image", "build_collection"]

#: The longer side of every source photograph, in pixels, after :func:`downscale`.
MAX_SIDE = 256

#: The query topics: source name -> photograph of :data:`~.images.PHOTOS`.
TOPICS = {name: name for name in ("camera", "astronaut", "chelsea", "coffee", "coins", "rocket", "text",
                                  "page", "moon", "retina", "hubble")} | {"motorcycle": "motorcycle_left"}

#: Sources whose views are in the collection but which are no query's topic.
DISTRACTORS = {name: name for name in ("brick", "gravel", "cell", "ihc")}

#: The motorcycle's extra view: (source, view name, photograph) of the right stereo camera.
STEREO_VIEW = ("motorcycle", "right", "motorcycle_right")


@dataclass(frozen=True)
class Recipe:
    """How a view is made from a source image f (H, W), in this order:

    1. **geometry**: the similarity transform M = ``similarity_matrix(angle, scale,
       focus, centre of the view)`` that rotates by ``angle`` degrees and scales by
       ``scale`` about the **focus** point (``focus`` as fractions of the source's width
       and height), bringing it to the centre of a view of ``canvas`` × (H, W) pixels
       (fractions of the source's height and width). A shrink (scale < 1) first blurs f
       with σ = (1/s − 1)/2 against aliasing, as scikit-image's ``resize`` does. A pure
       crop (angle 0, scale 1) moves pixels by whole numbers, so nothing is resampled;
    2. **light**: clip(gain · f + bias, 0, 1);
    3. **noise**: + N(0, σ²) per pixel, σ = ``noise``, clipped to [0, 1];
    4. **compression**: a JPEG round trip at ``quality`` (None: none).
    """

    description: str
    angle: float = 0.0
    scale: float = 1.0
    focus: tuple[float, float] = (0.5, 0.5)
    canvas: tuple[float, float] = (1.0, 1.0)
    gain: float = 1.0
    bias: float = 0.0
    noise: float = 0.0
    quality: int | None = None

    def __post_init__(self) -> None:
        check_str("description", self.description)
        check_number("angle", self.angle, low=-360.0, high=360.0)
        check_number("scale", self.scale, low=0.05, high=20.0)
        for name, pair, low, low_open in [("focus", self.focus, 0.0, False), ("canvas", self.canvas, 0.0, True)]:
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError(f"{name} must be a tuple of two numbers, got {pair!r}")
            for value in pair:
                check_number(name, value, low=low, low_open=low_open, high=1.0 if name == "focus" else 4.0)
        check_number("gain", self.gain, low=0.0, high=100.0)
        check_number("bias", self.bias, low=-1.0, high=1.0)
        check_number("noise", self.noise, low=0.0, high=1.0)
        check_optional(check_count, "quality", self.quality, low=1, high=95)

    @property
    def geometric(self) -> bool:
        """True if the view moves pixels (anything but the identity M)."""
        return (self.angle, self.scale, self.focus, self.canvas) != (0.0, 1.0, (0.5, 0.5), (1.0, 1.0))


#: The eight views of every source, by name.
VIEWS = {
    "rot30": Recipe("rotated by 30° about the centre (corners cut off)", angle=30.0),
    "scale50": Recipe("zoomed out: half the width and height", scale=0.5, canvas=(0.5, 0.5)),
    "zoom200": Recipe("zoomed in ×2 about (0.4 W, 0.45 H): a quarter of the photo, enlarged",
                      scale=2.0, focus=(0.4, 0.45)),
    "crop50": Recipe("cropped: a window of half the width and height around (0.65 W, 0.55 H)",
                     focus=(0.65, 0.55), canvas=(0.5, 0.5)),
    "washed": Recipe("washed out: contrast halved, brightened (0.5 f + 0.4)", gain=0.5, bias=0.4),
    "noise10": Recipe("Gaussian noise, σ = 0.1 of the grey range", noise=0.1),
    "jpeg5": Recipe("JPEG at quality 5", quality=5),
    "combo": Recipe("rotated by −40°, zoomed out to 0.7, contrast raised and clipped (1.4 f − 0.2), "
                    "noise σ = 0.03, JPEG at quality 20",
                    angle=-40.0, scale=0.7, gain=1.4, bias=-0.2, noise=0.03, quality=20),
}


@dataclass(frozen=True)
class View:
    """How one image of the collection was made.

    ``docno``   its name, ``"<source>/<view>"``
    ``source``  the source it shows (a key of :data:`TOPICS` or :data:`DISTRACTORS`)
    ``view``    the key of :data:`VIEWS` (or ``"right"``, the stereo view)
    ``recipe``  the :class:`Recipe` applied (None for the stereo view: a photograph)
    ``matrix``  (3, 3) M: source pixel (x, y, 1) -> view pixel (identity for a photometric
                view; None for the stereo view, whose correspondence is the scene's depth)
    ``seed``    the noise seed, CRC-32 of the docno
    """

    docno: str
    source: str
    view: str
    recipe: Recipe | None
    matrix: np.ndarray | None
    seed: int

    @property
    def topic(self) -> bool:
        """True if the view's source is a query topic (not a distractor)."""
        return self.source in TOPICS


@dataclass(frozen=True)
class ImageCollection:
    """The collection, as :func:`build_collection` builds it.

    ``images``   {docno: (H, W) float64 grey image in [0, 1]}, in collection order
    ``views``    {docno: :class:`View`}, how each image was made
    ``queries``  {qid: (H, W) query image}, qid = the topic's source name
    ``qrels``    {qid: {docno: 1}}: the views of the query's own source
    """

    images: dict[str, np.ndarray]
    views: dict[str, View]
    queries: dict[str, np.ndarray]
    qrels: dict[str, dict[str, int]]

    @property
    def docnos(self) -> list[str]:
        return list(self.images)

    def statistics(self) -> dict[str, int]:
        """Counts: images, topic and distractor images, queries, relevant images per query
        (least and most) and in all."""
        relevant = [len(judged) for judged in self.qrels.values()]
        topic_images = sum(view.topic for view in self.views.values())
        return {"images": len(self.images), "topic images": topic_images,
                "distractor images": len(self.images) - topic_images, "queries": len(self.queries),
                "relevant per query (least)": min(relevant), "relevant per query (most)": max(relevant),
                "relevant in all": sum(relevant)}

    def __repr__(self) -> str:
        return (f"ImageCollection({len(self.images)} images, {len(self.queries)} queries, "
                f"{sum(map(len, self.qrels.values()))} relevant)")


def _shrink(image: np.ndarray, matrix: np.ndarray, shape: tuple[int, int], scale: float) -> np.ndarray:
    """warp(image, matrix, shape), blurred first with σ = (1/s − 1)/2 when s < 1."""
    if scale < 1.0:
        image = gaussian_filter(image, (1.0 / scale - 1.0) / 2.0)
    return warp(image, matrix, shape)


def downscale(image: object, max_side: int = MAX_SIDE) -> tuple[np.ndarray, np.ndarray]:
    """A grey image reduced so that its longer side is at most ``max_side``: s = max_side / max(H, W).

    Pixel centres are kept in place: x' + ½ = s (x + ½), i.e. M = similarity_matrix(scale=s,
    center=(−½, −½)); the image is blurred with σ = (1/s − 1)/2 first. An image already
    small enough is returned as it is (M = identity).

    Returns
    -------
    (H', W') float64 and the (3, 3) matrix M mapping original pixels to reduced ones.
    """
    image = check_image("image", image, channels=False)
    max_side = check_count("max_side", max_side, low=8)
    height, width = image.shape
    scale = max_side / max(height, width)
    if scale >= 1.0:
        return image.copy(), np.eye(3)
    matrix = similarity_matrix(scale=scale, center=(-0.5, -0.5))
    shape = (max(1, round(height * scale)), max(1, round(width * scale)))
    return _shrink(image, matrix, shape, scale), matrix


def make_view(image: object, recipe: str | Recipe, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Apply a :class:`Recipe` (or the name of one in :data:`VIEWS`) to a grey image in [0, 1].

    Returns
    -------
    view : (H', W') float64 in [0, 1]
    matrix : (3, 3) M, source pixel (x, y, 1) -> view pixel (the identity if nothing moves)
    """
    image = check_image("image", image, channels=False)
    if isinstance(recipe, str):
        recipe = VIEWS[check_choice("recipe", recipe, VIEWS)]
    check_instance("recipe", recipe, Recipe)
    seed = check_count("seed", seed)
    if image.min() < 0 or image.max() > 1:
        raise ValueError(f"image must hold values in [0, 1], found {image.min():g} to {image.max():g}")
    height, width = image.shape
    matrix = np.eye(3)
    if recipe.geometric:
        shape = (max(1, round(height * recipe.canvas[0])), max(1, round(width * recipe.canvas[1])))
        focus = (recipe.focus[0] * (width - 1), recipe.focus[1] * (height - 1))
        centre = ((shape[1] - 1) / 2, (shape[0] - 1) / 2)
        matrix = similarity_matrix(recipe.angle, recipe.scale, focus, centre)
        if recipe.angle == 0.0 and recipe.scale == 1.0:  # a crop: whole-pixel shifts resample nothing
            matrix[:2, 2] = np.round(matrix[:2, 2])
        image = _shrink(image, matrix, shape, recipe.scale)
    if (recipe.gain, recipe.bias) != (1.0, 0.0):
        image = adjust_brightness(image, recipe.gain, recipe.bias)
    if recipe.noise > 0:
        image = add_noise(image, recipe.noise, seed)
    if recipe.quality is not None:
        image = jpeg(image, recipe.quality)
    return image, matrix


def source_image(source: str) -> np.ndarray:
    """The grey source photograph of a topic or distractor, longer side :data:`MAX_SIDE`;
    for a topic, this is its query image."""
    photo = (TOPICS | DISTRACTORS)[check_choice("source", source, list(TOPICS) + list(DISTRACTORS))]
    return downscale(load_photo(photo, gray=True))[0]


def _seed(docno: str) -> int:
    return zlib.crc32(docno.encode("utf-8"))


def build_collection() -> ImageCollection:
    """Build the collection: the views, the queries and the qrels (deterministic).

    Every view of every topic and distractor, and the stereo view; the queries are the
    topics' source photographs; each query's relevant images are its source's views (see
    the module's docstring). Takes about a second."""
    images, views, queries = {}, {}, {}
    for source in list(TOPICS) + list(DISTRACTORS):
        original = source_image(source)
        if source in TOPICS:
            queries[source] = original
        for name, recipe in VIEWS.items():
            docno = f"{source}/{name}"
            images[docno], matrix = make_view(original, recipe, _seed(docno))
            views[docno] = View(docno, source, name, recipe, matrix, _seed(docno))
        if source == STEREO_VIEW[0]:
            docno = f"{source}/{STEREO_VIEW[1]}"
            images[docno] = downscale(load_photo(STEREO_VIEW[2], gray=True))[0]
            views[docno] = View(docno, source, STEREO_VIEW[1], None, None, _seed(docno))
    for array in (*images.values(), *queries.values()):
        array.flags.writeable = False
    qrels = {qid: {docno: 1 for docno, view in views.items() if view.source == qid} for qid in queries}
    return ImageCollection(images, views, queries, qrels)
