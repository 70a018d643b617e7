"""The committed checkpoints of VI.3 (tools/train_clip_digits.py): the held-out figures the
chapter quotes, recomputed from the stored weights; the tuning rule; V.2's LeNet-5; the
test sets (test digits only); loading refuses a checkpoint of another model."""

import numpy as np
import pytest
import torch

from mmir_lib.data import mnist_5k
from mmir_lib.vision.captions import FORMS, HELD_OUT
from mmir_lib.vision.clip_digits import (CHECKPOINTS, SETTINGS, centred_digits, checkpoint_record, held_out_figures,
                                         load_dual_encoder, load_lenet, evaluation_sets)
from mmir_lib.vision.lenet import predict

SETS = evaluation_sets()


def _close(a, b, path=""):
    if isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _close(a[k], b[k], f"{path}/{k}")
    else:
        assert abs(a - b) < 1e-6, f"{path}: recomputed {a}, stored {b}"


@pytest.mark.parametrize("name", ["bag", "gru"])
def test_records_follow_the_settings_and_the_tuning_rule(name):
    record = checkpoint_record(name)
    assert record["settings"] == SETTINGS
    assert record["chosen_lr"] == max(record["validation"], key=record["validation"].get)
    assert sorted(record["models"]) == SETTINGS["seeds"]
    for seed, stored in record["models"].items():
        assert all(v.dtype == torch.float16 for v in stored["weights"].values())
        assert len(stored["log"]["losses"]) == SETTINGS["steps"]
    assert (CHECKPOINTS / f"clip_digits_{name}.pt").stat().st_size < 700_000


@pytest.mark.parametrize("name", ["bag", "gru"])
def test_held_out_figures_recomputed_from_the_weights(name):
    record = checkpoint_record(name)
    for seed in SETTINGS["seeds"]:
        figures = held_out_figures(load_dual_encoder(name, seed), SETS)
        _close(figures, record["models"][seed]["figures"], f"{name} seed {seed}")


def test_the_lessons_the_chapter_asserts():
    figures = {(name, seed): checkpoint_record(name)["models"][seed]["figures"]
               for name in ("bag", "gru") for seed in SETTINGS["seeds"]}
    for seed in SETTINGS["seeds"]:
        for split in ("seen", "held_out"):
            bag = np.mean([figures["bag", seed]["swap"][split][f] for f in FORMS])
            gru = np.mean([figures["gru", seed]["swap"][split][f] for f in FORMS])
            assert abs(bag - 0.5) < 1e-9 and gru > bag + 0.2


def test_lenet_is_v2s_recipe_and_its_accuracy():
    test = mnist_5k("test")
    accuracy = float((predict(load_lenet(), test.images[:, None].astype(np.float32)) == test.labels).mean())
    stored = torch.load(CHECKPOINTS / "lenet_digits.pt", weights_only=False)
    assert accuracy == pytest.approx(stored["test_accuracy"], abs=1e-9) and accuracy >= 0.97


def test_test_sets_and_centred_digits():
    assert len(SETS["seen"]) == 100 * SETTINGS["test_per_composition"]
    assert len(SETS["held_out"]) == len(HELD_OUT) * SETTINGS["held_out_per_composition"]
    held = {tuple(c) for c in SETS["held_out"].compositions}
    assert held == set(HELD_OUT) and not held & {tuple(c) for c in SETS["seen"].compositions}
    digits = mnist_5k("test").images[:3]
    canvases = centred_digits(digits)
    assert canvases.shape == (3, 28, 56) and np.array_equal(canvases[:, :, 14:42], digits.astype(np.float32))
    assert canvases[:, :, :14].sum() == 0 and canvases[:, :, 42:].sum() == 0


def test_loading_refuses_another_model(tmp_path):
    record = checkpoint_record("bag")
    torch.save(record, tmp_path / "clip_digits_gru.pt")          # a bag-of-words record under the GRU's name
    with pytest.raises(ValueError, match="'bag' dual encoder, not 'gru'"):
        load_dual_encoder("gru", 0, directory=tmp_path)
    with pytest.raises(FileNotFoundError, match="train_clip_digits"):
        load_lenet(directory=tmp_path)
    with pytest.raises(ValueError, match="seed"):
        load_dual_encoder("bag", 7)
