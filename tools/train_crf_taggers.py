"""Train chapter III.6's CRF taggers on the EWT training sentences: deterministic and logged.

    python tools/train_crf_taggers.py            # the book's run (a few minutes on 2 cores)

The chapter reads the trained weights instead of training for over a minute itself.
Everything that decides the result is fixed here: the settings (:data:`SETTINGS`, the
chapter's), the seeds (a seed orders the training sentences of every epoch), and the
thread count (2: another count adds in another order and moves the last bits). It trains

* ``upos``: the part-of-speech CRF of the chapter, seed 0;
* ``names``: the proper-name CRF over BIO tags (B-NAME, I-NAME, O; spans from
  :func:`mmir_lib.lm.spans.name_spans`), seeds 0, 1 and 2, so that the chapter can show
  every seed beside the (deterministic) HMM;
* the reference: CRFsuite (``sklearn-crfsuite``, ``l2sgd``, c2 = 0.01) on the part-of-speech
  task for :data:`CRFSUITE_EPOCHS` passes, with its accuracy on the development sentences
  after every pass.

It writes ``mmir_lib/checkpoints/crf_taggers.pt`` (the CRFs' weights in float16, the
properties in the order of the weights' rows and each task's tags, the training losses and
CPU times, the settings, CRFsuite's development curve) and
``mmir_lib/checkpoints/crfsuite_upos.crfsuite.xz`` (CRFsuite's own model file, compressed
with xz: 6.7 MB become 2.2 MB). The
chapter and ``tests/lm/test_crf.py`` tag the test sentences with these very files. The
book's CRFs come out the same on every rerun (the same losses to the printed digits);
CRFsuite's ``l2sgd`` does not, and a rerun moves its development accuracies by a few
tenths of a point.
"""

from __future__ import annotations

import argparse
import lzma
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmir_lib.data import ud_english_ewt  # noqa: E402
from mmir_lib.lm.crf import (CHECKPOINT, CRFSUITE_CHECKPOINT, CRFSUITE_EPOCHS, NAME_SEEDS, SETTINGS,  # noqa: E402
                             LinearChainCRF, build_feature_index, crfsuite_features, train_crf)
from mmir_lib.lm.spans import ewt_names  # noqa: E402
from mmir_lib.training import save_atomically  # noqa: E402


def ewt_upos(split: str) -> list:
    return [(s.words, s.upos) for s in ud_english_ewt(split)]

THREADS = 2


def train_one(sentences, index, seed: int) -> dict:
    model = LinearChainCRF(index)
    start = time.process_time()
    history = train_crf(model, sentences, seed=seed, **SETTINGS)
    seconds = time.process_time() - start
    print(f"  seed {seed}: {history}, {seconds:.0f} s of CPU", flush=True)
    return {"weights": {k: v.detach().half() for k, v in model.state_dict().items()},
            "epoch_losses": [float(x) for x in history.epoch_losses], "steps": len(history.step_losses),
            "cpu_seconds": round(seconds, 1), "seed": seed, "features": len(model.index.features),
            "tags": list(model.index.tags)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CHECKPOINT)
    parser.add_argument("--crfsuite-out", type=Path, default=CRFSUITE_CHECKPOINT)
    args = parser.parse_args()
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True)

    saved = {"settings": dict(SETTINGS), "threads": THREADS}
    print("part-of-speech CRF", flush=True)
    train = ewt_upos("train")
    index = build_feature_index(train)
    saved["features"] = list(index.features)  # in the order of W's rows, the same for both tasks
    saved["upos"] = train_one(train, index, 0)
    print("proper-name CRF (BIO)", flush=True)
    names = ewt_names("train")
    index = build_feature_index(names)
    assert list(index.features) == saved["features"]  # the properties depend on the words only
    saved["names"] = [train_one(names, index, seed) for seed in NAME_SEEDS]

    import sklearn_crfsuite
    print(f"CRFsuite, {CRFSUITE_EPOCHS} passes", flush=True)
    train, dev = ewt_upos("train"), ewt_upos("dev")
    partial = args.crfsuite_out.with_name(args.crfsuite_out.name + ".model")
    reference = sklearn_crfsuite.CRF(algorithm="l2sgd", c2=0.01, max_iterations=CRFSUITE_EPOCHS,
                                     all_possible_transitions=True, model_filename=str(partial))
    start = time.process_time()
    reference.fit([crfsuite_features(w) for w, _ in train], [list(t) for _, t in train],
                  X_dev=[crfsuite_features(w) for w, _ in dev], y_dev=[list(t) for _, t in dev])
    saved["crfsuite"] = {"epochs": CRFSUITE_EPOCHS, "c2": 0.01, "cpu_seconds": round(time.process_time() - start, 1),
                         "dev_accuracy": [float(it["item_accuracy_float"])
                                          for it in reference.training_log_.iterations]}
    print(f"  dev accuracy per pass {[round(100 * x, 2) for x in saved['crfsuite']['dev_accuracy']]}", flush=True)
    compressed = args.crfsuite_out.with_name(args.crfsuite_out.name + ".partial")
    compressed.write_bytes(lzma.compress(partial.read_bytes(), preset=9))
    partial.unlink()
    os.replace(compressed, args.crfsuite_out)
    save_atomically(saved, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) and {args.crfsuite_out} "
          f"({args.crfsuite_out.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
