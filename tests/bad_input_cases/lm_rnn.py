"""Bad-input cases for Part V's recurrent networks (mmir_lib.lm.rnn, mmir_lib.lm.gated, mmir_lib.lm.char_lm)."""

import numpy as np
import torch

from mmir_lib.lm import char_lm, gated, rnn
from tests.api_fuzz import Case

_R = np.random.default_rng(0)
X, H0 = _R.normal(size=(3, 2, 4)), _R.normal(size=(2, 5))
W_XH, W_HH, B = _R.normal(size=(4, 5)) * 0.5, _R.normal(size=(5, 5)) * 0.5, _R.normal(size=5)
STATES = rnn.rnn_forward(X, H0, W_XH, W_HH, B)
GRU3 = [_R.normal(size=(15, 4)), _R.normal(size=(15, 5)), _R.normal(size=15), _R.normal(size=15)]
LSTM4 = [_R.normal(size=(20, 4)), _R.normal(size=(20, 5)), _R.normal(size=20), _R.normal(size=20)]
MODEL = char_lm.CharLSTM(vocab_size=6, context=4, embedding=2, hidden=3)

CASES = [
    Case(rnn.rnn_forward, dict(x=X, h0=H0, W_xh=W_XH, W_hh=W_HH, b=B), accepts={"h0": {"none"}}),
    Case(rnn.rnn_backward, dict(x=X, h0=H0, W_xh=W_XH, W_hh=W_HH, b=B, states=STATES,
                                grad_states=np.ones_like(STATES)),
         accepts={"h0": {"none"}}),
    Case(rnn.jacobian_norms, dict(states=STATES[:, 0], W_hh=W_HH)),
    Case(rnn.gradient_bound, dict(W_hh=W_HH, distances=[1, 2, 3], beta_sigma=1.0),
         accepts={"beta_sigma": {"huge_float", "huge_int"}}),
    Case(rnn.clip_grad_norm, dict(grads=[np.ones(3), np.ones((2, 2))], max_norm=1.0),
         accepts={"max_norm": {"huge_int", "huge_float", "bool"}}),
    Case(gated.sigmoid, dict(x=np.array([-1.0, 0.0, 2.0])),  # any array of numbers is legal
         accepts={"x": {"bool", "negative", "negative_float", "zero", "huge_float", "empty_list", "matrix"}}),
    Case(gated.gru_cell, dict(x=X[0], h=H0, W_ih=GRU3[0], W_hh=GRU3[1], b_ih=GRU3[2], b_hh=GRU3[3])),
    Case(gated.lstm_cell, dict(x=X[0], h=H0, c=H0, W_ih=LSTM4[0], W_hh=LSTM4[1], b_ih=LSTM4[2], b_hh=LSTM4[3])),
    Case(gated.recurrent_layers, dict(cell="lstm", x=X, weights=[[tuple(LSTM4)]], h0=H0[None], c0=H0[None]),
         accepts={"h0": {"none"}, "c0": {"none"}}),
    Case(gated.torch_weights, dict(module=torch.nn.GRU(2, 3, num_layers=2, bidirectional=True))),
    Case(char_lm.CharRNN, dict(vocab_size=6, context=4, cell="gru", embedding=2, hidden=3, layers=1, seed=1),
         accepts={"seed": {"zero"}}),
    Case(char_lm.CharLSTM, dict(vocab_size=6, context=4, embedding=2, hidden=3, layers=1, seed=1),
         accepts={"seed": {"zero"}}),
    Case(MODEL.next_distribution, dict(context=np.array([1, 2, 3]), pad=1),
         accepts={"pad": {"zero"}, "context": {"empty_list"}}),
    Case(MODEL.next_distributions, dict(prompt=np.array([1, 2, 3, 4, 5, 0]), pad=1),
         accepts={"pad": {"zero"}, "prompt": {"empty_list"}}),
    Case(MODEL.log_loss, dict(ids=np.array([1, 2, 3, 4, 5]), pad=1, parts=2, warmup=3, block=2),
         accepts={"pad": {"zero"}, "warmup": {"zero"}}),
    Case(char_lm.CarriedStateLoss().__call__, dict(model=MODEL, batch=(torch.tensor([[1, 2, 3], [3, 4, 5]]), True))),
    Case(char_lm.tbptt_batches, dict(ids=np.arange(40) % 6, batch_size=2, context=4, seed=1, max_batches=2),
         accepts={"seed": {"zero"}, "max_batches": {"none"}}),
]

EXEMPT = {"mmir_lib.lm.char_lm.load_checkpoint": "takes no argument: loads the committed checkpoint"}
