"""Bad input meets a clear error, everywhere in the public API (see tests/api_fuzz.py).

Each public callable has a valid example call (tests/bad_input_cases/); every keyword
argument of it is replaced, one at a time, by each of the bad values of
``api_fuzz.BAD_VALUES``. The call must raise ValueError/TypeError naming the argument,
or return only where the case declares that value legal.

Below them, one test per class of bad input that a wider sweep (about 1,700 values,
issue 15) found beyond these values: sizes that pass the argument checks but would
exhaust memory, featureless and tiny images, integer images, out-of-range positions,
an optimiser over another model, an all-zero matrix.
"""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from mmir_lib import validation
from mmir_lib.ir import links
from mmir_lib.lm import glove, neural, ngram, vectors, word2vec
from mmir_lib.training import train
from mmir_lib.vision import bovw, derivatives, edges, filters, kernels, lsh, scale_space, sift, transforms
from mmir_lib.vision.images import load_photo
from tests import bad_input_cases
from tests.api_fuzz import BAD_VALUES, EXEMPT, outcome, public_callables, qualified_name

CASES, EXEMPTIONS = [], dict(EXEMPT)
for _info in pkgutil.iter_modules(bad_input_cases.__path__):
    _module = importlib.import_module(f"{bad_input_cases.__name__}.{_info.name}")
    CASES += _module.CASES
    EXEMPTIONS.update(getattr(_module, "EXEMPT", {}))

ARGUMENTS = [(case, argument) for case in CASES for argument in case.kwargs if argument not in case.skip]


def test_every_public_callable_has_a_case():
    covered = {qualified_name(case.func) for case in CASES}
    missing = sorted(set(public_callables()) - covered - set(EXEMPTIONS))
    assert not missing, f"public callables with no bad-input case (add one, or an EXEMPT reason): {missing}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_valid_call_succeeds(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    case.func(*case.args, **case.kwargs)  # the fuzzed calls start from a call that works


@pytest.mark.parametrize("case, argument", ARGUMENTS, ids=[f"{c.name}-{a}" for c, a in ARGUMENTS])
def test_bad_value_is_refused_clearly(case, argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a bad str that a function accepts as a file name lands here, not in the repo
    findings = []
    for bad_name in BAD_VALUES:
        kind, detail = outcome(case, argument, bad_name)
        if kind not in ("clear", "accepted"):
            findings.append(f"{argument}={bad_name}: {kind} ({detail[:200]})")
    assert not findings, f"{case.name}:\n" + "\n".join(findings)


# ---- Classes of bad input a sweep of ~1,700 values found (issue 15, section 6) ----------
# Each huge request must be refused at the door, before any allocation: the calls below
# would ask for terabytes, so a pass proves the check comes first.


def test_check_memory_names_the_argument_and_the_bytes():
    assert validation.check_memory("shape", 1000) == 1000
    with pytest.raises(ValueError, match=r"^sigma asks for an array of 1000000000000 elements \(8 TB\)"):
        validation.check_memory("sigma", 10**12)
    assert validation.check_memory("n", validation.MEMORY_LIMIT // 8) == validation.MEMORY_LIMIT // 8
    with pytest.raises(ValueError, match="n asks"):
        validation.check_memory("n", validation.MEMORY_LIMIT // 8 + 1)


@pytest.mark.parametrize("call, argument", [
    (lambda: kernels.gaussian_kernel_2d(1e4, truncate=100), "sigma"),
    (lambda: filters.correlate1d(np.broadcast_to(0.0, (30_000, 3)), np.ones(20_001), mode="extend"), "kernel"),
    (lambda: transforms.warp(np.zeros((8, 8)), np.eye(3), shape=(10**6, 10**6)), "shape"),
    (lambda: word2vec.noise_table(np.ones(4) / 4, size=10**9), "size"),
    (lambda: word2vec.SkipGram(10**9, 300), "vocab_size"),
    (lambda: glove.GloVe(10**6, 10**4), "dim"),
    (lambda: neural.NeuralNGram(10**8, 3, 100, 100), "vocab_size"),
    (lambda: neural.BigramLM(10**5), "vocab_size"),
    (lambda: ngram.Uniform(10**15), "vocab_size"),
    (lambda: vectors.term_term_matrix([[0, 1]], 10**12), "vocab_size"),
    (lambda: vectors.term_document_matrix([[0, 1]], 10**12), "vocab_size"),
    (lambda: lsh.LSHIndex(np.zeros((10**4, 2)), 10_000, 1000), "n_tables"),
    (lambda: bovw.word_histogram([0, 1], 10**9), "vocabulary_size"),
    (lambda: links.adjacency_matrix([0], [1], num_nodes=10**12), "num_nodes"),
    (lambda: ngram.ngram_windows([0, 1], 10**12, pad=0), "order"),
    (lambda: word2vec.cbow_windows([np.array([0, 1, 2])], 3, 10**9, np.random.default_rng(0)), "window"),
    (lambda: word2vec.train_word2vec([np.array([0, 1, 2])], 10**9), "vocab_size"),
], ids=["kernel_2d", "correlate1d", "warp", "noise_table",
        "skipgram", "glove", "neural", "bigram", "uniform", "term_term", "term_document", "lsh", "word_histogram",
        "adjacency_matrix", "ngram_windows", "cbow_windows", "train_word2vec"])
def test_huge_sizes_are_refused_before_allocating(call, argument):
    with pytest.raises(ValueError, match=rf"{argument}.*asks for an array of \d+ elements"):
        call()


def test_featureless_and_tiny_images_in_sift():
    for image in (np.full((64, 64), 0.5), np.zeros((16, 16))):
        keypoints, descriptors = sift.sift_features(image)
        assert len(keypoints) == 0 and keypoints.xy.shape == (0, 2)
        assert descriptors.shape == (0, 128) and descriptors.dtype == np.uint8
    with pytest.raises(ValueError, match="image must be at least min_size = 16 pixels"):
        sift.sift_features(np.zeros((5, 40)))
    with pytest.raises(ValueError, match="sigma0 = 10 and min_size = 16: a blur of"):
        sift.sift_pyramid(np.zeros((32, 32)), sigma0=10)


def test_keypoint_positions_out_of_range_are_refused():
    keypoints, _ = sift.sift_features(load_photo("camera")[100:228, 200:328])
    n = len(keypoints)
    assert n > 2 and len(keypoints.take([0, -1])) == 2 and len(keypoints.take(np.arange(n) % 2 == 0)) == (n + 1) // 2
    for bad, error in (([n], ValueError), ([-n - 1], ValueError), (np.ones(n + 1, bool), ValueError),
                       ([0.5], TypeError), ("0", TypeError)):
        with pytest.raises(error, match="index"):
            keypoints.take(bad)


def test_uint8_images_mean_the_same_as_floats_in_unit_range():
    image = np.round(load_photo("camera")[100:228, 200:328] * 255).astype(np.uint8)
    scaled = image / 255.0
    canny_u8 = edges.canny(image, sigma=1.5, low=0.05, high=0.1)
    assert canny_u8.any() and not canny_u8.all()
    assert np.array_equal(canny_u8, edges.canny(scaled, sigma=1.5, low=0.05, high=0.1))
    blobs = scale_space.find_blobs(image, [2.0, 3.0, 4.5], threshold=0.05)
    assert len(blobs) and np.allclose(blobs, scale_space.find_blobs(scaled, [2.0, 3.0, 4.5], threshold=0.05))
    k8, d8 = sift.sift_features(image)
    kf, df = sift.sift_features(scaled)
    assert len(k8) == len(kf) > 0 and np.allclose(k8.xy, kf.xy) and np.array_equal(d8, df)


def test_training_with_another_models_optimiser_is_refused():
    model, other = torch.nn.Linear(2, 1), torch.nn.Linear(2, 1)
    batches = [(torch.ones(4, 2), torch.zeros(4, 1))]
    loss = lambda m, batch: torch.nn.functional.mse_loss(m(batch[0]), batch[1])  # noqa: E731
    with pytest.raises(ValueError, match="optimizer must be built over the model's trainable parameters"):
        train(model, loss, batches, torch.optim.SGD(other.parameters(), lr=0.1))


def test_truncated_svd_of_a_zero_or_rank_deficient_matrix():
    for method in ("arpack", "randomized"):
        with pytest.raises(ValueError, match="matrix must have a nonzero entry"):
            vectors.truncated_svd(sp.csr_matrix((6, 5)), 2, method=method)
        rank_one = np.outer(np.arange(6.0), np.arange(1.0, 6.0))
        embedded = vectors.truncated_svd(sp.csr_matrix(rank_one), 2, method=method)
        assert np.allclose(np.abs(embedded[:, 0]), np.linalg.norm(rank_one, axis=1)) and np.allclose(embedded[:, 1], 0)


def test_counts_of_a_huge_order_are_refused_not_computed():
    with pytest.raises(ValueError, match="order must be <= 64"):  # 5**(10**9) alone took minutes
        ngram.count_ngrams([np.array([0, 1, 2])], 10**9, 5)
    with pytest.raises(ValueError, match="order 30 is too high for vocab_size 5"):
        ngram.count_ngrams([np.array([0, 1, 2])], 30, 5)



def test_a_gaussian_wider_than_a_mirror_can_supply_names_its_argument():
    small = np.zeros((8, 8))
    for function in (scale_space.gaussian_scale_space, scale_space.normalized_laplacian,
                     scale_space.difference_of_gaussians, scale_space.find_blobs):
        with pytest.raises(ValueError, match=r"^sigmas: a kernel of shape \(4001, 4001\) reaches further"):
            function(small, [1.0, 500.0])
    with pytest.raises(ValueError, match=r"^sigma: a kernel of shape \(41, 41\) reaches further"):
        derivatives.gaussian_filter(small, 5.0)
    assert derivatives.gaussian_filter(small, 5.0, mode="extend").shape == (8, 8)  # extend reaches any distance


def test_a_kernel_longer_than_the_image_filters_without_a_huge_band():
    # the band of correlate1d has as many rows as there are output lines (here 40), not
    # one per kernel tap (16,001): a σ of 2,000 on a small image agrees with scipy at once
    import scipy.ndimage

    image = np.random.default_rng(0).random((40, 60))
    smoothed = derivatives.gaussian_filter(image, 2000.0, mode="extend")
    assert np.allclose(smoothed, scipy.ndimage.gaussian_filter(image, 2000.0, mode="nearest"), atol=1e-12)
    assert not edges.canny(image, sigma=1000.0).any()  # smoothed flat: no edges, and no hang
    for result in (*derivatives.gaussian_gradient(image, 1e4, mode="zero"),
                   edges.laplacian_of_gaussian(image, 5e3, mode="extend"),
                   filters.correlate1d(image, np.ones(100_001) / 100_001, mode="extend")):
        assert result.shape == image.shape and np.all(np.isfinite(result))
