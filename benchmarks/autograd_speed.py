"""One training step of chapter IV.2's MLP: mmir_lib.nn.autograd against torch.autograd (`make bench`).

The network is the chapter's two-layer perceptron for 28×28 digits in the course
notes' layout: X (784, m), Z¹ = W¹ X + b¹ with W¹ (128, 784), A¹ = ReLU(Z¹),
Z² = W² A¹ + b² with W² (10, 128), and the mean softmax cross-entropy of Z² (classes
along axis 0), float64, on a batch of m = 256 real MNIST digits. One step is the forward
pass, the backward pass and a plain SGD update (mmir_lib.nn.optim.SGD on the engine's
``.data`` arrays; torch.optim.SGD on torch's tensors), on one thread for both. Timed in
processor time (a shared machine inflates wall time): ``steps`` steps after ``warmup``
untimed ones; the best of ``repeat`` runs per step, the two libraries taking turns.
After the same steps both copies of the parameters must agree to 1e-10.
Run with ``python benchmarks/autograd_speed.py``; ``main()`` returns the table rows.
"""

import time

import numpy as np
import torch

from mmir_lib.data import mnist_5k
from mmir_lib.nn.autograd import Tensor, softmax_cross_entropy
from mmir_lib.nn.optim import SGD

SIZES = (784, 128, 10)
BATCH = 256
TARGET = 1.5


def _start(rng):
    n0, n1, n2 = SIZES
    return [rng.normal(size=(n1, n0)) * np.sqrt(2 / n0), np.zeros((n1, 1)),
            rng.normal(size=(n2, n1)) * np.sqrt(2 / n1), np.zeros((n2, 1))]


def main(steps: int = 30, warmup: int = 3, repeat: int = 5) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    from threadpoolctl import threadpool_limits

    train = mnist_5k("train")
    X = np.ascontiguousarray(train.images.reshape(len(train), -1)[:BATCH].T)   # (784, 256)
    y = train.labels[:BATCH].copy()
    start = _start(np.random.default_rng(0))
    X_torch, y_torch = torch.from_numpy(X), torch.from_numpy(y)

    def ours_for(params):
        W1, b1, W2, b2 = (Tensor(p, requires_grad=True) for p in params)
        optimizer = SGD([p.data for p in (W1, b1, W2, b2)], 0.1)
        inputs = Tensor(X)

        def step():
            loss = softmax_cross_entropy(W2 @ (W1 @ inputs + b1).relu() + b2, y, axis=0)
            for p in (W1, b1, W2, b2):
                p.grad = None
            loss.backward()
            optimizer.step([W1.grad, b1.grad, W2.grad, b2.grad])
        return step

    def theirs_for(params):
        W1, b1, W2, b2 = tensors = [torch.from_numpy(p).requires_grad_() for p in params]
        optimizer = torch.optim.SGD(tensors, lr=0.1)

        def step():
            loss = torch.nn.functional.cross_entropy((W2 @ torch.relu(W1 @ X_torch + b1) + b2).T, y_torch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        return step

    times = {"mmir_lib.nn.autograd": [float("inf"), None], "torch.autograd": [float("inf"), None]}
    with threadpool_limits(limits=1):
        for _ in range(repeat):  # the two libraries take turns, so that a busy moment hits both
            for library, make in (("mmir_lib.nn.autograd", ours_for), ("torch.autograd", theirs_for)):
                params = [p.copy() for p in start]
                step = make(params)
                for _ in range(warmup):
                    step()
                began = time.process_time()
                for _ in range(steps):
                    step()
                times[library] = [min(times[library][0], (time.process_time() - began) / steps), params]
    gap = max(np.abs(a - b).max() for a, b in zip(times["mmir_lib.nn.autograd"][1], times["torch.autograd"][1]))
    assert gap < 1e-10, gap
    ours, theirs = times["mmir_lib.nn.autograd"][0], times["torch.autograd"][0]
    return [{"step": f"MLP {SIZES[0]}-{SIZES[1]}-{SIZES[2]}, batch {BATCH}, float64, SGD",
             "parameters": f"{sum(p.size for p in start):,}",
             "mmir_lib (ms/step)": f"{1e3 * ours:.2f}", "torch (ms/step)": f"{1e3 * theirs:.2f}",
             "ratio": f"{ours / theirs:.2f}×", "target": f"≤ {TARGET:g}×", "largest difference": f"{gap:.0e}"}]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
