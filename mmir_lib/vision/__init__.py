"""Computer vision (Part II): one module per topic, in the order of the chapters.

* :mod:`.images` -- the book's photographs (bundled with scikit-image), image checks,
  pixel conversions, grey levels, bit depth, histograms and equalisation;
* :mod:`.filters` -- correlation and convolution with every border mode, separable
  filtering;
* :mod:`.kernels` -- the classic kernels: box, Gaussian, differences, Sobel, Scharr,
  Laplacian, sharpen;
* :mod:`.derivatives` -- Gaussian smoothing, gradients (magnitude and orientation), the
  Laplacian, derivatives of the Gaussian;
* :mod:`.edges` -- non-maximum suppression, hysteresis, Canny's detector, the Laplacian
  of Gaussian and its zero crossings;
* :mod:`.scale_space` -- Gaussian scale space, the normalised Laplacian, differences of
  Gaussians, extrema in (x, y, σ) and blobs;
* :mod:`.matching` -- nearest neighbours of descriptors, Lowe's ratio test and
  cross-checking (the k-d tree, LSH and the distances they share are vector search,
  shared ground with Part VI: :mod:`mmir_lib.ann`);
* :mod:`.bovw` -- bags of visual words in Part I's inverted index (their codebooks come
  from :mod:`mmir_lib.kmeans`, shared with Part III);
* :mod:`.image_collection` -- the book's image retrieval collection: views of real
  photographs made by known transformations, queries and qrels.

Deep networks for images (Part V), imported from their modules:

* :mod:`.conv` -- the convolution layer by loops and by im2col (equal to torch's
  ``conv2d``), its backward pass as convolutions, max and average pooling, ReLU, the
  output-size formula and receptive fields;
* :mod:`.lenet` -- LeNet-5 in torch (modern variant), shifted copies of digits for
  training, predictions, the confusion matrix, feature maps and learned filters;
* :mod:`.resnet` -- the residual block and its plain twin, deep plain and residual
  networks of the same depth, per-layer gradient norms;
* :mod:`.boxes` -- box formats, intersection over union, greedy non-max suppression
  (equal to OpenCV's ``NMSBoxes``), average precision and mAP (PASCAL VOC);
* :mod:`.detection` -- canvases of real digits with ground-truth boxes, a YOLO-style
  grid-and-anchor detector, its target encoding, loss and decoding, and its checkpoint;
* :mod:`.siamese` -- an embedding network, the triplet loss, triplet and pair sampling,
  ROC curves, AUC and the verification threshold;
* :mod:`.style` -- Gram matrices, content and style costs, style transfer.
"""

from .derivatives import GRADIENT_OPERATORS, gaussian_filter, gaussian_gradient, gradient, gradient_polar, laplacian
from .edges import canny, hysteresis, laplacian_of_gaussian, non_maximum_suppression, zero_crossings
from .filters import BORDER_MODES, convolve, correlate, correlate1d, separable_filter, separable_factors
from .scale_space import (difference_of_gaussians, find_blobs, find_dog_blobs, gaussian_scale_space, geometric_sigmas,
                          local_maxima_3d, normalized_laplacian)
from .images import (LUMA, PHOTOS, check_image, equalize, histogram, load_photo, load_stereo_disparity, quantize,
                     to_float, to_gray, to_uint8)
from .kernels import (
    binomial_kernel, box_kernel, derivative_kernel, gaussian_kernel, gaussian_kernel_2d, laplacian_kernel,
    scharr_kernels, sharpen_kernel, sobel_kernels,
)
from .sift import (Keypoints, SiftPyramid, assign_orientations, describe_keypoints, detect_keypoints,
                   histogram_peaks, orientation_histograms, sift_features, sift_features_of, sift_pyramid)
from .transforms import add_noise, adjust_brightness, jpeg, similarity_matrix, transform_points, warp
from .matching import Matches, cross_check, nearest_neighbours, ratio_test
from .bovw import bovw_index, bovw_query, visual_words, word_histogram, word_tokens
from .image_collection import (DISTRACTORS, MAX_SIDE, STEREO_VIEW, TOPICS, VIEWS, ImageCollection, Recipe, View,
                               build_collection, downscale, make_view, source_image)

__all__ = [
    "PHOTOS", "LUMA", "check_image", "load_photo", "load_stereo_disparity", "to_float", "to_uint8", "to_gray", "quantize", "histogram",
    "equalize",
    "BORDER_MODES", "correlate", "convolve", "correlate1d", "separable_filter", "separable_factors",
    "box_kernel", "binomial_kernel", "gaussian_kernel", "gaussian_kernel_2d", "derivative_kernel",
    "sobel_kernels", "scharr_kernels", "laplacian_kernel", "sharpen_kernel",
    "GRADIENT_OPERATORS", "gaussian_filter", "gradient", "gradient_polar", "laplacian", "gaussian_gradient",
    "non_maximum_suppression", "hysteresis", "canny", "laplacian_of_gaussian", "zero_crossings",
    "geometric_sigmas", "gaussian_scale_space", "normalized_laplacian", "difference_of_gaussians", "local_maxima_3d",
    "find_blobs", "find_dog_blobs",
    "similarity_matrix", "transform_points", "warp", "adjust_brightness", "add_noise", "jpeg",
    "Keypoints", "SiftPyramid", "sift_pyramid", "detect_keypoints", "orientation_histograms", "histogram_peaks",
    "assign_orientations", "describe_keypoints", "sift_features", "sift_features_of",
    "nearest_neighbours", "Matches", "ratio_test", "cross_check",
    "visual_words", "word_histogram", "word_tokens", "bovw_index", "bovw_query",
    "MAX_SIDE", "TOPICS", "DISTRACTORS", "STEREO_VIEW", "Recipe", "VIEWS", "View", "ImageCollection", "downscale",
    "make_view", "source_image", "build_collection",
]
