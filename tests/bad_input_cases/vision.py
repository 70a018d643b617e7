"""Bad-input cases for mmir_lib.vision (Part II)."""

import numpy as np

from mmir_lib.vision import derivatives, edges, filters, images, kernels, scale_space
from tests.api_fuzz import Case

IMAGE = np.linspace(0.0, 1.0, 48).reshape(6, 8)
KERNEL = np.arange(9.0).reshape(3, 3) / 36

CASES = [
    Case(images.check_image, dict(name="image", image=IMAGE, channels=None),
         accepts={"image": {"matrix"}, "channels": {"none"}}, skip={"name": "the argument name used in messages; any str"}),
    Case(images.to_float, dict(image=IMAGE), accepts={"image": {"matrix"}}),
    Case(images.to_uint8, dict(image=IMAGE), accepts={"image": {"matrix"}}),
    Case(images.load_photo, dict(name="coins", gray=True), accepts={"gray": {"bool"}}),
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
]
