"""The book's photographs ship inside the scikit-image wheel; pixel conversions round-trip."""

from pathlib import Path

import numpy as np
import pytest
import skimage

from mmir_lib.vision import PHOTOS, check_image, load_photo, to_float, to_uint8


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
