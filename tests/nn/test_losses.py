import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.lm.sampling import softmax
from mmir_lib.nn.losses import (binary_cross_entropy_gradient, binary_cross_entropy_with_logits, sigmoid,
                                sigmoid_derivative, softmax_cross_entropy, softmax_cross_entropy_gradient)

LOGITS = st.floats(-50, 50, allow_nan=False)


def _centred(f, z, h=1e-6):
    """Centred differences of the scalar function f at every entry of z."""
    grad = np.zeros_like(z)
    for index in np.ndindex(z.shape):
        step = np.zeros_like(z)
        step[index] = h
        grad[index] = (f(z + step) - f(z - step)) / (2 * h)
    return grad


def test_sigmoid_is_stable_and_symmetric():
    z = np.array([-1000.0, -745.0, -40.0, -1.0, 0.0, 1.0, 40.0, 1000.0])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # no overflow on the way
        s = sigmoid(z)
    assert np.all(np.isfinite(s)) and s[0] == 0.0 and s[-1] == 1.0 and s[4] == 0.5
    np.testing.assert_allclose(s, torch.sigmoid(torch.from_numpy(z)).numpy(), rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(sigmoid(-z), 1 - s, atol=1e-16)
    assert isinstance(sigmoid(np.float32(0.5)), float) and sigmoid_derivative(0) == 0.25


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, st.integers(1, 6), elements=LOGITS))
def test_sigmoid_derivative_equals_centred_differences(z):
    h = 1e-6
    np.testing.assert_allclose(sigmoid_derivative(z), (sigmoid(z + h) - sigmoid(z - h)) / (2 * h), atol=1e-8)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8).flatmap(lambda m: st.tuples(arrays(np.float64, m, elements=LOGITS),
                                                     arrays(np.float64, m, elements=st.floats(0, 1)))))
def test_binary_cross_entropy_is_nonnegative_and_its_gradient_is_centred_differences(pair):
    z, y = pair
    per_value = binary_cross_entropy_with_logits(z, y, reduction="none")
    assert per_value.shape == z.shape and np.all(per_value >= 0)
    numeric = _centred(lambda t: binary_cross_entropy_with_logits(t, y), z)
    np.testing.assert_allclose(binary_cross_entropy_gradient(z, y), numeric, atol=1e-7)


@settings(max_examples=60, deadline=None)
@given(st.tuples(st.integers(1, 6), st.integers(2, 5)).flatmap(
    lambda mc: st.tuples(arrays(np.float64, mc, elements=LOGITS),
                         arrays(np.int64, mc[0], elements=st.integers(0, mc[1] - 1)))))
def test_softmax_rows_sum_to_one_and_the_gradient_is_centred_differences(pair):
    z, y = pair
    np.testing.assert_allclose(softmax(z).sum(axis=1), 1.0, atol=1e-12)
    assert softmax_cross_entropy(z, y) >= 0
    numeric = _centred(lambda t: softmax_cross_entropy(t, y), z)
    gradient = softmax_cross_entropy_gradient(z, y)
    np.testing.assert_allclose(gradient, numeric, atol=1e-7)
    np.testing.assert_allclose(gradient.sum(axis=1), 0.0, atol=1e-15)  # adding c to a row changes nothing


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_and_gradients_equal_torch_in_float64(reduction):
    rng = np.random.default_rng(0)
    z = rng.normal(scale=5, size=(40, 7))
    z[0, :] = [1000, -1000, 0, 3, -3, 500, -500]            # extreme logits: finite, as torch's
    labels = rng.integers(0, 7, size=40)
    targets = rng.random(40)
    for ours, theirs, args in [
        (softmax_cross_entropy, F.cross_entropy, (z, labels)),
        (binary_cross_entropy_with_logits, F.binary_cross_entropy_with_logits, (z[:, 0], targets)),
        (binary_cross_entropy_with_logits, F.binary_cross_entropy_with_logits, (z[:, :3], targets[:, None] * [1, 0, 1])),
    ]:
        logits = torch.tensor(args[0], requires_grad=True)
        reference = theirs(logits, torch.tensor(args[1]), reduction=reduction)
        value = ours(*args, reduction=reduction)
        np.testing.assert_allclose(value, reference.detach().numpy(), rtol=1e-12, atol=1e-12)
        reference.sum().backward()
        gradient = (softmax_cross_entropy_gradient if ours is softmax_cross_entropy
                    else binary_cross_entropy_gradient)(*args, reduction=reduction)
        np.testing.assert_allclose(gradient, logits.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_no_nan_at_extreme_logits():
    z = np.array([-1000.0, 1000.0, -1000.0, 1000.0])
    y = np.array([0.0, 1.0, 1.0, 0.0])
    losses = binary_cross_entropy_with_logits(z, y, reduction="none")
    np.testing.assert_array_equal(losses, [0.0, 0.0, 1000.0, 1000.0])
    np.testing.assert_array_equal(binary_cross_entropy_gradient(z, y, reduction="sum"), [0, 0, -1, 1])
    assert softmax_cross_entropy(np.array([[1000.0, -1000.0]]), [1]) == 2000.0


@pytest.mark.parametrize("call, error, argument", [
    (lambda: sigmoid([np.nan]), ValueError, "z"),
    (lambda: binary_cross_entropy_with_logits([0.0, np.nan], [0, 1]), ValueError, "logits"),
    (lambda: binary_cross_entropy_with_logits([0.0, 1.0], [0, 1, 1]), ValueError, "targets"),
    (lambda: binary_cross_entropy_with_logits([0.0, 1.0], [0, 2]), ValueError, "targets"),
    (lambda: binary_cross_entropy_with_logits([], []), ValueError, "logits"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), [0, 3]), ValueError, "labels"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), [0, -1]), ValueError, "labels"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), [0.0, 1.0]), TypeError, "labels"),
    (lambda: softmax_cross_entropy(np.zeros((2, 3)), [0]), ValueError, "labels"),
    (lambda: softmax_cross_entropy(np.zeros(3), [0]), ValueError, "logits"),
    (lambda: softmax_cross_entropy(np.zeros((2, 1)), [0, 0]), ValueError, "logits"),
    (lambda: softmax_cross_entropy(np.zeros((0, 3)), []), ValueError, "logits"),
    (lambda: softmax_cross_entropy_gradient(np.zeros((2, 3)), [0, 1], reduction="max"), ValueError, "reduction"),
])
def test_bad_inputs_name_the_argument(call, error, argument):
    with pytest.raises(error, match=argument):
        call()
