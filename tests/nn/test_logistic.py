import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression as SkLogisticRegression

from mmir_lib.data import digits
from mmir_lib.nn.logistic import LogisticRegression, SoftmaxRegression, accuracy


def _standardised_digits(classes=None):
    train = digits("train")
    X, y = train.images.reshape(len(train), -1), train.labels
    if classes is not None:
        keep = np.isin(y, classes)
        X, y = X[keep], (y[keep] == classes[1]).astype(np.int64)
    mean, std = X.mean(axis=0), X.std(axis=0)
    return (X - mean) / np.where(std > 0, std, 1.0), y


def _random_model(model, seed=0):
    rng = np.random.default_rng(seed)
    for p in model.params:
        p[...] = rng.normal(scale=0.5, size=p.shape)
    return model


@pytest.mark.parametrize("make", [lambda: LogisticRegression(4, lam=0.7), lambda: SoftmaxRegression(4, 3, lam=0.7)],
                         ids=["logistic", "softmax"])
def test_gradients_equal_centred_differences_and_torch_autograd(make):
    rng = np.random.default_rng(1)
    model = _random_model(make())
    X = rng.normal(size=(9, 4))
    y = rng.integers(0, 2 if isinstance(model, LogisticRegression) else 3, size=9)
    grads = model.gradients(X, y)
    h = 1e-6
    for p, g in zip(model.params, grads):
        assert g.shape == p.shape
        numeric = np.zeros_like(p)
        for index in np.ndindex(p.shape):
            saved = p[index]
            p[index] = saved + h
            up = model.objective(X, y)
            p[index] = saved - h
            down = model.objective(X, y)
            p[index] = saved
            numeric[index] = (up - down) / (2 * h)
        np.testing.assert_allclose(g, numeric, atol=1e-7)
    W, b = (torch.tensor(p.copy(), requires_grad=True) for p in model.params)
    z = torch.from_numpy(X) @ W + b
    if isinstance(model, LogisticRegression):
        loss = F.binary_cross_entropy_with_logits(z, torch.tensor(y, dtype=torch.float64))
    else:
        loss = F.cross_entropy(z, torch.from_numpy(y))
    J = loss + model.lam / (2 * len(X)) * (W ** 2).sum()
    J.backward()
    assert model.objective(X, y) == pytest.approx(J.item(), rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grads[0], W.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grads[1], b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_binary_fit_reaches_scikit_learns_weights():
    X, y = _standardised_digits(classes=[1, 7])
    X = X[:, [10, 20, 27, 36, 44]]                       # five pixels: overlapping classes
    lam = 2.0
    model = LogisticRegression(X.shape[1], lam=lam)
    history = model.fit(X, y, lr=1.0, epochs=20_000, momentum=0.9, tol=1e-11)
    assert history[-1] < history[0] and len(history) < 20_000   # converged before the last epoch
    reference = SkLogisticRegression(C=1 / lam, l1_ratio=0, solver="lbfgs", tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(model.W, reference.coef_[0], atol=1e-6)
    assert model.b == pytest.approx(reference.intercept_[0], abs=1e-6)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X)[:, 1], atol=1e-7)
    np.testing.assert_array_equal(model.predict(X), reference.predict(X))


def test_softmax_fit_reaches_scikit_learns_weights():
    X, y = _standardised_digits()
    lam = 10.0
    model = SoftmaxRegression(64, 10, lam=lam)
    model.fit(X, y, lr=1.0, epochs=5_000, momentum=0.9, tol=1e-9)
    reference = SkLogisticRegression(C=1 / lam, l1_ratio=0, solver="lbfgs", tol=1e-10, max_iter=100_000).fit(X, y)
    # softmax is unchanged by adding a constant to every bias; ours start at 0 and keep mean 0
    np.testing.assert_allclose(model.b.sum(), 0, atol=1e-12)
    np.testing.assert_allclose(model.W, reference.coef_.T, atol=1e-5)
    np.testing.assert_allclose(model.b, reference.intercept_ - reference.intercept_.mean(), atol=1e-5)
    np.testing.assert_allclose(model.predict_proba(X), reference.predict_proba(X), atol=1e-6)


def test_mini_batches_and_accuracy():
    X, y = _standardised_digits()
    model = SoftmaxRegression(64, 10, lam=1.0)
    history = model.fit(X, y, lr=0.1, epochs=5, batch_size=32, seed=3)
    assert history.shape == (5,) and history[-1] < history[0] < np.log(10)
    assert accuracy(y, model.predict(X)) > 0.9
    again = SoftmaxRegression(64, 10, lam=1.0)
    again.fit(X, y, lr=0.1, epochs=5, batch_size=32, seed=3)
    np.testing.assert_array_equal(again.W, model.W)  # the seed fixes the batches
    assert accuracy([0, 1, 2, 3], [0, 1, 0, 3]) == 0.75


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(2, 6), st.integers(1, 10), st.integers(0, 1000))
def test_probabilities_are_distributions(n, c, m, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(scale=20, size=(m, n))
    softmax_model = _random_model(SoftmaxRegression(n, c), seed)
    p = softmax_model.predict_proba(X)
    assert p.shape == (m, c) and np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_array_equal(softmax_model.predict(X), np.argmax(p, axis=1))
    binary = _random_model(LogisticRegression(n), seed)
    q = binary.predict_proba(X)
    assert q.shape == (m,) and np.all((q >= 0) & (q <= 1))
    np.testing.assert_array_equal(binary.predict(X), (q >= 0.5).astype(int))


def test_a_two_class_softmax_is_a_logistic_regression():
    # softmax over logits (0, z) is σ(z): the weights of class 1 minus those of class 0
    rng = np.random.default_rng(2)
    X = rng.normal(size=(20, 3))
    model = _random_model(SoftmaxRegression(3, 2))
    binary = LogisticRegression(3)
    binary.W[:] = model.W[:, 1] - model.W[:, 0]
    binary.b[...] = model.b[1] - model.b[0]
    np.testing.assert_allclose(model.predict_proba(X)[:, 1], binary.predict_proba(X), atol=1e-15)


@pytest.mark.parametrize("call, error, argument", [
    (lambda: LogisticRegression(3, lam=-1.0), ValueError, "lam"),
    (lambda: LogisticRegression(0), ValueError, "n_features"),
    (lambda: SoftmaxRegression(3, 1), ValueError, "n_classes"),
    (lambda: LogisticRegression(3).fit(np.zeros((2, 3)), [0, 2]), ValueError, "y"),
    (lambda: LogisticRegression(3).fit(np.zeros((2, 3)), [0, 1, 1]), ValueError, "y"),
    (lambda: LogisticRegression(3).fit(np.zeros((2, 4)), [0, 1]), ValueError, "X"),
    (lambda: LogisticRegression(3).fit(np.full((2, 3), np.nan), [0, 1]), ValueError, "X"),
    (lambda: LogisticRegression(3).fit(np.zeros((0, 3)), []), ValueError, "X"),
    (lambda: SoftmaxRegression(3, 4).fit(np.zeros((2, 3)), [0, 4]), ValueError, "y"),
    (lambda: SoftmaxRegression(3, 4).fit(np.zeros((2, 3)), [0.0, 1.0]), TypeError, "y"),
    (lambda: SoftmaxRegression(3, 4).fit(np.zeros((2, 3)), [0, 1], lr=0), ValueError, "lr"),
    (lambda: SoftmaxRegression(3, 4).fit(np.zeros((2, 3)), [0, 1], batch_size=0), ValueError, "batch_size"),
    (lambda: SoftmaxRegression(3, 4).predict(np.zeros((2, 2))), ValueError, "X"),
    (lambda: accuracy([0, 1], [0]), ValueError, "predictions"),
])
def test_bad_inputs_name_the_argument(call, error, argument):
    with pytest.raises(error, match=argument):
        call()


def test_divergence_is_an_error_not_a_nan():
    X = np.array([[1e3, -1e3], [2e3, 1e3]])
    with np.errstate(over="ignore", invalid="ignore"):
        with pytest.raises(ValueError, match="lr = 1e\\+300"):
            LogisticRegression(2).fit(X, [0, 1], lr=1e300, epochs=50)
