"""V.3's non-max suppression against OpenCV's cv2.dnn.NMSBoxes on 10,000 boxes (`make bench`).

Two sets of 10,000 boxes (x, y, w, h) on a 1,000 × 1,000 image, float32-exact scores
(OpenCV stores scores in float32): (a) detector-like, 200 objects with 50 jittered boxes
each (centres within a few pixels, sizes 20 to 60); (b) uniform, positions and sizes 10 to
60 drawn independently. IoU threshold 0.5, score threshold 0, one thread each. Timed: the
best of ``repeat`` calls after one untimed call; both must keep the same indices in the
same order (asserted). Run with ``python benchmarks/nms_speed.py``; ``main()`` returns the
table rows.
"""


import cv2
import numpy as np
from threadpoolctl import threadpool_limits

from mmir_lib.vision.boxes import convert_boxes, nms
from report import best_time

N = 10_000
TARGET = 2.0


def boxes(kind: str, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind == "detector-like":
        centres = rng.uniform(0, 1000, size=(200, 2))[rng.integers(0, 200, N)] + rng.normal(0, 8, size=(N, 2))
        sizes = rng.uniform(20, 60, size=(N, 2))
        xywh = np.concatenate([centres - sizes / 2, sizes], axis=1)
    else:
        xywh = np.concatenate([rng.uniform(0, 1000, (N, 2)), rng.uniform(10, 60, (N, 2))], axis=1)
    return xywh, rng.uniform(0, 1, N).astype(np.float32).astype(np.float64)


def main(repeat: int = 5) -> list[dict[str, str]]:
    cv2.setNumThreads(1)
    rows = []
    with threadpool_limits(limits=1):
        for kind in ("detector-like", "uniform"):
            xywh, scores = boxes(kind)
            xyxy = convert_boxes(xywh, "xywh", "xyxy")
            ours_kept = nms(xyxy, scores, 0.5, score_threshold=0.0)
            theirs_kept = np.asarray(cv2.dnn.NMSBoxes(xywh, scores, 0.0, 0.5)).reshape(-1)
            assert np.array_equal(ours_kept, theirs_kept), kind
            ours = best_time(lambda: nms(xyxy, scores, 0.5, score_threshold=0.0), repeat)
            theirs = best_time(lambda: cv2.dnn.NMSBoxes(xywh, scores, 0.0, 0.5), repeat)
            rows.append({"boxes": f"{N:,} {kind}", "kept": f"{len(ours_kept):,}", "mmir_lib (ms)": f"{1e3 * ours:.1f}",
                         "cv2.dnn.NMSBoxes (ms)": f"{1e3 * theirs:.1f}", "ratio": f"{ours / theirs:.2f}×",
                         "target": f"≤ {TARGET:g}×", "same kept indices": "yes"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
