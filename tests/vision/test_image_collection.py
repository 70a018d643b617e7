"""The image retrieval collection: its statistics, determinism, consistent qrels, no
query inside the collection, and views that really are the transformations recorded
(checked on a smooth image where the true value of every pixel is known, and with
SIFT matches that must land where the recorded matrix, or the measured stereo
disparity, says)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision import load_stereo_disparity
from mmir_lib.vision.image_collection import (DISTRACTORS, MAX_SIDE, STEREO_VIEW, TOPICS, VIEWS, Recipe,
                                              build_collection, downscale, make_view, source_image)
from mmir_lib.vision.matching import ratio_test
from mmir_lib.vision.sift import sift_features
from mmir_lib.vision.transforms import transform_points


@pytest.fixture(scope="module")
def collection():
    return build_collection()


def _smooth(height=120, width=160):
    """f(x, y) = 0.5 + 0.2 sin(0.09 x) + 0.2 cos(0.07 y + 0.03 x): smooth enough that
    bilinear interpolation and a light blur change it by < 1e-3 of the grey range."""
    y, x = np.mgrid[0:height, 0:width].astype(float)
    return _f(x, y)


def _f(x, y):
    return 0.5 + 0.2 * np.sin(0.09 * x) + 0.2 * np.cos(0.07 * y + 0.03 * x)


def test_statistics_are_those_the_docstring_states(collection):
    import mmir_lib.vision.image_collection as module

    stats = collection.statistics()
    assert stats == {"images": 129, "topic images": 97, "distractor images": 32, "queries": 12,
                     "relevant per query (least)": 8, "relevant per query (most)": 9, "relevant in all": 97}
    assert "129 (97 views of topics, 32 of distractors)" in module.__doc__
    assert len(TOPICS) == 12 and len(DISTRACTORS) == 4 and len(VIEWS) == 8


def test_the_collection_is_the_same_every_time(collection):
    again = build_collection()
    assert list(again.images) == list(collection.images)
    assert all(np.array_equal(again.images[d], collection.images[d]) for d in collection.images)
    assert all(np.array_equal(again.queries[q], collection.queries[q]) for q in collection.queries)
    for docno, view in collection.views.items():
        other = again.views[docno]
        assert (other.source, other.view, other.recipe, other.seed) == (view.source, view.view, view.recipe, view.seed)
        assert (view.matrix is None and other.matrix is None) or np.array_equal(view.matrix, other.matrix)


def test_qrels_are_the_views_of_the_query_source(collection):
    assert set(collection.qrels) == set(collection.queries) == set(TOPICS)
    for qid, judged in collection.qrels.items():
        assert set(judged.values()) == {1}
        assert set(judged) == {d for d, v in collection.views.items() if v.source == qid}
        assert len(judged) == len(VIEWS) + (qid == STEREO_VIEW[0])
    judged_anywhere = [d for judged in collection.qrels.values() for d in judged]
    assert len(judged_anywhere) == len(set(judged_anywhere))  # each image answers one query at most
    distractor_images = {d for d, v in collection.views.items() if v.source in DISTRACTORS}
    assert len(distractor_images) == len(DISTRACTORS) * len(VIEWS)
    assert not distractor_images & set(judged_anywhere)
    assert set(judged_anywhere) | distractor_images == set(collection.images)
    for docno, view in collection.views.items():
        assert docno == f"{view.source}/{view.view}" and view.topic == (view.source in TOPICS)


def test_no_query_is_in_the_collection_and_all_images_differ(collection):
    assert not set(collection.queries) & set(collection.images)
    arrays = list(collection.images.values()) + list(collection.queries.values())
    keys = {(a.shape, a.tobytes()) for a in arrays}
    assert len(keys) == len(arrays)  # no two images equal: no query hides in the collection


def test_images_are_grey_small_and_in_range(collection):
    for image in list(collection.images.values()) + list(collection.queries.values()):
        assert image.ndim == 2 and max(image.shape) <= MAX_SIDE and image.dtype == np.float64
        assert 0.0 <= image.min() and image.max() <= 1.0
        assert not image.flags.writeable
    assert np.array_equal(collection.queries["coffee"], source_image("coffee"))


@pytest.mark.parametrize("name", [n for n, r in VIEWS.items() if r.geometric])
def test_geometric_views_put_every_pixel_where_the_matrix_says(name):
    """On a smooth image, the view's pixel q holds f(M⁻¹ q), wherever M⁻¹ q is inside the
    source (and away from its border, where bilinear sampling meets the black outside)."""
    recipe = VIEWS[name]
    plain = Recipe("geometry only", angle=recipe.angle, scale=recipe.scale, focus=recipe.focus, canvas=recipe.canvas)
    image = _smooth()
    view, matrix = make_view(image, plain)
    y, x = np.mgrid[0:view.shape[0], 0:view.shape[1]]
    q = np.column_stack([x.ravel(), y.ravel()]).astype(float)
    p = transform_points(np.linalg.inv(matrix), q)
    inside = (p[:, 0] > 2) & (p[:, 0] < image.shape[1] - 3) & (p[:, 1] > 2) & (p[:, 1] < image.shape[0] - 3)
    assert inside.mean() > 0.3
    error = np.abs(view.ravel()[inside] - _f(p[inside, 0], p[inside, 1]))
    assert error.max() < 2e-3


def test_a_crop_is_an_exact_slice_and_photometric_views_keep_the_geometry(collection):
    source = collection.queries["camera"]
    crop, matrix = collection.images["camera/crop50"], collection.views["camera/crop50"].matrix
    x0, y0 = (-matrix[:2, 2]).astype(int)
    assert np.array_equal(matrix[:2, :2], np.eye(2)) and np.array_equal(matrix[:2, 2], np.round(matrix[:2, 2]))
    assert np.array_equal(crop, source[y0:y0 + crop.shape[0], x0:x0 + crop.shape[1]])
    for name in ("washed", "noise10", "jpeg5"):
        assert np.array_equal(collection.views[f"camera/{name}"].matrix, np.eye(3))
    assert np.allclose(collection.images["camera/washed"], np.clip(0.5 * source + 0.4, 0, 1))
    residual = collection.images["camera/noise10"] - source
    unclipped = (source > 0.3) & (source < 0.7)
    assert abs(residual[unclipped].std() - 0.1) < 0.005 and abs(residual[unclipped].mean()) < 0.005


@pytest.mark.parametrize("docno", ["camera/rot30", "coins/combo", "astronaut/zoom200"])
def test_sift_matches_land_where_the_matrix_says(collection, docno):
    """Lowe's ratio test between the query and a view: most matches are within 3 px of
    the keypoint moved by the recorded M (measured: 90-92 %)."""
    source = docno.split("/")[0]
    k1, d1 = sift_features(collection.queries[source])
    k2, d2 = sift_features(collection.images[docno])
    matches = ratio_test(d1, d2, ratio=0.8)
    expected = transform_points(collection.views[docno].matrix, k1.xy[matches.query])
    correct = np.linalg.norm(expected - k2.xy[matches.train], axis=1) <= 3
    assert len(matches) >= 20 and correct.mean() > 0.8


def test_stereo_view_follows_the_measured_disparity(collection):
    """The right camera sees a left pixel (x, y) at (x − d(x, y), y): matches between the
    motorcycle's query and its stereo view agree with the structured-light disparity,
    carried through the reduction M (x' + ½ = s (x + ½)). Measured: 92 % within 3 px
    (0 % with the sign of d flipped)."""
    source, view, _ = STEREO_VIEW
    _, matrix = downscale(np.zeros((500, 741)))
    k1, d1 = sift_features(collection.queries[source])
    k2, d2 = sift_features(collection.images[f"{source}/{view}"])
    matches = ratio_test(d1, d2, ratio=0.8)
    left = transform_points(np.linalg.inv(matrix), k1.xy[matches.query])  # in full-size pixels
    disparity = load_stereo_disparity()[np.round(left[:, 1]).astype(int), np.round(left[:, 0]).astype(int)]
    known = np.isfinite(disparity)
    right = left[known] - np.column_stack([disparity[known], np.zeros(known.sum())])
    correct = np.linalg.norm(transform_points(matrix, right) - k2.xy[matches.train[known]], axis=1) <= 3
    assert known.mean() > 0.8 and len(correct) >= 50 and correct.mean() > 0.75


def test_downscale_keeps_pixel_centres():
    """A ramp f = x / W reduced by s: pixel x' holds the ramp at x = (x' + ½)/s − ½."""
    width = 600
    ramp = np.tile(np.arange(width) / width, (40, 1))
    small, matrix = downscale(ramp, 150)
    s = 150 / width
    assert small.shape == (10, 150) and np.allclose(matrix[:2, :2], s * np.eye(2))
    x = (np.arange(150) + 0.5) / s - 0.5
    assert np.abs(small[5, 5:-5] - x[5:-5] / width).max() < 1e-9
    same, identity = downscale(ramp[:, :100], 256)
    assert np.array_equal(same, ramp[:, :100]) and np.array_equal(identity, np.eye(3))


@settings(max_examples=30, deadline=None)
@given(st.floats(-180, 180), st.floats(0.3, 3.0), st.floats(0, 1), st.floats(0, 1), st.floats(0.3, 1.5))
def test_the_focus_lands_on_the_centre_of_the_view(angle, scale, fx, fy, canvas):
    image = _smooth(40, 60)
    view, matrix = make_view(image, Recipe("any", angle=angle, scale=scale, focus=(fx, fy), canvas=(canvas, canvas)))
    centre = ((view.shape[1] - 1) / 2, (view.shape[0] - 1) / 2)
    moved = transform_points(matrix, [[fx * 59, fy * 39]])[0]
    tolerance = 0.5 if (angle, scale) == (0.0, 1.0) else 1e-9  # a crop rounds its shift to whole pixels
    assert np.abs(moved - centre).max() <= tolerance
    assert 0.0 <= view.min() and view.max() <= 1.0


def test_bad_recipes_and_images_are_refused():
    with pytest.raises(ValueError, match="scale"):
        Recipe("x", scale=0.0)
    with pytest.raises(TypeError, match="focus"):
        Recipe("x", focus=[0.5, 0.5])
    with pytest.raises(ValueError, match="quality"):
        Recipe("x", quality=100)
    with pytest.raises(ValueError, match="recipe"):
        make_view(_smooth(), "rot31")
    with pytest.raises(ValueError, match="image"):
        make_view(2.0 * _smooth(), "rot30")
    with pytest.raises(ValueError, match="image"):
        make_view(np.zeros((10, 10, 3)), "rot30")
    with pytest.raises(ValueError, match="source"):
        source_image("motorcycle_right")
