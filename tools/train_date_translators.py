"""Train V.5's date translators: ISO dates to English in three house styles, to the end of their budget.

    python tools/train_date_translators.py      # writes mmir_lib/checkpoints/date_translators.pt

Chapter V.5 asks whether search matters for a *trained* model. On the number words it
does not (one right answer each, and the model is sure of every word), so the chapter
turns to :mod:`mmir_lib.lm.dates`, where every date has three right answers with known
shares. This script trains one encoder–decoder with attention per seed in
:data:`SEEDS`, each for :data:`EPOCHS` epochs over the 10,000 training dates: the
chapter's recipe (``Seq2Seq(V_x, V_y, 32, 48, 48, seed=seed)``, batches of
:data:`BATCH` shuffled by ``translation_batches(..., seed=seed)``, Adam, gradients
clipped to norm :data:`CLIP`), with the rate falling from :data:`LEARNING_RATE` to 0
along half a cosine, epoch by epoch (``warmup_cosine_learning_rate`` without warm-up):
each reference is one random style, so the gradient stays noisy to the end and a
rate that does not fall leaves the model's style shares wandering. The settings were
fixed after two trial runs, scored on validation dates only. One thread
(:data:`mmir_lib.chapter.THREADS`) and torch's deterministic algorithms.

The file holds, in float32, each model's weights and its log (the mean training loss
of every epoch, the greedy expected exact match on the validation dates, which
``tests/lm/test_dates.py`` recomputes from the file, and the seconds it took).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmir_lib.chapter import THREADS, setup_chapter  # noqa: E402
from mmir_lib.lm.dates import date_examples, date_vocabularies, expected_exact_match  # noqa: E402
from mmir_lib.lm.decoding import greedy_search  # noqa: E402
from mmir_lib.lm.number_words import BOS, EOS, PAD  # noqa: E402
from mmir_lib.lm.seq2seq import Seq2Seq, load_models, seq2seq_loss, translation_batches  # noqa: E402
from mmir_lib.nn.optim import warmup_cosine_learning_rate  # noqa: E402
from mmir_lib.training import save_atomically, train  # noqa: E402

SEEDS = (0, 1, 2)
EPOCHS, BATCH, LEARNING_RATE, CLIP = 12, 64, 0.003, 1.0
SHAPE = dict(embedding_dim=32, hidden=48, attention_dim=48)
MAX_LENGTH = 12
OUT = ROOT / "mmir_lib" / "checkpoints" / "date_translators.pt"


def new_model(source, target, seed: int) -> Seq2Seq:
    return Seq2Seq(len(source), len(target), **SHAPE, pad=source.index[PAD], bos=target.index[BOS],
                   eos=target.index[EOS], seed=seed)


def greedy_expected_exact(model: Seq2Seq, source, target, examples) -> float:
    """Greedy search's expected exact match (:func:`expected_exact_match`) on ``examples``."""
    found = greedy_search(model, model.start([source.encode(list(e.source)) for e in examples]), MAX_LENGTH)
    outputs = [target.decode(np.array(h.tokens, dtype=np.int64)) if h.tokens else [] for h in found]
    return expected_exact_match(outputs, [e.date for e in examples])


def load_date_translators(path: Path = OUT) -> tuple[dict, dict, dict]:
    """The saved models, ``{seed: Seq2Seq}`` in evaluation mode, their logs and the
    settings they were trained with."""
    source, target = date_vocabularies()
    models, log, settings = load_models(path, lambda seed: new_model(source, target, int(seed)))
    return {int(seed): model for seed, model in models.items()}, log, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    setup_chapter()                                     # one thread, deterministic torch, seeded
    source, target = date_vocabularies()
    train_examples, validation = date_examples("train"), date_examples("validation")
    xs = [source.encode(list(e.source)) for e in train_examples]
    ys = [target.encode(list(e.target)) for e in train_examples]
    models, log = {}, {}
    for seed in SEEDS:
        began = time.perf_counter()
        model = new_model(source, target, seed)
        batches = translation_batches(xs, ys, BATCH, pad=model.pad, bos=model.bos, eos=model.eos, seed=seed)
        optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
        epoch_losses, validation_exact = [], []
        for epoch in range(1, EPOCHS + 1):
            for group in optimizer.param_groups:
                group["lr"] = warmup_cosine_learning_rate(epoch - 1, EPOCHS, 0, LEARNING_RATE)
            model.train()
            history = train(model, seq2seq_loss, list(batches(epoch)), optimizer, clip_norm=CLIP, seed=None)
            model.eval()
            epoch_losses.append(float(np.mean(history.step_losses)))
            validation_exact.append(greedy_expected_exact(model, source, target, validation))
            print(f"seed {seed} epoch {epoch}: training loss {epoch_losses[-1]:.4f}, greedy expected exact match "
                  f"on validation {validation_exact[-1]:.3f}", flush=True)
        models[str(seed)] = {k: v.detach().clone() for k, v in model.state_dict().items()}
        log[str(seed)] = {"epoch_losses": epoch_losses, "validation_exact": validation_exact,
                          "seconds": time.perf_counter() - began}
    settings = {"epochs": EPOCHS, "batch": BATCH, "learning_rate": LEARNING_RATE, "clip": CLIP, **SHAPE,
                "threads": THREADS, "torch": str(torch.__version__)}
    save_atomically({"models": models, "log": log, "settings": settings}, args.out)
    print(f"saved {args.out} ({args.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
