"""The training loop every neural chapter uses: small, seeded, and sane by construction.

Training a torch model is the same five lines in every chapter: for each batch,
compute the loss, clear the old gradients, back-propagate, take an optimiser step,
remember the loss. :func:`train` writes them once,

    for epoch in 1 … E:
        for batch in batches(epoch):
            ℓ = loss_fn(model, batch);   ∇θ ℓ by back-propagation;   θ ← step(θ, ∇θ ℓ)

and adds what makes a run trustworthy and repeatable:

* **seeded**: ``torch.manual_seed(seed)`` before the first step, so parameter
  draws and dropout masks made during training repeat exactly;
* **fixed threads**: torch computes with :data:`mmir_lib.chapter.THREADS` threads
  (the count :func:`~mmir_lib.setup_chapter` fixes), whatever the machine, because a
  parallel sum adds in an order that depends on the number of threads; the caller's
  setting is restored afterwards;
* **a history**: the loss of every step, the mean loss of every epoch, the
  validation loss after every epoch (optional) and the seconds each epoch took;
* **sanity checks** (as d2l's helpers assert): a loss that is not finite stops the
  run at once with a :class:`TrainingError` naming the step, instead of training on
  NaNs; ``expect_decrease=True`` also requires the loss to have gone down (the last
  epoch's mean loss below the first's; in a single epoch, the mean of the last tenth
  of the steps below that of the first tenth), so a chapter whose model stopped
  learning fails loudly.

``batches`` is either a re-iterable collection (a list of batches, a DataLoader),
used as it is every epoch, or a function ``batches(epoch)`` that returns the batches
of that epoch (word2vec draws new negative samples each epoch). A batch is whatever
``loss_fn`` understands: ``loss_fn(model, batch)`` returns a scalar tensor.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .chapter import THREADS
from .validation import (check_bool, check_callable, check_count, check_instance, check_number, check_optional,
                         check_path, describe)

__all__ = ["TrainingError", "History", "train", "mean_loss", "evaluating", "save_atomically"]


class TrainingError(RuntimeError):
    """A training run is not sane: a loss that is not finite, or a loss that did not
    go down when it had to."""


@dataclass
class History:
    """What :func:`train` recorded.

    ``step_losses``        the loss of every optimiser step, in order
    ``epoch_losses``       the mean of the step losses of each epoch
    ``validation_losses``  the mean validation loss after each epoch (empty without validation data)
    ``epoch_seconds``      wall-clock seconds of each epoch (training only)
    ``steps_per_epoch``    the number of steps of each epoch
    """

    step_losses: list[float] = field(default_factory=list)
    epoch_losses: list[float] = field(default_factory=list)
    validation_losses: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)
    steps_per_epoch: list[int] = field(default_factory=list)

    def __repr__(self) -> str:
        losses = ", ".join(f"{x:.4g}" for x in self.epoch_losses)
        text = f"History({len(self.epoch_losses)} epochs, {len(self.step_losses)} steps; epoch losses [{losses}]"
        if self.validation_losses:
            text += "; validation [" + ", ".join(f"{x:.4g}" for x in self.validation_losses) + "]"
        return text + ")"


def _epoch_batches(batches: Callable | Iterable, epoch: int) -> Iterable:
    """The batches of one epoch: ``batches(epoch)`` for a function, else ``batches`` itself."""
    return batches(epoch) if callable(batches) else batches


def _check_batches(batches: object, name: str = "batches") -> Callable | Iterable:
    """A function of the epoch, or a collection that can be iterated once per epoch (an
    iterator or generator would be empty from the second epoch on)."""
    if callable(batches):
        return batches
    if isinstance(batches, (str, bytes)) or not isinstance(batches, Iterable):
        raise TypeError(f"{name} must be an iterable of batches or a function of the epoch, got {describe(batches)}")
    if isinstance(batches, Iterator):
        raise TypeError(f"{name} must be re-iterable (a list, a DataLoader) or a function of the epoch; "
                        f"got an iterator ({describe(batches)}), which would be used up after one epoch")
    return batches


def _finite(loss: object, where: str) -> float:
    """The loss as a float; a TrainingError if it is not a finite scalar."""
    import torch

    if not isinstance(loss, torch.Tensor) or loss.numel() != 1:
        raise TypeError(f"loss_fn must return a scalar tensor, got {describe(loss)} {where}")
    value = float(loss.detach())
    if not math.isfinite(value):
        raise TrainingError(f"the loss is {value} {where}: lower the learning rate, or check the data and the model")
    return value


def evaluating(model) -> AbstractContextManager:
    """``with evaluating(model):`` runs its block with ``model`` in evaluation mode
    (dropout off, batch norm on its running statistics) and without gradients, and puts
    the model back in training mode afterwards if it was in it, even when the block
    raises. Switching modes walks every submodule, so a model already in evaluation
    mode is left alone (cheap enough for a decoder that calls it once per word)."""
    import torch

    return _evaluating(check_instance("model", model, torch.nn.Module))


@contextmanager
def _evaluating(model) -> Iterator:
    import torch

    was_training = model.training
    if was_training:
        model.eval()
    try:
        with torch.no_grad():
            yield model
    finally:
        if was_training:
            model.train()


def mean_loss(model, loss_fn: Callable, batches: Iterable) -> float:
    """Mean of ``loss_fn(model, batch)`` over ``batches``, in eval mode and without
    gradients: a held-out loss. The model returns to the mode it was in."""
    import torch

    check_instance("model", model, torch.nn.Module)
    check_callable("loss_fn", loss_fn)
    batches = _check_batches(batches)
    if callable(batches):
        raise TypeError("batches must be a re-iterable collection of batches, not a function")
    return _mean_loss(model, loss_fn, batches)


def _mean_loss(model, loss_fn: Callable, batches: Iterable, name: str = "batches") -> float:
    with evaluating(model):
        losses = [_finite(loss_fn(model, batch), f"on the batches of {name}") for batch in batches]
    if not losses:
        raise ValueError(f"{name} must hold at least one batch")
    return sum(losses) / len(losses)


def train(model, loss_fn: Callable, batches: Callable | Iterable, optimizer, epochs: int = 1, *,
          validation: Iterable | None = None, seed: int | None = 0, clip_norm: float | None = None,
          expect_decrease: bool = False) -> History:
    """Train ``model`` for ``epochs`` passes over ``batches``; return the :class:`History`.

    Parameters
    ----------
    model : torch.nn.Module
    loss_fn : ``loss_fn(model, batch)`` -> scalar tensor, the loss to minimise.
    batches : a re-iterable collection of batches, or a function ``batches(epoch)``
        (epoch = 1, 2, …) returning the batches of that epoch.
    optimizer : a ``torch.optim.Optimizer`` over the model's parameters.
    epochs : E >= 1.
    validation : optional re-iterable batches; their mean loss (eval mode, no
        gradients) is recorded after every epoch.
    seed : ``torch.manual_seed(seed)`` before the first step (None: leave torch's
        generator as it is).
    clip_norm : if given, rescale the gradient so that its global L2 norm is at most
        this before each step (``torch.nn.utils.clip_grad_norm_``).
    expect_decrease : require the last epoch's mean loss to be below the first's (one
        epoch: the mean of the last tenth of the steps below that of the first tenth).

    Raises
    ------
    TrainingError
        A loss (training or validation) that is not finite, or, with
        ``expect_decrease``, a loss that did not go down.
    """
    import torch

    check_instance("model", model, torch.nn.Module)
    check_callable("loss_fn", loss_fn)
    batches = _check_batches(batches)
    check_instance("optimizer", optimizer, torch.optim.Optimizer)
    _check_optimizer_owns(optimizer, model)
    epochs = check_count("epochs", epochs, low=1)
    if validation is not None:
        validation = _check_batches(validation, "validation")
        if callable(validation):
            raise TypeError("validation must be a re-iterable collection of batches, not a function")
    seed = check_optional(check_count, "seed", seed, high=2**63 - 1)
    clip_norm = check_optional(check_number, "clip_norm", clip_norm, low=0, low_open=True)
    check_bool("expect_decrease", expect_decrease)

    history = History()
    threads = torch.get_num_threads()
    torch.set_num_threads(THREADS)
    try:
        if seed is not None:
            torch.manual_seed(seed)
        model.train()
        for epoch in range(1, epochs + 1):
            start, losses = time.perf_counter(), []
            for batch in _epoch_batches(batches, epoch):
                loss = loss_fn(model, batch)
                losses.append(_finite(loss, f"at step {len(losses) + 1} of epoch {epoch}"))
                optimizer.zero_grad()
                loss.backward()
                if clip_norm is not None:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
                optimizer.step()
            if not losses:
                raise ValueError(f"batches gave no batch in epoch {epoch}")
            history.epoch_seconds.append(time.perf_counter() - start)
            history.step_losses += losses
            history.epoch_losses.append(sum(losses) / len(losses))
            history.steps_per_epoch.append(len(losses))
            if validation is not None:
                history.validation_losses.append(_mean_loss(model, loss_fn, validation, "validation"))
    finally:
        torch.set_num_threads(threads)
    if expect_decrease:
        _check_decrease(history)
    return history


def _check_optimizer_owns(optimizer: torch.optim.Optimizer, model: torch.nn.Module) -> None:
    """The optimiser updates some of the model's trainable parameters: one built over
    another model's (or a stale copy's) parameters would run and change nothing."""
    trainable = {id(p) for p in model.parameters() if p.requires_grad}
    updated = {id(p) for group in optimizer.param_groups for p in group["params"]}
    if not trainable & updated:
        raise ValueError("optimizer must be built over the model's trainable parameters, e.g. "
                         "torch.optim.SGD(model.parameters(), lr=0.1); it updates none of them")


def _check_decrease(history: History) -> None:
    """The last epoch's mean loss is below the first's (over two epochs or more: the same
    batches, or batches alike, are compared); in a single epoch, the mean of the last
    tenth of the steps is below that of the first tenth."""
    if len(history.epoch_losses) >= 2:
        first, last, what = history.epoch_losses[0], history.epoch_losses[-1], "epoch"
    else:
        losses, tenth = history.step_losses, max(1, len(history.step_losses) // 10)
        first, last = sum(losses[:tenth]) / tenth, sum(losses[-tenth:]) / tenth
        what = f"{tenth} steps"
    if not last < first:
        raise TrainingError(f"the loss did not decrease: mean of the first {what} {first:.6g}, "
                            f"of the last {what} {last:.6g}")


def save_atomically(obj: object, path: str | os.PathLike) -> Path:
    """``torch.save(obj)`` to a temporary file beside ``path``, then rename it to ``path``
    (making its folder if need be): a training script stopped while writing leaves the
    previous checkpoint whole. Returns the path."""
    import torch

    path = check_path("path", path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    torch.save(obj, partial)
    os.replace(partial, path)
    return path
