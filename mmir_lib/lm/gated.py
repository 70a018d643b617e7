"""Gated recurrent cells by hand: the GRU and the LSTM, in torch's layout, stacked and bidirectional.

A gate is a vector of numbers in (0, 1), a sigmoid σ of the input and the previous
state, that multiplies another vector elementwise (⊙): it decides, unit by unit, how
much passes. Gates let a cell *copy* its state from one step to the next, and a copied
state passes its gradient back unchanged, which the Elman cell's tanh(h W_hh) cannot.

All weights follow ``torch.nn.GRU`` and ``torch.nn.LSTM``, so that the same numbers
give the same outputs: a layer has W_ih (G·h, d), W_hh (G·h, h), b_ih and b_hh (G·h,),
with the G gate blocks stacked along the first axis, and computes x W_ihᵀ + b_ih and
h W_hhᵀ + b_hh for a batch of rows x (B, d), h (B, h).

**GRU** (Cho et al. 2014), blocks (r, z, n):

    r = σ(x W_irᵀ + b_ir + h W_hrᵀ + b_hr)                reset gate
    z = σ(x W_izᵀ + b_iz + h W_hzᵀ + b_hz)                update gate
    n = tanh(x W_inᵀ + b_in + r ⊙ (h W_hnᵀ + b_hn))        candidate
    h′ = (1 − z) ⊙ n + z ⊙ h.

In the course notes' letters, Γ_r = r, c̃ = n and Γ_u = 1 − z (torch's z is the share of
the *old* state kept). Torch (like cuDNN) applies the reset gate after the product with
W_hn, the notes' formula before it (tanh(W_c [Γ_r ⊙ c, x] + b_c)); the two are
different functions, and this module computes torch's.

**LSTM** (Hochreiter and Schmidhuber 1997, with the forget gate of Gers et al. 2000),
blocks (i, f, g, o):

    i = σ(·), f = σ(·), o = σ(·)       input (Γ_u), forget (Γ_f), output (Γ_o) gates
    g = tanh(·)                         candidate c̃
    c′ = f ⊙ c + i ⊙ g,                 h′ = o ⊙ tanh(c′),

each (·) being x W_·ᵀ + b_i· + h W_h·ᵀ + b_h· with that gate's block. The cell state c
is updated additively: with f ≈ 1 and i ≈ 0 it is copied, and ∂c′/∂c = diag(f).

**Layers and directions.** A stack of L layers feeds the states of layer l to layer
l + 1 as its inputs. A bidirectional layer runs a second cell, with its own weights,
from x_T back to x_1, and concatenates the two states of each step, [h_t→, h_t←]
(2h wide), which is then the next layer's input. The initial states h_0 (and c_0)
come as torch's (L·D, B, h) arrays, D = 2 for bidirectional, index l·D + direction;
so do the final states.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_choice, check_instance, describe

__all__ = ["sigmoid", "gru_cell", "lstm_cell", "recurrent_layers", "torch_weights"]

#: Gate blocks per cell type, in torch's order.
GATES = {"gru": 3, "lstm": 4}


def sigmoid(x) -> np.ndarray:
    """σ(x) = 1 / (1 + e^(−x)), elementwise, without overflow: e^(−|x|) only."""
    x = check_array("x", x)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _check_cell(x, h, W_ih, W_hh, b_ih, b_hh, gates):
    x = check_array("x", x, ndim=2, nonempty=True)
    h = check_array("h", h, ndim=2, nonempty=True)
    B, size = h.shape
    if x.shape[0] != B:
        raise ValueError(f"x and h must hold the same batch of rows, got {x.shape[0]} and {B}")
    W_ih = check_array("W_ih", W_ih, shape=(gates * size, None))
    if x.shape[1] != W_ih.shape[1]:
        raise ValueError(f"x must have {W_ih.shape[1]} columns (the input width of W_ih), got shape {x.shape}")
    W_hh = check_array("W_hh", W_hh, shape=(gates * size, size))
    b_ih = check_array("b_ih", b_ih, shape=(gates * size,))
    b_hh = check_array("b_hh", b_hh, shape=(gates * size,))
    return x, h, W_ih, W_hh, b_ih, b_hh


def _gru(x, h, W_ih, W_hh, b_ih, b_hh):
    size = h.shape[1]
    gi, gh = x @ W_ih.T + b_ih, h @ W_hh.T + b_hh             # (B, 3h) each: blocks r, z, n
    r = sigmoid(gi[:, :size] + gh[:, :size])
    z = sigmoid(gi[:, size:2 * size] + gh[:, size:2 * size])
    n = np.tanh(gi[:, 2 * size:] + r * gh[:, 2 * size:])
    return (1.0 - z) * n + z * h


def _lstm(x, h, c, W_ih, W_hh, b_ih, b_hh):
    size = h.shape[1]
    pre = x @ W_ih.T + b_ih + h @ W_hh.T + b_hh                # (B, 4h): blocks i, f, g, o
    i, f = sigmoid(pre[:, :size]), sigmoid(pre[:, size:2 * size])
    g, o = np.tanh(pre[:, 2 * size:3 * size]), sigmoid(pre[:, 3 * size:])
    c = f * c + i * g
    return o * np.tanh(c), c


def gru_cell(x, h, W_ih, W_hh, b_ih, b_hh) -> np.ndarray:
    """One GRU step, h′ (B, h): x (B, d), h (B, h), W_ih (3h, d), W_hh (3h, h), biases (3h,)."""
    return _gru(*_check_cell(x, h, W_ih, W_hh, b_ih, b_hh, 3))


def lstm_cell(x, h, c, W_ih, W_hh, b_ih, b_hh) -> tuple[np.ndarray, np.ndarray]:
    """One LSTM step, (h′, c′), each (B, h): x (B, d), h and c (B, h), W_ih (4h, d),
    W_hh (4h, h), biases (4h,)."""
    x, h, W_ih, W_hh, b_ih, b_hh = _check_cell(x, h, W_ih, W_hh, b_ih, b_hh, 4)
    c = check_array("c", c, shape=h.shape)
    return _lstm(x, h, c, W_ih, W_hh, b_ih, b_hh)


def _check_weights(weights, gates: int, d: int):
    """weights[l][direction] = (W_ih, W_hh, b_ih, b_hh), checked; returns them, L, D, h."""
    if not isinstance(weights, (list, tuple)) or not weights \
            or not all(isinstance(layer, (list, tuple)) for layer in weights):
        raise TypeError("weights must be a nonempty list of layers, each a list of (W_ih, W_hh, b_ih, b_hh) per "
                        f"direction, got {describe(weights)}")
    layers = list(weights)
    directions = len(layers[0])
    if directions not in (1, 2) or any(len(layer) != directions for layer in layers):
        raise ValueError("weights must hold, for every layer, a list of 1 or 2 directions (the same count "
                         "in every layer)")
    checked, size, width = [], None, d
    for l, layer in enumerate(layers):
        row = []
        for k, four in enumerate(layer):
            name = f"weights[{l}][{k}]"
            if not isinstance(four, (list, tuple)) or len(four) != 4:
                raise TypeError(f"{name} must be a tuple (W_ih, W_hh, b_ih, b_hh)")
            W_hh = check_array(f"{name} W_hh", four[1], ndim=2, nonempty=True)
            size = W_hh.shape[1] if size is None else size
            W_ih = check_array(f"{name} W_ih", four[0], shape=(gates * size, width))
            W_hh = check_array(f"{name} W_hh", W_hh, shape=(gates * size, size))
            b_ih = check_array(f"{name} b_ih", four[2], shape=(gates * size,))
            b_hh = check_array(f"{name} b_hh", four[3], shape=(gates * size,))
            row.append((W_ih, W_hh, b_ih, b_hh))
        checked.append(row)
        width = directions * size
    return checked, len(layers), directions, size


def recurrent_layers(cell: str, x, weights, h0=None, c0=None):
    """Run a stack of (bidirectional) GRU or LSTM layers over a batch of sequences.

    ``cell``: "gru" or "lstm". ``x`` (T, B, d) (time first, torch's default).
    ``weights[l][k]`` = (W_ih, W_hh, b_ih, b_hh) of layer l and direction k (0 forward,
    1 backward; one direction or two in every layer), as :func:`torch_weights` extracts
    them. ``h0``, ``c0`` (L·D, B, h) or None (zeros); ``c0`` for the LSTM only.

    Returns ``(outputs, h_n)`` for the GRU, ``(outputs, h_n, c_n)`` for the LSTM:
    outputs (T, B, D·h), the last layer's states of every step; h_n, c_n (L·D, B, h), the
    final states of every layer and direction (the backward direction's at t = 1).
    """
    cell = check_choice("cell", cell, GATES)
    x = check_array("x", x, ndim=3, nonempty=True)
    T, B, d = x.shape
    weights, L, D, size = _check_weights(weights, GATES[cell], d)
    h0 = np.zeros((L * D, B, size)) if h0 is None else check_array("h0", h0, shape=(L * D, B, size))
    if cell == "gru" and c0 is not None:
        raise ValueError("c0 is the LSTM's cell state: a GRU has none (pass c0=None)")
    c0 = np.zeros((L * D, B, size)) if c0 is None else check_array("c0", c0, shape=(L * D, B, size))
    h_n, c_n, layer_input = np.empty_like(h0), np.empty_like(c0), x
    for l in range(L):
        outputs = []
        for k in range(D):
            h, c, index = h0[l * D + k], c0[l * D + k], l * D + k
            states = np.empty((T, B, size))
            for t in (range(T) if k == 0 else range(T - 1, -1, -1)):
                if cell == "gru":
                    h = _gru(layer_input[t], h, *weights[l][k])
                else:
                    h, c = _lstm(layer_input[t], h, c, *weights[l][k])
                states[t] = h
            h_n[index], c_n[index] = h, c
            outputs.append(states)
        layer_input = np.concatenate(outputs, axis=2)
    return (layer_input, h_n) if cell == "gru" else (layer_input, h_n, c_n)


def torch_weights(module) -> list[list[tuple[np.ndarray, ...]]]:
    """The weights of a ``torch.nn.GRU`` or ``torch.nn.LSTM`` as float64 arrays,
    ``[layer][direction] = (W_ih, W_hh, b_ih, b_hh)``: what :func:`recurrent_layers` takes.
    (A module built with ``bias=False`` gives zero biases; ``proj_size`` is not supported.)"""
    import torch

    check_instance("module", module, (torch.nn.GRU, torch.nn.LSTM))
    if getattr(module, "proj_size", 0):
        raise ValueError("module must not use proj_size (an LSTM with projections is not written here)")
    directions = 2 if module.bidirectional else 1
    gates = 3 if isinstance(module, torch.nn.GRU) else 4
    layers = []
    for l in range(module.num_layers):
        row = []
        for k in range(directions):
            suffix = f"l{l}" + ("_reverse" if k else "")
            W_ih = getattr(module, f"weight_ih_{suffix}").detach().double().numpy().copy()
            W_hh = getattr(module, f"weight_hh_{suffix}").detach().double().numpy().copy()
            if module.bias:
                b_ih = getattr(module, f"bias_ih_{suffix}").detach().double().numpy().copy()
                b_hh = getattr(module, f"bias_hh_{suffix}").detach().double().numpy().copy()
            else:
                b_ih = b_hh = np.zeros(gates * module.hidden_size)
            row.append((W_ih, W_hh, b_ih, b_hh))
        layers.append(row)
    return layers
