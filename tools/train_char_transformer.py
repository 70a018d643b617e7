"""Train V.7's character transformer on the training plays: deterministic, logged, resumable.

    python tools/train_char_transformer.py --steps 4800            # the book's run
    python tools/train_char_transformer.py --steps 4800 --resume   # go on from the last state

Everything that decides the result is fixed here and seeded: the model's shape
(:class:`mmir_lib.lm.transformer.TransformerConfig` below), the batches (step s draws
its windows with ``numpy.random.default_rng([SEED, s])``, so a resumed run draws the
same ones), AdamW with a linear warm-up and a cosine decay over ``--steps``, gradient
clipping and the thread count (``--threads``, 2 by default: a run on another thread
count adds in another order and drifts in the last bits). Every ``--every`` steps it
logs the mean training loss and the validation loss on the first
:data:`~mmir_lib.lm.transformer.LOG_VALIDATION_CHARS` characters of the validation plays, and saves two files (also
when ``--stop-after`` stops it; each written to a temporary file, then renamed):

* ``--state`` (not committed): model, optimiser and step, in float32, to resume;
* ``--out`` (``mmir_lib/checkpoints/char_transformer.pt``, committed): the weights in
  float16 (half the size; the chapter and the test score these very weights), the
  configuration and the log.

The chapter quotes the held-out bits per character of ``--out`` on the test plays; a
test recomputes it from the file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch.nn import functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary  # noqa: E402
from mmir_lib.lm.transformer import (CharTransformer, LOG_VALIDATION_CHARS, TransformerConfig,  # noqa: E402
                                     held_out_losses)
from mmir_lib.nn.optim import warmup_cosine_learning_rate  # noqa: E402
from mmir_lib.training import save_atomically  # noqa: E402

SEED = 0
BATCH = 32
PEAK_LR, FINAL_LR, WARMUP = 2e-3, 1e-4, 500
BETAS = (0.9, 0.99)
THREADS = 2
WEIGHT_DECAY, CLIP = 0.1, 1.0
# No dropout: 1.8M parameters read the 3.5M training characters about ten times, too few to
# overfit (the validation log shows it), and dropout costs 1.7x the time of a step on a CPU.
CONFIG = dict(context=256, width=192, layers=4, heads=4, dropout=0.0)


def learning_rate(step: int, steps: int) -> float:
    """Linear warm-up to PEAK_LR over WARMUP steps, then a cosine down to FINAL_LR at ``steps``
    (:func:`mmir_lib.nn.optim.warmup_cosine_learning_rate`, also taught in chapter IV.3)."""
    return warmup_cosine_learning_rate(step, steps, WARMUP, PEAK_LR, FINAL_LR)


def batch(train: torch.Tensor, step: int, context: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Step ``step``'s BATCH windows of the training stream: inputs and next characters, (BATCH, context) each."""
    starts = np.random.default_rng([SEED, step]).integers(0, len(train) - context - 1, BATCH)
    windows = torch.stack([train[s:s + context + 1] for s in starts])
    return windows[:, :-1], windows[:, 1:]


def bits_per_char(model: CharTransformer, ids: np.ndarray) -> float:
    nats = held_out_losses(model, ids, start=vocabulary("character").index[BOUNDARY], batch_size=32)
    return float(nats.mean() / math.log(2))


def save_weights(model: CharTransformer, path: Path, log: list[dict], step: int) -> None:
    weights = {name: value.detach().half() for name, value in model.state_dict().items()}
    save_atomically({"config": model.config.as_dict(), "weights": weights, "steps": step,
                     "tokens": step * BATCH * model.config.context, "log": log}, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4_800, help="length of the cosine schedule (and of the run)")
    parser.add_argument("--stop-after", type=float, default=None, help="stop (resumably) after this many minutes")
    parser.add_argument("--every", type=int, default=300, help="log, validate and save every this many steps")
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--resume", action="store_true", help="go on from --state")
    parser.add_argument("--state", type=Path, default=ROOT / "_build" / "train" / "char_transformer_state.pt")
    parser.add_argument("--out", type=Path, default=ROOT / "mmir_lib" / "checkpoints" / "char_transformer.pt")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    torch.use_deterministic_algorithms(True)
    train = torch.from_numpy(corpus_ids("train", "character").astype(np.int64))
    validation = corpus_ids("validation", "character")[:LOG_VALIDATION_CHARS]
    model = CharTransformer(TransformerConfig(vocab_size=len(vocabulary("character")), **CONFIG))
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": WEIGHT_DECAY},
                                   {"params": no_decay, "weight_decay": 0.0}], lr=PEAK_LR, betas=BETAS)
    step, log, losses = 0, [], []
    if args.resume and args.state.exists():
        state = torch.load(args.state, weights_only=False)
        if state.get("schedule_steps", args.steps) != args.steps:  # the cosine's length decides every rate
            parser.error(f"--steps {args.steps} differs from the resumed run's {state['schedule_steps']}")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        step, log, losses = state["step"], state["log"], state.get("pending_losses", [])
        print(f"resumed at step {step}", flush=True)
    print(f"{model.num_parameters():,} parameters, {args.threads} threads, config {model.config.as_dict()}",
          flush=True)
    start = time.perf_counter()
    model.train()
    while step < args.steps:
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, args.steps)
        inputs, targets = batch(train, step, model.config.context)
        loss = F.cross_entropy(model(inputs).transpose(1, 2), targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), CLIP)
        optimizer.step()
        losses.append(loss.item())
        step += 1
        minutes = (time.perf_counter() - start) / 60
        stopping = args.stop_after is not None and minutes >= args.stop_after
        if step % args.every == 0 or step == args.steps:
            entry = {"step": step, "lr": learning_rate(step - 1, args.steps),
                     "train_bits": float(np.mean(losses) / math.log(2)),
                     "validation_bits": bits_per_char(model, validation), "minutes": round(minutes, 2)}
            model.train()
            log.append(entry)
            losses = []
            print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in entry.items()),
                  flush=True)
        if step % args.every == 0 or step == args.steps or stopping:
            # a stop between two log steps keeps the losses since the last one, so that a resumed
            # run logs (and saves) exactly what one uninterrupted run would
            save_atomically({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                             "log": log, "pending_losses": losses, "schedule_steps": args.steps,
                             "torch_rng": torch.get_rng_state()}, args.state)
            save_weights(model, args.out, log, step)
        if stopping:
            print(f"stopped after {minutes:.1f} min at step {step}; --resume goes on", flush=True)
            break


if __name__ == "__main__":
    main()
