"""V.1's convolution layer (im2col and one matrix product) against torch's conv2d (`make bench`).

The two convolution layers of LeNet-5 on a batch of 256 digits: 256 × 1 × 28 × 28 with 6
filters of 5 × 5, and 256 × 6 × 12 × 12 with 16 filters of 5 × 5 (valid padding, stride 1),
on one thread. mmir_lib computes in float64; torch is timed in float64 (its slow_conv2d,
im2col and a matrix product like ours) and in float32 (its default, with oneDNN kernels).
Timed: the best of ``repeat`` calls after one untimed call. Both float64 results must agree
to 1e-12. Run with ``python benchmarks/conv_speed.py``; ``main()`` returns the table rows.
"""


import numpy as np
import torch
import torch.nn.functional as F
from threadpoolctl import threadpool_limits

from mmir_lib.vision.conv import conv2d
from report import best_time

LAYERS = [("conv1: 256×1×28×28, 6 filters 5×5", (256, 1, 28, 28), (6, 1, 5, 5)),
          ("conv2: 256×6×12×12, 16 filters 5×5", (256, 6, 12, 12), (16, 6, 5, 5))]


def main(repeat: int = 10) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = []
    with threadpool_limits(limits=1):
        for name, x_shape, w_shape in LAYERS:
            x, w, b = rng.normal(size=x_shape), rng.normal(size=w_shape), rng.normal(size=w_shape[0])
            xt, wt, bt = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
            x32, w32, b32 = xt.float(), wt.float(), bt.float()
            gap = np.abs(conv2d(x, w, b) - F.conv2d(xt, wt, bt).numpy()).max()
            assert gap < 1e-12, (name, gap)
            ours = best_time(lambda: conv2d(x, w, b), repeat)
            theirs64 = best_time(lambda: F.conv2d(xt, wt, bt), repeat)
            theirs32 = best_time(lambda: F.conv2d(x32, w32, b32), repeat)
            rows.append({"layer": name, "mmir_lib float64 (ms)": f"{1e3 * ours:.1f}",
                         "torch float64 (ms)": f"{1e3 * theirs64:.1f}", "ratio to float64": f"{ours / theirs64:.1f}×",
                         "torch float32 (ms)": f"{1e3 * theirs32:.1f}", "ratio to float32": f"{ours / theirs32:.1f}×",
                         "target": "≤ 3× (float64)", "largest difference": f"{gap:.0e}"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
