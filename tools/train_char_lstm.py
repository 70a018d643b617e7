"""Train the character LSTM language model of chapter V.4 and save its checkpoint.

Deterministic (seeded, one thread): the settings are
:data:`mmir_lib.lm.char_lm.CHECKPOINT_SETTINGS`; the model reads the training plays of
:mod:`mmir_lib.lm.corpus` by truncated BPTT (:func:`~mmir_lib.lm.char_lm.tbptt_batches`),
with Adam and gradient clipping, through :func:`mmir_lib.training.train`. Logs the
loss every 100 steps, the validation and test bits per character at the end, and
writes ``mmir_lib/checkpoints/char_lstm.pt`` (1.3 MB).

Run from the repository root: ``python tools/train_char_lstm.py [output path]`` (a few minutes
on one core: ``make bench`` measures its training speed, about 39,000 characters a second,
and the run reads 7.1 million).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import torch

from mmir_lib import setup_chapter
from mmir_lib.lm.char_lm import CHECKPOINT_SETTINGS, CarriedStateLoss, CharLSTM, tbptt_batches
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary
from mmir_lib.lm.heldout import held_out_result
from mmir_lib.training import train

OUT = Path(__file__).resolve().parent.parent / "mmir_lib" / "checkpoints" / "char_lstm.pt"


def main(out: Path = OUT) -> None:
    setup_chapter()
    s = CHECKPOINT_SETTINGS
    vocab = vocabulary("character")
    model = CharLSTM(len(vocab), s["context"], embedding=s["embedding"], hidden=s["hidden"], layers=s["layers"],
                     seed=s["seed"])
    optimizer = torch.optim.Adam(model.parameters(), lr=s["lr"])
    batches = tbptt_batches(corpus_ids("train", "character"), s["batch_size"], s["context"], seed=s["seed"])
    loss_fn, began = CarriedStateLoss(), time.perf_counter()

    def logged(model, batch):
        loss = loss_fn(model, batch)
        logged.step += 1
        if logged.step % 100 == 0:
            print(f"step {logged.step:5d}  loss {float(loss.detach()) / math.log(2):.3f} bits/char  "
                  f"{time.perf_counter() - began:.0f} s", flush=True)
        return loss

    logged.step = 0
    train(model, logged, batches, optimizer, s["epochs"], seed=s["seed"], clip_norm=s["clip_norm"],
          expect_decrease=True)
    pad = vocab.index[BOUNDARY]
    for split in ("validation", "test"):
        row = held_out_result("LSTM", "character", model.log_loss(corpus_ids(split, "character"), pad=pad), split)
        print(f"{split}: {row.bits_per_char:.4f} bits/char", flush=True)
    out.parent.mkdir(exist_ok=True)
    torch.save({"settings": dict(s), "vocab_size": len(vocab), "state_dict": model.state_dict()}, out)
    print(f"saved {out} ({out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    import sys

    main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT)
