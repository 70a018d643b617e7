"""V.6's scaled dot-product attention against torch's, float32, one thread (`make bench`).

One head of self-attention-sized inputs, query, key and value of shape (1, 1, n, d)
(batch, heads, positions, width), n = 256 and d = 64, float32, no mask; and the same
with the causal mask. The book's ``scaled_dot_product_attention`` checks its
arguments, forms the n × n score matrix, takes its softmax and returns the output
*and* the weights; torch's ``F.scaled_dot_product_attention`` returns the output only
and on the CPU runs a fused kernel that never stores the whole weight matrix. Timed:
processor time per call, the best of ``repeat`` runs of ``calls`` calls, the two
libraries taking turns. The outputs must agree to 1e-5 (float32). Target: at most 2×
torch's time at n = 256 without a mask; with the causal mask torch's kernel skips the
blocks above the diagonal, half the work, which the book's version does not. Run with
``python benchmarks/attention_speed.py``; ``main()`` returns the table rows.
"""

import time

import torch
import torch.nn.functional as F

from mmir_lib.lm.attention import scaled_dot_product_attention

TARGET = 2.0


def _best(call, calls: int) -> float:
    began = time.process_time()
    for _ in range(calls):
        call()
    return (time.process_time() - began) / calls


def main(n: int = 256, d: int = 64, calls: int = 50, repeat: int = 15) -> list[dict[str, str]]:
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 1, n, d, generator=generator) for _ in range(3))
    rows = []
    for causal in (False, True):
        ours = lambda: scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
        theirs = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)  # noqa: E731
        difference = float((ours()[0] - theirs()).abs().max())
        assert difference < 1e-5, difference
        best = {"mmir_lib": float("inf"), "torch": float("inf")}
        for _ in range(repeat):
            best["mmir_lib"] = min(best["mmir_lib"], _best(ours, calls))
            best["torch"] = min(best["torch"], _best(theirs, calls))
        ratio = best["mmir_lib"] / best["torch"]
        rows.append({"attention": f"n = {n}, d = {d}" + (", causal" if causal else ""),
                     "mmir_lib (ms)": f"{1e3 * best['mmir_lib']:.3f}", "torch sdpa (ms)": f"{1e3 * best['torch']:.3f}",
                     "ratio": f"{ratio:.2f}×", "target": "(for scale)" if causal else f"≤ {TARGET:g}×",
                     "largest difference": f"{difference:.0e}"})
    return rows


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
