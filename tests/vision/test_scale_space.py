"""Scale space and blobs: skimage's blob_log as the reference, and the scale theory checked."""

import numpy as np
import pytest
import skimage.feature
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.vision import load_photo
from mmir_lib.vision.scale_space import (difference_of_gaussians, find_blobs, find_dog_blobs, geometric_sigmas,
                                         local_maxima_3d, gaussian_scale_space, normalized_laplacian)


@pytest.mark.parametrize("name, crop", [("coins", None), ("hubble", (slice(0, 300), slice(0, 300)))])
def test_blobs_recover_skimage_blob_log(name, crop):
    """Every blob skimage finds (after its pruning of overlaps) is among ours within 2 px
    and one scale step: measured 99.3 % (coins) and 99.4 % (Hubble crop)."""
    image = load_photo(name, gray=True)
    image = image[crop] if crop else image
    sigmas = np.linspace(2, 12, 11)
    reference = skimage.feature.blob_log(image, min_sigma=2, max_sigma=12, num_sigma=11, threshold=0.05)
    ours = find_blobs(image, sigmas, threshold=0.05)
    found = [np.any((np.hypot(ours[:, 0] - y, ours[:, 1] - x) <= 2) & (np.abs(ours[:, 2] - s) <= 1.0 + 1e-9))
             for y, x, s in reference]
    assert len(reference) > 50 and np.mean(found) >= 0.9


@pytest.mark.parametrize("name, crop", [("coins", None), ("hubble", (slice(0, 300), slice(0, 300)))])
def test_dog_blobs_recover_skimage_blob_dog(name, crop):
    """blob_dog with the same geometric scales, its border rule ("reflect", our
    "symmetric") and threshold: every blob it keeps after pruning overlaps is one of ours
    at the same pixel and scale (measured: all of them on both images)."""
    image = load_photo(name, gray=True)
    image = image[crop] if crop else image
    sigmas = geometric_sigmas(2.0, 1.6, 5)  # blob_dog(min_sigma=2, max_sigma=12, sigma_ratio=1.6) uses these five
    reference = skimage.feature.blob_dog(image, min_sigma=2, max_sigma=12, sigma_ratio=1.6, threshold=0.05)
    ours = find_dog_blobs(image, sigmas, threshold=0.05, mode="symmetric")
    found = [np.any(np.all(np.isclose(ours, row, rtol=0, atol=1e-9), axis=1)) for row in reference]
    assert len(reference) > 20 and np.mean(found) == 1.0


def test_dog_blobs_need_geometric_sigmas():
    with pytest.raises(ValueError, match="sigmas must be geometric"):
        find_dog_blobs(np.zeros((40, 40)), [1.0, 2.0, 2.5])
    with pytest.raises(ValueError, match="at least two scales"):
        find_dog_blobs(np.zeros((40, 40)), [2.0])


@pytest.mark.parametrize("blob_sigma", [2.0, 3.0, 5.0])
def test_characteristic_scale_of_a_gaussian_blob_is_its_width(blob_sigma):
    """For f = exp(−r²/(2s²)) the normalised Laplacian at the centre peaks at σ = s."""
    y, x = np.mgrid[0:81, 0:81] - 40.0
    blob = np.exp(-(x**2 + y**2) / (2 * blob_sigma**2))
    sigmas = np.arange(1.0, 8.01, 0.25)
    blobs = find_blobs(blob, sigmas, threshold=0.01)
    assert len(blobs) == 1 and tuple(blobs[0, :2]) == (40, 40)
    assert abs(blobs[0, 2] - blob_sigma) <= 0.25


def test_difference_of_gaussians_approaches_the_normalised_laplacian():
    image = load_photo("camera")[100:260, 150:310]
    errors = []
    for k in [1.6, 1.2, 1.05]:
        sigmas = geometric_sigmas(2.0, k, 2)
        dog = difference_of_gaussians(image, sigmas)[0]
        nlog = normalized_laplacian(image, sigmas[:1])[0]
        errors.append(np.abs(dog - (k - 1) * nlog).max() / np.abs(dog).max())
    assert errors[0] > errors[1] > errors[2] and errors[2] < 0.05


def test_scale_space_is_the_image_blurred_at_each_sigma():
    image = load_photo("coins")[:64, :64]
    sigmas = geometric_sigmas(1.0, 2.0, 3)
    stack = gaussian_scale_space(image, sigmas)
    assert stack.shape == (3, 64, 64) and np.all(stack.std(axis=(1, 2))[1:] < stack.std(axis=(1, 2))[:-1])


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 3), st.integers(0, 6), st.integers(0, 6), st.floats(0.1, 5))
def test_a_single_peak_is_the_only_maximum(i, y, x, height):
    cube = np.zeros((4, 7, 7))
    cube[i, y, x] = height
    assert local_maxima_3d(cube, threshold=0.0).tolist() == [[i, y, x]]


@settings(max_examples=80, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 6), st.integers(1, 6)),
              elements=st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0])), st.sampled_from([-1.0, 0.2, 1.2]))
def test_local_maxima_equal_the_26_neighbour_definition(cube, threshold):
    """Separable square maxima, layer by layer, give exactly the entries that are at least
    every one of their (up to) 26 neighbours, ties included (few distinct values make many)."""
    padded = np.pad(cube, 1, constant_values=-np.inf)
    expected = [[i, y, x] for i, y, x in np.ndindex(cube.shape)
                if cube[i, y, x] > threshold and cube[i, y, x] >= padded[i:i + 3, y:y + 3, x:x + 3].max()]
    assert local_maxima_3d(cube, threshold).tolist() == expected


@pytest.mark.parametrize("call, error, words", [
    (lambda: geometric_sigmas(0.0, 1.5, 3), ValueError, "sigma0"),
    (lambda: geometric_sigmas(1.0, 1.0, 3), ValueError, "k"),
    (lambda: gaussian_scale_space(np.zeros((8, 8)), [2.0, 1.0]), ValueError, "sigmas"),
    (lambda: difference_of_gaussians(np.zeros((8, 8)), [1.0]), ValueError, "sigmas"),
    (lambda: local_maxima_3d(np.zeros((3, 3)), 0.0), ValueError, "cube"),
    (lambda: find_blobs(np.zeros((8, 8)), [1.0, 2.0], bright="yes"), TypeError, "bright"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
