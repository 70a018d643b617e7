"""The canvas data set, target encoding and decoding, the YOLO loss, and the trained
checkpoint's test mAP that chapter V.3 quotes (mmir_lib.vision.detection)."""

import numpy as np
import pytest
import torch

from mmir_lib.chapter import load_tool
from mmir_lib.vision.boxes import box_iou, mean_average_precision
from mmir_lib.vision.detection import (DETECTOR_SETTINGS, INK, GridDetector, decode, detect, encode_targets,
                                       detector_training_record, load_detector, make_canvases, yolo_loss)

ANCHORS = np.array([[10.0, 18.0], [18.0, 22.0]])

#: The test mAP@0.5 chapter V.3 quotes for the checkpoint (500 test canvases, seed 3).
QUOTED_TEST_MAP = 0.8


def test_canvases_hold_the_placed_digits():
    data = make_canvases("test", 20, size=64, seed=5)
    assert data.images.shape == (20, 64, 64) and data.images.dtype == np.float32
    assert len(data.boxes) == len(data.labels) == len(data.image_ids) >= 20
    assert (data.boxes >= 0).all() and (data.boxes <= 64).all()
    for n in range(20):
        mine = data.boxes[data.image_ids == n]
        iou = box_iou(mine, mine) - np.eye(len(mine))
        assert iou.max() <= 0.1
    for (x1, y1, x2, y2), n in zip(data.boxes.astype(int), data.image_ids):
        patch = data.images[n, y1:y2, x1:x2]
        assert patch[0].max() > INK and patch[-1].max() > INK and patch[:, 0].max() > INK and patch[:, -1].max() > INK
    again = make_canvases("test", 20, size=64, seed=5)
    assert np.array_equal(again.images, data.images) and np.array_equal(again.boxes, data.boxes)


def perfect_output(targets, n_classes=10):
    """Raw outputs that decode to exactly the encoded boxes: large objectness logits,
    logit(σ*) offsets, the log-size targets and a one-hot class score."""
    t = torch.from_numpy(targets).double()
    out = torch.full((*t.shape[:4], 5 + n_classes), -30.0, dtype=torch.float64)
    out[..., 0] = torch.where(t[..., 0] > 0.5, 30.0, -30.0)
    out[..., 1:3] = torch.logit(t[..., 1:3].clamp(1e-12, 1 - 1e-12))
    out[..., 3:5] = t[..., 3:5]
    out[..., 5:] = torch.nn.functional.one_hot(t[..., 5].long(), n_classes) * 60.0 - 30.0
    return out


def test_encode_then_decode_gives_back_the_boxes():
    data = make_canvases("train", 30, seed=2)
    targets = encode_targets(data.boxes, data.labels, data.image_ids, len(data), 64, ANCHORS)
    assert targets[..., 0].sum() == len(data.boxes)   # no two digits share a slot here
    boxes, scores, labels, ids = decode(perfect_output(targets), ANCHORS, 8, 0.5)
    order = np.lexsort((boxes[:, 1], boxes[:, 0], ids))
    truth = np.lexsort((data.boxes[:, 1], data.boxes[:, 0], data.image_ids))
    assert np.allclose(boxes[order], data.boxes[truth], atol=1e-6)
    assert np.array_equal(labels[order], data.labels[truth]) and np.array_equal(ids[order], data.image_ids[truth])
    assert yolo_loss(perfect_output(targets), torch.from_numpy(targets).double()) < 1e-6


def test_detector_shapes_and_clear_errors():
    model = GridDetector(ANCHORS, channels=(2, 2, 2))
    assert model(torch.zeros(3, 1, 64, 96)).shape == (3, 2, 8, 12, 15)
    assert [tuple(a.shape) for a in model.features(torch.zeros(1, 1, 64, 64))] == \
        [(1, 2, 64, 64), (1, 2, 32, 32), (1, 2, 16, 16), (1, 2, 8, 8)]
    with pytest.raises(ValueError, match=r"images must have shape \(N, 1, H, W\)"):
        model(torch.zeros(3, 64, 64))
    with pytest.raises(TypeError, match="images must be float32"):
        model(torch.zeros(1, 1, 64, 64, dtype=torch.float64))
    with pytest.raises(ValueError, match="multiples of 8"):
        detect(model, np.zeros((1, 60, 60), dtype=np.float32))
    with pytest.raises(ValueError, match="boxes must have x2 >= x1"):
        encode_targets([[5, 0, 1, 4]], [1], [0], 1, 64, ANCHORS)


def test_detect_checks_at_its_door_only(monkeypatch):
    # issue 23, section 5: detect checks its arguments, then calls the private kernels of
    # decode and nms, which do not check the model's own output again
    from mmir_lib.vision import boxes as boxes_module
    from mmir_lib.vision import detection as detection_module

    model, calls = GridDetector(ANCHORS, channels=(2, 2, 2)), []
    for module, name in ((detection_module, "_check_output"), (detection_module, "_check_anchors"),
                         (boxes_module, "check_boxes")):
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _name=name, _original=original, **k:
                            calls.append(_name) or _original(*a, **k))
    boxes, scores, labels, ids = detect(model, np.zeros((2, 64, 64), np.float32), score_threshold=0.0)
    assert len(boxes) > 0 and calls == []


def test_checkpoint_reproduces_the_quoted_test_map():
    model = load_detector()
    cfg = DETECTOR_SETTINGS
    test = make_canvases("test", 500, size=cfg["size"], seed=cfg["test_seed"])
    boxes, scores, labels, ids = detect(model, test.images)
    value, _ = mean_average_precision(boxes, scores, labels, ids, test.boxes, test.labels, test.image_ids)
    assert round(value, 2) == QUOTED_TEST_MAP


def test_checkpoint_carries_the_training_record_the_chapter_plots():
    record = detector_training_record()
    phases = load_tool("train_detector").PHASES
    assert record["learning_rates"] == [lr for epochs, lr in phases for _ in range(epochs)]
    losses = record["epoch_losses"]
    assert len(losses) == sum(epochs for epochs, _ in phases) and all(np.isfinite(losses)) and losses[-1] < losses[0] / 3
    assert len(record["validation_map"]) == len(phases) and all(0.7 < m < 0.9 for m in record["validation_map"])
