"""Bad-input cases for mmir_lib.kmeans (k-means, shared by Parts II and III)."""

import numpy as np

from mmir_lib import kmeans
from tests.api_fuzz import Case

_RNG = np.random.default_rng(0)
POINTS, CENTRES = _RNG.normal(size=(6, 4)), _RNG.normal(size=(5, 4))  # d = 4: BAD_VALUES' matrix is 2×3

CASES = [
    Case(kmeans.assign, dict(points=POINTS, centres=CENTRES)),
    Case(kmeans.kmeans_plus_plus, dict(points=POINTS, k=2, seed=0), accepts={"points": {"matrix"}, "seed": {"zero"}}),
    Case(kmeans.kmeans, dict(points=POINTS, k=2, init="k-means++", max_iter=10, tol=1e-4, seed=0),
         accepts={"points": {"matrix"}, "tol": {"zero", "huge_int", "huge_float"}, "seed": {"zero"}}),
]

EXEMPT = {"mmir_lib.kmeans.KMeansResult": "a plain record of results that kmeans builds and returns; "
                                          "it has no checks of its own"}
