"""The autograd engine against torch.autograd (float64, 1e-10), op by op and on random graphs."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.nn.autograd import (Tensor, gradient_check, numerical_gradient, relative_error, softmax_cross_entropy,
                                  topological_order, unbroadcast)
from mmir_lib.nn.optim import SGD

TOL = 1e-10


def _pair(array, requires_grad=True):
    return Tensor(array.copy(), requires_grad=requires_grad), torch.tensor(array.copy(), requires_grad=requires_grad)


def _close(ours, theirs, tol=TOL):
    assert ours is not None and theirs is not None
    np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=tol, atol=tol)


def _backward_both(out, out_torch, rng):
    """Seed both with the same random ∂J/∂out (a non-trivial gradient everywhere)."""
    seed = rng.normal(size=out.shape)
    _close(out.data, out_torch)
    (out * seed).sum().backward()
    (out_torch * torch.from_numpy(seed)).sum().backward()


shapes = st.tuples(st.integers(1, 4), st.integers(1, 5))
seeds = st.integers(0, 2**31 - 1)

UNARY = {
    "exp": (lambda t: t.exp(), torch.exp, lambda x: x),
    "log": (lambda t: t.log(), torch.log, lambda x: np.abs(x) + 0.1),
    "tanh": (lambda t: t.tanh(), torch.tanh, lambda x: x),
    "sigmoid": (lambda t: t.sigmoid(), torch.sigmoid, lambda x: 3 * x),
    "relu": (lambda t: t.relu(), torch.relu, lambda x: x),
    "neg": (lambda t: -t, lambda t: -t, lambda x: x),
    "square": (lambda t: t ** 2, lambda t: t ** 2, lambda x: x),
    "cube": (lambda t: t ** 3, lambda t: t ** 3, lambda x: x),
    "sqrt": (lambda t: t ** 0.5, lambda t: t ** 0.5, lambda x: np.abs(x) + 0.1),
    "inverse": (lambda t: t ** -1, lambda t: t ** -1, lambda x: np.abs(x) + 0.5),
    "transpose": (lambda t: t.T, lambda t: t.T, lambda x: x),
    "reshape": (lambda t: t.reshape(-1), lambda t: t.reshape(-1), lambda x: x),
    "reciprocal": (lambda t: 2.0 / t, lambda t: 2.0 / t, lambda x: np.abs(x) + 0.5),
    "rsub": (lambda t: 1.0 - t, lambda t: 1.0 - t, lambda x: x),
}


@pytest.mark.parametrize("name", UNARY)
@settings(max_examples=15, deadline=None)
@given(shape=shapes, seed=seeds)
def test_each_elementwise_op_has_torchs_gradient(name, shape, seed):
    ours_op, torch_op, domain = UNARY[name]
    rng = np.random.default_rng(seed)
    x, xt = _pair(domain(rng.normal(size=shape)))
    _backward_both(ours_op(x), torch_op(xt), rng)
    _close(x.grad, xt.grad)


# b's shape broadcast against a (r, c): a bias per row (r, 1), per column (c,) or (1, c), a scalar
BROADCASTS = {"same": lambda r, c: (r, c), "column bias (r, 1)": lambda r, c: (r, 1), "row (c,)": lambda r, c: (c,),
              "row (1, c)": lambda r, c: (1, c), "scalar ()": lambda r, c: (), "(1,)": lambda r, c: (1,),
              "batch (2, r, c)": lambda r, c: (2, r, c)}
BINARY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b}


@pytest.mark.parametrize("op", BINARY)
@pytest.mark.parametrize("layout", BROADCASTS)
@settings(max_examples=10, deadline=None)
@given(shape=shapes, seed=seeds)
def test_binary_ops_sum_the_gradient_over_broadcast_axes(op, layout, shape, seed):
    rng = np.random.default_rng(seed)
    a, at = _pair(rng.normal(size=shape))
    b, bt = _pair(rng.uniform(0.5, 2.0, size=BROADCASTS[layout](*shape)) * rng.choice([-1, 1]))
    _backward_both(BINARY[op](a, b), BINARY[op](at, bt), rng)
    _close(a.grad, at.grad)
    _close(b.grad, bt.grad)
    assert b.grad.shape == b.shape
    _backward_both(BINARY[op](b, a), BINARY[op](bt, at), rng)  # the other way round: the reflected operators
    _close(a.grad, at.grad)
    _close(b.grad, bt.grad)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1), (1,)])
@pytest.mark.parametrize("keepdims", [False, True])
@settings(max_examples=10, deadline=None)
@given(shape=shapes, seed=seeds)
def test_sum_and_mean_over_axes(axis, keepdims, shape, seed):
    rng = np.random.default_rng(seed)
    x, xt = _pair(rng.normal(size=shape))
    dim = tuple(range(2)) if axis is None else axis
    _backward_both(x.sum(axis, keepdims=keepdims).tanh(), xt.sum(dim=dim, keepdim=keepdims).tanh(), rng)
    _backward_both(x.mean(axis, keepdims=keepdims) ** 2, xt.mean(dim=dim, keepdim=keepdims) ** 2, rng)
    _close(x.grad, xt.grad)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 5), k=st.integers(1, 5), m=st.integers(1, 5), seed=seeds)
def test_matrix_product(n, k, m, seed):
    rng = np.random.default_rng(seed)
    a, at = _pair(rng.normal(size=(n, k)))
    b, bt = _pair(rng.normal(size=(k, m)))
    _backward_both(a @ b, at @ bt, rng)
    _close(a.grad, at.grad)
    _close(b.grad, bt.grad)
    c = rng.normal(size=(m, n))
    _backward_both(c @ a, torch.from_numpy(c) @ at, rng)  # a constant on the left: __rmatmul__
    _close(a.grad, at.grad)


OPS = ["+", "-", "*", "/", "@", "tanh", "sigmoid", "relu", "exp", "square", "sum0", "mean1", "T"]


def _apply(op, x, y, lib):
    # every result is squashed by tanh, so that chains of products and powers stay finite
    out = _raw(op, x, y, lib)
    return out.tanh() if lib == "ours" else torch.tanh(out)


def _raw(op, x, y, lib):
    if op in BINARY:
        return BINARY[op](x, y if op != "/" else y * y + 1.0)
    if op == "@":
        return x @ y.T
    unary = {"tanh": lambda t: t.tanh(), "sigmoid": lambda t: t.sigmoid(), "relu": lambda t: t.relu(),
             "exp": lambda t: (t * 0.3).exp(), "square": lambda t: t ** 2, "T": lambda t: t.T.T}
    if op in unary:
        return unary[op](x)
    if op == "sum0":
        return x.sum(0, keepdims=True) + x if lib == "ours" else x.sum(0, keepdim=True) + x
    return x.mean(1, keepdims=True) * x if lib == "ours" else x.mean(1, keepdim=True) * x


@settings(max_examples=60, deadline=None)
@given(shape=st.integers(1, 4).map(lambda n: (n, n)), seed=seeds,  # square: x @ y.T keeps the shape
       program=st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 50), st.integers(0, 50)), min_size=1,
                        max_size=12))
def test_random_graphs_equal_torch(shape, seed, program):
    """Random programs over a pool of tensors (leaves and results reused freely): all leaf gradients agree."""
    rng = np.random.default_rng(seed)
    leaves = [_pair(rng.normal(size=shape)) for _ in range(3)]
    ours, theirs = [p[0] for p in leaves], [p[1] for p in leaves]
    for op, i, j in program:
        i, j = i % len(ours), j % len(ours)
        ours.append(_apply(op, ours[i], ours[j], "ours"))
        theirs.append(_apply(op, theirs[i], theirs[j], "torch"))
    weights = rng.normal(size=shape)
    loss = sum(((t * weights).sum() for t in ours[3:]), Tensor(0.0))
    loss_torch = sum((t * torch.from_numpy(weights)).sum() for t in theirs[3:])
    np.testing.assert_allclose(loss.item(), loss_torch.item(), rtol=TOL, atol=TOL)
    loss.backward()
    loss_torch.backward()
    for (x, _), xt in zip(leaves, theirs):
        if xt.grad is None:
            assert x.grad is None or not np.any(x.grad)
        else:
            _close(x.grad, xt.grad)


def test_gradients_are_arrays_even_for_scalars():
    x = Tensor(0.5, requires_grad=True)
    (x.exp() * x).backward()
    assert isinstance(x.grad, np.ndarray) and x.grad.shape == () and x.grad == pytest.approx(1.5 * np.exp(0.5))


def test_a_reused_node_accumulates_every_path():
    x = Tensor([1.5, -2.0], requires_grad=True)
    y = x * x + x                                  # dy/dx = 2x + 1 (two paths through x * x, one direct)
    y.sum().backward()
    np.testing.assert_allclose(x.grad, 2 * x.data + 1)
    h = x.tanh()
    z = (h * h * h).sum() + h.sum()                # h used four times
    x.grad = None
    z.backward()
    np.testing.assert_allclose(x.grad, (3 * np.tanh(x.data) ** 2 + 1) * (1 - np.tanh(x.data) ** 2))


def test_leaves_accumulate_over_calls_and_intermediates_restart():
    x = Tensor([2.0], requires_grad=True)
    y = (x * 3.0).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad, [6.0])      # torch's rule: leaves add up until reset
    middle = x * 3.0
    out = middle.sum()
    out.backward()
    out.backward()
    np.testing.assert_allclose(middle.grad, [1.0])


@pytest.mark.parametrize("axis", [1, -1, 0])
@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 6), classes=st.integers(2, 6), seed=seeds)
def test_softmax_cross_entropy_equals_torch(axis, m, classes, seed):
    rng = np.random.default_rng(seed)
    logits = rng.normal(scale=5, size=(m, classes))
    labels = rng.integers(0, classes, size=m)
    z, zt = _pair(logits if axis != 0 else logits.T)
    loss = softmax_cross_entropy(z, labels, axis=axis)
    loss_torch = F.cross_entropy(zt if axis != 0 else zt.T, torch.from_numpy(labels))
    np.testing.assert_allclose(loss.item(), loss_torch.item(), rtol=TOL, atol=TOL)
    (loss * 2.5).backward()
    (loss_torch * 2.5).backward()
    _close(z.grad, zt.grad)


def test_softmax_cross_entropy_is_stable_for_huge_logits():
    z = Tensor([[1000.0, 0.0], [-1000.0, 1000.0]], requires_grad=True)
    loss = softmax_cross_entropy(z, [0, 0])
    assert loss.item() == pytest.approx(1000.0)
    loss.backward()
    assert np.all(np.isfinite(z.grad))


def test_an_mlp_trained_with_the_engine_follows_torch():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(6, 20)), rng.integers(0, 3, size=20)  # the notes' layout: X (n0, m)
    start = [rng.normal(size=(5, 6)) * 0.5, np.zeros((5, 1)), rng.normal(size=(3, 5)) * 0.5, np.zeros((3,))]
    ours = [Tensor(p.copy(), requires_grad=True) for p in start]
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    optimizer, reference = SGD([p.data for p in ours], 0.5, momentum=0.9), torch.optim.SGD(theirs, lr=0.5, momentum=0.9)
    for _ in range(20):
        W1, b1, W2, b2 = ours
        loss = softmax_cross_entropy((W2 @ (W1 @ X + b1).tanh()).T + b2, y)
        for p in ours:
            p.grad = None
        loss.backward()
        optimizer.step([p.grad for p in ours])
        W1, b1, W2, b2 = theirs
        reference.zero_grad()
        F.cross_entropy((W2 @ torch.tanh(W1 @ torch.from_numpy(X) + b1)).T + b2, torch.from_numpy(y)).backward()
        reference.step()
    for p, t in zip(ours, theirs):
        _close(p.data, t)


def test_gradient_check_of_a_correct_network_is_below_1e_7():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(4, 7)), rng.integers(0, 3, size=7)
    W1, b1 = Tensor(rng.normal(size=(5, 4)), True, "W1"), Tensor(rng.normal(size=(5, 1)), True, "b1")
    W2, b2 = Tensor(rng.normal(size=(3, 5)), True, "W2"), Tensor(rng.normal(size=(3, 1)), True, "b2")
    errors = gradient_check(lambda: softmax_cross_entropy(W2 @ (W1 @ X + b1).sigmoid() + b2, y, axis=0),
                            [W1, b1, W2, b2])
    assert set(errors) == {"W1", "b1", "W2", "b2", "all"} and max(errors.values()) < 1e-7
    before = W1.data.copy()
    gradient_check(lambda: (W1 ** 2).sum(), [W1])
    assert np.array_equal(W1.data, before)  # put back after every move


def test_gradient_check_finds_a_wrong_derivative():
    class Broken(Tensor):
        def tanh(self):                            # the derivative of tanh forgotten: 1 instead of 1 − tanh²
            out = Tensor._result(np.tanh(self.data), (self,), "tanh")
            out._backward = lambda g: self._add_grad(g)
            return out

    w = Broken(np.random.default_rng(2).normal(size=(3,)), requires_grad=True)
    assert gradient_check(lambda: (w.tanh() * 2).sum(), [w])["all"] > 1e-2


def test_numerical_gradient_is_centred():
    x = np.array([0.3, -1.2, 2.0])
    g = numerical_gradient(lambda v: float(np.sum(v ** 3)), x, eps=1e-4)
    np.testing.assert_allclose(g, 3 * x ** 2 + 1e-8, rtol=0, atol=1e-7)  # error ε² f'''/6 = 1e-8 per element
    assert relative_error(np.zeros(3), np.zeros(3)) == 0.0
    assert relative_error(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(np.sqrt(2) / 2)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 3), max_size=3), extra=st.lists(st.integers(1, 3), max_size=2), seed=seeds)
def test_unbroadcast_undoes_broadcasting(shape, extra, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(shape)
    wide = tuple(extra) + tuple(n if rng.random() < 0.5 or n != 1 else 3 for n in shape)
    grad = rng.normal(size=wide)
    x = torch.zeros(shape, dtype=torch.float64, requires_grad=True)
    (x * torch.ones(wide, dtype=torch.float64) * torch.from_numpy(grad)).sum().backward()
    np.testing.assert_allclose(unbroadcast(grad, shape), x.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_topological_order_puts_parents_first():
    a = Tensor(1.0, True, "a")
    b = a * 2.0
    c = b + a
    d = c * b
    order = topological_order(d)
    position = {id(t): i for i, t in enumerate(order)}
    assert order[-1] is d and len(order) == 5  # a, the constant 2, b, c, d
    for t in order:
        assert all(position[id(p)] < position[id(t)] for p in t._parents)


def test_only_tensors_that_need_it_get_a_gradient():
    x = Tensor(np.ones((3, 2)))                    # data: no gradient
    w = Tensor(np.ones((2, 2)), requires_grad=True)
    (x @ w).sum().backward()
    assert x.grad is None and w.grad.shape == (2, 2)
    assert not (x * 2.0).requires_grad and (x @ w)._parents


def test_deep_graphs_need_no_recursion():
    x = Tensor(0.5, requires_grad=True)
    y = x
    for _ in range(5000):
        y = y * 1.0
    y.backward()
    assert x.grad == pytest.approx(1.0)


def test_bad_inputs_get_clear_errors():
    x = Tensor(np.ones((2, 3)), requires_grad=True)
    with pytest.raises(ValueError, match=r"backward\(\) of a tensor of shape \(2, 3\).*needs grad"):
        (x * 2.0).backward()
    (x * 2.0).backward(np.ones((2, 3)))            # with a seed it works
    with pytest.raises(ValueError, match="grad must"):
        (x * 2.0).backward(np.ones(3))
    with pytest.raises(ValueError, match=r"other: shapes \(2, 3\) and \(2,\) do not broadcast"):
        x + np.ones(2)
    with pytest.raises(ValueError, match="other: shapes"):
        x * Tensor(np.ones((4, 1)))
    with pytest.raises(ValueError, match="other: shapes .* do not chain"):
        x @ np.ones((2, 2))
    with pytest.raises(ValueError, match="other: @ multiplies two matrices"):
        x @ np.ones(3)
    with pytest.raises(ValueError, match="log needs positive values"):
        (x - 1.0).log()
    with pytest.raises(ValueError, match="other must not contain zeros"):
        x / np.zeros(3)
    with pytest.raises(ValueError, match="exp overflows"):
        (x * 1000.0).exp()
    with pytest.raises(TypeError, match="exponent must be a real number"):
        x ** x
    with pytest.raises(ValueError, match="exponent 0.5 is not an integer"):
        (-x) ** 0.5
    with pytest.raises(ValueError, match="axis 2 is out of range"):
        x.sum(2)
    with pytest.raises(TypeError, match="axis must be"):
        x.mean("rows")
    with pytest.raises(ValueError, match="does not hold the 6 elements"):
        x.reshape(4, 2)
    with pytest.raises(ValueError, match="needs a tensor that depends on one created with requires_grad"):
        Tensor([1.0]).backward()
    with pytest.raises(TypeError, match="data must hold numbers, not booleans"):
        Tensor(np.array([True, False]))
    with pytest.raises(ValueError, match="labels must hold one class per example"):
        softmax_cross_entropy(x, [0, 1, 2])
    with pytest.raises(ValueError, match="labels must hold values <= 2|labels"):
        softmax_cross_entropy(x, [0, 3])
    with pytest.raises(ValueError, match="params\\[0\\] must be a writeable leaf"):
        gradient_check(lambda: (x * 2.0).sum(), [x * 2.0])
    with pytest.raises(TypeError, match="loss must return a scalar Tensor"):
        gradient_check(lambda: x * 2.0, [x])
