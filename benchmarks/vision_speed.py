"""Speed of Part II's machinery against the reference libraries (`make bench`).

* Gaussian blur of the 512 × 512 camera photo (float64) at σ = 2 and σ = 8:
  ``mmir_lib.vision.gaussian_filter`` against ``scipy.ndimage.gaussian_filter`` and
  ``skimage.filters.gaussian`` (same truncation at 4σ, same border), equal to 1e-12;
* SIFT on two pairs with known ground truth (the camera against itself turned 30° and
  shrunk to 0.75; the motorcycle stereo pair with its measured disparity): time per
  image, keypoints, matches that pass the ratio test (0.8) and the share of them that
  are correct (within 3 px), for mmir_lib, scikit-image and OpenCV;
* k-means on real SIFT descriptors: mmir_lib's Lloyd iterations against
  scikit-learn's ``KMeans(algorithm="lloyd")`` from the same initial centres;
* image retrieval with bags of visual words on the book's image collection (II.7):
  the time of one query, from its SIFT descriptors to the ten best images, per
  vocabulary size, with the mean average precision it reaches.

Each time is the best of a few repetitions, on one thread (as the chapters run).
"""

from __future__ import annotations

import time

import cv2
import numpy as np
import scipy.ndimage as ndi
import skimage.feature
import skimage.filters
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

from mmir_lib.ir.evaluation import average_precision
from mmir_lib.ir.scoring import tfidf_search
from mmir_lib.kmeans import kmeans
from mmir_lib.vision import (bovw_index, bovw_query, build_collection, gaussian_filter, load_photo,
                             load_stereo_disparity, ratio_test, sift_features, similarity_matrix, transform_points,
                             warp)

GAUSSIAN_TARGETS = {2.0: 1.2, 8.0: 1.0}  # mmir_lib's time / scipy's time, at most


def best_time(function, repeat: int = 7) -> float:
    """The shortest of ``repeat`` runs, in seconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def gaussian_rows() -> list[dict]:
    camera = load_photo("camera")
    rows = []
    for sigma, target in GAUSSIAN_TARGETS.items():
        ours = gaussian_filter(camera, sigma)
        assert np.abs(ours - ndi.gaussian_filter(camera, sigma, mode="mirror", truncate=4.0)).max() <= 1e-12
        times = {
            "mmir_lib": best_time(lambda: gaussian_filter(camera, sigma)),
            "scipy.ndimage": best_time(lambda: ndi.gaussian_filter(camera, sigma, mode="mirror", truncate=4.0)),
            "skimage.filters": best_time(lambda: skimage.filters.gaussian(camera, sigma, mode="mirror", truncate=4.0,
                                                                          preserve_range=True)),
        }
        ratio = times["mmir_lib"] / times["scipy.ndimage"]
        rows.append({"σ": sigma, **{f"{name} (ms)": t * 1e3 for name, t in times.items()},
                     "mmir_lib / scipy": ratio, "target": f"≤ {target:g}",
                     "status": "met" if ratio <= target else "not met"})
    return rows


def _ours(image):
    keypoints, descriptors = sift_features(image)
    return keypoints.xy, descriptors


def _scikit_image(image):
    detector = skimage.feature.SIFT()
    detector.detect_and_extract(image)
    return detector.keypoints[:, ::-1].astype(float), detector.descriptors


def _opencv(image):
    points, descriptors = cv2.SIFT_create().detectAndCompute(np.round(image * 255).astype(np.uint8), None)
    return np.array([p.pt for p in points]), descriptors


SIFT_METHODS = {"mmir_lib": _ours, "scikit-image": _scikit_image, "OpenCV": _opencv}


def sift_pairs():
    """(name, first image, second image, judge) where judge(p1, p2) gives (correct, judged) masks."""
    camera = load_photo("camera")
    h, w = camera.shape
    matrix = similarity_matrix(30, 0.75, center=((w - 1) / 2, (h - 1) / 2))

    def rotation_judge(p1, p2):
        return np.linalg.norm(transform_points(matrix, p1) - p2, axis=1) <= 3.0, np.ones(len(p1), dtype=bool)

    disparity = load_stereo_disparity()

    def stereo_judge(p1, p2):
        x, y = np.round(p1).astype(int).T
        d = disparity[np.clip(y, 0, disparity.shape[0] - 1), np.clip(x, 0, disparity.shape[1] - 1)]
        return np.hypot(p1[:, 0] - d - p2[:, 0], p1[:, 1] - p2[:, 1]) <= 3.0, np.isfinite(d)

    yield "camera, turned 30° and ×0.75", camera, warp(camera, matrix), rotation_judge
    yield ("motorcycle stereo pair", load_photo("motorcycle_left", gray=True),
           load_photo("motorcycle_right", gray=True), stereo_judge)


def sift_rows() -> list[dict]:
    rows = []
    for pair, first, second, judge in sift_pairs():
        for name, method in SIFT_METHODS.items():
            seconds = (best_time(lambda: method(first), 3) + best_time(lambda: method(second), 3)) / 2
            (p1, d1), (p2, d2) = method(first), method(second)
            matches = ratio_test(d1, d2, 0.8)
            correct, judged = judge(p1[matches.query], p2[matches.train])
            rows.append({"pair": pair, "library": name, "s per image": seconds, "keypoints": len(p1),
                         "matches judged": int(judged.sum()), "correct": f"{correct[judged].mean():.1%}",
                         "_share": float(correct[judged].mean()), "_correct": int(correct[judged].sum()),
                         "_judged": int(judged.sum())})
    return rows


def kmeans_rows(k: int = 256, iterations: int = 20) -> list[dict]:
    """Lloyd's algorithm on the SIFT descriptors of four photos, from the same k initial
    centres, a fixed number of iterations (tol = 0): time per iteration and inertia."""
    descriptors = np.concatenate([sift_features(load_photo(name, gray=True))[1]
                                  for name in ["camera", "astronaut", "coffee", "rocket"]]).astype(float)
    init = descriptors[np.random.default_rng(0).choice(len(descriptors), k, replace=False)]
    ours = kmeans(descriptors, k, init=init, max_iter=iterations, tol=0.0)
    reference = KMeans(n_clusters=k, init=init, n_init=1, max_iter=iterations, tol=0.0, algorithm="lloyd").fit(descriptors)
    t_ours = best_time(lambda: kmeans(descriptors, k, init=init, max_iter=iterations, tol=0.0), 3)
    t_ref = best_time(lambda: KMeans(n_clusters=k, init=init, n_init=1, max_iter=iterations, tol=0.0,
                                     algorithm="lloyd").fit(descriptors), 3)
    return [{"descriptors": len(descriptors), "k": k, "library": name, "iterations": n_iter,
             "ms per iteration": t / n_iter * 1e3, "inertia": inertia}
            for name, t, n_iter, inertia in [("mmir_lib", t_ours, ours.iterations, ours.inertia),
                                             ("scikit-learn", t_ref, reference.n_iter_, reference.inertia_)]]


def bovw_rows(sizes=(100, 300, 1000), training: int = 10_000) -> list[dict]:
    """Query latency of visual-word retrieval (tf-idf, ltc.ltc) on the II.7 collection:
    quantising a query's descriptors and ranking the 129 images, per vocabulary size; the
    SIFT extraction of the query (timed once, apart) comes on top."""
    collection = build_collection()
    descriptors = [sift_features(image)[1].astype(float) for image in collection.images.values()]
    queries = {qid: sift_features(image)[1].astype(float) for qid, image in collection.queries.items()}
    sift_seconds = best_time(lambda: sift_features(next(iter(collection.queries.values()))), 3)
    pool = np.concatenate(descriptors)
    sample = pool[np.random.default_rng(0).choice(len(pool), min(training, len(pool)), replace=False)]
    docnos = collection.docnos
    rows = []
    for size in sizes:
        centres = kmeans(sample, size, max_iter=50, seed=0).centres
        index = bovw_index(descriptors, centres)

        def search(d):
            ids, _ = tfidf_search(index, bovw_query(d, centres), k=10, scheme="ltc.ltc")
            return [docnos[i] for i in ids]

        seconds = [best_time(lambda: search(d), 5) for d in queries.values()]
        ranking = {qid: [docnos[i] for i in tfidf_search(index, bovw_query(d, centres), k=len(docnos),
                                                           scheme="ltc.ltc")[0]] for qid, d in queries.items()}
        mean_ap = np.mean([average_precision(ranking[qid], collection.qrels[qid]) for qid in queries])
        rows.append({"visual words": size, "query (ms), median": float(np.median(seconds)) * 1e3,
                     "query (ms), slowest": max(seconds) * 1e3, "SIFT of the query (ms)": sift_seconds * 1e3,
                     "MAP (tf-idf)": float(mean_ap)})
    return rows


def main() -> dict[str, list[dict]]:
    with threadpool_limits(1):
        cv2.setNumThreads(1)
        tables = {"gaussian": gaussian_rows(), "sift": sift_rows(), "kmeans": kmeans_rows(), "bovw": bovw_rows()}
    for rows in tables.values():
        for row in rows:
            print({key: value for key, value in row.items() if not key.startswith("_")})
    return tables


if __name__ == "__main__":
    main()
