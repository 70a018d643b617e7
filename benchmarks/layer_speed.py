"""Hand-written layers against torch's own (`make bench`): layer norm (IV/Part III's
transformer), average and max pooling and the convolution's backward pass (V.1).

Each row times one call on the same float64 inputs, one thread for both libraries, the
best of ``repeat`` calls after one untimed call (the two taking turns, so that a busy
machine slows both alike), and checks that the results agree to 1e-12 relative to the
reference's largest magnitude (a gradient summed over a batch runs into the thousands,
and another CPU's BLAS adds it in another order). The time is processor time (as
``autograd_speed``), not wall time: on a shared machine other programs stretch a long
call's wall time more than a short one's. The target is at most 2× torch's time. Shapes
are the book's: a transformer's activations (32 sequences of 128 tokens, width 256),
LeNet-5's first feature maps (256 × 6 × 24 × 24, 2 × 2 windows) and its second
convolution (256 × 6 × 12 × 12 with 16 filters of 5 × 5).
Run with ``python benchmarks/layer_speed.py``; ``main()`` returns the table rows.
"""

import time

import numpy as np
import torch
import torch.nn.functional as F
from threadpoolctl import threadpool_limits

from mmir_lib.lm.transformer import layer_norm
from mmir_lib.vision.conv import avg_pool2d, conv2d_backward, max_pool2d

TARGET = 2.0


def _alternating_best(ours, theirs, repeat: int) -> tuple[float, float]:
    """The best processor time of each of two calls, in seconds, the calls taking turns."""
    ours(), theirs()
    best = [float("inf"), float("inf")]
    for _ in range(repeat):
        for i, call in enumerate((ours, theirs)):
            began = time.process_time()
            call()
            best[i] = min(best[i], time.process_time() - began)
    return best[0], best[1]


def _layer_norm_inputs(rng):
    """A transformer's activations (32 sequences of 128 tokens, width 256), γ and β."""
    return tuple(torch.from_numpy(rng.normal(size=shape)) for shape in ((32, 128, 256), 256, 256))


def _cases(rng):
    """(name, shape text, our call, torch's call)."""
    x, gamma, beta = _layer_norm_inputs(rng)
    yield ("layer norm, forward", "32 × 128 × 256", lambda: layer_norm(x, gamma, beta),
           lambda: F.layer_norm(x, (256,), gamma, beta, 1e-5))
    maps = rng.normal(size=(256, 6, 24, 24))
    maps_t = torch.from_numpy(maps)
    yield ("average pooling 2 × 2", "256 × 6 × 24 × 24", lambda: avg_pool2d(maps, 2), lambda: F.avg_pool2d(maps_t, 2))
    yield ("max pooling 2 × 2", "256 × 6 × 24 × 24", lambda: max_pool2d(maps, 2), lambda: F.max_pool2d(maps_t, 2))
    x2, w2 = rng.normal(size=(256, 6, 12, 12)), rng.normal(size=(16, 6, 5, 5))
    g2 = rng.normal(size=(256, 16, 8, 8))
    x2t, w2t, g2t = torch.from_numpy(x2), torch.from_numpy(w2), torch.from_numpy(g2)
    yield ("convolution, backward (∂x, ∂w, ∂b)", "256 × 6 × 12 × 12, 16 filters 5 × 5",
           lambda: conv2d_backward(x2, w2, g2),
           lambda: torch.ops.aten.convolution_backward(g2t, x2t, w2t, [16], [1, 1], [0, 0], [1, 1], False, [0, 0], 1,
                                                       [True, True, True]))


def layer_norm_floor(repeat: int = 20) -> dict[str, float]:
    """Why layer norm by hand stays above the target: processor times (ms) on the bench's
    input of torch's fused ``F.layer_norm`` (one pass over each row, in cache), of one
    element-wise pass over the whole tensor (x − μ) and of one row reduction (the mean).
    The book's kernel, made of torch operations, needs three element-wise passes and two
    reductions, each through memory."""
    torch.set_num_threads(1)
    with threadpool_limits(limits=1):
        x, gamma, beta = _layer_norm_inputs(np.random.default_rng(0))
        mean = x.mean(dim=-1, keepdim=True)
        calls = {"fused": lambda: F.layer_norm(x, (256,), gamma, beta, 1e-5), "element-wise": lambda: x - mean,
                 "reduction": lambda: x.mean(dim=-1, keepdim=True)}
        fused, pass_ = _alternating_best(calls["fused"], calls["element-wise"], repeat)
        _, reduction = _alternating_best(calls["fused"], calls["reduction"], repeat)
    return {"torch layer norm (ms)": 1e3 * fused, "one element-wise pass (ms)": 1e3 * pass_,
            "one reduction (ms)": 1e3 * reduction}


def _gap(a, b) -> float:
    """The largest difference between a result and the reference, relative to the
    reference's largest magnitude (at least 1): a gradient summed over a batch is in the
    thousands, and another CPU's BLAS adds it in another order."""
    if isinstance(a, (tuple, list)):
        return max(_gap(u, v) for u, v in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max()))


def main(repeat: int = 20) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    rows = []
    with threadpool_limits(limits=1):
        for name, shape, ours, theirs in _cases(np.random.default_rng(0)):
            gap = _gap(ours(), theirs())
            assert gap < 1e-12, (name, gap)
            mine, reference = _alternating_best(ours, theirs, repeat)
            rows.append({"layer (float64, one thread)": name, "input": shape, "mmir_lib (ms)": f"{1e3 * mine:.2f}",
                         "torch (ms)": f"{1e3 * reference:.2f}", "ratio": f"{mine / reference:.1f}×",
                         "target": f"≤ {TARGET:g}×", "met": "yes" if mine <= TARGET * reference else "no",
                         "largest relative difference": f"{gap:.0e}"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
    print()
    print(markdown_table([{k: f"{v:.2f}" for k, v in layer_norm_floor().items()}]))
