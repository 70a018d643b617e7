"""VI.3's experiment: held-out test sets, the figures the chapter quotes, and the checkpoints.

``tools/train_clip_digits.py`` trains the dual encoders (both text encoders, three seeds)
and V.2's LeNet-5 by :data:`SETTINGS`, and stores them in ``mmir_lib/checkpoints/``
(weights in float16, read back as float32: the chapter and the tests score these very
weights). :func:`held_out_figures` computes every held-out figure of one model on the
fixed test sets of :func:`evaluation_sets`:

* **text → image**: each caption of a composition (in one form) searches all test
  canvases, relevant = the canvases of that composition; R@1, R@5, MRR, separately for
  the compositions seen in training and the held-out ones;
* **image → text**: each test canvas searches the captions of all 110 compositions in one
  form; relevant = its own;
* **swap**: for each canvas of two different digits (a, b), is the caption of (a, b)
  scored above that of (b, a)? (a tie, as a bag of words must give, counts one half);
* **zero-shot**: the 1,000 test digits, each alone at the centre of a canvas, classified
  by the nearest of the ten prompts "a zero" … "a nine" (or French, or digits, or the
  mean of the three prompt vectors, CLIP's prompt ensembling).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from ..validation import check_array, check_choice, check_count, check_instance
from .captions import (CANVAS, COMPOSITIONS, FORMS, HELD_OUT, CaptionedCanvases, caption, captioned_canvases,
                       compositions)
from .dual_encoder import TEXT_ENCODERS, DualEncoder, embed_images, embed_texts, make_dual_encoder, retrieval_scores

__all__ = ["SETTINGS", "CHECKPOINTS", "evaluation_sets", "centred_digits", "held_out_figures", "load_dual_encoder",
           "load_lenet", "checkpoint_record"]

#: How ``tools/train_clip_digits.py`` trains and how the test sets are drawn.
SETTINGS = {"steps": 2000, "batch_size": 64, "seeds": [0, 1, 2], "lr_grid": [1e-3, 3e-3, 1e-2], "tuning_seed": 0,
            "validation_per_composition": 3, "validation_seed": 1, "test_per_composition": 5, "test_seed": 3,
            "held_out_per_composition": 10, "held_out_seed": 4, "tie": 1e-6}
#: The committed checkpoints.
CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"


def evaluation_sets() -> dict[str, CaptionedCanvases]:
    """The test canvases (test digits only): "seen" (5 per seen composition, 500) and
    "held_out" (10 per held-out pair, 100)."""
    s = SETTINGS
    return {"seen": captioned_canvases("test", compositions("seen"), s["test_per_composition"],
                                       seed=s["test_seed"]),
            "held_out": captioned_canvases("test", list(HELD_OUT), s["held_out_per_composition"],
                                           seed=s["held_out_seed"])}


def centred_digits(digits: np.ndarray) -> np.ndarray:
    """(N, 28, 56) float32 canvases, digit n of (N, 28, 28) ``digits`` alone at columns 14 … 41."""
    digits = check_array("digits", digits, ndim=3, nonempty=True)
    if digits.shape[1:] != (28, 28):
        raise ValueError(f"digits must have shape (N, 28, 28), got {digits.shape}")
    out = np.zeros((len(digits), *CANVAS), dtype=np.float32)
    out[:, :, 14:42] = digits
    return out


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(len(a), len(b)) bool: composition a_i equals composition b_j."""
    return (a[:, None, :] == b[None, :, :]).all(axis=2)


def held_out_figures(model: DualEncoder, sets: dict[str, CaptionedCanvases] | None = None,
                     zero_shot: tuple[np.ndarray, np.ndarray] | None = None) -> dict:
    """Every held-out figure of ``model`` (module docstring), as a nested dict:
    ``{"text_to_image" | "image_to_text": {"seen" | "held_out": {form: {"R@1", "R@5", "MRR"}}},
    "swap": {"seen" | "held_out": {form: share}}, "zero_shot": {form | "ensemble": accuracy}}``.
    ``sets`` defaults to :func:`evaluation_sets`, ``zero_shot`` to the test digits and labels."""
    from ..data import mnist_5k

    check_instance("model", model, DualEncoder)
    sets = evaluation_sets() if sets is None else sets
    if zero_shot is None:
        test = mnist_5k("test")
        zero_shot = (test.images, test.labels)
    gallery = np.concatenate([sets["seen"].compositions, sets["held_out"].compositions])
    vectors = {name: embed_images(model, s.images) for name, s in sets.items()}
    all_images = np.concatenate([vectors["seen"], vectors["held_out"]])
    every = np.array(COMPOSITIONS)
    out = {"text_to_image": {}, "image_to_text": {}, "swap": {}, "zero_shot": {}}
    for name, s in sets.items():
        queries = np.unique(s.compositions, axis=0)
        out["text_to_image"][name], out["image_to_text"][name], out["swap"][name] = {}, {}, {}
        pairs = s.compositions[:, 0] != s.compositions[:, 1]
        pairs &= s.compositions[:, 1] >= 0
        for form in FORMS:
            texts = embed_texts(model, [caption(c, form) for c in queries])
            out["text_to_image"][name][form] = retrieval_scores(texts @ all_images.T, _same(queries, gallery))
            captions = embed_texts(model, [caption(c, form) for c in every])
            out["image_to_text"][name][form] = retrieval_scores(vectors[name] @ captions.T,
                                                                _same(s.compositions, every))
            kept = s.compositions[pairs]
            right = embed_texts(model, [caption(c, form) for c in kept])
            swapped = embed_texts(model, [caption(c[::-1], form) for c in kept])
            gap = ((right - swapped) * vectors[name][pairs]).sum(axis=1)
            out["swap"][name][form] = float(np.where(np.abs(gap) < SETTINGS["tie"], 0.5, gap > 0).mean())
    images = embed_images(model, centred_digits(zero_shot[0]))
    prompts = {form: embed_texts(model, [caption((d, -1), form) for d in range(10)]) for form in FORMS}
    mean = sum(prompts.values())
    prompts["ensemble"] = mean / np.linalg.norm(mean, axis=1, keepdims=True)
    for form, vectors10 in prompts.items():
        out["zero_shot"][form] = float(((images @ vectors10.T).argmax(axis=1) == zero_shot[1]).mean())
    return out


def _path(name: str, directory: Path | None) -> Path:
    return (CHECKPOINTS if directory is None else Path(directory)) / name


def checkpoint_record(text_encoder: str, directory: Path | None = None) -> dict:
    """The record ``tools/train_clip_digits.py`` stored for one text encoder: its
    ``settings``, the ``validation`` MRR of each learning rate on the tuning seed, the
    ``chosen_lr``, and per seed the float16 ``weights``, the training ``log`` (loss per
    step, CPU seconds) and the held-out ``figures`` it measured."""
    text_encoder = check_choice("text_encoder", text_encoder, TEXT_ENCODERS)
    path = _path(f"clip_digits_{text_encoder}.pt", directory)
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: run python tools/train_clip_digits.py")
    record = torch.load(path, weights_only=False)
    if record.get("text_encoder") != text_encoder:
        raise ValueError(f"{path} holds a {record.get('text_encoder')!r} dual encoder, not {text_encoder!r}")
    return record


def load_dual_encoder(text_encoder: str, seed: int, directory: Path | None = None) -> DualEncoder:
    """The trained dual encoder with ``text_encoder`` ("bag" or "gru") and training ``seed``,
    its float16 weights read back as float32, in eval mode."""
    seed = check_count("seed", seed, high=2**32 - 1)
    record = checkpoint_record(text_encoder, directory)
    if seed not in record["models"]:
        raise ValueError(f"seed must be one of the trained seeds {sorted(record['models'])}, got {seed}")
    model = make_dual_encoder(text_encoder, seed)
    model.load_state_dict({k: v.float() for k, v in record["models"][seed]["weights"].items()})
    return model.eval()


def load_lenet(directory: Path | None = None):
    """V.2's LeNet-5, trained by V.2's recipe (seed 0) in ``tools/train_clip_digits.py``,
    float16 weights read back as float32, in eval mode."""
    from .lenet import LeNet5

    path = _path("lenet_digits.pt", directory)
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: run python tools/train_clip_digits.py")
    record = torch.load(path, weights_only=False)
    model = LeNet5()
    model.load_state_dict({k: v.float() for k, v in record["weights"].items()})
    return model.eval()
