"""The training helper: histories, seeding, thread count, sanity checks and clipping."""

import pytest
import torch
from torch import nn

from mmir_lib.chapter import THREADS
from mmir_lib.training import History, TrainingError, evaluating, mean_loss, save_atomically, train


def _regression(seed=0, n=64):
    """y = 3x − 1 plus noise, in 8 batches of 8, and a linear model."""
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 1, generator=generator)
    y = 3 * x - 1 + 0.1 * torch.randn(n, 1, generator=generator)
    batches = [(x[i:i + 8], y[i:i + 8]) for i in range(0, n, 8)]
    model = nn.Linear(1, 1)
    with torch.no_grad():
        model.weight.zero_()
        model.bias.zero_()
    return model, batches


def _mse(model, batch):
    x, y = batch
    return ((model(x) - y) ** 2).mean()


def test_history_records_every_step_and_epoch():
    model, batches = _regression()
    history = train(model, _mse, batches, torch.optim.SGD(model.parameters(), lr=0.1), epochs=5,
                    validation=batches[:2], expect_decrease=True)
    assert isinstance(history, History)
    assert len(history.step_losses) == 40 and history.steps_per_epoch == [8] * 5
    assert len(history.epoch_losses) == len(history.validation_losses) == len(history.epoch_seconds) == 5
    for e in range(5):
        assert history.epoch_losses[e] == pytest.approx(sum(history.step_losses[8 * e:8 * e + 8]) / 8)
    assert history.epoch_losses[-1] < 0.05 < history.epoch_losses[0]
    assert model.weight.item() == pytest.approx(3, abs=0.1) and model.bias.item() == pytest.approx(-1, abs=0.1)
    assert history.validation_losses[-1] == pytest.approx(mean_loss(model, _mse, batches[:2]))


def test_batches_may_be_a_function_of_the_epoch():
    model, batches = _regression()
    seen = []

    def epoch_batches(epoch):
        seen.append(epoch)
        return batches[:epoch]

    history = train(model, _mse, epoch_batches, torch.optim.SGD(model.parameters(), lr=0.1), epochs=3)
    assert seen == [1, 2, 3] and history.steps_per_epoch == [1, 2, 3]


def test_the_same_seed_gives_the_same_run():
    """Dropout draws from torch's generator during training: the seed fixes them."""
    def run(seed):
        model, batches = _regression()
        net = nn.Sequential(model, nn.Dropout(0.5))
        return train(net, _mse, batches, torch.optim.SGD(net.parameters(), lr=0.05), epochs=2, seed=seed).step_losses

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_torch_computes_with_the_books_thread_count_and_the_setting_is_restored():
    model, batches = _regression()
    threads = []
    previous = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        train(model, lambda m, b: (threads.append(torch.get_num_threads()), _mse(m, b))[1], batches,
              torch.optim.SGD(model.parameters(), lr=0.1))
        assert set(threads) == {THREADS} and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(previous)


def test_a_loss_that_is_not_finite_stops_the_run_at_once():
    model, batches = _regression()
    steps = []

    def exploding(m, batch):
        steps.append(1)
        return _mse(m, batch) * (float("nan") if len(steps) == 3 else 1.0)

    with pytest.raises(TrainingError, match="the loss is nan at step 3 of epoch 1"):
        train(model, exploding, batches, torch.optim.SGD(model.parameters(), lr=0.1), epochs=2)
    assert len(steps) == 3


def test_a_diverging_run_is_caught():
    model, batches = _regression()
    with pytest.raises(TrainingError, match="the loss is (inf|nan)"):
        train(model, _mse, batches, torch.optim.SGD(model.parameters(), lr=50.0), epochs=50)


def test_expect_decrease_fails_a_run_that_does_not_learn():
    model, batches = _regression()
    with pytest.raises(TrainingError, match="the loss did not decrease"):
        train(model, _mse, batches, torch.optim.SGD(model.parameters(), lr=0.0), epochs=2, expect_decrease=True)


def test_clip_norm_bounds_the_gradient_at_every_step():
    model, batches = _regression()
    norms = []

    class Recording(torch.optim.SGD):
        def step(self, closure=None):
            norms.append(torch.cat([p.grad.ravel() for p in model.parameters()]).norm().item())
            return super().step(closure)

    train(model, _mse, batches, Recording(model.parameters(), lr=0.1), epochs=2, clip_norm=0.5)
    assert max(norms) <= 0.5 + 1e-6 and len(norms) == 16


def test_mean_loss_restores_the_mode_and_needs_no_gradients():
    model, batches = _regression()
    model.eval()
    assert mean_loss(model, _mse, batches) == pytest.approx(sum(_mse(model, b).item() for b in batches) / 8)
    assert not model.training


def test_evaluating_switches_to_eval_mode_without_gradients_and_back_even_after_an_error():
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5))
    x = torch.ones(1, 2, requires_grad=True)
    with evaluating(model) as inside:
        assert inside is model and not model.training and not any(m.training for m in model.modules())
        assert not model(x).requires_grad
    assert model.training and all(m.training for m in model.modules())
    with pytest.raises(RuntimeError, match="inside"), evaluating(model):
        raise RuntimeError("inside")
    assert model.training and torch.is_grad_enabled()
    model.eval()
    with evaluating(model):
        pass
    assert not model.training  # a model in eval mode stays there
    with pytest.raises(TypeError, match="model must be"):
        evaluating("a model")


def test_bad_batches_and_losses_are_refused_clearly():
    model, batches = _regression()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(TypeError, match="batches must be re-iterable"):
        train(model, _mse, iter(batches), optimizer, epochs=2)
    with pytest.raises(ValueError, match="batches gave no batch in epoch 1"):
        train(model, _mse, [], optimizer)
    with pytest.raises(TypeError, match="loss_fn must return a scalar tensor"):
        train(model, lambda m, b: m(b[0]), batches, optimizer)
    with pytest.raises(TypeError, match="optimizer must be an Optimizer"):
        train(model, _mse, batches, "adam")


def test_save_atomically_replaces_the_file_whole_and_leaves_no_partial(tmp_path):
    path = tmp_path / "checkpoints" / "model.pt"
    assert save_atomically({"step": 1, "weights": torch.ones(3)}, path) == path
    save_atomically({"step": 2, "weights": torch.zeros(3)}, str(path))
    loaded = torch.load(path, weights_only=True)
    assert loaded["step"] == 2 and torch.equal(loaded["weights"], torch.zeros(3))
    assert sorted(p.name for p in path.parent.iterdir()) == ["model.pt"]
    with pytest.raises(TypeError, match="path"):
        save_atomically({}, 3)
