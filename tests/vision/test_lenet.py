"""LeNet-5 and its inspection helpers (mmir_lib.vision.lenet): shapes and parameter counts by
formula, feature maps equal to V.1's convolution, shifted copies equal to a shift by hand,
predictions equal to the argmax, the confusion matrix equal to scikit-learn's, bad input."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix as sklearn_confusion_matrix

from mmir_lib.vision.conv import conv2d
from mmir_lib.training import train
from mmir_lib.vision.lenet import (LeNet5, confusion_matrix, conv_filters, feature_maps, predict, shifted_batches,
                                   shifted_copies, train_lenet)


def _images(n=3, c=1, seed=0):
    return np.random.default_rng(seed).random((n, c, 28, 28)).astype(np.float32)


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 30), st.integers(1, 4))
def test_parameter_count_and_output_shape_follow_the_formula(n_classes, in_channels):
    torch.manual_seed(0)
    model = LeNet5(n_classes, in_channels)
    formula = ((25 * in_channels + 1) * 6 + (25 * 6 + 1) * 16 + 400 * 120 + 120 + 120 * 84 + 84
               + 84 * n_classes + n_classes)
    assert sum(p.numel() for p in model.parameters()) == formula
    out = model(torch.from_numpy(_images(2, in_channels)))
    assert out.shape == (2, n_classes)


def test_the_book_variant_has_61706_parameters():
    assert sum(p.numel() for p in LeNet5().parameters()) == 61_706


def test_feature_maps_are_the_convolutions_of_v1():
    torch.manual_seed(1)
    model = LeNet5().double()
    x = _images(4).astype(np.float64)
    maps, filters = feature_maps(model, x), conv_filters(model)
    assert list(maps) == list(filters) == ["conv1", "conv2"]
    assert maps["conv1"].shape == (4, 6, 28, 28) and maps["conv2"].shape == (4, 16, 10, 10)
    assert filters["conv1"].shape == (6, 1, 5, 5) and filters["conv2"].shape == (16, 6, 5, 5)
    z1 = conv2d(x, filters["conv1"], model.conv1.bias.detach().numpy(), padding=2)
    assert np.abs(maps["conv1"] - z1).max() < 1e-12
    pooled = np.maximum(z1, 0).reshape(4, 6, 14, 2, 14, 2).max(axis=(3, 5))
    z2 = conv2d(pooled, filters["conv2"], model.conv2.bias.detach().numpy())
    assert np.abs(maps["conv2"] - z2).max() < 1e-12
    assert np.array_equal(filters["conv1"], model.conv1.weight.detach().numpy())


def test_feature_maps_and_predict_restore_the_mode_and_leave_no_hooks():
    model = LeNet5()
    model.train()
    feature_maps(model, _images(2))
    predict(model, _images(2))
    assert model.training
    assert not model.conv1._forward_hooks and not model.conv2._forward_hooks


def test_predict_is_the_argmax_in_batches():
    torch.manual_seed(2)
    model = LeNet5()
    x = _images(7, seed=3)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).argmax(1).numpy()
    assert np.array_equal(predict(model, x, batch_size=3), expected)
    assert np.array_equal(predict(model, torch.from_numpy(x)), expected)
    assert predict(model, x).dtype == np.int64


def _shift_by_hand(image, dy, dx):
    out = np.zeros_like(image)
    h, w = image.shape[-2:]
    for y in range(h):
        for x in range(w):
            if 0 <= y - dy < h and 0 <= x - dx < w:
                out[..., y, x] = image[..., y - dy, x - dx]
    return out


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 3), st.integers(0, 2**32 - 1), st.booleans())
def test_shifted_copies_are_shifts_within_the_bound(max_shift, seed, channels):
    rng = np.random.default_rng(seed)
    images = rng.random((4, 2, 9, 8) if channels else (4, 9, 8)).astype(np.float32)
    out = shifted_copies(images, max_shift=max_shift, seed=seed)
    assert out.shape == images.shape and out.dtype == np.float32
    shifts = range(-max_shift, max_shift + 1)
    for image, moved in zip(images, out):
        assert any(np.array_equal(moved, _shift_by_hand(image, dy, dx)) for dy in shifts for dx in shifts)
    assert np.array_equal(shifted_copies(images, max_shift, seed), out)   # the seed fixes the shifts


def test_shift_zero_is_the_identity_and_shifts_are_spread():
    images = _images(200)
    assert np.array_equal(shifted_copies(images, max_shift=0), images)
    out = shifted_copies(images, max_shift=2, seed=5)
    changed = sum(not np.array_equal(a, b) for a, b in zip(images, out))
    assert changed > 150                     # 24 of the 25 shifts move the image


def test_shifted_batches_cover_every_digit_once_shifted_as_shifted_copies_with_the_epoch_seed():
    images = np.random.default_rng(0).random((10, 1, 28, 28)).astype(np.float32)
    labels = np.arange(10)
    batches = shifted_batches(images, labels, epoch=3, batch_size=4)
    assert [len(b[1]) for b in batches] == [4, 4, 2]
    order = torch.cat([b[1] for b in batches]).numpy()
    assert sorted(order) == list(range(10))                         # a permutation: labels are the indices here
    moved = shifted_copies(images, max_shift=2, seed=3)
    assert np.array_equal(torch.cat([b[0] for b in batches]).numpy(), moved[order])
    again = shifted_batches(images, labels, epoch=3, batch_size=4)
    assert all(torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) for a, b in zip(batches, again))
    with pytest.raises(ValueError, match="labels must have one label per image"):
        shifted_batches(images, labels[:9], epoch=1)


def test_train_lenet_is_the_recipe_written_out():
    images = np.random.default_rng(1).random((40, 1, 28, 28)).astype(np.float32)
    labels = np.arange(40) % 10
    seen = []
    model, histories = train_lenet(images, labels, 3, lr=1e-3, decay_after=2, batch_size=16,
                                   after_epoch=lambda m, h: seen.append(len(h.step_losses)))
    assert seen == [3, 3, 3] and [len(h.epoch_losses) for h in histories] == [1, 1, 1]
    torch.manual_seed(0)
    expected = LeNet5()
    optimizer = torch.optim.Adam(expected.parameters(), lr=1e-3)
    for epoch in (1, 2, 3):
        for group in optimizer.param_groups:
            group["lr"] = 1e-3 if epoch <= 2 else 1e-4
        train(expected, lambda m, b: torch.nn.functional.cross_entropy(m(b[0]), b[1]),
              shifted_batches(images, labels, epoch, 16), optimizer, seed=epoch)
    assert all(torch.equal(p, q) for p, q in zip(model.parameters(), expected.parameters()))
    with pytest.raises(ValueError, match="lr must be > 0"):
        train_lenet(images, labels, 1, lr=0.0)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(1, 60), st.integers(0, 2**32 - 1))
def test_confusion_matrix_equals_sklearn(n_classes, n, seed):
    rng = np.random.default_rng(seed)
    labels, predicted = rng.integers(0, n_classes, n), rng.integers(0, n_classes, n)
    ours = confusion_matrix(labels, predicted, n_classes)
    assert ours.dtype == np.int64 and ours.shape == (n_classes, n_classes)
    assert np.array_equal(ours, sklearn_confusion_matrix(labels, predicted, labels=list(range(n_classes))))
    assert np.trace(ours) == (labels == predicted).sum() and ours.sum() == n


def test_confusion_matrix_by_hand():
    assert confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1], 3).tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 1]]


@pytest.mark.parametrize("call, match", [
    (lambda: LeNet5(n_classes=1), "n_classes"),
    (lambda: LeNet5(in_channels=0), "in_channels"),
    (lambda: confusion_matrix([0, 3], [0, 1], 3), "labels"),
    (lambda: confusion_matrix([0, 1], [0, -1], 3), "predicted"),
    (lambda: confusion_matrix([0, 1], [0], 3), "same length"),
    (lambda: confusion_matrix([0.5, 1], [0, 1], 3), "labels"),
    (lambda: predict(LeNet5(), np.zeros((2, 28, 28))), "images"),
    (lambda: predict(LeNet5(), np.full((1, 1, 28, 28), np.nan)), "images"),
    (lambda: predict("model", np.zeros((1, 1, 28, 28))), "model"),
    (lambda: feature_maps(torch.nn.Linear(2, 2), np.zeros((1, 1, 2, 2))), "Conv2d"),
    (lambda: conv_filters(torch.nn.Sequential(torch.nn.ReLU())), "Conv2d"),
    (lambda: shifted_copies(np.zeros((2, 5, 5)), max_shift=5), "max_shift"),
    (lambda: shifted_copies(np.zeros((5, 5)), max_shift=1), "images"),
])
def test_bad_input_is_refused(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
