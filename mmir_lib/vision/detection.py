"""A detection task made from real digits, and a YOLO-style detector for it (Part V.3).

**The data** (:func:`make_canvases`): real MNIST digits of one split of
:func:`mmir_lib.data.mnist_5k` are resized by a random factor and pasted (pixelwise
maximum) at random positions on a black square canvas, at most lightly overlapping.
The ground truth comes from the placement: a digit's box is the bounding box of its ink
(pixels above :data:`INK`) after resizing, shifted to where it was pasted; its label is
the digit's class. Canvases of the test split use test digits only.

**The detector** (:class:`GridDetector`, Redmon et al. 2016, with anchors as in YOLOv2):
a small CNN maps an H × W image to an S × S grid (S = H / stride) and, for each cell
and each of A **anchor** shapes (w_a, h_a), predicts 5 + K numbers
(t_o, t_x, t_y, t_w, t_h, class scores c_1 … c_K). They **decode** to

    p_o = σ(t_o),   b_x = (col + σ(t_x)) · stride,   b_y = (row + σ(t_y)) · stride,
    b_w = w_a · exp(t_w),   b_h = h_a · exp(t_h),   P(class k) = softmax(c)_k,

the box's centre and size in pixels, and the score of class k is p_o · P(class k).
**Target encoding** (:func:`encode_targets`) inverts it: a true box is the job of the
cell holding its centre and of the anchor whose shape has the highest IoU with it
(both centred), with targets σ(t_x)* = cx / stride − col, t_w* = log(w / w_a) etc. The
**loss** (:func:`yolo_loss`) sums, per image,

    λ_coord Σ_obj [(σ(t_x) − σ(t_x)*)² + (σ(t_y) − σ(t_y)*)² + (t_w − t_w*)² + (t_h − t_h*)²]
    + Σ_obj BCE(t_o, 1) + λ_noobj Σ_noobj BCE(t_o, 0) + Σ_obj CE(c, class),

over the (cell, anchor) slots that hold an object ("obj") or not ("noobj").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import evaluating
from ..validation import (check_array, check_choice, check_count, check_instance, check_number, check_same_length,
                          check_tensor, describe)
from .boxes import _nms, box_iou, check_boxes

__all__ = ["INK", "DETECTOR_SETTINGS", "DetectionSet", "make_canvases", "GridDetector", "encode_targets", "yolo_loss", "decode",
           "detect", "load_detector", "detector_training_record"]

#: Grey level above which a pixel of a digit counts as ink for its box.
INK = 0.2

#: How ``tools/train_detector.py`` made the checkpoint that :func:`load_detector` reads.
DETECTOR_SETTINGS = {"size": 64, "train_canvases": 4000, "train_seed": 1, "validation_seed": 2, "test_seed": 3,
                     "anchors": [[10.0, 18.0], [18.0, 22.0]], "channels": [12, 24, 48]}


@dataclass(frozen=True)
class DetectionSet:
    """Canvases and their ground truth.

    ``images``     (n, size, size) float32 grey levels in [0, 1]
    ``boxes``      (m, 4) float64 boxes (x1, y1, x2, y2) of the m digits, in pixels
    ``labels``     (m,) int64 class of each digit
    ``image_ids``  (m,) int64 canvas of each digit
    """

    images: np.ndarray
    boxes: np.ndarray
    labels: np.ndarray
    image_ids: np.ndarray

    def __len__(self) -> int:
        return len(self.images)


def make_canvases(split: str, n_canvases: int, size: int = 64, digits_per_canvas: tuple[int, int] = (1, 3),
                  scale: tuple[float, float] = (0.6, 1.1), max_iou: float = 0.1, seed: int = 0) -> DetectionSet:
    """``n_canvases`` canvases of ``size`` × ``size`` pixels, each with a number of digits
    drawn uniformly from ``digits_per_canvas`` (inclusive), resized by a factor drawn
    uniformly from ``scale`` and placed so that no two ink boxes have an IoU above
    ``max_iou`` (a digit that finds no such place in 50 draws is left out).
    Digits come from ``mnist_5k(split)``; the result is fixed by ``seed``."""
    import cv2

    from ..data import mnist_5k

    check_choice("split", split, ("train", "validation", "test"))
    n_canvases = check_count("n_canvases", n_canvases, low=1, high=1_000_000)
    size = check_count("size", size, low=32, high=1024)
    lo, hi = _pair("digits_per_canvas", digits_per_canvas, check_count, low=1, high=20)
    s_lo, s_hi = _pair("scale", scale, check_number, low=0.2, high=size / 28)
    max_iou = check_number("max_iou", max_iou, low=0.0, high=1.0)
    seed = check_count("seed", seed, high=2**32 - 1)
    source = mnist_5k(split)
    rng = np.random.default_rng(seed)
    images = np.zeros((n_canvases, size, size), dtype=np.float32)
    boxes, labels, ids = [], [], []
    for n in range(n_canvases):
        placed = []
        for _ in range(int(rng.integers(lo, hi + 1))):
            k = int(rng.integers(len(source)))
            side = int(round(28 * rng.uniform(s_lo, s_hi)))
            digit = cv2.resize(source.images[k], (side, side),
                               interpolation=cv2.INTER_AREA if side < 28 else cv2.INTER_LINEAR)
            rows, cols = np.flatnonzero((digit > INK).any(axis=1)), np.flatnonzero((digit > INK).any(axis=0))
            if rows.size == 0:
                continue
            for _attempt in range(50):
                y0, x0 = (int(v) for v in rng.integers(0, size - side + 1, size=2))
                box = np.array([[x0 + cols[0], y0 + rows[0], x0 + cols[-1] + 1, y0 + rows[-1] + 1]], dtype=float)
                if not placed or box_iou(box, np.array(placed)).max() <= max_iou:
                    break
            else:
                continue
            np.maximum(images[n, y0:y0 + side, x0:x0 + side], digit, out=images[n, y0:y0 + side, x0:x0 + side])
            placed.append(box[0])
            labels.append(int(source.labels[k]))
            ids.append(n)
        boxes += placed
    return DetectionSet(images, np.array(boxes, dtype=np.float64).reshape(-1, 4), np.array(labels, dtype=np.int64),
                        np.array(ids, dtype=np.int64))


def _pair(name, value, check, **limits):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{name} must be a pair (low, high), got {describe(value)}")
    lo, hi = (check(name, v, **limits) for v in value)
    if lo > hi:
        raise ValueError(f"{name} must be (low, high) with low <= high, got {value}")
    return lo, hi


def _check_anchors(anchors) -> np.ndarray:
    anchors = check_array("anchors", anchors, ndim=2, nonempty=True)
    if anchors.shape[1] != 2 or (anchors <= 0).any():
        raise ValueError(f"anchors must be an (A, 2) array of positive widths and heights, got {anchors.tolist()}")
    return anchors


class GridDetector(nn.Module):
    """A small YOLO-style detector: three 3 × 3 convolutions with ReLU and 2 × 2 max
    pooling (stride 8), a fourth 3 × 3 convolution, and a 1 × 1 convolution to
    A · (5 + K) numbers per cell.

    ``forward(x)`` takes (N, 1, H, W) float32 images (H, W multiples of 8) and returns
    (N, A, S_h, S_w, 5 + K) raw outputs (t_o, t_x, t_y, t_w, t_h, c_1 … c_K).
    ``features(x)`` returns the four ReLU feature maps of the backbone (for V.3's style
    transfer). The anchors (A, 2) are (width, height) in pixels.
    """

    stride = 8

    def __init__(self, anchors, n_classes: int = 10, channels: tuple[int, int, int] = (8, 16, 32), seed: int = 0):
        super().__init__()
        anchors = _check_anchors(anchors)
        n_classes = check_count("n_classes", n_classes, low=1, high=10_000)
        if not isinstance(channels, (tuple, list)) or len(channels) != 3:
            raise TypeError(f"channels must be three ints, got {describe(channels)}")
        c1, c2, c3 = (check_count("channels", c, low=1, high=1024) for c in channels)
        seed = check_count("seed", seed, high=2**63 - 1)
        self.register_buffer("anchors", torch.tensor(anchors, dtype=torch.float32))
        self.n_classes = n_classes
        torch.manual_seed(seed)
        self.convs = nn.ModuleList([nn.Conv2d(1, c1, 3, padding=1), nn.Conv2d(c1, c2, 3, padding=1),
                                    nn.Conv2d(c2, c3, 3, padding=1), nn.Conv2d(c3, c3, 3, padding=1)])
        self.head = nn.Conv2d(c3, len(anchors) * (5 + n_classes), 1)

    def features(self, x):
        """The ReLU maps after each of the four convolutions (before pooling)."""
        maps = []
        for i, conv in enumerate(self.convs):
            x = F.relu(conv(x))
            maps.append(x)
            if i < 3:
                x = F.max_pool2d(x, 2)
        return maps

    def forward(self, x):
        _check_images(x)
        out = self.head(self.features(x)[-1])                     # (N, A·(5+K), S, S)
        n, _, s_h, s_w = out.shape
        return out.view(n, len(self.anchors), 5 + self.n_classes, s_h, s_w).permute(0, 1, 3, 4, 2)


def _check_images(x):
    check_instance("images", x, torch.Tensor)
    if x.ndim != 4 or x.shape[1] != 1:
        raise ValueError(f"images must have shape (N, 1, H, W), got {tuple(x.shape)}")
    if x.dtype != torch.float32:
        raise TypeError(f"images must be float32, got {x.dtype}")
    if x.shape[2] % 8 or x.shape[3] % 8 or x.shape[2] == 0 or x.shape[3] == 0:
        raise ValueError(f"images must have a height and width that are positive multiples of 8, got "
                         f"{tuple(x.shape[2:])}")
    check_tensor("images", x, ndim=4)  # finite, at least one image


def _check_output(output) -> torch.Tensor:
    """A detector's raw output: a finite floating-point (N, A, S_h, S_w, 5 + K) tensor, K ≥ 1."""
    output = check_tensor("output", output, ndim=5)
    if output.shape[-1] < 6:
        raise ValueError(f"output must have shape (N, A, S, S, 5 + K) with K ≥ 1, got {tuple(output.shape)}")
    return output


def encode_targets(boxes, labels, image_ids, n_images: int, image_size: int, anchors, stride: int = 8) -> np.ndarray:
    """The training targets of :func:`yolo_loss`: an (n_images, A, S, S, 6) float32 array,
    S = image_size / stride, holding (1, σ(t_x)*, σ(t_y)*, t_w*, t_h*, class) in the slot
    of each true box (the cell of its centre, the anchor of best shape IoU) and zeros
    elsewhere. (A later box that lands in the same slot replaces an earlier one.)"""
    b = check_boxes("boxes", boxes)
    labels = check_array("labels", labels, ndim=1, kind="int", low=0)
    ids = check_array("image_ids", image_ids, ndim=1, kind="int", low=0)
    check_same_length(boxes=b, labels=labels, image_ids=ids)
    n_images = check_count("n_images", n_images, low=1)
    stride = check_count("stride", stride, low=1)
    image_size = check_count("image_size", image_size, low=stride)
    if image_size % stride:
        raise ValueError(f"image_size must be a multiple of stride = {stride}, got {image_size}")
    if ids.size and ids.max() >= n_images:
        raise ValueError(f"image_ids must be < n_images = {n_images}, found {ids.max()}")
    anchors = _check_anchors(anchors)
    s = image_size // stride
    targets = np.zeros((n_images, len(anchors), s, s, 6), dtype=np.float32)
    cx, cy = (b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2
    w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
    if (w <= 0).any() or (h <= 0).any():
        raise ValueError("boxes must have positive widths and heights to be encoded")
    shapes = np.stack([-w / 2, -h / 2, w / 2, h / 2], axis=1)
    anchor_boxes = np.concatenate([-anchors / 2, anchors / 2], axis=1)
    best = box_iou(shapes, anchor_boxes).argmax(axis=1)
    col = np.clip((cx // stride).astype(int), 0, s - 1)
    row = np.clip((cy // stride).astype(int), 0, s - 1)
    targets[ids, best, row, col] = np.stack([np.ones_like(cx), cx / stride - col, cy / stride - row,
                                             np.log(w / anchors[best, 0]), np.log(h / anchors[best, 1]), labels],
                                            axis=1)
    return targets


def yolo_loss(output, targets, lambda_coord: float = 5.0, lambda_noobj: float = 0.5):
    """The loss of the module docstring, averaged over the images: ``output`` (N, A, S, S,
    5 + K) raw network outputs, ``targets`` (N, A, S, S, 6) from :func:`encode_targets`."""
    output = _check_output(output)
    targets = check_tensor("targets", targets, ndim=5)
    if tuple(targets.shape) != (*output.shape[:4], 6):
        raise ValueError(f"targets must have shape {(*output.shape[:4], 6)}, got {tuple(targets.shape)}")
    lambda_coord = check_number("lambda_coord", lambda_coord, low=0.0)
    lambda_noobj = check_number("lambda_noobj", lambda_noobj, low=0.0)
    obj = targets[..., 0] > 0.5
    bce = F.binary_cross_entropy_with_logits(output[..., 0], targets[..., 0], reduction="none")
    objectness = bce[obj].sum() + lambda_noobj * bce[~obj].sum()
    o, t = output[obj], targets[obj]
    coords = ((torch.sigmoid(o[:, 1:3]) - t[:, 1:3]) ** 2).sum() + ((o[:, 3:5] - t[:, 3:5]) ** 2).sum()
    classes = F.cross_entropy(o[:, 5:], t[:, 5].long(), reduction="sum")
    return (lambda_coord * coords + objectness + classes) / output.shape[0]


def decode(output, anchors, stride: int = 8, score_threshold: float = 0.05) -> tuple[np.ndarray, ...]:
    """Raw outputs (N, A, S_h, S_w, 5 + K) to boxes: the module docstring's formulas for
    every slot, then each slot's best class and its score p_o · P(class). Returns flat
    float64/int64 arrays (boxes (d, 4) as (x1, y1, x2, y2), scores (d,), labels (d,),
    image_ids (d,)) of the slots whose score is above ``score_threshold``."""
    output = _check_output(output)
    anchors = _check_anchors(anchors)
    if len(anchors) != output.shape[1]:
        raise ValueError(f"anchors must hold one row per anchor of the output ({output.shape[1]}), got {len(anchors)}")
    stride = check_count("stride", stride, low=1)
    score_threshold = check_number("score_threshold", score_threshold, low=0.0, high=1.0)
    return _decode(output, anchors, stride, score_threshold)


def _decode(output: torch.Tensor, anchors: np.ndarray, stride: int, score_threshold: float) -> tuple[np.ndarray, ...]:
    """:func:`decode` of a checked output, anchors, stride and threshold."""
    out = output.detach().double()
    n, a, s_h, s_w, _ = out.shape
    rows = torch.arange(s_h, dtype=torch.float64).view(1, 1, s_h, 1)
    cols = torch.arange(s_w, dtype=torch.float64).view(1, 1, 1, s_w)
    anchor_t = torch.as_tensor(anchors, dtype=torch.float64)
    cx = (cols + torch.sigmoid(out[..., 1])) * stride
    cy = (rows + torch.sigmoid(out[..., 2])) * stride
    w = anchor_t[:, 0].view(1, a, 1, 1) * torch.exp(out[..., 3].clamp(max=10))
    h = anchor_t[:, 1].view(1, a, 1, 1) * torch.exp(out[..., 4].clamp(max=10))
    class_prob, label = torch.softmax(out[..., 5:], dim=-1).max(dim=-1)
    score = torch.sigmoid(out[..., 0]) * class_prob
    keep = score > score_threshold
    ids = torch.arange(n).view(n, 1, 1, 1).expand(n, a, s_h, s_w)
    boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)[keep]
    return boxes.numpy(), score[keep].numpy(), label[keep].numpy().astype(np.int64), ids[keep].numpy().astype(np.int64)


def detect(model, images, score_threshold: float = 0.05, iou_threshold: float = 0.5,
           batch_size: int = 256) -> tuple[np.ndarray, ...]:
    """Run ``model`` (a :class:`GridDetector`) on (N, H, W) or (N, 1, H, W) float32 images,
    decode, and apply class-aware :func:`~mmir_lib.vision.boxes.nms` per image. Returns
    (boxes, scores, labels, image_ids) as :func:`decode`, best score first per image."""
    check_instance("model", model, GridDetector)
    check_instance("images", images, (np.ndarray, torch.Tensor))
    x = torch.as_tensor(images)
    if x.ndim == 3:
        x = x[:, None]
    _check_images(x)
    score_threshold = check_number("score_threshold", score_threshold, low=0.0, high=1.0)
    iou_threshold = check_number("iou_threshold", iou_threshold, low=0.0, high=1.0)
    batch_size = check_count("batch_size", batch_size, low=1)
    parts = []
    with evaluating(model):
        for start in range(0, len(x), batch_size):
            b, s, c, i = _decode(model(x[start:start + batch_size]), model.anchors.numpy(), model.stride,
                                 score_threshold)
            parts.append((b, s, c, i + start))
    boxes, scores, labels, ids = (np.concatenate(p) for p in zip(*parts))
    kept = [np.flatnonzero(ids == n)[_nms(boxes[ids == n], scores[ids == n], iou_threshold, classes=labels[ids == n])]
            for n in np.unique(ids)]
    kept = np.concatenate([np.zeros(0, np.int64), *kept])
    return boxes[kept], scores[kept], labels[kept], ids[kept]


def _saved_detector() -> dict:
    from importlib.resources import files

    with (files("mmir_lib") / "checkpoints" / "detector.pt").open("rb") as f:
        return torch.load(f, weights_only=True)


def load_detector() -> GridDetector:
    """The detector trained by ``tools/train_detector.py`` (in eval mode), from
    ``mmir_lib/checkpoints/detector.pt``; its settings are :data:`DETECTOR_SETTINGS`."""
    saved = _saved_detector()
    settings = saved["settings"]
    model = GridDetector(np.array(settings["anchors"]), channels=tuple(settings["channels"]))
    model.load_state_dict(saved["state_dict"])
    return model.eval()


def detector_training_record() -> dict:
    """What ``tools/train_detector.py`` recorded while training the checkpoint of
    :func:`load_detector`: ``epoch_losses`` (the mean training loss of each epoch),
    ``learning_rates`` (each epoch's) and ``validation_map`` (mAP@0.5 on the validation
    canvases after each phase of constant learning rate)."""
    return _saved_detector()["record"]
