"""One optimiser step of mmir_lib.nn.optim against torch.optim, on a 1M-parameter model (`make bench`).

The "model" is the parameter list of a two-layer perceptron for 28×28 digits,
784×1,024 + 1,024 + 1,024×192 + 192 (1,000,640 parameters, float64), with a fixed random
gradient; each library updates its own copy in place, on one thread (as the chapters
compute). Timed: ``steps`` steps after ``warmup`` untimed ones; the best of ``repeat``
runs, per step. torch.optim is run with its default implementation for CPU tensors
(``foreach=None``). After the same number of steps both copies must agree to 1e-12.
Run with ``python benchmarks/optim_speed.py``; ``main()`` returns the table rows.
"""

import time

import numpy as np
import torch

from mmir_lib.nn.optim import SGD, Adam, RMSprop

SHAPES = [(784, 1024), (1024,), (1024, 192), (192,)]


def main(steps: int = 20, warmup: int = 3, repeat: int = 3) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    start = [rng.normal(size=s) for s in SHAPES]
    grads = [rng.normal(size=s) for s in SHAPES]
    torch_grads = [torch.from_numpy(g) for g in grads]
    pairs = {
        "SGD, momentum 0.9": (lambda p: SGD(p, 1e-3, momentum=0.9), lambda t: torch.optim.SGD(t, lr=1e-3, momentum=0.9)),
        "RMSprop": (lambda p: RMSprop(p, 1e-3), lambda t: torch.optim.RMSprop(t, lr=1e-3)),
        "Adam": (lambda p: Adam(p, 1e-3), lambda t: torch.optim.Adam(t, lr=1e-3)),
    }
    rows = []
    for name, (ours_for, theirs_for) in pairs.items():
        times = {}
        for library in ("mmir_lib", "torch.optim"):
            best = float("inf")
            for _ in range(repeat):
                params = [p.copy() for p in start]
                if library == "mmir_lib":
                    optimizer = ours_for(params)
                    step = lambda: optimizer.step(grads)  # noqa: E731
                else:
                    tensors = [torch.from_numpy(p).requires_grad_() for p in params]
                    for t, g in zip(tensors, torch_grads):
                        t.grad = g
                    optimizer = theirs_for(tensors)
                    step = optimizer.step
                for _ in range(warmup):
                    step()
                began = time.perf_counter()
                for _ in range(steps):
                    step()
                best = min(best, (time.perf_counter() - began) / steps)
            times[library] = (best, params)
        gap = max(np.abs(a - b).max() for a, b in zip(times["mmir_lib"][1], times["torch.optim"][1]))
        assert gap < 1e-12, (name, gap)
        ours, theirs = times["mmir_lib"][0], times["torch.optim"][0]
        rows.append({"optimiser": name, "parameters": f"{sum(int(np.prod(s)) for s in SHAPES):,}",
                     "mmir_lib (ms/step)": f"{1e3 * ours:.2f}", "torch.optim (ms/step)": f"{1e3 * theirs:.2f}",
                     "ratio": f"{ours / theirs:.2f}×", "target": "≤ 2×", "largest difference": f"{gap:.0e}"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
