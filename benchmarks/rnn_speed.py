"""V.4's recurrent networks: the by-hand LSTM against torch's nn.LSTM, and the character LM (`make bench`).

1. One forward pass of a one-layer LSTM (h = 256, input 32) over a batch of 32
   sequences of 100 steps, float64, one thread: :func:`mmir_lib.lm.gated.recurrent_layers`
   (numpy, a Python loop over the steps) against ``torch.nn.LSTM`` with the same weights
   (outputs equal to 1e-12 asserted). The best of ``repeat`` runs.
2. The character LSTM language model of the chapter: training time of its run (h = 128,
   200 steps of 32 × 64 characters, Adam, clipping at 1, one thread) and its held-out bits
   per character on the test plays; and the held-out bits per character of the committed
   checkpoint (``tools/train_char_lstm.py``), the figure to set beside the transformer's.
Run with ``python benchmarks/rnn_speed.py``; ``main()`` returns the table rows.
"""

import time

from threadpoolctl import threadpool_limits

import numpy as np
import torch

from mmir_lib.lm.char_lm import CHECKPOINT_SETTINGS, CarriedStateLoss, CharLSTM, load_checkpoint, tbptt_batches
from mmir_lib.lm.corpus import corpus_ids, vocabulary
from mmir_lib.lm.gated import recurrent_layers, torch_weights
from mmir_lib.lm.heldout import held_out_result
from mmir_lib.training import train
from report import best_time


def main(repeat: int = 3, steps: int = 200) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    threadpool_limits(limits=1)  # numpy on one thread too, as the chapters compute
    torch.manual_seed(0)
    module = torch.nn.LSTM(32, 256, dtype=torch.float64)
    x = np.random.default_rng(0).normal(size=(100, 32, 32))
    weights = torch_weights(module)
    with torch.no_grad():
        expected = module(torch.from_numpy(x))[0].numpy()
    gap = np.abs(recurrent_layers("lstm", x, weights)[0] - expected).max()
    assert gap < 1e-12, gap
    ours = best_time(lambda: recurrent_layers("lstm", x, weights), repeat)
    with torch.no_grad():
        theirs = best_time(lambda: module(torch.from_numpy(x)), repeat)
    rows = [{"measure": "LSTM forward, T = 100, B = 32, h = 256, float64", "mmir_lib": f"{1e3 * ours:.0f} ms",
             "torch": f"{1e3 * theirs:.0f} ms", "ratio": f"{ours / theirs:.2f}×", "largest difference": f"{gap:.0e}"}]

    chars = vocabulary("character")
    model = CharLSTM(len(chars), 64, hidden=128, seed=0)
    batches = tbptt_batches(corpus_ids("train", "character"), 32, 64, max_batches=steps)
    began = time.perf_counter()
    train(model, CarriedStateLoss(), batches, torch.optim.Adam(model.parameters(), lr=0.01), 1, clip_norm=1.0)
    seconds = time.perf_counter() - began
    test = corpus_ids("test", "character")
    began = time.perf_counter()
    small = held_out_result("small", "character", model.log_loss(test, pad=chars.index["\n"]))
    eval_seconds = time.perf_counter() - began
    big = held_out_result("checkpoint", "character", load_checkpoint().log_loss(test, pad=chars.index["\n"]))
    rows.append({"measure": f"char LSTM h = 128, {steps} steps: training time / held-out bits per char",
                 "mmir_lib": f"{seconds:.1f} s", "torch": "", "ratio": "", "largest difference": "",
                 "bits/char": f"{small.bits_per_char:.3f}", "scoring the test plays": f"{eval_seconds:.1f} s"})
    rows.append({"measure": f"char LSTM checkpoint (h = {CHECKPOINT_SETTINGS['hidden']}, "
                            f"{CHECKPOINT_SETTINGS['epochs']} epochs): held-out bits per char",
                 "mmir_lib": "", "torch": "", "ratio": "", "largest difference": "",
                 "bits/char": f"{big.bits_per_char:.3f}", "scoring the test plays": ""})
    for row in rows:
        row.setdefault("bits/char", "")
        row.setdefault("scoring the test plays", "")
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
