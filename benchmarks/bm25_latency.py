"""Speed of the BM25 chapter's machinery (`make bench`). Prints a markdown table.

* index build over all Shakespeare speeches (analysis excluded, measured apart);
* BM25 query latency, top-10, over all speeches: median and 95th percentile;
* one slider update of an interactive figure in a live kernel: the kernel-side work
  when a slider moves (look up the pre-rendered frame and send it to the view);
* the cost of rendering one frame, which is what a kernel would spend per update if
  it re-plotted instead (and what the cell spends per grid point, once).
"""

import statistics
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mmir_lib.data import shakespeare_speeches  # noqa: E402
from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex, bm25_search, saturation  # noqa: E402
from mmir_lib.widgets import interactive, slider  # noqa: E402

QUERIES = ["murder sleep", "a horse my kingdom for a horse", "sweet love", "crown king england",
           "poison cup drink", "ghost father revenge", "fairy wood night", "gold silver lead casket",
           "storm sea shipwreck island", "jealous handkerchief", "love", "lord", "good night sweet prince",
           "wherefore art thou romeo", "the quality of mercy is not strained", "friends romans countrymen"]


def timed(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> list[dict]:
    """One row per measurement: {"measurement": ..., "time": ...}."""
    speeches = shakespeare_speeches()
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    analysis = timed(lambda: [analyzer(s.text) for s in speeches], 3)
    tokens = [analyzer(s.text) for s in speeches]
    build = timed(lambda: InvertedIndex.from_tokens(tokens, analyzer), 3)
    index = InvertedIndex.from_tokens(tokens, analyzer)

    latencies = []
    for _ in range(50):
        for q in QUERIES:
            start = time.perf_counter()
            bm25_search(index, q, k=10)
            latencies.append(time.perf_counter() - start)

    def curves(k1, b):
        fig, ax = plt.subplots(1, 2, figsize=(8, 2.9))
        tf = np.linspace(0, 12, 121)
        for r in (0.5, 1, 3):
            ax[0].plot(tf, saturation(tf, r * index.avdl, index.avdl, k1, b))
        fig.tight_layout()
        return fig

    render_start = time.perf_counter()
    figure = interactive(curves, k1=slider(0, 3, 0.25), b=slider(0, 1, 0.25))
    per_frame = (time.perf_counter() - render_start) / len(figure.index)
    box = figure.live_widget()
    k1_control = box.children[0].children[0]
    updates = []
    for j in range(200):
        start = time.perf_counter()
        k1_control.value = j % len(figure.labels[0])
        updates.append(time.perf_counter() - start)

    ms = lambda seconds: f"{1e3 * seconds:.2f} ms"  # noqa: E731
    size = f"N = {index.num_docs:,}, V = {index.num_terms:,}, {index.postings.nnz:,} postings"
    return [
        {"measurement": "analysis of all speeches (tokenise, stop words, stem)", "time": ms(min(analysis))},
        {"measurement": f"index build from analysed speeches ({size})", "time": ms(min(build))},
        {"measurement": f"BM25 top-10 query, median of {len(latencies)}", "time": ms(statistics.median(latencies))},
        {"measurement": "BM25 top-10 query, 95th percentile", "time": ms(float(np.percentile(latencies, 95)))},
        {"measurement": "live slider update, kernel side, median", "time": ms(statistics.median(updates))},
        {"measurement": "rendering one figure frame (2 panels, PNG)", "time": ms(per_frame)},
    ]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
