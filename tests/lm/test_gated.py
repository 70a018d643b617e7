"""Tests of mmir_lib.lm.gated: GRU and LSTM by hand equal torch's nn.GRU and nn.LSTM with
the same weights, in float64 to 1e-12, over several layers and both directions."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.lm.gated import gru_cell, lstm_cell, recurrent_layers, sigmoid, torch_weights


@given(st.sampled_from(["gru", "lstm"]), st.integers(1, 3), st.booleans(), st.integers(1, 6), st.integers(1, 3),
       st.integers(1, 4), st.integers(1, 5), st.booleans(), st.integers(0, 10**6))
@settings(max_examples=30, deadline=None)
def test_layers_equal_torch(cell, layers, bidirectional, T, B, d, h, bias, seed):
    torch.manual_seed(seed)
    kind = torch.nn.GRU if cell == "gru" else torch.nn.LSTM
    module = kind(d, h, num_layers=layers, bidirectional=bidirectional, bias=bias, dtype=torch.float64)
    D = 2 if bidirectional else 1
    rng = np.random.default_rng(seed)
    x, h0, c0 = rng.normal(size=(T, B, d)), rng.normal(size=(layers * D, B, h)), rng.normal(size=(layers * D, B, h))
    with torch.no_grad():
        if cell == "gru":
            expected = module(torch.from_numpy(x), torch.from_numpy(h0))
            ours = recurrent_layers("gru", x, torch_weights(module), h0)
            expected = (expected[0], expected[1])
        else:
            out, (h_n, c_n) = module(torch.from_numpy(x), (torch.from_numpy(h0), torch.from_numpy(c0)))
            ours, expected = recurrent_layers("lstm", x, torch_weights(module), h0, c0), (out, h_n, c_n)
    assert len(ours) == len(expected)
    for a, b in zip(ours, expected):
        assert a.shape == tuple(b.shape)
        assert np.abs(a - b.numpy()).max() < 1e-12


def test_cells_equal_torch_cells():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, h, c = rng.normal(size=(3, 4)), rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    gru, lstm = torch.nn.GRUCell(4, 5, dtype=torch.float64), torch.nn.LSTMCell(4, 5, dtype=torch.float64)
    weights = lambda m: [p.detach().numpy() for p in (m.weight_ih, m.weight_hh, m.bias_ih, m.bias_hh)]  # noqa: E731
    with torch.no_grad():
        assert np.abs(gru_cell(x, h, *weights(gru)) - gru(torch.from_numpy(x), torch.from_numpy(h)).numpy()).max() \
            < 1e-12
        h2, c2 = lstm(torch.from_numpy(x), (torch.from_numpy(h), torch.from_numpy(c)))
    ours = lstm_cell(x, h, c, *weights(lstm))
    assert np.abs(ours[0] - h2.numpy()).max() < 1e-12 and np.abs(ours[1] - c2.numpy()).max() < 1e-12


def test_lstm_copies_its_cell_with_open_forget_and_closed_input_gates():
    h, size = np.zeros((1, 2)), 2
    c = np.array([[0.7, -1.3]])
    b = np.zeros(4 * size)
    b[:size], b[size:2 * size] = -50.0, 50.0          # input gate shut, forget gate open
    _, c_next = lstm_cell(np.ones((1, 3)), h, c, np.zeros((8, 3)), np.zeros((8, 2)), b, np.zeros(8))
    assert np.allclose(c_next, c, atol=1e-15)


def test_sigmoid_is_stable():
    x = np.array([-1000.0, -1.0, 0.0, 1.0, 1000.0])
    assert np.allclose(sigmoid(x), torch.sigmoid(torch.from_numpy(x)).numpy(), rtol=0, atol=1e-16)
    assert np.all(np.isfinite(sigmoid(x)))


@pytest.mark.parametrize("call, match", [
    (lambda: recurrent_layers("rnn", np.zeros((2, 1, 3)), [[(np.zeros((9, 3)), np.zeros((9, 3)), np.zeros(9),
                                                              np.zeros(9))]]), "cell"),
    (lambda: recurrent_layers("gru", np.zeros((2, 1, 3)), [[(np.zeros((9, 2)), np.zeros((9, 3)), np.zeros(9),
                                                              np.zeros(9))]]), "W_ih"),
    (lambda: recurrent_layers("gru", np.zeros((0, 1, 3)), []), "x"),
    (lambda: recurrent_layers("gru", np.zeros((2, 1, 3)), []), "weights"),
    (lambda: gru_cell(np.zeros((2, 3)), np.zeros((1, 3)), np.zeros((9, 3)), np.zeros((9, 3)), np.zeros(9),
                      np.zeros(9)), "batch"),
    (lambda: torch_weights(torch.nn.RNN(2, 3)), "module"),
])
def test_bad_input(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
