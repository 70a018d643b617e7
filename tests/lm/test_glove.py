"""GloVe: the weighting function and the objective against their formulas (and gradcheck),
and a fit that recovers a planted log-bilinear count matrix."""

import numpy as np
import pytest
import torch

from mmir_lib.lm.glove import GloVe, glove_loss, glove_weight, train_glove


def test_the_weighting_function_is_the_papers():
    np.testing.assert_allclose(glove_weight([0, 25, 50, 100, 1000]), [0, 0.25**0.75, 0.5**0.75, 1, 1])
    np.testing.assert_allclose(glove_weight([[1.0, 2.0]], x_max=2, alpha=1), [[0.5, 1.0]])


def _batch(seed=0, b=7, d=4):
    generator = torch.Generator().manual_seed(seed)
    tensors = [torch.randn(*shape, generator=generator, dtype=torch.float64) for shape in ((b, d), (b, d), (b,), (b,))]
    log_x = torch.rand(b, generator=generator, dtype=torch.float64) * 3
    weight = torch.rand(b, generator=generator, dtype=torch.float64)
    return [t.requires_grad_() for t in tensors] + [log_x, weight]


def test_the_loss_is_the_weighted_squared_error():
    w, w_context, b, b_context, log_x, weight = _batch()
    expected = sum(weight[i] * (w[i] @ w_context[i] + b[i] + b_context[i] - log_x[i]) ** 2 for i in range(7)) / 7
    assert glove_loss(w, w_context, b, b_context, log_x, weight).item() == pytest.approx(expected.item(), abs=1e-12)


def test_the_loss_passes_gradcheck():
    assert torch.autograd.gradcheck(glove_loss, tuple(_batch(1)), eps=1e-6, atol=1e-8)


def test_fitting_a_planted_matrix_recovers_its_logarithms():
    """X = exp(U Uᵀ + c + cᵀ) with every entry counted: the fit brings the error near 0."""
    rng = np.random.default_rng(0)
    u, c = 0.5 * rng.normal(size=(30, 3)), rng.normal(size=30)
    log_x = u @ u.T + c[:, None] + c[None, :] + 3.0
    model, history = train_glove(np.exp(log_x), dim=3, epochs=200, x_max=1.0, lr=0.3, batch_size=100, seed=0)
    rows, columns = np.divmod(np.arange(900), 30)
    with torch.no_grad():
        fitted = (model.vectors.weight[rows] * model.context_vectors.weight[columns]).sum(1) \
            + model.biases.weight[rows, 0] + model.context_biases.weight[columns, 0]
    assert history.epoch_losses[-1] < history.epoch_losses[0] / 100
    assert np.abs(fitted.numpy() - log_x.ravel()).mean() < 0.1


def test_the_same_seed_gives_the_same_vectors():
    counts = np.random.default_rng(1).poisson(3.0, size=(12, 12)).astype(float)
    counts = counts + counts.T
    first, _ = train_glove(counts, dim=4, epochs=3, batch_size=16, seed=2)
    second, _ = train_glove(counts, dim=4, epochs=3, batch_size=16, seed=2)
    assert np.array_equal(first.word_vectors(), second.word_vectors())
    assert first.word_vectors().shape == (12, 4) and isinstance(first, GloVe)


def test_a_matrix_that_is_not_square_is_refused():
    with pytest.raises(ValueError, match=r"cooccurrences must be square"):
        train_glove(np.ones((3, 4)))
