"""Bad-input cases for Part IV's optimisers and loss surfaces (mmir_lib.nn.optim, mmir_lib.nn.surfaces)."""

import numpy as np

from mmir_lib.nn import optim
from mmir_lib.nn.surfaces import ILL_CONDITIONED
from tests.api_fuzz import Case


def _params():
    return [np.zeros((2, 3)), np.ones(3)]


HUGE = {"huge_int", "huge_float"}

CASES = [
    # A huge learning rate or ε is legal (the first diverges, the second stops the steps): the
    # training loop reports a loss that is not finite.
    Case(optim.Optimizer, dict(params=_params(), lr=0.1), accepts={"lr": HUGE}),
    Case(optim.SGD, dict(params=_params(), lr=0.1, momentum=0.9, nesterov=False),
         accepts={"momentum": {"zero"}, "lr": HUGE, "nesterov": {"bool"}}),
    Case(optim.Adagrad, dict(params=_params(), lr=0.1, eps=1e-10), accepts={"lr": HUGE, "eps": HUGE}),
    Case(optim.RMSprop, dict(params=_params(), lr=0.1, rho=0.9, eps=1e-8),
         accepts={"rho": {"zero"}, "lr": HUGE, "eps": HUGE}),
    Case(optim.Adam, dict(params=_params(), lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.1),
         accepts={"beta1": {"zero"}, "beta2": {"zero"}, "lr": HUGE, "eps": HUGE, "weight_decay": {"zero", *HUGE}}),
    Case(optim.AdamW, dict(params=_params(), lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.01),
         accepts={"beta1": {"zero"}, "beta2": {"zero"}, "lr": HUGE, "eps": HUGE, "weight_decay": {"zero", *HUGE}}),
    Case(optim.exponential_average, dict(values=[1.0, 2.0, 3.0], beta=0.9, bias_correction=False),
         accepts={"beta": {"zero"}, "bias_correction": {"bool"}}),
    Case(optim.decayed_learning_rate, dict(schedule="inverse time", lr0=0.1, epoch=3, rate=0.5, k=2.0),
         accepts={"epoch": {"zero"}, "rate": {"zero", "huge_int", "huge_float"}, "lr0": HUGE,
                  "k": HUGE}),
    Case(optim.warmup_cosine_learning_rate, dict(step=3, total_steps=10, warmup_steps=2, lr_max=0.1, lr_min=0.01),
         accepts={"step": {"zero"}, "warmup_steps": {"zero"}, "lr_min": {"zero"}, "lr_max": {"huge_int", "huge_float"}}),
    Case(optim.sample_log_uniform, dict(low=1e-4, high=1.0, size=5, rng=np.random.default_rng(0)),
         accepts={"high": {"huge_int", "huge_float"}}),
    Case(optim.sample_beta, dict(low=0.9, high=0.999, size=5, rng=np.random.default_rng(0)),
         accepts={"low": {"zero"}}),
    Case(optim.minimize, dict(optimizer=optim.SGD([np.array([1.0, 1.0])], 0.1), gradient=ILL_CONDITIONED.gradient,
                              steps=3)),
]

EXEMPT = {"mmir_lib.nn.surfaces.Surface": "a record holding a loss, its gradient and where to draw it"}
