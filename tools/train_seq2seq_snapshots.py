"""Train V.5's snapshots: the chapter's encoder–decoder recipe stopped after 40 steps, for more seeds.

    python tools/train_seq2seq_snapshots.py      # writes mmir_lib/checkpoints/seq2seq_snapshots.pt

Chapter V.5 trains one English → French number-word model (seed 0) and keeps a copy
after :data:`STEPS` steps. Its two comparisons need the same snapshot from more seeds:
the choice of the length-normalisation exponent α (seeds 0–4, with attention) and
attention against a fixed context (seeds 0–2 of each). Training them costs more than
the chapter's minute, so this script trains the ones the chapter does not
(:data:`ATTENTION_SEEDS` with attention, :data:`FIXED_SEEDS` without) and saves their
weights; the chapter loads them.

Everything is fixed and seeded as in the chapter: ``Seq2Seq(V_x, V_y, 32, 48, 48,
attention=…, seed=seed)``, the training pairs shuffled by
``translation_batches(..., seed=seed)`` (epoch 1), batches of :data:`BATCH`, Adam at
:data:`LEARNING_RATE`, gradients clipped to norm :data:`CLIP`, one thread
(:data:`mmir_lib.chapter.THREADS`) and torch's deterministic algorithms. The file holds,
in float32, each model's weights and its log (the training loss of every step, the
greedy exact match on the test numbers, which the chapter quotes and
``tests/lm/test_seq2seq.py`` recomputes from the file, and the seconds it took).
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
from mmir_lib.lm.decoding import greedy_search  # noqa: E402
from mmir_lib.lm.number_words import BOS, EOS, PAD, number_pairs, number_vocabularies  # noqa: E402
from mmir_lib.lm.seq2seq import Seq2Seq, load_models, seq2seq_loss, translation_batches  # noqa: E402
from mmir_lib.training import save_atomically, train  # noqa: E402

STEPS, BATCH, LEARNING_RATE, CLIP = 40, 64, 0.01, 1.0
SHAPE = dict(embedding_dim=32, hidden=48, attention_dim=48)
ATTENTION_SEEDS = (1, 2, 3, 4)     # seed 0 with attention is the chapter's own snapshot
FIXED_SEEDS = (0, 1, 2)
MAX_LENGTH = 30
OUT = ROOT / "mmir_lib" / "checkpoints" / "seq2seq_snapshots.pt"


def new_model(english, french, seed: int, attention: bool) -> Seq2Seq:
    return Seq2Seq(len(english), len(french), **SHAPE, pad=english.index[PAD], bos=french.index[BOS],
                   eos=french.index[EOS], attention=attention, seed=seed)


def greedy_exact(model: Seq2Seq, english, french, pairs) -> float:
    """Per cent of ``pairs`` whose greedy translation is the reference."""
    sources = [english.encode(list(p.english)) for p in pairs]
    found = greedy_search(model, model.start(sources), MAX_LENGTH)
    return 100 * float(np.mean([list(h.tokens) == french.encode(list(p.french)).tolist()
                                for h, p in zip(found, pairs)]))


def load_snapshots(path: Path = OUT) -> tuple[dict, dict, dict]:
    """The saved models, ``{(attention, seed): Seq2Seq}`` in evaluation mode, their logs
    and the settings they were trained with."""
    english, french = number_vocabularies()

    def build(name: str) -> Seq2Seq:          # "attention-1", "fixed-0"
        kind, seed = name.split("-")
        return new_model(english, french, int(seed), kind == "attention")

    models, log, settings = load_models(path, build)
    return {(name.startswith("attention"), int(name.split("-")[1])): m for name, m in models.items()}, log, settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    setup_chapter()                                     # one thread, deterministic torch, seeded
    english, french = number_vocabularies()
    train_pairs, test_pairs = number_pairs("train"), number_pairs("test")
    sources = [english.encode(list(p.english)) for p in train_pairs]
    targets = [french.encode(list(p.french)) for p in train_pairs]
    models, log = {}, {}
    for attention, seeds in ((True, ATTENTION_SEEDS), (False, FIXED_SEEDS)):
        for seed in seeds:
            began = time.perf_counter()
            model = new_model(english, french, seed, attention)
            batches = list(translation_batches(sources, targets, BATCH, pad=model.pad, bos=model.bos, eos=model.eos,
                                               seed=seed)(1))[:STEPS]
            history = train(model, seq2seq_loss, batches, torch.optim.Adam(model.parameters(), lr=LEARNING_RATE),
                            clip_norm=CLIP)
            model.eval()
            name = f"{'attention' if attention else 'fixed'}-{seed}"
            models[name] = {k: v.detach().clone() for k, v in model.state_dict().items()}
            log[name] = {"step_losses": [float(x) for x in history.step_losses],
                         "test_exact": greedy_exact(model, english, french, test_pairs),
                         "seconds": time.perf_counter() - began}
            print(f"{name}: loss of the last 5 steps {np.mean(history.step_losses[-5:]):.3f}, "
                  f"greedy exact match on the test numbers {log[name]['test_exact']:.1f} %, "
                  f"{log[name]['seconds']:.0f} s", flush=True)
    settings = {"steps": STEPS, "batch": BATCH, "learning_rate": LEARNING_RATE, "clip": CLIP, **SHAPE,
                "threads": THREADS, "torch": str(torch.__version__)}
    save_atomically({"models": models, "log": log, "settings": settings}, args.out)
    print(f"saved {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
