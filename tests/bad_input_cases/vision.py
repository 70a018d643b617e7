"""Bad-input cases for mmir_lib.vision (Part II)."""

import numpy as np

from mmir_lib.vision import (bovw, derivatives, edges, filters, image_collection, images, kernels, matching,
                              scale_space, sift, transforms)
from tests.api_fuzz import Case

IMAGE = np.linspace(0.0, 1.0, 48).reshape(6, 8)
KERNEL = np.arange(9.0).reshape(3, 3) / 36

CASES = [
    Case(images.check_image, dict(name="image", image=IMAGE, channels=None, unit=False),
         accepts={"image": {"matrix"}, "channels": {"none"}, "unit": {"bool"}},
         skip={"name": "the argument name used in messages; any str"}),
    Case(images.to_float, dict(image=IMAGE), accepts={"image": {"matrix"}}),
    Case(images.to_uint8, dict(image=IMAGE), accepts={"image": {"matrix"}}),
    Case(images.load_photo, dict(name="coins", gray=True), accepts={"gray": {"bool"}}),
    Case(images.load_stereo_disparity, {}),
    Case(images.to_gray, dict(image=np.stack([IMAGE] * 3, axis=2))),
    Case(images.quantize, dict(image=IMAGE, bits=3), accepts={"image": {"matrix"}}),
    Case(images.histogram, dict(image=IMAGE, levels=16), accepts={"image": {"matrix"}}),
    Case(images.equalize, dict(image=IMAGE, levels=16), accepts={"image": {"matrix"}}),
    Case(filters.correlate, dict(image=IMAGE, kernel=KERNEL, mode="mirror", cval=0.0),
         accepts={"image": {"matrix"}, "cval": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(filters.convolve, dict(image=IMAGE, kernel=KERNEL, mode="zero", cval=0.0),
         accepts={"image": {"matrix"}, "cval": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(filters.correlate1d, dict(image=IMAGE, kernel=np.ones(3) / 3, axis=1, mode="mirror", cval=0.0),
         accepts={"image": {"matrix"}, "axis": {"zero"}, "cval": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(filters.separable_filter, dict(image=IMAGE, column_kernel=np.ones(3) / 3, row_kernel=np.ones(3) / 3,
                                        mode="extend", cval=0.0),
         accepts={"image": {"matrix"}, "cval": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(filters.separable_factors, dict(kernel=np.outer([1.0, 2.0, 1.0], [1.0, 0.0, -1.0]), tol=1e-12),
         accepts={"kernel": {"matrix"}}),
    Case(kernels.box_kernel, dict(size=3)),
    Case(kernels.binomial_kernel, dict(order=2)),
    Case(kernels.gaussian_kernel, dict(sigma=1.0, truncate=4.0)),
    Case(kernels.gaussian_kernel_2d, dict(sigma=1.0, truncate=4.0)),
    Case(kernels.derivative_kernel, dict(kind="central")),
    Case(kernels.sobel_kernels, {}),
    Case(kernels.scharr_kernels, {}),
    Case(kernels.laplacian_kernel, {}),
    Case(kernels.sharpen_kernel, dict(amount=1.0), accepts={"amount": {"zero"}}),
]
CASES += [  # derivatives
    Case(derivatives.gaussian_filter, dict(image=IMAGE, sigma=1.0, mode="mirror", truncate=4.0),
         accepts={"image": {"matrix"}}),
    Case(derivatives.gradient, dict(image=IMAGE, operator="sobel", mode="extend"), accepts={"image": {"matrix"}}),
    Case(derivatives.gradient_polar, dict(fx=IMAGE, fy=IMAGE)),
    Case(derivatives.laplacian, dict(image=IMAGE, mode="wrap"), accepts={"image": {"matrix"}}),
    Case(derivatives.gaussian_gradient, dict(image=IMAGE, sigma=1.0, mode="mirror", truncate=4.0),
         accepts={"image": {"matrix"}}),
]

MASK = IMAGE > 0.5
CASES += [  # edges
    Case(edges.non_maximum_suppression, dict(magnitude=IMAGE, orientation=IMAGE)),
    Case(edges.hysteresis, dict(weak=MASK, strong=MASK & (IMAGE > 0.8))),
    Case(edges.canny, dict(image=IMAGE, sigma=1.0, low=0.02, high=0.05, mode="extend"),
         accepts={"image": {"matrix"}, "low": {"zero"}, "high": {"huge_int", "huge_float"}}),
    Case(edges.laplacian_of_gaussian, dict(image=IMAGE, sigma=1.0, mode="mirror"), accepts={"image": {"matrix"}}),
    Case(edges.zero_crossings, dict(response=IMAGE - 0.5, threshold=0.0),
         accepts={"response": {"matrix"}, "threshold": {"zero", "huge_int", "huge_float"}}),
]

SIGMAS = np.array([1.0, 1.5, 2.0])
SQUARE = np.linspace(0.0, 1.0, 24 * 24).reshape(24, 24)  # large enough for the widest kernel
CASES += [  # scale space
    Case(scale_space.geometric_sigmas, dict(sigma0=1.0, k=1.5, count=3)),
    Case(scale_space.gaussian_scale_space, dict(image=SQUARE, sigmas=SIGMAS, mode="mirror"), accepts={"image": {"matrix"}}),
    Case(scale_space.normalized_laplacian, dict(image=SQUARE, sigmas=SIGMAS, mode="mirror"),
         accepts={"image": {"matrix"}}),
    Case(scale_space.difference_of_gaussians, dict(image=SQUARE, sigmas=SIGMAS, mode="mirror"),
         accepts={"image": {"matrix"}}),
    Case(scale_space.local_maxima_3d, dict(cube=np.stack([SQUARE] * 3), threshold=0.0),
         accepts={"threshold": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(scale_space.find_blobs, dict(image=SQUARE, sigmas=SIGMAS, threshold=0.05, bright=True, mode="mirror"),
         accepts={"image": {"matrix"}, "bright": {"bool"},
                  "threshold": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
    Case(scale_space.find_dog_blobs, dict(image=SQUARE, sigmas=[1.0, 1.5, 2.25], threshold=0.05, bright=True,
                                          mode="mirror"),
         accepts={"image": {"matrix"}, "bright": {"bool"},
                  "threshold": {"zero", "negative", "negative_float", "huge_int", "huge_float"}}),
]

# matching, codebook, bag of visual words (II.7; its k-d tree and LSH: vector_search.py)
_RNG = np.random.default_rng(0)
DESCRIPTORS_A, DESCRIPTORS_B = _RNG.normal(size=(6, 4)), _RNG.normal(size=(5, 4))  # d = 4: BAD_VALUES' matrix is 2×3
CASES += [
    Case(matching.nearest_neighbours, dict(a=DESCRIPTORS_A, b=DESCRIPTORS_B, k=2)),
    Case(matching.ratio_test, dict(a=DESCRIPTORS_A, b=DESCRIPTORS_B, ratio=0.8, mutual=False),
         accepts={"mutual": {"bool"}}),
    Case(matching.cross_check, dict(a=DESCRIPTORS_A, b=DESCRIPTORS_B)),
    Case(bovw.visual_words, dict(descriptors=DESCRIPTORS_A, centres=DESCRIPTORS_B)),
    Case(bovw.word_histogram, dict(words=[0, 1, 1, 4], vocabulary_size=5), accepts={"words": {"empty_list"}}),
    Case(bovw.word_tokens, dict(words=[0, 1, 1, 4], vocabulary_size=5), accepts={"words": {"empty_list"}}),
    Case(bovw.bovw_query, dict(descriptors=DESCRIPTORS_A, centres=DESCRIPTORS_B)),
    Case(bovw.bovw_index, dict(descriptor_sets=[DESCRIPTORS_A, DESCRIPTORS_A[:2]], centres=DESCRIPTORS_B)),
]

PATCH = images.load_photo("camera", gray=True)[200:248, 200:248]
PYRAMID = sift.sift_pyramid(PATCH)
KEYPOINTS = sift.assign_orientations(PYRAMID, sift.detect_keypoints(PYRAMID))
_ANY_ANGLE = {"zero", "negative", "negative_float"}
CASES += [  # transforms and SIFT (II.6)
    Case(transforms.similarity_matrix, dict(angle=30.0, scale=0.75, center=(3.0, 2.0), target_center=None),
         accepts={"angle": _ANY_ANGLE, "target_center": {"none"}}),
    Case(transforms.transform_points, dict(matrix=np.eye(3), points=[[1.0, 2.0]])),
    Case(transforms.warp, dict(image=IMAGE, matrix=np.eye(3), shape=None),
         accepts={"image": {"matrix"}, "shape": {"none"}}),
    Case(transforms.adjust_brightness, dict(image=IMAGE, gain=1.2, bias=0.1),
         accepts={"image": {"matrix"}, "gain": {"zero"}, "bias": {"zero", "negative", "negative_float"}}),
    Case(transforms.add_noise, dict(image=IMAGE, sigma=0.1, seed=0),
         accepts={"image": {"matrix"}, "sigma": {"zero"}, "seed": {"zero"}}),
    Case(transforms.jpeg, dict(image=IMAGE, quality=75), accepts={"image": {"matrix"}}),
    Case(sift.sift_pyramid, dict(image=PATCH, sigma0=1.6, scales=3, double=True, min_size=16),
         accepts={"double": {"bool"}}),
    Case(sift.detect_keypoints, dict(pyramid=PYRAMID, contrast_threshold=0.04, edge_ratio=10.0),
         accepts={"contrast_threshold": {"zero"}}),
    Case(sift.orientation_histograms, dict(pyramid=PYRAMID, keypoints=KEYPOINTS, bins=36)),
    Case(sift.histogram_peaks, dict(histograms=np.ones((2, 36)), peak_ratio=0.8),
         accepts={"histograms": {"matrix"}}),
    Case(KEYPOINTS.take, dict(index=[0, 1]), accepts={"index": {"empty_list"}}),
    Case(sift.assign_orientations, dict(pyramid=PYRAMID, keypoints=KEYPOINTS, peak_ratio=0.8)),
    Case(sift.describe_keypoints, dict(pyramid=PYRAMID, keypoints=KEYPOINTS, clamp=0.2, quantize=True),
         accepts={"quantize": {"bool"}}),
    Case(sift.sift_features, dict(image=PATCH, contrast_threshold=0.04, edge_ratio=10.0, peak_ratio=0.8, double=True),
         accepts={"contrast_threshold": {"zero"}, "double": {"bool"}}),
    Case(sift.sift_features_of, dict(images={"a": PATCH, "b": PATCH}, workers=2)),
]

_SIGNED = {"zero", "negative", "negative_float"}
CASES += [  # the image retrieval collection (II.7)
    Case(image_collection.Recipe, dict(description="a test view", angle=30.0, scale=0.5, focus=(0.5, 0.5),
                                       canvas=(0.5, 0.5), gain=1.0, bias=0.0, noise=0.1, quality=None),
         accepts={"description": {"str"}, "angle": _SIGNED, "bias": _SIGNED, "gain": {"zero"}, "noise": {"zero"},
                  "quality": {"none"}}),
    Case(image_collection.downscale, dict(image=SQUARE, max_side=12), accepts={"image": {"matrix"}}),
    Case(image_collection.make_view, dict(image=IMAGE, recipe="rot30", seed=0),
         accepts={"image": {"matrix"}, "seed": {"zero"}}),
    Case(image_collection.source_image, dict(source="coins")),
    Case(image_collection.build_collection, {}),
]

_RECORD = "a plain record of results that the library builds and returns; it has no checks of its own"
EXEMPT = {f"mmir_lib.vision.{name}": _RECORD for name in ("matching.Matches", "sift.Keypoints",
                                                          "sift.SiftPyramid", "image_collection.View",
                                                          "image_collection.ImageCollection")}
