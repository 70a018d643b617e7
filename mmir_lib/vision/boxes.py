"""Bounding boxes (Part V.3): formats, intersection over union, non-max suppression, AP.

A box is four numbers. Three formats are in use, and every function here says which
it takes:

=========== ======================== =========================================
``"xyxy"``  (x1, y1, x2, y2)         corners, x2 >= x1 and y2 >= y1 (the default)
``"xywh"``  (x, y, w, h)             top-left corner and size (OpenCV's ``Rect``)
``"cxcywh"`` (cx, cy, w, h)          centre and size (YOLO's b_x, b_y, b_w, b_h)
=========== ======================== =========================================

Coordinates are continuous: a box from x1 to x2 has width x2 − x1 (no "+ 1" for
inclusive pixel indices), which is OpenCV's convention for ``cv2.dnn.NMSBoxes`` too
(checked by experiment in the chapter). The **intersection over union** of boxes A, B is

    IoU(A, B) = |A ∩ B| / |A ∪ B| = I / (area(A) + area(B) − I),
    I = max(0, min(x2ᴬ, x2ᴮ) − max(x1ᴬ, x1ᴮ)) · max(0, min(y2ᴬ, y2ᴮ) − max(y1ᴬ, y1ᴮ)),

taken as 0 when the union is empty (two boxes of zero area). **Greedy non-max
suppression** keeps the highest-scoring box, drops every remaining box whose IoU with
it exceeds the threshold (strictly, like OpenCV and torchvision), and repeats on what is
left; boxes with a score at or below ``score_threshold`` never enter (OpenCV's rule).

**Average precision** of one class at an IoU threshold (PASCAL VOC, from 2010 on):
detections are sorted by score; each is a true positive if its IoU with a ground-truth
box of its image is the largest and >= the threshold and that box is not matched yet,
otherwise a false positive. With the precision–recall points (rᵢ, pᵢ) so obtained,
the precision is made monotone, p̂(r) = max_{r' >= r} p(r'), and

    AP = Σᵢ (rᵢ − rᵢ₋₁) · p̂(rᵢ),    r₀ = 0        ("all-point interpolation"),

the area under the interpolated precision–recall curve. mAP is the mean of the AP over
the classes that have ground truth.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_choice, check_number, check_str, check_optional, check_same_length

__all__ = ["BOX_FORMATS", "check_boxes", "convert_boxes", "box_area", "box_iou", "nms", "average_precision",
           "mean_average_precision"]

#: The box formats :func:`convert_boxes` knows.
BOX_FORMATS = ("xyxy", "xywh", "cxcywh")


def check_boxes(name: str, boxes: object, fmt: str = "xyxy") -> np.ndarray:
    """An (n, 4) float64 array of finite boxes in format ``fmt``: x2 >= x1 and y2 >= y1 for
    corners, w >= 0 and h >= 0 for sizes; a ValueError naming ``name`` otherwise.

    >>> check_boxes("boxes", [[0, 0, 2, 1]])
    array([[0., 0., 2., 1.]])
    """
    check_str("name", name)
    check_choice("fmt", fmt, BOX_FORMATS)
    boxes = check_array(name, boxes)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        if boxes.size == 0:
            raise ValueError(f"{name} is empty without a shape: pass an array of shape (0, 4) for no boxes")
        raise ValueError(f"{name} must have shape (n, 4), got {boxes.shape}")
    if fmt == "xyxy":
        bad = (boxes[:, 2] < boxes[:, 0]) | (boxes[:, 3] < boxes[:, 1])
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} must have x2 >= x1 and y2 >= y1 (format (x1, y1, x2, y2)); box {i} is "
                             f"{boxes[i].tolist()}")
    else:
        bad = (boxes[:, 2] < 0) | (boxes[:, 3] < 0)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{name} must have widths and heights >= 0 (format {fmt}); box {i} is "
                             f"{boxes[i].tolist()}")
    return boxes


def convert_boxes(boxes: object, source: str = "xyxy", target: str = "xywh") -> np.ndarray:
    """Boxes (n, 4) from format ``source`` to format ``target`` (see the module's table).

    >>> convert_boxes([[1, 2, 5, 8]], "xyxy", "cxcywh")
    array([[3., 5., 4., 6.]])
    """
    check_choice("source", source, BOX_FORMATS)
    check_choice("target", target, BOX_FORMATS)
    b = check_boxes("boxes", boxes, source)
    if source == "xywh":
        b = np.stack([b[:, 0], b[:, 1], b[:, 0] + b[:, 2], b[:, 1] + b[:, 3]], axis=1)
    elif source == "cxcywh":
        b = np.stack([b[:, 0] - b[:, 2] / 2, b[:, 1] - b[:, 3] / 2, b[:, 0] + b[:, 2] / 2, b[:, 1] + b[:, 3] / 2],
                     axis=1)
    if target == "xywh":
        return np.stack([b[:, 0], b[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]], axis=1)
    if target == "cxcywh":
        return np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2, b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]],
                        axis=1)
    return b.copy()


def box_area(boxes: object) -> np.ndarray:
    """Areas (x2 − x1)(y2 − y1) of (n, 4) boxes (x1, y1, x2, y2), shape (n,)."""
    b = check_boxes("boxes", boxes)
    return (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])


def box_iou(boxes_a: object, boxes_b: object) -> np.ndarray:
    """Pairwise IoU of (n, 4) and (m, 4) boxes (x1, y1, x2, y2): an (n, m) matrix, by
    broadcasting (no loop); 0 where both boxes have zero area.

    >>> box_iou([[0, 0, 2, 2]], [[1, 0, 3, 2], [2, 2, 3, 3]])
    array([[0.33333333, 0.        ]])
    """
    a, b = check_boxes("boxes_a", boxes_a), check_boxes("boxes_b", boxes_b)
    return _iou(a, b)


def _iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """IoU of checked boxes a (n, 4) against b (m, 4)."""
    width = np.minimum(a[:, None, 2], b[None, :, 2]) - np.maximum(a[:, None, 0], b[None, :, 0])
    height = np.minimum(a[:, None, 3], b[None, :, 3]) - np.maximum(a[:, None, 1], b[None, :, 1])
    inter = np.clip(width, 0, None) * np.clip(height, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    return np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)


def nms(boxes: object, scores: object, iou_threshold: float, score_threshold: float | None = None,
        classes: object | None = None) -> np.ndarray:
    """Greedy non-max suppression; the indices of the kept boxes, best score first.

    Parameters
    ----------
    boxes : (n, 4) boxes (x1, y1, x2, y2); n may be 0 (nothing is kept).
    scores : (n,) finite scores.
    iou_threshold : in [0, 1]; a box whose IoU with a kept, higher-scoring box is
        **greater** than this is dropped.
    score_threshold : if given, only boxes with a score **greater** than it compete.
    classes : optional (n,) int labels: boxes of different classes never suppress
        each other (each class is suppressed on its own, the results merged by score).

    Ties in score keep the order of the input (a stable sort), as OpenCV does. The
    greedy rule is sequential by nature (whether a box survives depends on which
    better boxes survived), but the IoUs are not: only boxes that intersect can
    suppress each other, so a sweep along x finds every intersecting pair at once
    (sort by x1; box j can meet box i only if x1ᵢ <= x1ⱼ < x2ᵢ), their IoUs are computed in
    one vectorised pass, and the greedy pass then visits each box once, checking only
    its better neighbours. Same result as :func:`_greedy`, the plain loop (tested).
    """
    b = check_boxes("boxes", boxes)
    s = check_array("scores", scores, ndim=1)
    check_same_length(boxes=b, scores=s)
    iou_threshold = check_number("iou_threshold", iou_threshold, low=0.0, high=1.0)
    score_threshold = check_optional(check_number, "score_threshold", score_threshold)
    if classes is not None:
        classes = check_array("classes", classes, ndim=1, kind="int")
        check_same_length(boxes=b, classes=classes)
    return _nms(b, s, iou_threshold, score_threshold, classes)


def _nms(b: np.ndarray, s: np.ndarray, iou_threshold: float, score_threshold: float | None = None,
         classes: np.ndarray | None = None) -> np.ndarray:
    """:func:`nms` of checked boxes, scores, thresholds and classes."""
    candidates = np.arange(len(s)) if score_threshold is None else np.flatnonzero(s > score_threshold)
    order = candidates[np.argsort(-s[candidates], kind="stable")]
    if classes is None:
        return _sweep(b, order, iou_threshold)
    kept = np.concatenate([np.zeros(0, np.int64)]
                          + [_sweep(b, order[classes[order] == c], iou_threshold) for c in np.unique(classes[order])])
    return kept[np.argsort(-s[kept], kind="stable")]


def _sweep(b: np.ndarray, order: np.ndarray, threshold: float) -> np.ndarray:
    """Greedy NMS of the boxes ``b[order]`` (order: best score first) by a sweep along x.

    Sorted by x1, box i can only meet the boxes i + 1, i + 2, ... that start before x2ᵢ.
    Step k of the sweep pairs every box with the box k places after it, all boxes at
    once (array slices, no gathers), until no box reaches k places further."""
    m = len(order)
    by_x = np.argsort(b[order, 0], kind="stable")        # positions in x order -> ranks
    x1, y1, x2, y2 = (np.ascontiguousarray(b[order[by_x], c]) for c in range(4))
    area = (x2 - x1) * (y2 - y1)
    reach = np.searchsorted(x1, x2, side="left") - np.arange(m) - 1  # boxes after i starting before x2ᵢ
    pairs_better, pairs_worse = [], []
    for k in range(1, int(reach.max(initial=0)) + 1):
        i = slice(0, m - k)
        j = slice(k, m)
        inter = (np.clip(np.minimum(x2[i], x2[j]) - x1[j], 0, None)
                 * np.clip(np.minimum(y2[i], y2[j]) - np.maximum(y1[i], y1[j]), 0, None))
        union = area[i] + area[j] - inter
        iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        hit = np.flatnonzero((iou > threshold) & (reach[i] >= k))
        if hit.size:
            p, q = by_x[hit], by_x[hit + k]                 # ranks of the two boxes
            pairs_better.append(np.minimum(p, q))
            pairs_worse.append(np.maximum(p, q))
    better = np.concatenate(pairs_better) if pairs_better else np.zeros(0, np.int64)
    worse = np.concatenate(pairs_worse) if pairs_worse else np.zeros(0, np.int64)
    grouped = np.argsort(worse, kind="stable")
    starts = np.searchsorted(worse[grouped], np.arange(m + 1)).tolist()
    better = better[grouped].tolist()
    keep = [True] * m
    for r in range(m):                                   # the greedy pass, best box first
        for j in better[starts[r]:starts[r + 1]]:
            if keep[j]:
                keep[r] = False
                break
    return order[np.asarray(keep, dtype=bool)]


def _greedy(b: np.ndarray, order: np.ndarray, threshold: float) -> np.ndarray:
    """Greedy NMS of the boxes ``b[order]`` (order: best score first), as the course notes
    state it: keep the best box, drop those overlapping it by more than the threshold,
    repeat. One vectorised IoU per kept box."""
    keep = []
    x1, y1, x2, y2 = (b[order, k] for k in range(4))
    area = (x2 - x1) * (y2 - y1)
    alive = np.arange(len(order))
    while alive.size:
        i, rest = alive[0], alive[1:]
        keep.append(order[i])
        inter = (np.clip(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0, None)
                 * np.clip(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0, None))
        union = area[i] + area[rest] - inter
        iou = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        alive = rest[iou <= threshold]
    return np.asarray(keep, dtype=np.int64)


def average_precision(det_boxes: object, det_scores: object, det_images: object, true_boxes: object,
                      true_images: object, iou_threshold: float = 0.5) -> tuple[float, np.ndarray, np.ndarray]:
    """AP of the detections of one class, VOC all-point interpolation (module docstring).

    Parameters
    ----------
    det_boxes, det_scores, det_images : (d, 4) boxes (x1, y1, x2, y2), (d,) scores and
        (d,) int image ids of the detections.
    true_boxes, true_images : (g, 4) ground-truth boxes and (g,) their image ids; g >= 1.
    iou_threshold : in [0, 1]; a match needs IoU >= it.

    Returns
    -------
    (ap, recall, precision): the AP and the (d,) recall and precision after each
    detection, in score order (highest first; ties keep the input order).
    """
    db = check_boxes("det_boxes", det_boxes)
    ds = check_array("det_scores", det_scores, ndim=1)
    di = check_array("det_images", det_images, ndim=1, kind="int")
    check_same_length(det_boxes=db, det_scores=ds, det_images=di)
    tb = check_boxes("true_boxes", true_boxes)
    ti = check_array("true_images", true_images, ndim=1, kind="int")
    check_same_length(true_boxes=tb, true_images=ti)
    if len(tb) == 0:
        raise ValueError("true_boxes must hold at least one ground-truth box (AP is undefined without one)")
    iou_threshold = check_number("iou_threshold", iou_threshold, low=0.0, high=1.0)
    order = np.argsort(-ds, kind="stable")
    matched = np.zeros(len(tb), dtype=bool)
    hit = np.zeros(len(order), dtype=bool)
    for rank, d in enumerate(order):
        same_image = np.flatnonzero(ti == di[d])
        if same_image.size == 0:
            continue
        overlaps = _iou(db[d:d + 1], tb[same_image])[0]
        best = int(np.argmax(overlaps))
        if overlaps[best] >= iou_threshold and not matched[same_image[best]]:
            matched[same_image[best]] = hit[rank] = True
    tp = np.cumsum(hit)
    recall = tp / len(tb)
    precision = tp / np.arange(1, len(order) + 1)
    envelope = np.maximum.accumulate(precision[::-1])[::-1] if len(order) else precision
    ap = float(np.sum(np.diff(np.concatenate([[0.0], recall])) * envelope))
    return ap, recall, precision


def mean_average_precision(det_boxes: object, det_scores: object, det_labels: object, det_images: object,
                           true_boxes: object, true_labels: object, true_images: object,
                           iou_threshold: float = 0.5) -> tuple[float, dict[int, float]]:
    """mAP: the mean over the classes with ground truth of :func:`average_precision`
    (a class without any detection has AP 0). Returns (mAP, {class: AP}).

    Labels are non-negative ints; the other arguments as in :func:`average_precision`.
    """
    db = check_boxes("det_boxes", det_boxes)
    ds = check_array("det_scores", det_scores, ndim=1)
    dl = check_array("det_labels", det_labels, ndim=1, kind="int", low=0)
    di = check_array("det_images", det_images, ndim=1, kind="int")
    check_same_length(det_boxes=db, det_scores=ds, det_labels=dl, det_images=di)
    tb = check_boxes("true_boxes", true_boxes)
    tl = check_array("true_labels", true_labels, ndim=1, kind="int", low=0)
    ti = check_array("true_images", true_images, ndim=1, kind="int")
    check_same_length(true_boxes=tb, true_labels=tl, true_images=ti)
    if len(tb) == 0:
        raise ValueError("true_boxes must hold at least one ground-truth box (mAP is undefined without one)")
    check_number("iou_threshold", iou_threshold, low=0.0, high=1.0)
    per_class = {}
    for c in np.unique(tl):
        d, t = dl == c, tl == c
        per_class[int(c)] = average_precision(db[d], ds[d], di[d], tb[t], ti[t], iou_threshold)[0]
    return float(np.mean(list(per_class.values()))), per_class
