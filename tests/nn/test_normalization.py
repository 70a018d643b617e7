import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.nn.normalization import BatchNorm, standardization, standardize


def _torch_pair(num_features, momentum, eps, rng):
    ours = BatchNorm(num_features, eps=eps, momentum=momentum)
    theirs = torch.nn.BatchNorm1d(num_features, eps=eps, momentum=momentum, dtype=torch.float64)
    ours.gamma[:] = rng.normal(size=num_features)
    ours.beta[:] = rng.normal(size=num_features)
    with torch.no_grad():
        theirs.weight.copy_(torch.from_numpy(ours.gamma))
        theirs.bias.copy_(torch.from_numpy(ours.beta))
    return ours, theirs


def _step(ours, theirs, x, grad, training):
    theirs.train(training)
    theirs.weight.grad = theirs.bias.grad = None
    xt = torch.tensor(x, requires_grad=True)
    y = theirs(xt)
    y.backward(torch.from_numpy(grad))
    out = ours.forward(x, training=training)
    grad_x = ours.backward(grad)
    gaps = {"output": np.abs(out - y.detach().numpy()).max(),
            "grad_x": np.abs(grad_x - xt.grad.numpy()).max(),
            "grad_gamma": np.abs(ours.grad_gamma - theirs.weight.grad.numpy()).max(),
            "grad_beta": np.abs(ours.grad_beta - theirs.bias.grad.numpy()).max(),
            "running_mean": np.abs(ours.running_mean - theirs.running_mean.numpy()).max(),
            "running_var": np.abs(ours.running_var - theirs.running_var.numpy()).max()}
    return gaps


@pytest.mark.parametrize("momentum, eps", [(0.1, 1e-5), (0.3, 1e-3), (1.0, 1e-5), (0.0, 1e-5)])
def test_equals_torch_batchnorm1d_in_both_modes(momentum, eps):
    rng = np.random.default_rng(0)
    ours, theirs = _torch_pair(6, momentum, eps, rng)
    for step in range(10):  # training batches of varying size, shifted and scaled per feature
        n = int(rng.integers(2, 40))
        x = rng.normal(size=(n, 6)) * rng.uniform(0.1, 5, size=6) + rng.normal(0, 3, size=6)
        gaps = _step(ours, theirs, x, rng.normal(size=(n, 6)), training=True)
        assert max(gaps.values()) <= 1e-10, (step, gaps)
    for n in (1, 5):  # test mode: running statistics, any batch size
        gaps = _step(ours, theirs, rng.normal(size=(n, 6)), rng.normal(size=(n, 6)), training=False)
        assert max(gaps.values()) <= 1e-10, gaps
    assert ours.num_batches_tracked == int(theirs.num_batches_tracked) == 10


@settings(max_examples=60, deadline=None)
@given(x=arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 5)),
                elements=st.floats(-1e3, 1e3, allow_nan=False)),
       shift=st.floats(-100, 100), scale=st.floats(0.5, 50))
def test_training_output_has_zero_mean_and_unit_variance_per_feature(x, shift, scale):
    x = x * scale + shift
    bn = BatchNorm(x.shape[1])  # eps = 1e-5
    y = bn.forward(x)
    np.testing.assert_allclose(y.mean(axis=0), 0, atol=1e-8)
    var = x.var(axis=0)  # the variance is σ² / (σ² + ε): 1 up to ε (0 for a constant feature)
    np.testing.assert_allclose(y.var(axis=0), var / (var + 1e-5), rtol=1e-8, atol=1e-8)
    assert np.all(np.abs(y.var(axis=0)[var > 1.0] - 1) < 1e-5)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 20), seed=st.integers(0, 2**32 - 1))
def test_backward_equals_centred_differences(n, seed):
    rng = np.random.default_rng(seed)
    x, w = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    bn = BatchNorm(3)
    bn.gamma[:] = rng.normal(size=3)

    def loss(x_):
        return float(np.sum(BatchNorm.forward(_fresh(bn), x_) * w))

    bn.forward(x)
    grad = bn.backward(w)
    h = 1e-6
    numeric = np.zeros_like(x)
    for index in np.ndindex(*x.shape):
        e = np.zeros_like(x)
        e[index] = h
        numeric[index] = (loss(x + e) - loss(x - e)) / (2 * h)
    np.testing.assert_allclose(grad, numeric, atol=1e-6 * (1 + np.abs(numeric).max()))


def _fresh(bn):
    copy = BatchNorm(bn.num_features, bn.eps, bn.momentum)
    copy.gamma[:], copy.beta[:] = bn.gamma, bn.beta
    return copy


def test_gradients_sum_to_zero_over_the_batch_in_training_mode():
    rng = np.random.default_rng(3)
    bn = BatchNorm(4)
    bn.forward(rng.normal(size=(9, 4)))
    grad = bn.backward(rng.normal(size=(9, 4)))
    np.testing.assert_allclose(grad.sum(axis=0), 0, atol=1e-12)  # shifting every row changes nothing


def test_test_mode_leaves_running_statistics_alone_and_is_row_by_row():
    rng = np.random.default_rng(4)
    bn = BatchNorm(3, momentum=0.5)
    bn.forward(rng.normal(5, 2, size=(20, 3)))
    mean, var = bn.running_mean.copy(), bn.running_var.copy()
    x = rng.normal(size=(6, 3))
    together = bn.forward(x, training=False)
    one_by_one = np.vstack([bn.forward(row[None], training=False) for row in x])
    np.testing.assert_array_equal(together, one_by_one)
    assert np.array_equal(mean, bn.running_mean) and np.array_equal(var, bn.running_var)
    assert bn.num_batches_tracked == 1


def test_running_statistics_converge_to_the_data_statistics():
    rng = np.random.default_rng(5)
    bn = BatchNorm(2, momentum=0.1)
    for _ in range(300):
        bn.forward(rng.normal([1.0, -2.0], [0.5, 3.0], size=(64, 2)))
    np.testing.assert_allclose(bn.running_mean, [1.0, -2.0], atol=0.15)
    np.testing.assert_allclose(bn.running_var, [0.25, 9.0], rtol=0.15)


def test_bad_batches_are_refused():
    bn = BatchNorm(3)
    with pytest.raises(ValueError, match="batch of 1 row"):
        bn.forward(np.ones((1, 3)))
    assert bn.forward(np.ones((1, 3)), training=False).shape == (1, 3)
    with pytest.raises(ValueError, match="x must not be empty"):
        bn.forward(np.ones((0, 3)))
    with pytest.raises(ValueError, match=r"x must have shape \(any, 3\)"):
        bn.forward(np.ones((4, 2)))
    with pytest.raises(ValueError, match="x must hold finite"):
        bn.forward(np.array([[1.0, np.nan, 0.0], [0.0, 1.0, 2.0]]))
    with pytest.raises(RuntimeError, match="forward"):
        BatchNorm(3).backward(np.ones((2, 3)))
    bn.forward(np.ones((4, 3)))
    with pytest.raises(ValueError, match="grad_out must have the shape"):
        bn.backward(np.ones((5, 3)))
    with pytest.raises(ValueError, match="momentum must be <= 1"):
        BatchNorm(3, momentum=1.5)


def test_standardization_uses_training_statistics_and_keeps_constant_features():
    rng = np.random.default_rng(6)
    train = np.column_stack([rng.normal(4, 2, 500), np.zeros(500), rng.uniform(0, 10, 500)])
    mean, std = standardization(train)
    z = standardize(train, mean, std)
    np.testing.assert_allclose(z.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(z.std(axis=0), [1, 0, 1], atol=1e-12)
    dev = train[:10] + 1.0
    np.testing.assert_allclose(standardize(dev, mean, std), (dev - mean) / std)
    with pytest.raises(ValueError, match="std must be positive"):
        standardize(dev, mean, np.zeros(3))
    with pytest.raises(ValueError, match="mean must have shape"):
        standardize(dev, mean[:2], std)
