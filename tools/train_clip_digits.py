"""Train VI.3's dual encoders (bag-of-words and GRU text encoders, three seeds each) and V.2's LeNet-5.

    python tools/train_clip_digits.py            # the book's run (about 5 CPU minutes, one thread)

Everything that decides the result is fixed and seeded (:data:`mmir_lib.vision.clip_digits.SETTINGS`):

1. **Tuning, the same rule for both text encoders**: with the tuning seed (0), one run per
   learning rate of ``lr_grid``; the rate whose model has the highest text-to-image MRR on
   the validation canvases (validation digits, the 100 seen compositions, all three caption
   forms, averaged) is chosen. The test digits and the held-out compositions are not used.
2. **Seeds**: the chosen rate trains seeds 0, 1, 2 (seed 0's tuning run is kept). Every run
   has the same budget: ``steps`` steps of ``batch_size`` pairs, the same batches for a
   given seed (:func:`mmir_lib.vision.captions.draw_batch`).
3. **V.2's LeNet-5**, by V.2's recipe (:func:`mmir_lib.vision.lenet.train_lenet`): seed 0,
   10 epochs of batches of 32 shifted copies (at most 2 pixels) of the 3,500 training
   digits, Adam at 2e-3, divided by 10 after epoch 7.

One thread for torch and numpy's BLAS, as the chapters use. Outputs, in
``mmir_lib/checkpoints/`` (float16 weights; every figure is measured on the weights as
stored): ``clip_digits_bag.pt``, ``clip_digits_gru.pt`` (:func:`mmir_lib.vision.clip_digits.checkpoint_record`)
and ``lenet_digits.pt``. The log goes to standard output.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmir_lib.data import mnist_5k  # noqa: E402
from mmir_lib.training import save_atomically  # noqa: E402
from mmir_lib.vision.captions import FORMS, caption, captioned_canvases, compositions  # noqa: E402
from mmir_lib.vision.clip_digits import CHECKPOINTS, SETTINGS, held_out_figures  # noqa: E402
from mmir_lib.vision.dual_encoder import (TEXT_ENCODERS, embed_images, embed_texts, make_dual_encoder,  # noqa: E402
                                          retrieval_scores, train_dual_encoder)
from mmir_lib.vision.lenet import predict, train_lenet  # noqa: E402


def half(model: torch.nn.Module) -> dict:
    return {name: value.detach().half() for name, value in model.state_dict().items()}


def as_stored(model: torch.nn.Module) -> torch.nn.Module:
    """The model with its weights rounded to float16 and back, as the checkpoint holds them."""
    model.load_state_dict({k: v.float() for k, v in half(model).items()})
    return model.eval()


def validation_mrr(model, validation) -> float:
    seen = np.array(compositions("seen"))
    images = embed_images(model, validation.images)
    relevant = (seen[:, None, :] == validation.compositions[None, :, :]).all(axis=2)
    return float(np.mean([retrieval_scores(embed_texts(model, [caption(c, f) for c in seen]) @ images.T,
                                           relevant)["MRR"] for f in FORMS]))


def run(text_encoder: str, lr: float, seed: int, train_split, validation) -> dict:
    model = make_dual_encoder(text_encoder, seed)
    log = train_dual_encoder(model, train_split.images, train_split.labels, SETTINGS["steps"], lr,
                             batch_size=SETTINGS["batch_size"], seed=seed)
    as_stored(model)
    mrr = validation_mrr(model, validation)
    print(f"{text_encoder} lr={lr:g} seed={seed}: loss {np.mean(log.losses[:50]):.3f} -> "
          f"{np.mean(log.losses[-50:]):.3f}, scale {log.scales[-1]:.1f}, validation MRR {mrr:.3f}, "
          f"{log.cpu_seconds:.1f} CPU s", flush=True)
    return {"model": model, "log": {"losses": np.array(log.losses, dtype=np.float32), "scales":
                                    np.array(log.scales, dtype=np.float32), "cpu_seconds": log.cpu_seconds},
            "validation_mrr": mrr}


def main() -> None:
    from threadpoolctl import threadpool_limits

    torch.set_num_threads(1)
    threadpool_limits(limits=1)   # numpy's BLAS too: the same sums as in the chapter
    torch.use_deterministic_algorithms(True)
    began = time.process_time()
    train_split = mnist_5k("train")
    s = SETTINGS
    validation = captioned_canvases("validation", compositions("seen"), s["validation_per_composition"],
                                    seed=s["validation_seed"])
    for text_encoder in TEXT_ENCODERS:
        tuning = {lr: run(text_encoder, lr, s["tuning_seed"], train_split, validation) for lr in s["lr_grid"]}
        chosen = max(s["lr_grid"], key=lambda lr: tuning[lr]["validation_mrr"])
        print(f"{text_encoder}: chosen lr {chosen:g}", flush=True)
        runs = {seed: tuning[chosen] if seed == s["tuning_seed"] else run(text_encoder, chosen, seed, train_split,
                                                                           validation) for seed in s["seeds"]}
        models = {}
        for seed, result in runs.items():
            figures = held_out_figures(result["model"])
            print(f"{text_encoder} seed {seed}: held-out text->image R@1 "
                  f"{[round(figures['text_to_image']['held_out'][f]['R@1'], 3) for f in FORMS]}, swap "
                  f"{[round(figures['swap']['held_out'][f], 3) for f in FORMS]}, zero-shot "
                  f"{round(figures['zero_shot']['ensemble'], 4)}", flush=True)
            models[seed] = {"weights": half(result["model"]), "log": result["log"], "figures": figures}
        save_atomically({"text_encoder": text_encoder, "settings": dict(s), "chosen_lr": chosen,
                         "validation": {lr: r["validation_mrr"] for lr, r in tuning.items()},
                         "tuning_cpu_seconds": {lr: r["log"]["cpu_seconds"] for lr, r in tuning.items()},
                         "models": models}, CHECKPOINTS / f"clip_digits_{text_encoder}.pt")
    began_lenet = time.process_time()
    lenet, _ = train_lenet(train_split.images[:, None].astype(np.float32), train_split.labels)   # V.2's recipe
    seconds = time.process_time() - began_lenet
    test = mnist_5k("test")
    accuracy = float((predict(as_stored(lenet), test.images[:, None].astype(np.float32)) == test.labels).mean())
    print(f"LeNet-5 (V.2's recipe): test accuracy {accuracy:.4f}, {seconds:.1f} CPU s", flush=True)
    save_atomically({"weights": half(lenet), "test_accuracy": accuracy, "cpu_seconds": seconds},
                    CHECKPOINTS / "lenet_digits.pt")
    print(f"total {time.process_time() - began:.0f} CPU s", flush=True)


if __name__ == "__main__":
    main()
