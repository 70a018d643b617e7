"""LeNet-5 on digits (Part V.2): the model, shifted training copies, and what it learnt.

LeNet-5 (LeCun, Bottou, Bengio and Haffner, 1998) in the modern variant the book trains
with torch, layer by layer for a batch of N grey 28 × 28 digits:

=========  ===========================================  ==================  ==============
layer      operation                                    output shape        parameters
=========  ===========================================  ==================  ==============
conv1      6 filters 5 × 5, padding 2, then ReLU         (N, 6, 28, 28)      (5·5·1 + 1)·6
pool1      max pooling 2 × 2, stride 2                  (N, 6, 14, 14)      0
conv2      16 filters 5 × 5, valid, then ReLU           (N, 16, 10, 10)     (5·5·6 + 1)·16
pool2      max pooling 2 × 2, stride 2                  (N, 16, 5, 5)       0
fc1        dense 400 → 120, then ReLU                   (N, 120)            400·120 + 120
fc2        dense 120 → 84, then ReLU                    (N, 84)             120·84 + 84
fc3        dense 84 → 10 (class scores, the logits)     (N, 10)             84·10 + 10
=========  ===========================================  ==================  ==============

61,706 parameters in all. The original took 32 × 32 inputs (MNIST's 28 × 28 digits
framed by a margin), used scaled tanh units, *trainable* average subsampling and a
partial connection table between conv1 and conv2, and ended in Gaussian (RBF) units;
here the padding of 2 on conv1 stands for the margin, ReLU for tanh, max pooling for
subsampling, every conv2 filter sees all six channels, and the last layer gives logits
for softmax cross-entropy.

Besides the model:

* :func:`shifted_copies` -- every image moved by a random whole-pixel shift of at most
  ``max_shift`` (zeros come in at the border): cheap data augmentation for digits;
* :func:`shifted_batches` and :func:`train_lenet` -- chapter V.2's training recipe
  (:data:`RECIPE`), which VI.3's script and ``make bench`` run too;
* :func:`predict` -- the class of largest score for each image, in eval mode;
* :func:`confusion_matrix` -- counts C[i, j] of images of class i predicted as j;
* :func:`feature_maps` and :func:`conv_filters` -- the output of every convolution layer
  for given images, and the weights of every convolution layer, as numpy arrays.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..training import History, evaluating, train
from ..validation import (check_array, check_callable, check_count, check_instance, check_list, check_memory,
                          check_number, check_optional, describe)

__all__ = ["LeNet5", "RECIPE", "shifted_copies", "shifted_batches", "train_lenet", "predict", "confusion_matrix",
           "feature_maps", "conv_filters"]

#: Chapter V.2's training recipe: Adam at ``lr`` for ``epochs`` epochs, the step divided by
#: 10 after epoch ``decay_after``, on batches of ``batch_size`` fresh copies shifted by up
#: to ``max_shift`` pixels.
RECIPE = MappingProxyType({"epochs": 10, "lr": 2e-3, "decay_after": 7, "batch_size": 32, "max_shift": 2})


class LeNet5(nn.Module):
    """LeNet-5, modern variant: conv 5 × 5 (6, padding 2) → ReLU → max pool 2 → conv 5 × 5
    (16) → ReLU → max pool 2 → dense 400 → 120 → 84 → ``n_classes``, with ReLU between
    the dense layers. Input (N, ``in_channels``, 28, 28); output (N, ``n_classes``) logits.

    Parameters: (25·C + 1)·6 + (25·6 + 1)·16 + 400·120 + 120 + 120·84 + 84 + 84·K + K
    for C input channels and K classes (61,706 for C = 1, K = 10).
    """

    def __init__(self, n_classes: int = 10, in_channels: int = 1):
        n_classes = check_count("n_classes", n_classes, low=2, high=100_000)
        in_channels = check_count("in_channels", in_channels, low=1, high=1_000)
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, 6, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)   # (N, 6, 14, 14)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)   # (N, 16, 5, 5)
        x = F.relu(self.fc1(x.flatten(1)))           # (N, 120)
        x = F.relu(self.fc2(x))                      # (N, 84)
        return self.fc3(x)                           # (N, n_classes)


def _check_images(name: str, images: object, ndim: int | tuple[int, ...] = 4) -> np.ndarray:
    """(N, C, H, W) real images (or any of the ``ndim`` given), finite, at least one; a
    torch tensor is accepted and read as numpy."""
    if isinstance(images, torch.Tensor):
        images = images.detach().cpu().numpy()
    return check_array(name, images, ndim=ndim, nonempty=True)


def _check_fits(model, images: np.ndarray) -> None:
    """A :class:`LeNet5` reads (N, in_channels, 28, 28) images: any other size would fail
    deep inside torch (its first dense layer expects 16 · 5 · 5 inputs)."""
    if isinstance(model, LeNet5):
        expected = (model.conv1.in_channels, 28, 28)
        if images.shape[1:] != expected:
            raise ValueError(f"images must have shape (N, {expected[0]}, 28, 28) for this LeNet5, "
                             f"got {images.shape}")


def shifted_copies(images: object, max_shift: int = 2, seed: int = 0) -> np.ndarray:
    """Each image moved by its own random shift (dy, dx), both drawn uniformly from
    {-max_shift, ..., max_shift}: out[n, ..., y, x] = images[n, ..., y - dy, x - dx],
    and 0 where y - dy or x - dx falls outside the image.

    ``images``: (N, H, W) or (N, C, H, W); returns a float32 array of the same shape.
    A digit moved by a pixel or two is still the same digit, so shifted copies are free
    extra training examples (data augmentation).
    """
    images = _check_images("images", images, ndim=(3, 4))
    max_shift = check_count("max_shift", max_shift, high=min(images.shape[-2:]) - 1)
    seed = check_count("seed", seed, high=2**63 - 1)
    rng = np.random.default_rng(seed)
    n, (h, w) = len(images), images.shape[-2:]
    shifts = rng.integers(-max_shift, max_shift + 1, size=(n, 2))
    m = max_shift
    padded = np.pad(images, [(0, 0)] * (images.ndim - 2) + [(m, m), (m, m)]).astype(np.float32)
    rows = (m - shifts[:, 0])[:, None] + np.arange(h)          # (N, H): source row of each output row
    cols = (m - shifts[:, 1])[:, None] + np.arange(w)          # (N, W)
    moved = np.moveaxis(padded, (-2, -1), (1, 2))               # (N, H + 2m, W + 2m, ...)
    out = moved[np.arange(n)[:, None, None], rows[:, :, None], cols[:, None, :]]
    return np.ascontiguousarray(np.moveaxis(out, (1, 2), (-2, -1)))


def shifted_batches(images: object, labels: object, epoch: int, batch_size: int = RECIPE["batch_size"],
                    max_shift: int = RECIPE["max_shift"]) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """One epoch of training batches: a fresh copy of every image (N, 1, 28, 28), shifted
    by up to ``max_shift`` pixels (:func:`shifted_copies`, seeded by ``epoch``), in a new
    order (``torch.randperm``, seeded by ``epoch``), cut into batches of ``batch_size``:
    (images (b, 1, 28, 28) float32, labels (b,) int64) tensors."""
    images, labels = _check_labelled(images, labels)
    epoch = check_count("epoch", epoch, high=2**63 - 1)
    batch_size = check_count("batch_size", batch_size, low=1, high=10**9)
    max_shift = check_count("max_shift", max_shift, high=min(images.shape[-2:]) - 1)
    return _shifted_batches(images, labels, epoch, batch_size, max_shift)


def _check_labelled(images: object, labels: object) -> tuple[np.ndarray, np.ndarray]:
    images = _check_images("images", images)
    labels = check_array("labels", labels, ndim=1, kind="int", low=0)
    if len(labels) != len(images):
        raise ValueError(f"labels must have one label per image ({len(images)}), got {len(labels)}")
    return images, labels


def _shifted_batches(images, labels, epoch, batch_size, max_shift):
    moved = torch.from_numpy(shifted_copies(images, max_shift=max_shift, seed=epoch))
    targets = torch.from_numpy(labels.astype(np.int64))
    order = torch.randperm(len(targets), generator=torch.Generator().manual_seed(epoch))
    return [(moved[order[i:i + batch_size]], targets[order[i:i + batch_size]])
            for i in range(0, len(order), batch_size)]


def _check_validation(validation: object) -> list:
    """Validation batches as :func:`shifted_batches` makes them: (images (b, 1, 28, 28)
    float32, labels (b,) int64) tensor pairs."""
    batches = check_list("validation", validation, tuple, nonempty=True)
    for i, batch in enumerate(batches):
        images, labels = batch if len(batch) == 2 else (None, None)
        if not (isinstance(images, torch.Tensor) and isinstance(labels, torch.Tensor)
                and images.dtype == torch.float32 and tuple(images.shape[1:]) == (1, 28, 28)
                and labels.dtype == torch.int64 and labels.shape == images.shape[:1]):
            raise ValueError(f"validation[{i}] must be a pair (images (b, 1, 28, 28) float32, labels (b,) int64) "
                             f"of tensors, got {describe(batch)}")
    return batches


def _cross_entropy(model, batch) -> torch.Tensor:
    images, labels = batch
    return F.cross_entropy(model(images), labels)


def train_lenet(images: object, labels: object, epochs: int = RECIPE["epochs"], *, lr: float = RECIPE["lr"],
                decay_after: int = RECIPE["decay_after"], batch_size: int = RECIPE["batch_size"],
                validation=None, after_epoch: Callable | None = None) -> tuple[LeNet5, list[History]]:
    """Chapter V.2's recipe: a LeNet-5 drawn after ``torch.manual_seed(0)``, trained by
    Adam on softmax cross-entropy, one epoch at a time through
    :func:`mmir_lib.training.train` (seeded by the epoch) on :func:`shifted_batches`,
    at step ``lr`` for epochs 1 … ``decay_after`` and ``lr`` / 10 after. ``validation``
    (optional batches) is scored after every epoch; ``after_epoch(model, history)`` is
    called after every epoch. Returns the model and the :class:`~mmir_lib.training.History`
    of each epoch."""
    images, labels = _check_labelled(images, labels)
    if images.shape[1:] != (1, 28, 28):
        raise ValueError(f"images must have shape (N, 1, 28, 28) for LeNet-5, got {images.shape}")
    epochs = check_count("epochs", epochs, low=1, high=10_000)
    lr = check_number("lr", lr, low=0.0, high=10.0)
    if lr == 0:
        raise ValueError("lr must be > 0, got 0")
    decay_after = check_count("decay_after", decay_after)
    batch_size = check_count("batch_size", batch_size, low=1, high=10**9)
    after_epoch = check_optional(check_callable, "after_epoch", after_epoch)
    validation = None if validation is None else _check_validation(validation)
    torch.manual_seed(0)
    model = LeNet5()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    histories = []
    for epoch in range(1, epochs + 1):
        for group in optimizer.param_groups:
            group["lr"] = lr if epoch <= decay_after else lr / 10
        batches = _shifted_batches(images, labels, epoch, batch_size, RECIPE["max_shift"])
        histories.append(train(model, _cross_entropy, batches, optimizer, validation=validation, seed=epoch))
        if after_epoch is not None:
            after_epoch(model, histories[-1])
    return model, histories


def predict(model, images: object, batch_size: int = 1000) -> np.ndarray:
    """The predicted class argmax_k score_k of each image, (N,) int64, in eval mode and
    without gradients (the model returns to its mode). ``images``: (N, C, H, W)."""
    check_instance("model", model, torch.nn.Module)
    images = _check_images("images", images)
    _check_fits(model, images)
    batch_size = check_count("batch_size", batch_size, low=1, high=10**9)
    parameter = next(model.parameters(), None)
    dtype = parameter.dtype if parameter is not None else torch.float32
    with evaluating(model):
        out = [model(torch.tensor(images[i:i + batch_size], dtype=dtype)).argmax(1)
               for i in range(0, len(images), batch_size)]
    return torch.cat(out).numpy().astype(np.int64)


def confusion_matrix(labels: object, predicted: object, n_classes: int) -> np.ndarray:
    """(K, K) int64 counts C[i, j] = #{n : labels[n] = i and predicted[n] = j}: row =
    true class, column = predicted class (scikit-learn's convention). The diagonal holds
    the correct predictions; accuracy = trace(C) / sum(C).

    (Chapter III.6's :func:`mmir_lib.lm.tagging.confusion_matrix` counts tags of
    sentences, by name; this one counts class indices 0 … K − 1.)
    """
    n_classes = check_count("n_classes", n_classes, low=1)
    check_memory("n_classes", n_classes * n_classes)
    labels = check_array("labels", labels, ndim=1, kind="int", low=0, high=n_classes - 1)
    predicted = check_array("predicted", predicted, ndim=1, kind="int", low=0, high=n_classes - 1)
    if len(labels) != len(predicted):
        raise ValueError(f"labels and predicted must have the same length, got {len(labels)} and {len(predicted)}")
    return np.bincount(labels * n_classes + predicted, minlength=n_classes * n_classes).reshape(n_classes,
                                                                                                n_classes)


def _conv_layers(model) -> dict:
    check_instance("model", model, torch.nn.Module)
    layers = {name: m for name, m in model.named_modules() if isinstance(m, torch.nn.Conv2d)}
    if not layers:
        raise ValueError("model must contain at least one torch.nn.Conv2d layer")
    return layers


def feature_maps(model, images: object) -> dict[str, np.ndarray]:
    """The output z of every ``Conv2d`` layer of ``model`` (before its nonlinearity) for
    ``images`` (N, C, H, W): a dict from the layer's name to a float64 array (N, F, H', W'),
    in the order the layers are defined. Eval mode, no gradients."""
    layers = _conv_layers(model)
    images = _check_images("images", images)
    _check_fits(model, images)
    parameter = next(model.parameters())
    captured = {}
    hooks = [layer.register_forward_hook(lambda _m, _in, out, name=name: captured.__setitem__(name, out))
             for name, layer in layers.items()]
    try:
        with evaluating(model):
            model(torch.tensor(images, dtype=parameter.dtype))
    finally:
        for hook in hooks:
            hook.remove()
    return {name: captured[name].numpy().astype(np.float64) for name in layers if name in captured}


def conv_filters(model) -> dict[str, np.ndarray]:
    """The weights of every ``Conv2d`` layer of ``model``: a dict from the layer's name to
    a float64 array (F, C, k_h, k_w), in the order the layers are defined."""
    return {name: layer.weight.detach().numpy().astype(np.float64) for name, layer in _conv_layers(model).items()}
