"""V.2's LeNet-5 training run beside scikit-learn's flat classifiers on the same digits (`make bench`).

The chapter's run: LeNet-5 (modern variant) trained by ``mmir_lib.vision.lenet.train_lenet``
on the 3,500 training digits of ``mnist_5k`` (the chapter's recipe, ``lenet.RECIPE``: ten
epochs of Adam, step 2e-3 divided by 10 after epoch 7, batches of 32 fresh copies shifted
by at most 2 pixels), float32, one thread; then its accuracy on the 1,000 test digits.
Beside it, on the same split and thread count, scikit-learn's softmax regression
(LogisticRegression, C = 0.05, 200 iterations) and MLPClassifier (784-100-10, L2 1e-3,
30 epochs of Adam). Timed: the training only (wall clock, one run each: a training run
is long enough not to need repeats). LeNet-5 must reach 97% (asserted; the chapter's
target). Run with ``python benchmarks/lenet_speed.py``; ``main()`` returns the table rows.
"""

import time
import warnings

import numpy as np
import torch
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from threadpoolctl import threadpool_limits

from mmir_lib.data import mnist_5k
from mmir_lib.vision.lenet import RECIPE, predict, train_lenet

TARGET = 0.97


def main() -> list[dict[str, str]]:
    torch.set_num_threads(1)
    data = {name: mnist_5k(name) for name in ("train", "test")}
    images = {name: d.images[:, None].astype(np.float32) for name, d in data.items()}
    labels = {name: d.labels.astype(np.int64) for name, d in data.items()}
    rows = []
    with threadpool_limits(limits=1):
        flat = {name: x.reshape(len(x), -1) for name, x in images.items()}
        for name, model in [("softmax regression (scikit-learn)", LogisticRegression(C=0.05, max_iter=200)),
                            ("MLP 784-100-10 (scikit-learn)",
                             MLPClassifier((100,), alpha=1e-3, max_iter=30, random_state=0))]:
            began = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(flat["train"], labels["train"])
            seconds = time.perf_counter() - began
            rows.append({"model": name, "training (s)": f"{seconds:.1f}",
                         "test accuracy": f"{model.score(flat['test'], labels['test']):.1%}"})
        model, histories = train_lenet(images["train"], labels["train"])      # the chapter's recipe
        seconds = sum(sum(h.epoch_seconds) for h in histories)                 # training steps only
        accuracy = float((predict(model, images["test"]) == labels["test"]).mean())
        assert accuracy >= TARGET, accuracy
        rows.append({"model": f"LeNet-5 (torch float32, {RECIPE['epochs']} epochs)", "training (s)": f"{seconds:.1f}",
                     "test accuracy": f"{accuracy:.1%}"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
