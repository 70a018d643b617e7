"""A small reverse-mode automatic differentiation engine over numpy arrays.

A :class:`Tensor` holds a float64 array ``data`` and, after :meth:`Tensor.backward`, the
gradient ``grad`` = ∂J/∂data of a scalar J, an array of the same shape. Every operation
on tensors computes its result (the *forward*) and records, beside it, a closure that
turns the gradient of the result into the gradients of its inputs (the *backward*, the
chain rule for that one operation), as Karpathy's micrograd does for scalars:

=====================  ==============================  =====================================
operation              forward                         backward (g = ∂J/∂out)
=====================  ==============================  =====================================
``a + b``, ``a - b``   a + b, a − b                    g, ±g (summed over broadcast axes)
``a * b``              a ⊙ b                           g ⊙ b, g ⊙ a
``a / b``              a / b                           g / b, −g ⊙ a / b²
``a ** p`` (p a number)  aᵖ                            g ⊙ p aᵖ⁻¹
``A @ B`` (2-D)        A B  (n, k) (k, m) → (n, m)     g Bᵀ, Aᵀ g
``x.sum(axis)``        Σ over axis                     g copied back along axis
``x.mean(axis)``       Σ / count                       g / count, copied back
``exp``, ``log``       eˣ, ln x                        g ⊙ eˣ, g / x
``tanh``, ``sigmoid``  tanh x, σ(x)                    g ⊙ (1 − tanh² x), g ⊙ σ (1 − σ)
``relu``               max(0, x)                       g ⊙ [x > 0]
``reshape``, ``T``     same numbers, new shape         g reshaped / transposed back
:func:`softmax_cross_entropy`  −(1/m) Σᵢ log softmax(zᵢ)[yᵢ]   (softmax(z) − onehot(y)) / m
=====================  ==============================  =====================================

:meth:`Tensor.backward` visits the graph in reverse topological order
(:func:`topological_order`), so that a node's gradient is complete, summed over every
path to J, before it is passed on; a tensor used twice receives two contributions,
which add. Operations broadcast as numpy does; the gradient of an input that was
broadcast is summed back to its shape (:func:`unbroadcast`). Gradients are only computed
for tensors that need them: leaves created with ``requires_grad=True`` and the results
that depend on them (the input images of a network get none).

:func:`numerical_gradient` and :func:`gradient_check` compare backpropagation with
centred differences, (J(θ + ε) − J(θ − ε)) / 2ε, by the relative error
‖g − g_num‖ / (‖g‖ + ‖g_num‖) (:func:`relative_error`).

The engine's gradients equal ``torch.autograd``'s in float64 (tests/nn/test_autograd.py).
Limits, stated rather than half-supported: matrix products of 2-D tensors only, powers
with a constant exponent, no indexing.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np

from ..validation import check_array, check_bool, check_callable, check_choice, check_list, check_number, \
    check_str, describe
from .losses import _softmax_losses

__all__ = ["Tensor", "unbroadcast", "topological_order", "softmax_cross_entropy", "numerical_gradient",
           "relative_error", "gradient_check"]


def unbroadcast(grad, shape) -> np.ndarray:
    """Sum ``grad`` over the axes that broadcasting added to or stretched in ``shape``.

    If x of shape ``shape`` was broadcast to ``grad.shape`` in the forward pass, each of
    its elements was used once per copy, so its gradient is the sum over the copies:
    leading axes are summed away, and axes of length 1 in ``shape`` are summed with
    keepdims. ``unbroadcast(np.ones((4, 3)), (3,))`` is ``[4., 4., 4.]``.
    """
    grad = check_array("grad", grad)
    shape = _check_shape("shape", shape)
    try:
        fits = np.broadcast_shapes(shape, grad.shape) == grad.shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"grad must have shape {shape} or a broadcast of it, got shape {grad.shape}")
    return _unbroadcast(grad, shape)


def _unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray:
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1)
    return grad.sum(axis=axes).reshape(shape)


class Tensor:
    """A float64 array with a gradient: the node of a computational graph.

    Parameters
    ----------
    data : array-like of numbers (not bool), finite, not empty; kept as a float64 array
        (not copied when it is one already, so an optimiser can update it in place).
    requires_grad : whether :meth:`backward` computes ``grad`` for this tensor.
    name : a label for figures of the graph.

    Examples
    --------
    >>> a, b = Tensor(3.0, requires_grad=True), Tensor(1.0, requires_grad=True)
    >>> L = (a + 2 * b) * -2.0
    >>> L.backward()
    >>> L.item(), a.grad.item(), b.grad.item()
    (-10.0, -2.0, -4.0)
    """

    __array_ufunc__ = None  # ndarray * Tensor calls Tensor.__rmul__, not numpy's elementwise loop

    def __init__(self, data, requires_grad: bool = False, name: str = ""):
        if isinstance(data, Tensor):
            raise TypeError("data must be an array, not a Tensor (use tensor.data)")
        self.data = _check_numbers("data", data)
        self.requires_grad = check_bool("requires_grad", requires_grad)
        self.name = check_str("name", name, allow_empty=True)
        self.grad = None
        self.op = ""                    # the operation that made this tensor ("" for a leaf)
        self._parents = ()
        self._backward = None           # g ↦ contributions to the parents' grads

    @classmethod
    def _result(cls, data, parents: tuple, op: str) -> "Tensor":
        """A new node: no checks (its inputs were checked), parents kept only if a gradient flows."""
        out = cls.__new__(cls)
        out.data = np.asarray(data, dtype=np.float64)
        out.requires_grad = any(p.requires_grad for p in parents)
        out.name, out.grad, out.op = "", None, op
        out._parents = parents if out.requires_grad else ()
        out._backward = None
        return out

    def _add_grad(self, g: np.ndarray) -> None:
        """Accumulate ∂J/∂self from one path (summed over broadcast axes first)."""
        g = _unbroadcast(np.asarray(g), self.data.shape)   # (numpy turns 0-d results into scalars)
        self.grad = g if self.grad is None else np.asarray(self.grad + g)

    # ---- shape and display ----------------------------------------------------------
    shape = property(lambda self: self.data.shape)
    ndim = property(lambda self: self.data.ndim)
    parents = property(lambda self: self._parents, doc="The tensors this one was computed from (none for a leaf).")

    def item(self) -> float:
        """The value of a one-element tensor as a Python float."""
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor of one element, got shape {self.data.shape}")
        return float(self.data.reshape(()))

    def __repr__(self) -> str:
        label = f", name={self.name!r}" if self.name else ""
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor(shape={self.data.shape}{grad}{label}, op={self.op or 'leaf'!r})"

    # ---- elementwise arithmetic (numpy broadcasting) ------------------------------------
    def __add__(self, other):
        other = _operand(other, "other", self)
        out = Tensor._result(self.data + other.data, (self, other), "+")

        def backward(g):
            if self.requires_grad:
                self._add_grad(g)
            if other.requires_grad:
                other._add_grad(g)
        out._backward = backward
        return out

    def __mul__(self, other):
        other = _operand(other, "other", self)
        out = Tensor._result(self.data * other.data, (self, other), "*")

        def backward(g):
            if self.requires_grad:
                self._add_grad(g * other.data)
            if other.requires_grad:
                other._add_grad(g * self.data)
        out._backward = backward
        return out

    def __truediv__(self, other):
        other = _operand(other, "other", self)
        if not np.all(other.data):
            raise ValueError("other must not contain zeros (division by zero)")
        out = Tensor._result(self.data / other.data, (self, other), "/")

        def backward(g):
            if self.requires_grad:
                self._add_grad(g / other.data)
            if other.requires_grad:
                other._add_grad(-g * out.data / other.data)   # −g a / b² = −g (a / b) / b
        out._backward = backward
        return out

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor) or isinstance(exponent, (bool, np.bool_)) or not isinstance(exponent, Real):
            raise TypeError(f"exponent must be a real number (a constant), got {describe(exponent)}")
        p = check_number("exponent", exponent)
        if p != int(p) and np.any(self.data < 0):
            raise ValueError(f"exponent {p:g} is not an integer and the base has negative values")
        if p < 0 and not np.all(self.data):
            raise ValueError(f"exponent {p:g} is negative and the base has zeros")
        out = Tensor._result(self.data ** p, (self,), f"**{p:g}")

        def backward(g):
            self._add_grad(g * (p * self.data ** (p - 1)) if p else np.zeros_like(g))
        out._backward = backward
        return out

    def __neg__(self):
        out = Tensor._result(-self.data, (self,), "neg")
        out._backward = lambda g: self._add_grad(-g)
        return out

    def __sub__(self, other):
        other = _operand(other, "other", self)
        out = Tensor._result(self.data - other.data, (self, other), "-")

        def backward(g):
            if self.requires_grad:
                self._add_grad(g)
            if other.requires_grad:
                other._add_grad(-g)
        out._backward = backward
        return out

    def __radd__(self, other):                      # other + self
        return self + other

    def __rmul__(self, other):                      # other * self
        return self * other

    def __rsub__(self, other):                      # other - self
        return _operand(other, "other", self) - self

    def __rtruediv__(self, other):                  # other / self
        return _operand(other, "other", self) / self

    # ---- matrix product ------------------------------------------------------------------
    def __matmul__(self, other):
        other = _operand(other, "other", self, broadcast=False)
        if self.ndim != 2 or other.ndim != 2:
            raise ValueError(f"other: @ multiplies two matrices (2-D; reshape a vector to (n, 1)), "
                             f"got shapes {self.shape} and {other.shape}")
        if self.shape[1] != other.shape[0]:
            raise ValueError(f"other: shapes {self.shape} @ {other.shape} do not chain "
                             f"({self.shape[1]} columns against {other.shape[0]} rows)")
        out = Tensor._result(self.data @ other.data, (self, other), "@")

        def backward(g):                            # g: (n, m); self: (n, k); other: (k, m)
            if self.requires_grad:
                self._add_grad(g @ other.data.T)    # (n, m) (m, k) → (n, k)
            if other.requires_grad:
                other._add_grad(self.data.T @ g)    # (k, n) (n, m) → (k, m)
        out._backward = backward
        return out

    def __rmatmul__(self, other):                   # other @ self
        return _operand(other, "other", self, broadcast=False) @ self

    # ---- reductions ----------------------------------------------------------------------
    def sum(self, axis=None, keepdims: bool = False):
        """Σ over ``axis`` (None: all axes; an int or a tuple of ints), as numpy's sum."""
        axes = _check_axes(axis, self.ndim)
        keepdims = check_bool("keepdims", keepdims)
        out = Tensor._result(self.data.sum(axis=axes, keepdims=keepdims), (self,), "sum")

        def backward(g):                            # every summed element gets g
            kept = g if keepdims else np.expand_dims(g, axes)
            self._add_grad(np.broadcast_to(kept, self.shape))
        out._backward = backward
        return out

    def mean(self, axis=None, keepdims: bool = False):
        """The mean over ``axis``: the sum divided by the number of elements summed."""
        axes = _check_axes(axis, self.ndim)
        count = math.prod(self.shape[a] for a in axes)
        return self.sum(axes, keepdims) * (1.0 / count)

    # ---- elementwise functions -------------------------------------------------------------
    def exp(self):
        with np.errstate(over="ignore"):
            e = np.exp(self.data)
        if not np.all(np.isfinite(e)):
            raise ValueError(f"exp overflows: the tensor holds values up to {self.data.max():g} (> 709)")
        out = Tensor._result(e, (self,), "exp")
        out._backward = lambda g: self._add_grad(g * e)
        return out

    def log(self):
        if not np.all(self.data > 0):
            raise ValueError(f"log needs positive values, the tensor holds {self.data.min():g}")
        out = Tensor._result(np.log(self.data), (self,), "log")
        out._backward = lambda g: self._add_grad(g / self.data)
        return out

    def tanh(self):
        t = np.tanh(self.data)
        out = Tensor._result(t, (self,), "tanh")
        out._backward = lambda g: self._add_grad(g * (1.0 - t * t))
        return out

    def sigmoid(self):
        s = 0.5 * (np.tanh(0.5 * self.data) + 1.0)   # = 1 / (1 + e⁻ˣ), without overflow
        out = Tensor._result(s, (self,), "sigmoid")
        out._backward = lambda g: self._add_grad(g * (s * (1.0 - s)))
        return out

    def relu(self):
        positive = self.data > 0
        out = Tensor._result(self.data * positive, (self,), "relu")
        out._backward = lambda g: self._add_grad(g * positive)  # derivative 0 at x = 0, as torch
        return out

    # ---- shape changes ---------------------------------------------------------------------
    def reshape(self, *shape):
        """The same numbers in a new shape (``reshape(2, 3)`` or ``reshape((2, 3))``; -1 allowed)."""
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        shape = _check_shape("shape", shape, allow_minus_one=True)
        try:
            data = self.data.reshape(shape)
        except ValueError:
            raise ValueError(f"shape {shape} does not hold the {self.data.size} elements of "
                             f"shape {self.shape}") from None
        out = Tensor._result(data, (self,), "reshape")
        out._backward = lambda g: self._add_grad(g.reshape(self.shape))
        return out

    def transpose(self, axes=None):
        """The axes in the order ``axes`` (None: reversed, as numpy)."""
        order = tuple(reversed(range(self.ndim))) if axes is None else tuple(_check_axes(axes, self.ndim))
        if len(order) != self.ndim:
            raise ValueError(f"axes must list each of the {self.ndim} axes once, got {axes!r}")
        out = Tensor._result(self.data.transpose(order), (self,), "T")
        out._backward = lambda g: self._add_grad(g.transpose(np.argsort(order)))
        return out

    T = property(transpose)

    # ---- the backward pass ---------------------------------------------------------------
    def backward(self, grad=None) -> None:
        """Backpropagate: add ∂J/∂t to ``t.grad`` for every tensor t this one depends on.

        ``grad`` is the seed ∂J/∂self: 1 for a scalar J (the default); for a tensor of more
        than one element it must be given (an array of this tensor's shape). Leaves
        accumulate over calls (set ``t.grad = None`` between steps); the gradients of
        intermediate nodes are recomputed by each call.
        """
        if not self.requires_grad:
            raise ValueError("backward() needs a tensor that depends on one created with requires_grad=True")
        if grad is None:
            if self.data.size != 1:
                raise ValueError(f"backward() of a tensor of shape {self.shape} (not a scalar) needs grad, "
                                 "the seed ∂J/∂tensor of the same shape")
            grad = np.ones_like(self.data)
        else:
            grad = check_array("grad", grad, shape=self.shape)
        order = topological_order(self)
        for node in order:
            if node._parents:                       # an intermediate node: start from zero
                node.grad = None
        self._add_grad(grad)
        for node in reversed(order):                # J first, the leaves last
            if node._backward is not None and node.grad is not None:
                node._backward(node.grad)


def _operand(value, name: str, tensor: Tensor, broadcast: bool = True) -> Tensor:
    """``value`` as a tensor (a number or an array becomes a constant) that broadcasts with ``tensor``."""
    if not isinstance(value, Tensor):
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be a number, an array or a Tensor, got {describe(value)}")
        value = Tensor._result(check_array(name, value), (), "const")
    if broadcast:
        try:
            np.broadcast_shapes(tensor.shape, value.shape)
        except ValueError:
            raise ValueError(f"{name}: shapes {tensor.shape} and {value.shape} do not broadcast") from None
    return value


def _check_numbers(name: str, value) -> np.ndarray:
    """A non-empty, finite array of numbers (not booleans) as float64."""
    if isinstance(value, (bool, np.bool_)) or getattr(value, "dtype", None) == np.bool_:
        raise TypeError(f"{name} must hold numbers, not booleans, got {describe(value)}")
    return check_array(name, value, nonempty=True)


def _check_shape(name: str, shape, allow_minus_one: bool = False) -> tuple:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or any(
            isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) for n in shape):
        raise TypeError(f"{name} must be a tuple of ints, got {describe(shape)}")
    shape = tuple(int(n) for n in shape)
    low = -1 if allow_minus_one else 0
    if any(n < low or n > 2**31 for n in shape):
        raise ValueError(f"{name} must hold lengths >= {low}, got {shape}")
    return shape


def _check_axes(axis, ndim: int) -> tuple:
    """``axis`` (None, an int or a sequence of ints) as a tuple of distinct axes in [0, ndim)."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    if not isinstance(axes, (tuple, list)) or any(
            isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)) for a in axes):
        raise TypeError(f"axis must be None, an int or a tuple of ints, got {describe(axis)}")
    if any(not -ndim <= a < ndim for a in axes):
        raise ValueError(f"axis {axis!r} is out of range for a tensor of {ndim} dimensions")
    axes = tuple(int(a) % ndim for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"axis must not repeat an axis, got {axis!r}")
    return axes


def topological_order(root: Tensor) -> list[Tensor]:
    """Every tensor ``root`` depends on (through parents that carry a gradient), each
    after all of its parents: the order of the forward pass; the backward pass walks it
    in reverse."""
    if not isinstance(root, Tensor):
        raise TypeError(f"root must be a Tensor, got {describe(root)}")
    order, seen, stack = [], {id(root)}, [(root, iter(root._parents))]
    while stack:                                    # depth-first, without recursion (deep graphs)
        node, parents = stack[-1]
        for parent in parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, iter(parent._parents)))
                break
        else:
            order.append(node)                      # all its parents are placed: place it
            stack.pop()
    return order


def softmax_cross_entropy(logits: Tensor, labels, axis: int = -1) -> Tensor:
    """The mean cross-entropy of softmax(logits) against integer ``labels``, one fused, stable node.

    ``logits`` is 2-D with the classes along ``axis``: (m, C) with ``axis=-1`` or 1
    (torch's layout), (C, m) with ``axis=0`` (the course notes' Z of shape (n_L, m));
    ``labels`` (m,) in 0 … C − 1. J = −(1/m) Σᵢ log softmax(zᵢ)[yᵢ], with
    log softmax(z) = z − max z − log Σ exp(z − max z), so that no exponential overflows;
    its gradient is (softmax(z) − onehot(y)) / m.
    """
    if not isinstance(logits, Tensor):
        raise TypeError(f"logits must be a Tensor, got {describe(logits)}")
    if logits.ndim != 2:
        raise ValueError(f"logits must be 2-dimensional (examples and classes), got shape {logits.shape}")
    if isinstance(axis, (bool, np.bool_)):
        raise TypeError("axis must be 0, 1 or -1, not a bool")
    axis = check_choice("axis", axis, (0, 1, -1)) % 2
    m, classes = logits.shape[1 - axis], logits.shape[axis]
    labels = check_array("labels", labels, kind="int", ndim=1, low=0, high=classes - 1)
    if len(labels) != m:
        raise ValueError(f"labels must hold one class per example ({m}), got {len(labels)}")
    z = logits.data if axis == 1 else logits.data.T             # (m, C)
    losses, softmax_minus_onehot = _softmax_losses(z, labels)  # IV.1's stable loss and its gradient
    out = Tensor._result(losses.mean(), (logits,), "cross-entropy")

    def backward(g):
        d = softmax_minus_onehot * (g / m)
        logits._add_grad(d if axis == 1 else d.T)
    out._backward = backward
    return out


def numerical_gradient(f, x, eps: float = 1e-6) -> np.ndarray:
    """∂f/∂x by centred differences: (f(x + ε eᵢ) − f(x − ε eᵢ)) / 2ε for every element i.

    ``f`` maps an array of ``x``'s shape to a real number; 2 × x.size calls. The error
    is O(ε²) (the ε² f''' / 6 term of Taylor's series), against O(ε) one-sided.
    """
    f = check_callable("f", f)
    x = _check_numbers("x", x).copy()
    eps = check_number("eps", eps, low=0, low_open=True, high=0.1)
    grad = np.empty_like(x)
    flat, out = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        kept = flat[i]
        flat[i] = kept + eps
        up = _value(f"f(x) at x.flat[{i}] + eps", f(x))
        flat[i] = kept - eps
        down = _value(f"f(x) at x.flat[{i}] - eps", f(x))
        flat[i] = kept
        out[i] = (up - down) / (2 * eps)
    return grad


def _value(name: str, value) -> float:
    if isinstance(value, Tensor):
        value = value.data
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.reshape(()).item()
    return check_number(name, value)


def relative_error(g, g_num) -> float:
    """‖g − g_num‖ / (‖g‖ + ‖g_num‖) (Euclidean norms), 0 when both are 0.

    Scale-free: about 1e-7 or less for a correct gradient checked with ε = 1e-6 in
    float64; 1e-3 or more means a bug."""
    g = check_array("g", g)
    g_num = check_array("g_num", g_num)
    if g.shape != g_num.shape:
        raise ValueError(f"g and g_num must have the same shape, got {g.shape} and {g_num.shape}")
    scale = np.linalg.norm(g) + np.linalg.norm(g_num)
    return 0.0 if scale == 0 else float(np.linalg.norm(g - g_num) / scale)


def gradient_check(loss, params, eps: float = 1e-6) -> dict[str, float]:
    """Compare the backward pass with centred differences, parameter by parameter.

    ``loss()`` builds the graph from the tensors ``params`` and returns a scalar tensor;
    each element of each parameter is moved by ±ε in place (and put back). Returns the
    :func:`relative_error` of each parameter (by its name, or ``params[i]``) and of all
    of them together (``"all"``)."""
    loss = check_callable("loss", loss)
    params = check_list("params", params, Tensor, nonempty=True)
    eps = check_number("eps", eps, low=0, low_open=True, high=0.1)
    for i, p in enumerate(params):
        if not p.requires_grad or p._parents or not p.data.flags.writeable:
            raise ValueError(f"params[{i}] must be a writeable leaf tensor created with requires_grad=True")
    for p in params:
        p.grad = None
    value = loss()
    if not isinstance(value, Tensor) or value.data.size != 1:
        raise TypeError(f"loss must return a scalar Tensor, got {describe(value)}")
    value.backward()
    errors, analytic, numeric = {}, [], []
    for i, p in enumerate(params):
        g = np.zeros_like(p.data) if p.grad is None else p.grad
        kept = p.data.copy()

        def at(x, p=p):
            p.data[...] = x
            return loss()
        try:
            g_num = numerical_gradient(at, kept, eps)
        finally:
            p.data[...] = kept
        errors[p.name or f"params[{i}]"] = relative_error(g, g_num)
        analytic.append(g.ravel())
        numeric.append(g_num.ravel())
    errors["all"] = relative_error(np.concatenate(analytic), np.concatenate(numeric))
    return errors
