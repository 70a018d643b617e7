"""Boxes, IoU, NMS and average precision (mmir_lib.vision.boxes): hand-worked cases, IoU
by counting pixels, NMS against OpenCV's cv2.dnn.NMSBoxes."""

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.vision.boxes import (_greedy, average_precision, box_area, box_iou, check_boxes, convert_boxes,
                                   mean_average_precision, nms)


def random_boxes(seed, n, spread=100.0, size=40.0):
    rng = np.random.default_rng(seed)
    xywh = np.concatenate([rng.uniform(0, spread, (n, 2)), rng.uniform(0, size, (n, 2))], axis=1)
    scores = rng.uniform(0, 1, n).astype(np.float32).astype(np.float64)  # OpenCV holds scores in float32
    return xywh, scores


@pytest.mark.parametrize("a, b, expected", [
    ([0, 0, 2, 2], [1, 0, 3, 2], 2 / 6),          # half of each overlaps: 2 / (4 + 4 − 2)
    ([0, 0, 4, 4], [1, 1, 3, 3], 4 / 16),         # contained
    ([0, 0, 2, 2], [0, 0, 2, 2], 1.0),            # identical
    ([0, 0, 2, 2], [2, 0, 4, 2], 0.0),            # touching along an edge
    ([0, 0, 2, 2], [5, 5, 6, 6], 0.0),            # apart
    ([0, 0, 3, 1], [1, -1, 2, 2], 1 / 5),         # a cross: 1 / (3 + 3 − 1)
    ([1, 1, 1, 1], [1, 1, 1, 1], 0.0),            # two points: empty union, IoU 0 by convention
])
def test_iou_hand_worked(a, b, expected):
    assert box_iou([a], [b])[0, 0] == pytest.approx(expected, abs=1e-15)
    assert box_iou([b], [a])[0, 0] == pytest.approx(expected, abs=1e-15)


def pixel_iou(a, b, n=24):
    """IoU by counting the unit pixels [c, c+1) × [r, r+1) each integer box covers."""
    cols, rows = np.meshgrid(np.arange(n), np.arange(n))
    inside = [(box[0] <= cols) & (cols < box[2]) & (box[1] <= rows) & (rows < box[3]) for box in (a, b)]
    union = (inside[0] | inside[1]).sum()
    return (inside[0] & inside[1]).sum() / union if union else 0.0


integer_box = st.tuples(st.integers(0, 23), st.integers(0, 23), st.integers(0, 12), st.integers(0, 12)).map(
    lambda t: [t[0], t[1], min(t[0] + t[2], 24), min(t[1] + t[3], 24)])


@settings(max_examples=200, deadline=None)
@given(integer_box, integer_box)
def test_iou_equals_pixel_counting(a, b):
    assert box_iou([a], [b])[0, 0] == pytest.approx(pixel_iou(a, b), abs=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 30))
def test_formats_round_trip_and_iou_is_a_similarity(seed, n):
    xywh, _ = random_boxes(seed, n)
    xyxy = convert_boxes(xywh, "xywh", "xyxy")
    for fmt in ("xywh", "cxcywh"):
        assert np.allclose(convert_boxes(convert_boxes(xyxy, "xyxy", fmt), fmt, "xyxy"), xyxy, atol=1e-12)
    assert np.allclose(box_area(xyxy), xywh[:, 2] * xywh[:, 3])
    iou = box_iou(xyxy, xyxy)
    assert np.allclose(iou, iou.T) and iou.min() >= 0 and iou.max() <= 1 + 1e-12
    assert np.allclose(np.diag(iou)[box_area(xyxy) > 0], 1.0)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 400), st.sampled_from([0.0, 0.1, 0.3, 0.45, 0.5, 0.7, 0.95, 1.0]),
       st.sampled_from([0.0, 0.2, 0.6]))
def test_nms_equals_opencv(seed, n, iou_threshold, score_threshold):
    xywh, scores = random_boxes(seed, n)
    ours = nms(convert_boxes(xywh, "xywh", "xyxy"), scores, iou_threshold, score_threshold=score_threshold)
    theirs = np.asarray(cv2.dnn.NMSBoxes(xywh, scores, score_threshold, iou_threshold)).reshape(-1)
    assert np.array_equal(ours, theirs)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 300), st.floats(0, 1))
def test_sweep_equals_the_plain_greedy_loop_with_ties(seed, n, threshold):
    rng = np.random.default_rng(seed)
    xyxy = convert_boxes(np.concatenate([rng.integers(0, 30, (n, 2)), rng.integers(0, 12, (n, 2))], axis=1)
                         .astype(float), "xywh", "xyxy")
    scores = rng.integers(0, 4, n) / 4.0          # many ties
    order = np.argsort(-scores, kind="stable")
    assert np.array_equal(nms(xyxy, scores, threshold), _greedy(xyxy, order, threshold))


def test_nms_hand_worked_and_class_aware():
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 20, 30, 30], [0, 0, 10, 10.0]])
    scores = np.array([0.9, 0.8, 0.7, 0.95])
    assert nms(boxes, scores, 0.5).tolist() == [3, 2]               # 3 beats its twin 0, and 1 (IoU 9/11)
    assert nms(boxes, scores, 0.5, score_threshold=0.9).tolist() == [3]
    assert nms(boxes, scores, 1.0).tolist() == [3, 0, 1, 2]         # nothing has IoU > 1
    classes = np.array([0, 1, 0, 0])
    assert nms(boxes, scores, 0.5, classes=classes).tolist() == [3, 1, 2]   # box 1 is alone in its class
    assert nms(np.zeros((0, 4)), np.zeros(0), 0.5).tolist() == []


def test_average_precision_hand_worked():
    truth = np.array([[0, 0, 10, 10], [20, 0, 30, 10.0]])
    dets = np.array([[0, 0, 10, 10], [0, 1, 10, 11], [21, 0, 31, 10], [50, 50, 60, 60.0]])
    scores = np.array([0.9, 0.8, 0.7, 0.6])
    ap, recall, precision = average_precision(dets, scores, [0, 0, 0, 0], truth, [0, 0])
    # TP (IoU 1), FP (a duplicate of the matched box), TP (IoU 9/11), FP
    assert recall.tolist() == [0.5, 0.5, 1.0, 1.0]
    assert precision == pytest.approx([1, 1 / 2, 2 / 3, 2 / 4])
    assert ap == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    ap_strict, _, _ = average_precision(dets, scores, [0, 0, 0, 0], truth, [0, 0], iou_threshold=0.9)
    assert ap_strict == pytest.approx(0.5)                          # 9/11 < 0.9: the second box is missed
    ap_other_image, _, _ = average_precision(dets, scores, [1, 1, 1, 1], truth, [0, 0])
    assert ap_other_image == 0.0
    m, per_class = mean_average_precision(dets, scores, [0, 0, 1, 1], [0, 0, 0, 0], truth, [0, 1], [0, 0])
    assert per_class == pytest.approx({0: 1.0, 1: 1.0}) and m == pytest.approx(1.0)


@pytest.mark.parametrize("call, message", [
    (lambda: box_iou([[2, 0, 1, 1]], [[0, 0, 1, 1]]), "boxes_a must have x2 >= x1"),
    (lambda: nms([[0, 0, 1, 1]], [0.5], 1.5), "iou_threshold must be <= 1"),
    (lambda: nms([[0, 0, 1, 1]], [0.5], -0.1), "iou_threshold must be >= 0"),
    (lambda: nms([], [], 0.5), "boxes is empty without a shape"),
    (lambda: nms([[0, 0, 1]], [0.5], 0.5), r"boxes must have shape \(n, 4\)"),
    (lambda: nms([[0, 0, 1, 1]], [0.5, 0.2], 0.5), "same length"),
    (lambda: convert_boxes([[0, 0, -1, 1]], "xywh", "xyxy"), "widths and heights >= 0"),
    (lambda: average_precision(np.zeros((0, 4)), [], [], np.zeros((0, 4)), []), "at least one ground-truth"),
    (lambda: check_boxes("b", [[0, 0, np.nan, 1]]), "finite"),
])
def test_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
