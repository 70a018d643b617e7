"""Optimisers written out: gradient descent with (Nesterov) momentum, AdaGrad, RMSprop, Adam and AdamW, on numpy arrays.

An optimiser holds a list of parameter arrays θ and changes them **in place** from
their gradients g = ∇θ J, one :meth:`Optimizer.step` per mini-batch. Each keeps, per
parameter, the running averages its rule needs, and counts its steps t = 1, 2, ...
(all operations are elementwise; α is the learning rate):

=================  =====================================================  ==========================
optimiser          update                                                 state
=================  =====================================================  ==========================
:class:`SGD`       v ← β v + g;   θ ← θ − α v   (β = 0: plain descent)     v (velocity)
SGD, Nesterov      v ← β v + g;   θ ← θ − α (g + β v)                     v
:class:`Adagrad`   s ← s + g²;   θ ← θ − α g / (√s + ε)                   s (sum of squares)
:class:`RMSprop`   s ← ρ s + (1 − ρ) g²;   θ ← θ − α g / (√s + ε)         s (mean square)
:class:`Adam`      g ← g + λ θ (L2, λ = 0 by default);                    m, s, t
                   m ← β₁ m + (1 − β₁) g;   s ← β₂ s + (1 − β₂) g²;
                   m̂ = m / (1 − β₁ᵗ);   ŝ = s / (1 − β₂ᵗ);
                   θ ← θ − α m̂ / (√ŝ + ε)
:class:`AdamW`     θ ← θ (1 − α λ), then Adam's step on the plain g       m, s, t
=================  =====================================================  ==========================

These are the rules of ``torch.optim`` (SGD with ``dampening=0``, Adagrad with
``lr_decay=0`` and ``initial_accumulator_value=0``, RMSprop, Adam, AdamW), with
the arithmetic in torch's order of operations where numpy can follow it. What holds, and
is tested: fed the same gradients, the parameters of both stay within about 1e-14 of each
other relative to their size (the tests allow 1e-13 over 50 steps, for random
hyperparameters); each step adds at most a few units in the last place. They are not
bit-identical, and cannot be from numpy: on AVX2 and AVX-512 torch computes ``add`` with
``alpha``, ``lerp`` and ``addcmul`` with a fused multiply–add (one rounding where numpy
makes two), and even without it torch's vectorised square root is one unit in the last
place off the correctly rounded one for some values. On their own trajectories, where the
gradient depends on the parameters, the two runs can drift apart wherever the dynamics
amplify a small difference (Adam with a small β₂ can); chapter IV.3's softmax regression
stays within 1e-12 over 100 steps.
Two of them differ in form from the course notes, not in substance:

* the notes' momentum averages, V ← β V + (1 − β) g, and steps θ ← θ − α V: its V is
  (1 − β) times the v above, so it is this rule with learning rate α(1 − β);
* the notes' RMSprop divides by √(s + ε), torch and this module by √s + ε: the two
  differ only where s is about ε, that is, for gradients of size 10⁻⁴ and below.

Also here: the exponentially weighted average with its bias correction
(:func:`exponential_average`), the learning-rate schedules of the notes
(:func:`decayed_learning_rate`), the linear warm-up with a cosine decay of chapter V.7's
training script (:func:`warmup_cosine_learning_rate`) and sampling hyperparameters on a log scale
(:func:`sample_log_uniform`, :func:`sample_beta`).
"""

from __future__ import annotations

import math

import numpy as np

from ..validation import check_array, check_bool, check_choice, check_count, check_list, check_number, describe

__all__ = ["Optimizer", "SGD", "Adagrad", "RMSprop", "Adam", "AdamW", "exponential_average", "decayed_learning_rate",
           "DECAY_SCHEDULES", "warmup_cosine_learning_rate", "sample_log_uniform", "sample_beta", "minimize"]


class Optimizer:
    """Base class: ``params`` is a list of float64 numpy arrays, updated in place by :meth:`step`."""

    def __init__(self, params, lr: float):
        if isinstance(params, np.ndarray):
            raise TypeError("params must be a list of arrays; for a single array pass [array]")
        params = check_list("params", params, np.ndarray, nonempty=True)
        for i, p in enumerate(params):
            if p.dtype != np.float64 or not p.flags.writeable:
                raise TypeError(f"params[{i}] must be a writeable float64 array (updated in place), "
                                f"got {describe(p)} of dtype {p.dtype}")
        self.params = params
        self.lr = lr
        self.t = 0

    @property
    def lr(self) -> float:
        """The learning rate α (a schedule may change it between steps)."""
        return self._lr

    @lr.setter
    def lr(self, value: float) -> None:
        self._lr = check_number("lr", value, low=0, low_open=True)

    def step(self, grads) -> None:
        """Update every parameter from its gradient (a list of arrays of the same shapes)."""
        if not isinstance(grads, (list, tuple)) or len(grads) != len(self.params):
            raise TypeError(f"grads must be a list of {len(self.params)} arrays, one per parameter, "
                            f"got {describe(grads)}")
        grads = [np.asarray(g) if isinstance(g, np.generic) else g for g in grads]  # a 0-d result is a scalar
        for i, (g, p) in enumerate(zip(grads, self.params)):
            if not isinstance(g, np.ndarray) or g.shape != p.shape:
                raise ValueError(f"grads[{i}] must be an array of shape {p.shape}, got {describe(g)}")
        self.t += 1
        for i, (p, g) in enumerate(zip(self.params, grads)):
            self._update(i, p, g)

    def _update(self, i: int, p: np.ndarray, g: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class SGD(Optimizer):
    """Gradient descent with momentum β: v ← β v + g; θ ← θ − α v (β = 0: θ ← θ − α g).

    With ``nesterov=True`` the step looks ahead (Sutskever et al. 2013's form of Nesterov's
    method, as torch writes it): v ← β v + g; θ ← θ − α (g + β v), the gradient plus the
    velocity it is about to add. It needs β > 0."""

    def __init__(self, params, lr: float, momentum: float = 0.0, nesterov: bool = False):
        super().__init__(params, lr)
        self.momentum = check_number("momentum", momentum, low=0, high=1, high_open=True)
        self.nesterov = check_bool("nesterov", nesterov)
        if self.nesterov and not self.momentum:
            raise ValueError("nesterov=True needs a momentum > 0 (torch.optim.SGD refuses it too), got momentum = 0")
        self.velocity = [np.zeros_like(p) for p in self.params]
        self.scratch = [np.empty_like(p) for p in self.params]  # α v, kept between steps (no new array per step)

    def _update(self, i, p, g):
        if self.momentum:
            v = self.velocity[i]
            if self.t == 1:
                v[...] = g          # torch starts the velocity at the first gradient
            else:
                v *= self.momentum
                v += g
            g = g + self.momentum * v if self.nesterov else v
        p -= np.multiply(g, self.lr, out=self.scratch[i])


class Adagrad(Optimizer):
    """AdaGrad (Duchi et al. 2011): s ← s + g²; θ ← θ − α g / (√s + ε).

    The sum of all squared gradients so far, not an average: each coordinate's effective
    rate α / (√s + ε) can only fall (as 1/√t for a constant gradient). RMSprop is this rule
    with an exponential forgetting of old gradients."""

    def __init__(self, params, lr: float = 0.01, eps: float = 1e-10):
        super().__init__(params, lr)
        self.eps = check_number("eps", eps, low=0, low_open=True)
        self.square = [np.zeros_like(p) for p in self.params]

    def _update(self, i, p, g):
        s = self.square[i]
        s += g * g
        p -= self.lr * (g / (np.sqrt(s) + self.eps))


class RMSprop(Optimizer):
    """RMSprop: s ← ρ s + (1 − ρ) g²; θ ← θ − α g / (√s + ε)."""

    def __init__(self, params, lr: float, rho: float = 0.99, eps: float = 1e-8):
        super().__init__(params, lr)
        self.rho = check_number("rho", rho, low=0, high=1, high_open=True)
        self.eps = check_number("eps", eps, low=0, low_open=True)
        self.square = [np.zeros_like(p) for p in self.params]

    def _update(self, i, p, g):
        s = self.square[i]
        s *= self.rho
        s += (1 - self.rho) * g * g
        p -= self.lr * g / (np.sqrt(s) + self.eps)


class Adam(Optimizer):
    """Adam: momentum on g and RMSprop on g², both bias-corrected (Kingma and Ba 2015).

    ``weight_decay`` λ > 0 adds the L2 penalty's gradient to g first, g ← g + λ θ (torch's
    Adam): that term then goes through the division by √ŝ like the rest of the gradient."""

    decoupled = False  # AdamW: shrink θ itself instead of adding λ θ to the gradient

    def __init__(self, params, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 weight_decay: float = 0.0):
        super().__init__(params, lr)
        self.beta1 = check_number("beta1", beta1, low=0, high=1, high_open=True)
        self.beta2 = check_number("beta2", beta2, low=0, high=1, high_open=True)
        self.eps = check_number("eps", eps, low=0, low_open=True)
        self.weight_decay = check_number("weight_decay", weight_decay, low=0)
        self.mean = [np.zeros_like(p) for p in self.params]
        self.square = [np.zeros_like(p) for p in self.params]

    def _update(self, i, p, g):
        if self.weight_decay:
            if self.decoupled:
                p *= 1 - self.lr * self.weight_decay
            else:
                g = g + self.weight_decay * p
        m, s = self.mean[i], self.square[i]
        weight = 1 - self.beta1                    # β₁ m + (1 − β₁) g, as torch's lerp computes it:
        if weight < 0.5:
            m += weight * (g - m)                  # from m for a small weight,
        else:
            m[...] = g - (g - m) * (1 - weight)    # from g for a large one (β₁ = 0 gives g exactly)
        s *= self.beta2
        s += (1 - self.beta2) * g * g
        step = self.lr / (1 - self.beta1 ** self.t)
        denominator = np.sqrt(s) / math.sqrt(1 - self.beta2 ** self.t) + self.eps
        p -= step * (m / denominator)


class AdamW(Adam):
    """AdamW (Loshchilov and Hutter 2019): decoupled weight decay, θ ← θ (1 − α λ), then
    Adam's step on the plain gradient, as ``torch.optim.AdamW`` (default λ = 0.01).

    Every weight shrinks by the same factor 1 − α λ per step, whatever its gradient history;
    Adam's L2 (``Adam(weight_decay=λ)``) divides λ θ by √ŝ and so decays the weights with
    large past gradients less."""

    decoupled = True

    def __init__(self, params, lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
                 weight_decay: float = 0.01):
        super().__init__(params, lr, beta1, beta2, eps, weight_decay)


def exponential_average(values, beta: float, bias_correction: bool = True) -> np.ndarray:
    """V_t = β V_{t−1} + (1 − β) θ_t from V_0 = 0, for t = 1 … T; with the bias
    correction, V_t / (1 − βᵗ) (the plain average weights sum to 1 − βᵗ, not 1).

    ``values`` (T,) → (T,). V_t weighs θ_{t−k} by (1 − β) βᵏ: a memory of about
    1 / (1 − β) values."""
    values = check_array("values", values, ndim=1, nonempty=True)
    beta = check_number("beta", beta, low=0, high=1, high_open=True)
    bias_correction = check_bool("bias_correction", bias_correction)
    out = np.empty_like(values)
    v = 0.0
    for t, x in enumerate(values, 1):
        v = beta * v + (1 - beta) * x
        out[t - 1] = v / (1 - beta ** t) if bias_correction else v
    return out


#: The notes' learning-rate schedules: α as a function of the epoch number t (from 0).
DECAY_SCHEDULES = {
    "inverse time": "α₀ / (1 + r t)",
    "exponential": "α₀ rᵗ",
    "inverse square root": "α₀ k / √(t + 1)",
    "staircase": "α₀ r^⌊t / k⌋",
}


def decayed_learning_rate(schedule: str, lr0: float, epoch: int, rate: float, k: float = 1.0) -> float:
    """α at ``epoch`` under one of :data:`DECAY_SCHEDULES` (``k``: the constant of the
    inverse-square-root schedule, the epochs per stair of the staircase)."""
    schedule = check_choice("schedule", schedule, DECAY_SCHEDULES)
    lr0 = check_number("lr0", lr0, low=0, low_open=True)
    epoch = check_count("epoch", epoch, high=10**9)
    rate = check_number("rate", rate, low=0)
    k = check_number("k", k, low=0, low_open=True)
    if schedule in ("exponential", "staircase") and not rate <= 1:
        raise ValueError(f"rate must be <= 1 for the {schedule} schedule (a factor per epoch), got {rate:g}")
    if schedule == "inverse time":
        return lr0 / (1 + rate * epoch)
    if schedule == "exponential":
        return lr0 * rate ** epoch
    if schedule == "inverse square root":
        return lr0 * k / math.sqrt(epoch + 1)
    return lr0 * rate ** math.floor(epoch / k)


def warmup_cosine_learning_rate(step: int, total_steps: int, warmup_steps: int, lr_max: float,
                                lr_min: float = 0.0) -> float:
    """α at ``step`` (counted from 0) of a linear warm-up followed by a cosine decay,
    the schedule of V.7's ``tools/train_char_transformer.py`` (W = ``warmup_steps``,
    T = ``total_steps``):

    * step s < W:  α = α_max (s + 1) / W, rising from α_max / W to α_max at s = W − 1;
    * step s ≥ W:  α = α_min + ½ (α_max − α_min)(1 + cos(π p)), p = min(1, (s − W) / max(1, T − W)):
      α_max at s = W, α_min from s = T on (from W + 1 if W = T): half a cosine, SGDR's shape without restarts.

    >>> [round(warmup_cosine_learning_rate(s, 10, 4, 1.0), 3) for s in range(11)]
    [0.25, 0.5, 0.75, 1.0, 1.0, 0.933, 0.75, 0.5, 0.25, 0.067, 0.0]
    """
    step = check_count("step", step, high=10**12)
    total_steps = check_count("total_steps", total_steps, low=1, high=10**12)
    warmup_steps = check_count("warmup_steps", warmup_steps, high=10**12)  # may exceed total_steps (a short test run)
    lr_max = check_number("lr_max", lr_max, low=0, low_open=True)
    lr_min = check_number("lr_min", lr_min, low=0, high=lr_max)
    if step < warmup_steps:
        return lr_max * (step + 1) / warmup_steps
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return lr_min + 0.5 * (lr_max - lr_min) * (1 + math.cos(math.pi * progress))


def sample_log_uniform(low: float, high: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` values 10^r with r uniform in [log₁₀ low, log₁₀ high]: as many draws per
    decade between 0.0001 and 0.001 as between 0.1 and 1."""
    low = check_number("low", low, low=0, low_open=True)
    high = check_number("high", high, low=0, low_open=True)
    if high < low:
        raise ValueError(f"low must be <= high, got low = {low:g} and high = {high:g}")
    size = check_count("size", size, low=1, high=10**8)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (np.random.default_rng(seed)), got {describe(rng)}")
    return 10.0 ** rng.uniform(math.log10(low), math.log10(high), size)


def sample_beta(low: float, high: float, size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` values β in [low, high] ⊂ [0, 1) with 1 − β log-uniform: β = 0.9 … 0.999
    gets as many draws near 0.999 (memory ~1,000 steps) as near 0.9 (memory ~10)."""
    low = check_number("low", low, low=0, high=1, high_open=True)
    high = check_number("high", high, low=low, high=1, high_open=True)
    return 1.0 - sample_log_uniform(1.0 - high, 1.0 - low, size, rng)


def minimize(optimizer: Optimizer, gradient, steps: int) -> np.ndarray:
    """Run ``steps`` steps of ``optimizer`` on its single parameter, ``gradient(θ)``
    giving ∇J(θ); returns the trajectory, (steps + 1, *θ.shape), the start first."""
    if not isinstance(optimizer, Optimizer) or len(optimizer.params) != 1:
        raise TypeError(f"optimizer must be an Optimizer of one parameter array, got {describe(optimizer)}")
    if not callable(gradient):
        raise TypeError(f"gradient must be a function of the parameter, got {describe(gradient)}")
    steps = check_count("steps", steps, low=1, high=10**6)
    theta = optimizer.params[0]
    path = np.empty((steps + 1, *theta.shape))
    path[0] = theta
    for t in range(1, steps + 1):
        optimizer.step([np.asarray(gradient(theta), dtype=np.float64)])
        path[t] = theta
    return path
