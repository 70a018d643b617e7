"""Batch normalisation of mmir_lib.nn.normalization against torch's BatchNorm1d: one forward and backward pass.

A batch of 256 rows of 1,024 features (float64) goes through training mode, forward
and backward (the upstream gradient fixed and random), on one thread, as the chapters
compute. Timed: ``steps`` passes after ``warmup`` untimed ones; the best of ``repeat``
runs, per pass. After the same passes both must agree to 1e-10 (outputs, running
statistics, the gradients of the input, γ and β). Run with
``python benchmarks/batchnorm_speed.py``; ``main()`` returns the table rows.
"""

import time

import numpy as np
import torch

from mmir_lib.nn.normalization import BatchNorm

ROWS, FEATURES = 256, 1024


def main(steps: int = 50, warmup: int = 5, repeat: int = 3) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    x, grad = rng.normal(2.0, 3.0, size=(ROWS, FEATURES)), rng.normal(size=(ROWS, FEATURES))
    x_t, grad_t = torch.from_numpy(x), torch.from_numpy(grad)
    ours, theirs = BatchNorm(FEATURES), torch.nn.BatchNorm1d(FEATURES, dtype=torch.float64)

    def ours_pass():
        ours.forward(x)
        return ours.backward(grad)

    def theirs_pass():
        theirs.weight.grad = theirs.bias.grad = None
        leaf = x_t.clone().requires_grad_()
        theirs(leaf).backward(grad_t)
        return leaf.grad

    times = {}
    for name, one_pass in (("mmir_lib", ours_pass), ("torch", theirs_pass)):
        best = float("inf")
        for _ in range(repeat):
            for _ in range(warmup):
                one_pass()
            began = time.perf_counter()
            for _ in range(steps):
                result = one_pass()
            best = min(best, (time.perf_counter() - began) / steps)
        times[name] = (best, result)
    passes = repeat * (warmup + steps)
    assert ours.num_batches_tracked == int(theirs.num_batches_tracked) == passes
    gap = max(float(np.abs(times["mmir_lib"][1] - times["torch"][1].numpy()).max()),
              float(np.abs(ours.running_var - theirs.running_var.numpy()).max()),
              float(np.abs(ours.running_mean - theirs.running_mean.numpy()).max()),
              float(np.abs(ours.grad_gamma - theirs.weight.grad.numpy()).max()),
              float(np.abs(ours.grad_beta - theirs.bias.grad.numpy()).max()))
    assert gap < 1e-10, gap
    mine, reference = times["mmir_lib"][0], times["torch"][0]
    return [{"layer": "batch norm, training mode, forward + backward", "batch": f"{ROWS} × {FEATURES:,}",
             "mmir_lib (ms/pass)": f"{1e3 * mine:.2f}", "torch (ms/pass)": f"{1e3 * reference:.2f}",
             "ratio": f"{mine / reference:.2f}×", "largest difference": f"{gap:.0e}"}]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
