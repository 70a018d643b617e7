"""Tests of mmir_lib.vision.dual_encoder: shapes and unit vectors, the bag's blindness to
word order and the GRU's sight of it, the loss through the model, retrieval scores
against a direct count, and a short training run that learns."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.contrastive import clip_loss
from mmir_lib.data import mnist_5k
from mmir_lib.vision.captions import caption, captioned_canvases, compositions
from mmir_lib.vision.dual_encoder import (embed_images, embed_texts, make_dual_encoder, retrieval_scores,
                                          train_dual_encoder)


@pytest.mark.parametrize("kind", ["bag", "gru"])
def test_shapes_unit_vectors_and_the_loss(kind):
    model = make_dual_encoder(kind, seed=0)
    images = np.random.default_rng(0).random((3, 28, 56)).astype(np.float32)
    x = embed_images(model, images)
    t = embed_texts(model, ["a seven", "un sept à gauche d'un deux", "7 7"])
    assert x.shape == t.shape == (3, 32)
    assert np.allclose(np.linalg.norm(x, axis=1), 1, atol=1e-5) and np.allclose(np.linalg.norm(t, axis=1), 1,
                                                                                  atol=1e-5)
    captions = ["a seven", "un sept à gauche d'un deux", "7 7"]
    with torch.no_grad():
        loss = model.loss(torch.from_numpy(images[:, None]), captions)
        expected = clip_loss(torch.from_numpy(x), torch.from_numpy(t), model.log_scale)
    assert float(loss) == pytest.approx(float(expected), abs=1e-5)
    assert float(model.log_scale.detach().exp()) == pytest.approx(1 / 0.07, rel=1e-6)   # CLIP's initial temperature


def test_bag_of_words_is_blind_to_order_and_the_gru_is_not():
    bag, gru = make_dual_encoder("bag", seed=0), make_dual_encoder("gru", seed=0)
    texts = [caption((7, 2), "english"), caption((2, 7), "english")]
    a, b = embed_texts(bag, texts)
    assert np.abs(a - b).max() < 1e-6
    a, b = embed_texts(gru, texts)
    assert np.abs(a - b).max() > 1e-3
    with pytest.raises(ValueError, match="above"):
        embed_texts(gru, ["a seven above a two"])


def test_the_image_encoder_sees_left_from_right():
    model = make_dual_encoder("gru", seed=0)
    canvases = captioned_canvases("test", [(7, 2)], 1, seed=0).images
    mirrored = np.concatenate([canvases[:, :, 28:], canvases[:, :, :28]], axis=2)   # the halves swapped
    x, y = embed_images(model, np.concatenate([canvases, mirrored]))
    assert np.abs(x - y).max() > 1e-3


def _expected_by_enumeration(scores, relevant):
    """R@1, R@5 and MRR averaged over every order of the tied items (exact ties only)."""
    import itertools

    r1, r5, rr = [], [], []
    for s, r in zip(scores, relevant):
        levels = sorted(set(s), reverse=True)
        groups = [[j for j in range(len(s)) if s[j] == v] for v in levels]
        orders = list(itertools.product(*[list(itertools.permutations(g)) for g in groups]))
        ranks = [1 + [j for g in order for j in g].index(next(j for g in order for j in g if r[j]))
                 for order in orders]
        r1.append(np.mean([k <= 1 for k in ranks]))
        r5.append(np.mean([k <= 5 for k in ranks]))
        rr.append(np.mean([1 / k for k in ranks]))
    return {"R@1": np.mean(r1), "R@5": np.mean(r5), "MRR": np.mean(rr)}


@settings(max_examples=40, deadline=None)
@given(q=st.integers(1, 4), g=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_retrieval_scores_against_every_tie_break(q, g, seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 3, size=(q, g)).astype(float)     # ties on purpose
    relevant = rng.random((q, g)) < 0.3
    relevant[np.arange(q), rng.integers(0, g, q)] = True
    out, expected = retrieval_scores(scores, relevant), _expected_by_enumeration(scores, relevant)
    for measure in out:
        assert out[measure] == pytest.approx(expected[measure], abs=1e-12), measure
    assert 0 <= out["R@1"] <= out["R@5"] <= 1 and out["R@1"] <= out["MRR"] <= 1
    # scores that differ by less than the tolerance are ties too
    assert retrieval_scores(scores + 1e-9 * rng.random((q, g)), relevant) == pytest.approx(out)


def test_retrieval_scores_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        retrieval_scores(np.eye(2), np.array([[True, False], [False, False]]))
    with pytest.raises(ValueError, match="shape"):
        retrieval_scores(np.eye(2), np.eye(3, dtype=bool))


def test_a_short_run_learns_and_is_repeatable():
    train = mnist_5k("train")
    logs = []
    for _ in range(2):
        model = make_dual_encoder("gru", seed=3)
        logs.append(train_dual_encoder(model, train.images, train.labels, steps=60, lr=3e-3, batch_size=32, seed=3))
    assert logs[0].losses == logs[1].losses                   # seeded: the same run twice
    assert np.mean(logs[0].losses[-10:]) < np.mean(logs[0].losses[:10]) - 0.5
    assert len(logs[0].scales) == 60 and logs[0].cpu_seconds > 0
    # better than chance (1 in 100) at finding a seen composition's canvases
    val = captioned_canvases("validation", compositions("seen"), 2, seed=1)
    texts = embed_texts(model, [caption(c, "digits") for c in compositions("seen")])
    relevant = (np.array(compositions("seen"))[:, None] == val.compositions[None]).all(axis=2)
    assert retrieval_scores(texts @ embed_images(model, val.images).T, relevant)["R@5"] > 0.1
