"""The book's photographs ship inside the scikit-image wheel; pixel conversions round-trip;
histograms and equalisation equal skimage's."""

from pathlib import Path

import numpy as np
import pytest
import skimage
import skimage.exposure
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.vision import (PHOTOS, check_image, equalize, histogram, load_photo, quantize, to_float, to_gray,
                             to_uint8)


@pytest.mark.parametrize("name", sorted(PHOTOS))
def test_every_photo_is_a_file_in_the_wheel(name):
    assert (Path(skimage.__file__).parent / "data" / PHOTOS[name][0]).is_file()
    photo = load_photo(name)
    assert photo.dtype == np.float64 and photo.ndim in (2, 3) and 0.0 <= photo.min() <= photo.max() <= 1.0
    described = PHOTOS[name][1].split(", ")[-1].split()[:3]  # e.g. ['512', '×', '512']
    assert list(photo.shape[:2]) == [int(described[0]), int(described[2])]


def test_gray_uses_luma_weights():
    rgb, gray = load_photo("astronaut"), load_photo("astronaut", gray=True)
    assert gray.shape == rgb.shape[:2]
    assert np.allclose(gray, 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2])


def test_uint8_round_trip():
    levels = np.arange(256, dtype=np.uint8).reshape(16, 16)
    assert np.array_equal(to_uint8(to_float(levels)), levels)
    assert to_uint8(np.array([[-0.5, 1.7]])).tolist() == [[0, 255]]


@pytest.mark.parametrize("image, words", [
    (np.zeros(5), "dimensional"), (np.zeros((0, 3)), "empty"), (np.zeros((4, 4, 5)), "channels"),
    (np.array([[np.nan]]), "finite"), ("camera", "image"),
])
def test_bad_images(image, words):
    with pytest.raises((ValueError, TypeError), match=words):
        check_image("image", image)


def test_float_image_outside_unit_range_is_refused():
    with pytest.raises(ValueError, match="image"):
        to_float(np.array([[2.0]]))
    with pytest.raises(ValueError, match="name"):
        load_photo("brain")  # downloads in skimage, so not offered



@pytest.mark.parametrize("name", ["moon", "camera", "coins", "page"])
def test_histogram_and_equalisation_equal_skimage(name):
    photo = load_photo(name, gray=True)
    levels8 = to_uint8(photo)
    counts, _ = skimage.exposure.histogram(levels8, source_range="dtype")
    assert np.array_equal(histogram(photo), counts)
    assert np.abs(equalize(photo) - skimage.exposure.equalize_hist(levels8)).max() <= 1e-12


unit_images = arrays(np.float64, st.tuples(st.integers(1, 20), st.integers(1, 20)), elements=st.floats(0, 1))


@settings(max_examples=60, deadline=None)
@given(unit_images, st.integers(2, 300))
def test_equalisation_keeps_the_order_of_grey_levels(image, levels):
    out = equalize(image, levels)
    order = np.argsort(np.round(image * (levels - 1)).ravel(), kind="stable")
    assert np.all(np.diff(out.ravel()[order]) >= 0) and 0 < out.min() and out.max() == 1.0
    assert histogram(image, levels).sum() == image.size


@settings(max_examples=60, deadline=None)
@given(unit_images, st.integers(1, 12))
def test_quantisation_leaves_two_to_the_bits_levels(image, bits):
    q = quantize(image, bits)
    assert len(np.unique(q)) <= 2**bits and np.abs(q - image).max() <= 0.5 / (2**bits - 1) + 1e-12
    assert np.array_equal(quantize(q, bits), q)  # idempotent


def test_to_gray_needs_three_channels():
    with pytest.raises(ValueError, match="image"):
        to_gray(np.zeros((4, 4, 4)))
    with pytest.raises(ValueError, match="bits"):
        quantize(np.zeros((2, 2)), 0)
    with pytest.raises(ValueError, match="image"):
        histogram(np.full((2, 2), 1.5))
