"""SIFT: exact behaviour under transformations whose answer is known, the pieces on
synthetic input, and agreement with scikit-image's and OpenCV's SIFT on a real pair."""

import cv2
import numpy as np
import pytest
import skimage.feature as skf
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision import load_photo
from mmir_lib.vision.sift import (Keypoints, assign_orientations, describe_keypoints, detect_keypoints,
                                  histogram_peaks, orientation_histograms, sift_features, sift_features_of,
                                  sift_pyramid)
from mmir_lib.vision.transforms import similarity_matrix, transform_points, warp

CROP = load_photo("camera", gray=True)[100:356, 100:356]


@pytest.fixture(scope="module")
def crop_features():
    return sift_features(CROP)


def test_a_quarter_turn_moves_keypoints_and_keeps_descriptors(crop_features):
    """np.rot90 resamples nothing, so SIFT must be exactly equivariant: the same keypoints
    turned, orientations 90° less, and identical descriptors."""
    k1, d1 = crop_features
    k2, d2 = sift_features(np.rot90(CROP))  # (x, y) -> (y, W − 1 − x)
    moved = np.column_stack([k1.xy[:, 1], CROP.shape[1] - 1 - k1.xy[:, 0]])
    distance = np.linalg.norm(moved[:, None] - k2.xy[None], axis=2)
    twin = distance.argmin(axis=1)
    same_place = distance.min(axis=1) < 1e-6
    turn = np.mod(k2.orientation[twin] - k1.orientation + np.pi / 2 + np.pi, 2 * np.pi) - np.pi
    same = same_place & (np.abs(turn) < 1e-6)
    assert same_place.mean() > 0.75 and same.sum() > 150
    assert np.abs(d1[same].astype(int) - d2[twin[same]].astype(int)).max() <= 1  # exact here; a byte may round the other way on another CPU
    assert np.allclose(k1.sigma[same], k2.sigma[twin[same]], rtol=1e-9)


def test_descriptors_ignore_gain_and_offset():
    """Gradients scale with a gain and ignore an offset; the unit-length descriptor
    cancels the gain, so the same keypoints get the same vectors."""
    pyramid = sift_pyramid(CROP)
    keypoints = assign_orientations(pyramid, detect_keypoints(pyramid))
    brighter = sift_pyramid(0.5 * CROP + 0.3)
    a = describe_keypoints(pyramid, keypoints, quantize=False)
    b = describe_keypoints(brighter, keypoints, quantize=False)
    assert np.abs(a - b).max() < 1e-9


def test_descriptor_shape_norm_and_clamp(crop_features):
    keypoints, descriptors = crop_features
    assert descriptors.dtype == np.uint8 and descriptors.shape == (len(keypoints), 128)
    pyramid = sift_pyramid(CROP)
    floats = describe_keypoints(pyramid, keypoints, quantize=False)
    assert np.allclose(np.linalg.norm(floats, axis=1), 1.0)
    unclamped = describe_keypoints(pyramid, keypoints, clamp=1.0, quantize=False)
    assert unclamped.max() > floats.max()
    assert np.abs(descriptors.astype(float) - np.minimum(np.round(512 * floats), 255)).max() == 0


@pytest.mark.parametrize("sigma_blob", [2.0, 4.0, 8.0])
def test_a_gaussian_blob_is_found_at_its_place_and_scale(sigma_blob):
    """At the centre of a Gaussian blob of scale s, L(σ) ∝ 1 / (σ² + s²), so
    D(σ) = L(kσ) − L(σ) ∝ (k² − 1) σ² / ((σ² + s²)(k²σ² + s²)), largest at σ = s / √k
    (σ names the lower of the two images, as SIFT's keypoint scale does)."""
    y, x = np.mgrid[0:128, 0:128]
    centre = (60.3, 70.6)  # (x, y), off the pixel grid
    image = 0.2 + 0.6 * np.exp(-((x - centre[0]) ** 2 + (y - centre[1]) ** 2) / (2 * sigma_blob**2))
    keypoints = detect_keypoints(sift_pyramid(image))
    best = np.argmax(np.abs(keypoints.response))
    assert np.linalg.norm(keypoints.xy[best] - centre) < 0.25
    assert abs(keypoints.sigma[best] / (sigma_blob / 2 ** (1 / 6)) - 1) < 0.03


@pytest.mark.parametrize("degrees", [0, 30, 120, 250, 137])
def test_orientation_of_a_ramp_is_its_gradient_direction(degrees):
    """On a ramp f = x cos φ + y sin φ every gradient points along φ (y down), so the
    histogram has one peak and the keypoint turns to φ (to the 10° bin's centre)."""
    y, x = np.mgrid[0:64, 0:64].astype(float)
    phi = np.deg2rad(degrees)
    pyramid = sift_pyramid(0.5 + 0.004 * (x * np.cos(phi) + y * np.sin(phi)), double=False)
    keypoint = Keypoints(xy=np.array([[32.0, 32.0]]), sigma=np.array([2.0]), orientation=np.zeros(1),
                         response=np.zeros(1), octave=np.zeros(1, dtype=int), layer=np.ones(1))
    hist = orientation_histograms(pyramid, keypoint)
    assert hist.shape == (1, 36) and np.argmax(hist[0]) == round(degrees / 10) % 36
    turned = assign_orientations(pyramid, keypoint)
    assert len(turned) == 1
    assert abs(np.rad2deg(turned.orientation[0]) - 10 * round(degrees / 10)) < 1e-6


def test_histogram_peaks_keep_the_peaks_within_the_ratio():
    hist = np.zeros((2, 36))
    hist[0, [5, 6, 7]] = [1.0, 2.0, 1.0]     # main peak at bin 6 exactly (symmetric)
    hist[0, [20, 21, 22]] = [0.5, 1.7, 0.5]  # 0.85 of the main peak: kept
    hist[1, [10, 11, 12]] = [1.0, 3.0, 2.0]  # asymmetric: refined towards bin 12
    hist[1, [30, 31, 32]] = [0.5, 2.2, 0.5]  # 0.73 of the main peak: dropped
    rows, angles = histogram_peaks(hist, peak_ratio=0.8)
    bins = angles * 36 / (2 * np.pi)
    assert rows.tolist() == [0, 0, 1]
    assert np.allclose(bins[:2], [6.0, 21.0])
    assert np.isclose(bins[2], 11 + 0.5 * (1.0 - 2.0) / (1.0 - 6.0 + 2.0))  # the parabola's vertex, 11.1667


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 35), st.floats(-0.45, 0.45), st.floats(0.5, 5.0))
def test_histogram_peak_of_a_parabola_is_exact(bin_, fraction, height):
    """Bins sampled from a parabola: the three-point fit finds its vertex exactly."""
    vertex = bin_ + fraction
    distance = np.mod(np.arange(36) - vertex + 18, 36) - 18
    hist = np.maximum(height * (1 - distance**2 / 4), 0)[None, :]
    rows, angles = histogram_peaks(hist)
    assert rows.tolist() == [0]
    found = angles[0] * 36 / (2 * np.pi)
    assert abs(np.mod(found - vertex + 18, 36) - 18) < 1e-9


def _ratio_matches(a, b, ratio=0.8):
    a, b = a.astype(float), b.astype(float)
    d = np.sqrt(np.maximum((a**2).sum(1)[:, None] + (b**2).sum(1)[None] - 2 * a @ b.T, 0))
    nearest = np.argsort(d, axis=1)[:, :2]
    rows = np.arange(len(a))
    keep = d[rows, nearest[:, 0]] < ratio * d[rows, nearest[:, 1]]
    return rows[keep], nearest[keep, 0]


@pytest.fixture(scope="module")
def rotated_pair():
    image = load_photo("camera", gray=True)
    h, w = image.shape
    matrix = similarity_matrix(30, 0.75, center=((w - 1) / 2, (h - 1) / 2))
    return image, warp(image, matrix), matrix


def _share_correct(detect, pair):
    image, other, matrix = pair
    (p1, d1), (p2, d2) = detect(image), detect(other)
    i, j = _ratio_matches(d1, d2)
    error = np.linalg.norm(transform_points(matrix, p1[i]) - p2[j], axis=1)
    return len(i), float(np.mean(error <= 3.0))


def test_matching_under_rotation_and_scale_compares_with_skimage_and_opencv(rotated_pair):
    """Camera against itself turned 30° and scaled 0.75, ratio test 0.8, a match correct
    within 3 px of where the transformation sends it (measured when written: mmir 351
    matches 94.3% correct, scikit-image 401 / 94.5%, OpenCV 327 / 92.7%)."""
    def ours(image):
        keypoints, descriptors = sift_features(image)
        return keypoints.xy, descriptors

    def skimage_sift(image):
        detector = skf.SIFT()
        detector.detect_and_extract(image)
        return detector.keypoints[:, ::-1].astype(float), detector.descriptors

    def opencv_sift(image):
        points, descriptors = cv2.SIFT_create().detectAndCompute(np.round(image * 255).astype(np.uint8), None)
        return np.array([p.pt for p in points]), descriptors

    n_ours, share_ours = _share_correct(ours, rotated_pair)
    n_sk, share_sk = _share_correct(skimage_sift, rotated_pair)
    n_cv, share_cv = _share_correct(opencv_sift, rotated_pair)
    assert n_ours > 250 and share_ours > 0.92
    assert share_ours >= share_cv - 0.01 and share_ours >= share_sk - 0.02
    assert n_ours > 0.7 * n_sk and n_ours > 0.9 * n_cv


def test_keypoints_agree_with_skimage_in_place_and_scale():
    image = load_photo("camera", gray=True)
    ours = detect_keypoints(sift_pyramid(image))
    reference = skf.SIFT()
    reference.detect(image)
    distance = np.linalg.norm(ours.xy[:, None] - reference.positions[None, :, ::-1], axis=2)
    close = distance.min(axis=1) <= 1.5
    ratio = reference.sigmas[distance.argmin(axis=1)] / ours.sigma
    assert close.mean() > 0.8  # 0.84 when written
    assert abs(np.median(ratio[close]) - 1) < 0.02


def test_keypoints_take_and_concatenate(crop_features):
    keypoints, _ = crop_features
    first = keypoints.take(np.arange(3))
    assert len(first) == 3 and np.array_equal(first.xy, keypoints.xy[:3])
    both = Keypoints.concatenate([first, first])
    assert len(both) == 6 and len(Keypoints.concatenate([])) == 0


@pytest.mark.parametrize("call, error, words", [
    (lambda: sift_pyramid(np.zeros((10, 10))), ValueError, "at least"),
    (lambda: sift_pyramid(np.zeros((40, 40, 3))), ValueError, "image"),
    (lambda: sift_pyramid(np.full((40, 40), np.nan)), ValueError, "image"),
    (lambda: detect_keypoints("pyramid"), TypeError, "pyramid"),
    (lambda: describe_keypoints(sift_pyramid(CROP), "keypoints"), TypeError, "keypoints"),
    (lambda: histogram_peaks(-np.ones((1, 36))), ValueError, "histograms"),
    (lambda: sift_features_of([CROP]), TypeError, "images must be a mapping"),
    (lambda: sift_features_of({"a": CROP, "b": np.zeros((40, 40, 3))}), ValueError, r"images\['b'\]"),
    (lambda: sift_features_of({"a": CROP}, workers=0), ValueError, "workers"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_features_of_many_images_equal_one_by_one(crop_features, workers):
    # the work is shared out over processes; each image's result must not change
    images = {"crop": CROP, "uint8 turned": (255 * np.rot90(CROP)).round().astype(np.uint8), "small": CROP[::2, ::2]}
    result = sift_features_of(images, workers=workers)
    assert list(result) == list(images)
    for name, image in images.items():
        keypoints, descriptors = sift_features(image)
        assert np.array_equal(result[name][0].xy, keypoints.xy) and np.array_equal(result[name][1], descriptors)
    assert np.array_equal(result["crop"][1], crop_features[1]) and len(result["small"][1]) > 0
