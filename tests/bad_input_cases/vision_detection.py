"""Bad-input cases for Part V.3 (mmir_lib.vision.boxes, .detection, .siamese, .style)."""

import numpy as np
import torch

from mmir_lib.vision import boxes, detection, siamese, style
from tests.api_fuzz import Case

BOXES = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30.0]])
ANCHORS = np.array([[10.0, 18.0], [18.0, 22.0]])
TINY = detection.GridDetector(ANCHORS, n_classes=3, channels=(2, 2, 2))
OUTPUT = torch.zeros(1, 2, 8, 8, 8)
TARGETS = torch.zeros(1, 2, 8, 8, 6)
EMB = torch.zeros(4, 3, dtype=torch.float64)
MAP = torch.ones(2, 4, 4)
CONV = torch.nn.Conv2d(1, 2, 3, padding=1)
ANY_REAL = {"zero", "negative", "negative_float", "huge_int", "huge_float"}


def _features(x):
    return [torch.relu(CONV(x))]


CASES = [
    Case(boxes.check_boxes, dict(name="boxes", boxes=BOXES, fmt="xyxy"), accepts={"name": {"str"}}),
    Case(boxes.convert_boxes, dict(boxes=BOXES, source="xyxy", target="cxcywh")),
    Case(boxes.box_area, dict(boxes=BOXES)),
    Case(boxes.box_iou, dict(boxes_a=BOXES, boxes_b=BOXES[:2])),
    Case(boxes.nms, dict(boxes=BOXES, scores=[0.9, 0.8, 0.7], iou_threshold=0.5, score_threshold=0.1,
                         classes=[0, 0, 1]),
         accepts={"iou_threshold": {"zero"}, "score_threshold": {"none", *ANY_REAL}, "classes": {"none"}}),
    Case(boxes.average_precision, dict(det_boxes=BOXES, det_scores=[0.9, 0.8, 0.7], det_images=[0, 0, 1],
                                       true_boxes=BOXES[:2], true_images=[0, 1], iou_threshold=0.5),
         accepts={"iou_threshold": {"zero"}}),
    Case(boxes.mean_average_precision, dict(det_boxes=BOXES, det_scores=[0.9, 0.8, 0.7], det_labels=[0, 1, 1],
                                            det_images=[0, 0, 1], true_boxes=BOXES[:2], true_labels=[0, 1],
                                            true_images=[0, 1], iou_threshold=0.5),
         accepts={"iou_threshold": {"zero"}}),
    Case(detection.make_canvases, dict(split="test", n_canvases=2, size=32, digits_per_canvas=(1, 2),
                                       scale=(0.5, 0.8), max_iou=0.1, seed=1),
         accepts={"max_iou": {"zero"}, "seed": {"zero"}}),
    Case(detection.GridDetector, dict(anchors=ANCHORS, n_classes=3, channels=(2, 2, 2), seed=1),
         accepts={"seed": {"zero"}}),
    Case(detection.encode_targets, dict(boxes=BOXES, labels=[1, 2, 0], image_ids=[0, 0, 1], n_images=2,
                                        image_size=64, anchors=ANCHORS, stride=8)),
    Case(detection.yolo_loss, dict(output=OUTPUT, targets=TARGETS, lambda_coord=5.0, lambda_noobj=0.5),
         accepts={"lambda_coord": {"zero", "huge_int", "huge_float"}, "lambda_noobj": {"zero", "huge_int",
                                                                                       "huge_float"}}),
    Case(detection.decode, dict(output=OUTPUT, anchors=ANCHORS, stride=8, score_threshold=0.05),
         accepts={"score_threshold": {"zero"}}),
    Case(detection.detect, dict(model=TINY, images=np.zeros((2, 32, 32), dtype=np.float32), score_threshold=0.05,
                                iou_threshold=0.5, batch_size=1),
         accepts={"score_threshold": {"zero"}, "iou_threshold": {"zero"}, "batch_size": {"huge_int"}}),
    Case(detection.load_detector, dict()),
    Case(detection.detector_training_record, dict()),
    Case(siamese.EmbeddingNet, dict(dim=4, channels=(2, 2), seed=1), accepts={"seed": {"zero"}}),
    Case(siamese.triplet_loss, dict(anchor=EMB, positive=EMB + 1, negative=EMB - 1, margin=0.2, squared=True,
                                    eps=1e-6),
         accepts={"margin": {"zero", "huge_int", "huge_float"}, "squared": {"bool"}, "eps": {"zero", "huge_int", "huge_float"}}),
    Case(siamese.sample_triplets, dict(labels=[0, 0, 1, 1], n=5, seed=1), accepts={"seed": {"zero"}}),
    Case(siamese.sample_pairs, dict(labels=[0, 0, 1, 1], n=5, seed=1), accepts={"seed": {"zero"}}),
    Case(siamese.embed, dict(model=siamese.EmbeddingNet(4, (2, 2)), images=np.zeros((3, 28, 28)), batch_size=2),
         accepts={"batch_size": {"huge_int"}}),
    Case(siamese.roc_curve, dict(scores=[0.1, 0.5, 0.3], positive=[True, False, True])),
    Case(siamese.roc_auc, dict(scores=[0.1, 0.5, 0.3], positive=[True, False, True])),
    Case(siamese.best_threshold, dict(distances=[0.1, 0.5, 0.3], same=[True, False, True])),
    Case(style.gram_matrix, dict(a=MAP)),
    Case(style.content_cost, dict(a_content=MAP, a_generated=MAP * 2)),
    Case(style.style_cost, dict(a_style=[MAP, MAP], a_generated=[MAP, MAP * 2], weights=[1.0, 0.5])),
    Case(style.style_transfer, dict(features=_features, content=np.full((16, 16), 0.5), style=np.eye(16),
                                    content_layer=0, style_weights=[1.0], alpha=1.0, beta=10.0, steps=2, lr=0.01,
                                    seed=1),
         accepts={"alpha": {"zero", "huge_int", "huge_float"}, "beta": {"zero", "huge_int", "huge_float"},
                  "content_layer": {"zero"}, "seed": {"zero"}}),
]

EXEMPT = {"mmir_lib.vision.detection.DetectionSet": "a record of the canvases and their ground truth"}
