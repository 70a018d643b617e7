"""The Elman recurrent cell, backpropagation through time, and why its gradients vanish.

**The cell.** A recurrent network reads a sequence x_1 … x_T (rows of d numbers, a
batch of B sequences at a time) and keeps a **hidden state** h_t (a row of h numbers)
that summarises what it has read. With h_0 given (usually 0), every step applies the
same function with the same weights,

    h_t = tanh(x_t W_xh + h_{t−1} W_hh + b)           x_t (B, d), h_t (B, h),

W_xh (d, h), W_hh (h, h), b (h,): the row-vector notation of the course notes (their
e_t and W_eh are x_t and W_xh here). A language model reads its outputs off the states,
y_t = softmax(h_t W_hy + b_y); this module stops at the states, whose gradients carry
the whole difficulty.

**Backpropagation through time (BPTT).** Unroll the loop: the network is a deep
feed-forward network with one layer per step and the weights shared between layers.
Given the gradient G_t = ∂L/∂h_t that the loss sends into each state directly (from
y_t), walk back from t = T to 1 keeping δ_t, the *total* gradient of L at h_t,

    δ_T = G_T,          δ_t = G_t + (a_{t+1} ⊙ δ_{t+1}) W_hhᵀ,      a_t = 1 − h_t²   (tanh′),

and add each step's share to the shared weights (sums over t and over the batch),

    ∂L/∂W_xh = Σ_t x_tᵀ (a_t ⊙ δ_t),   ∂L/∂W_hh = Σ_t h_{t−1}ᵀ (a_t ⊙ δ_t),
    ∂L/∂b = Σ_t (a_t ⊙ δ_t),
    ∂L/∂x_t = (a_t ⊙ δ_t) W_xhᵀ,        ∂L/∂h_0 = (a_1 ⊙ δ_1) W_hhᵀ.

**Vanishing and exploding gradients.** The gradient reaching h_k from the loss at step
t passes through the Jacobian of every step between, J_j = ∂h_j/∂h_{j−1} =
diag(a_j) W_hhᵀ (entry (p, q): ∂h_{j,p}/∂h_{j−1,q}), so

    ∂h_t/∂h_k = J_t J_{t−1} ⋯ J_{k+1},     ‖∂h_t/∂h_k‖₂ ≤ (β_σ β_W)^{t−k},

with β_σ = max |tanh′| = 1 bounding the diagonal and β_W = ‖W_hh‖₂ (the largest
singular value) the matrix. Below 1 the bound, and with it every long-range gradient,
shrinks geometrically with the distance t − k (vanishing); above 1 it allows a
geometric growth (exploding), which a saturating tanh often, but not always, prevents.
:func:`jacobian_norms` measures the left side, :func:`gradient_bound` is the right.

**Clipping.** Against explosions, rescale the gradient (all parameters together, as one
long vector g) when its norm exceeds a threshold c:

    g ← g · min(1, c / (‖g‖₂ + 10⁻⁶)),

exactly what ``torch.nn.utils.clip_grad_norm_`` does (:func:`clip_grad_norm`). The
direction is kept; only the step length is capped. Nothing so simple cures vanishing
gradients: that takes a different cell (:mod:`.gated`).
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_list, check_number, describe

__all__ = ["rnn_forward", "rnn_backward", "jacobian_norms", "gradient_bound", "clip_grad_norm"]


def _check_weights(x, h0, W_xh, W_hh, b):
    """The checked float64 arrays of an Elman network, with matching shapes."""
    x = check_array("x", x, ndim=3, nonempty=True)
    T, B, d = x.shape
    W_xh = check_array("W_xh", W_xh, ndim=2, nonempty=True)
    if W_xh.shape[0] != d:
        raise ValueError(f"W_xh must have {d} rows (the width d of x), got shape {W_xh.shape}")
    h = W_xh.shape[1]
    W_hh = check_array("W_hh", W_hh, ndim=2)
    if W_hh.shape != (h, h):
        raise ValueError(f"W_hh must have shape ({h}, {h}) (the hidden size of W_xh), got {W_hh.shape}")
    b = check_array("b", b, ndim=1)
    if b.shape != (h,):
        raise ValueError(f"b must have shape ({h},), got {b.shape}")
    h0 = np.zeros((B, h)) if h0 is None else check_array("h0", h0, ndim=2)
    if h0.shape != (B, h):
        raise ValueError(f"h0 must have shape ({B}, {h}) (batch, hidden), got {h0.shape}")
    return x, h0, W_xh, W_hh, b


def rnn_forward(x, h0, W_xh, W_hh, b) -> np.ndarray:
    """The hidden states h_1 … h_T of an Elman network, (T, B, h):
    h_t = tanh(x_t W_xh + h_{t−1} W_hh + b).

    ``x`` (T, B, d); ``h0`` (B, h), or None for zeros; ``W_xh`` (d, h); ``W_hh`` (h, h);
    ``b`` (h,). All float64.
    """
    x, h0, W_xh, W_hh, b = _check_weights(x, h0, W_xh, W_hh, b)
    inputs = x @ W_xh + b            # (T, B, h): the input part of every step at once
    states = np.empty_like(inputs)
    h = h0
    for t in range(len(x)):
        h = np.tanh(inputs[t] + h @ W_hh)
        states[t] = h
    return states


def rnn_backward(x, h0, W_xh, W_hh, b, states, grad_states) -> dict[str, np.ndarray]:
    """Backpropagation through time for :func:`rnn_forward`.

    ``states`` (T, B, h) are the forward pass's h_1 … h_T; ``grad_states`` (T, B, h) the
    gradients G_t = ∂L/∂h_t the loss sends into each state directly. Returns the
    gradients of L, each of its argument's shape: ``{"x", "h0", "W_xh", "W_hh", "b"}``.
    """
    x, h0, W_xh, W_hh, b = _check_weights(x, h0, W_xh, W_hh, b)
    T, B, h = len(x), x.shape[1], W_xh.shape[1]
    states = check_array("states", states, shape=(T, B, h))
    grad_states = check_array("grad_states", grad_states, shape=(T, B, h))
    previous = np.concatenate([h0[None], states[:-1]])     # h_0 … h_{T−1}
    pre = (1.0 - states**2)                                # a_t = tanh′ at step t
    grads = {"x": np.empty_like(x), "W_xh": np.zeros_like(W_xh), "W_hh": np.zeros_like(W_hh),
             "b": np.zeros_like(b)}
    delta_next = np.zeros((B, h))                          # (a_{t+1} ⊙ δ_{t+1}), zero after the last step
    for t in range(T - 1, -1, -1):
        delta = grad_states[t] + delta_next @ W_hh.T       # δ_t
        local = pre[t] * delta                             # a_t ⊙ δ_t: the gradient at the pre-activation
        grads["x"][t] = local @ W_xh.T
        grads["W_xh"] += x[t].T @ local
        grads["W_hh"] += previous[t].T @ local
        grads["b"] += local.sum(axis=0)
        delta_next = local
    grads["h0"] = delta_next @ W_hh.T
    return grads


def jacobian_norms(states, W_hh) -> np.ndarray:
    """‖∂h_T/∂h_{T−n}‖₂ for the distances n = 1 … T, (T,): the spectral norm of the
    product of the step Jacobians J_j = diag(1 − h_j²) W_hhᵀ, for one sequence.

    ``states`` (T, h): the hidden states h_1 … h_T of one sequence (:func:`rnn_forward`
    with B = 1, squeezed); ``W_hh`` (h, h).
    """
    states = check_array("states", states, ndim=2, nonempty=True)
    W_hh = check_array("W_hh", W_hh, ndim=2)
    h = states.shape[1]
    if W_hh.shape != (h, h):
        raise ValueError(f"W_hh must have shape ({h}, {h}) (the width of states), got {W_hh.shape}")
    product, norms = np.eye(h), np.empty(len(states))
    for n, t in enumerate(range(len(states) - 1, -1, -1)):
        product = product @ ((1.0 - states[t] ** 2)[:, None] * W_hh.T)   # ∂h_T/∂h_{t−1}
        norms[n] = np.linalg.norm(product, 2)
    return norms


def gradient_bound(W_hh, distances, beta_sigma: float = 1.0) -> np.ndarray:
    """The bound (β_σ β_W)^n on ‖∂h_t/∂h_{t−n}‖₂ for each distance n, with β_W = ‖W_hh‖₂
    and β_σ the largest slope of the activation (1 for tanh, 1/4 for the sigmoid)."""
    W_hh = check_array("W_hh", W_hh, ndim=2, nonempty=True)
    if W_hh.shape[0] != W_hh.shape[1]:
        raise ValueError(f"W_hh must be square, got shape {W_hh.shape}")
    distances = check_array("distances", distances, ndim=1, nonempty=True, kind="int", low=0)
    beta_sigma = check_number("beta_sigma", beta_sigma, low=0, low_open=True)
    with np.errstate(over="ignore"):
        return (beta_sigma * np.linalg.norm(W_hh, 2)) ** distances.astype(float)


def clip_grad_norm(grads, max_norm: float) -> tuple[list[np.ndarray], float]:
    """Gradients rescaled to a global L2 norm of at most ``max_norm``, and the norm before.

    ``grads``: a list of float64 arrays (every parameter's gradient), read as one vector
    g; returns (new arrays g · min(1, c / (‖g‖₂ + 10⁻⁶)), ‖g‖₂), the arithmetic of
    ``torch.nn.utils.clip_grad_norm_`` (the inputs are not changed).
    """
    if not isinstance(grads, (list, tuple)):
        raise TypeError(f"grads must be a list of arrays (one per parameter), got {describe(grads)}")
    grads = check_list("grads", list(grads), np.ndarray, nonempty=True)
    grads = [check_array(f"grads[{i}]", g) for i, g in enumerate(grads)]
    max_norm = check_number("max_norm", max_norm, low=0, low_open=True)
    norm = float(np.linalg.norm([np.linalg.norm(g.ravel()) for g in grads]))
    scale = min(1.0, max_norm / (norm + 1e-6))
    return [g * scale for g in grads], norm
