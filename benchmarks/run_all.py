"""Every benchmark of the book, in one process: ``make bench``.

Runs, in this order,

1. ``bm25_throughput``: index build and top-10 query throughput of mmir_lib, bm25s
   (numpy backend) and rank_bm25 on the Shakespeare speeches and on a synthetic
   Zipf collection of 100,000 documents (identical top-10 scores asserted);
2. ``bm25_latency``: the BM25 chapter's own timings (query latency over the
   speeches, interactive-figure updates);
3. ``eval_speed``: evaluating a run with mmir_lib against pytrec_eval (trec_eval);
4. ``vision_speed``: Part II against scipy, scikit-image, OpenCV and scikit-learn
   (Gaussian blur, SIFT with the share of correct matches on pairs with known ground
   truth, k-means);
5. ``ngram_vs_nltk``: Part III's n-gram models against nltk.lm (counting and held-out
   perplexity of word bigram models, Laplace and Kneser-Ney; equal perplexities asserted);
6. ``sgns_vs_gensim``: Part III's skip-gram with negative sampling against gensim's
   Word2Vec on the same text and settings (time per epoch, similarity and analogy
   scores beside PPMI-SVD and pretrained GloVe, neighbour overlap);
7. ``tagging_speed``: III.6's Viterbi decoder against nltk's HMM tagger on the same
   tables (identical paths asserted);
8. ``optim_speed``: one step of Part IV's optimisers against torch.optim on 1M
   parameters (equal to 1e-12 asserted);
9. ``autograd_speed``: one training step (forward, backward, SGD update) of chapter
   IV.2's MLP with mmir_lib's autograd engine against torch.autograd, one thread each
   (equal parameters after the steps asserted);
10. ``conv_speed``: V.1's convolution layer (im2col and one matrix product) against
   torch's conv2d on LeNet-5's two layers, float64 and float32 (equal to 1e-12 asserted),
   and ``layer_speed``: layer norm, average and max pooling and the convolution's backward
   pass against torch's, float64, one thread (equal to 1e-12 asserted);
11. ``attention_speed``: V.6's scaled dot-product attention against torch's
   ``scaled_dot_product_attention``, float32, n = 256, d = 64, one thread (outputs
   equal to 1e-5 asserted);
12. ``lenet_speed``: V.2's LeNet-5 training run (10 epochs on the 3,500 training digits)
   beside scikit-learn's softmax regression and MLP on the same split, with test accuracies
   (LeNet-5 at 97% or more asserted);
13. ``nms_speed``: V.3's non-max suppression against OpenCV's cv2.dnn.NMSBoxes on 10,000
   boxes (the same kept indices asserted);
14. ``bleu_speed``: V.5's corpus BLEU against sacrebleu's on 10,000 sentence pairs
   (identical scores asserted);
15. ``rnn_speed``: V.4's LSTM by hand against torch's nn.LSTM (one forward pass, equal to
   1e-12 asserted), and the character LSTM language model's training time and held-out
   bits per character;
16. ``transformer_speed``: V.7's multi-head attention against torch's nn.MultiheadAttention
   (equal to 1e-4 asserted), the transformer's and the LSTM's training speed, and both
   checkpoints' held-out bits per character at the same training time;
17. ``knn_lm_search``: VI.4's kNN-LM datastore search, IVF-PQ against faiss's IndexIVFPQ
   with the same centroids and codebooks on the transformer's hidden states (the same
   neighbour ids asserted on 99% of places);
18. ``widget_repaint``: how fast the interactive figures of the built book respond in
   headless Chromium (needs ``make book`` first; the section says so when the book is
   not built).

and writes one markdown report, with the date, the machine, the versions of
Python and of every library compared, and the exact settings, to stdout and to
``benchmarks/results.md`` (which the book's "How fast is it?" page includes).
Timings are not tests: nothing here fails because a library is slow; only the
correctness checks inside the benchmarks (same top-10, same metric values) assert.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import platform
import resource
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import attention_speed
import autograd_speed
import bleu_speed
import bm25_latency
import bm25_throughput
import conv_speed
import eval_speed
import knn_lm_search
import layer_speed
import lenet_speed
import ngram_vs_nltk
import nms_speed
import optim_speed
import rnn_speed
import sgns_vs_gensim
import tagging_speed
import vector_search
import transformer_speed
import vision_speed
import widget_repaint
from report import markdown_table

RESULTS = Path(__file__).with_name("results.md")
PACKAGES = ["numpy", "scipy", "bm25s", "rank-bm25", "pytrec_eval-terrier", "scikit-image",
            "opencv-python-headless", "scikit-learn", "torch", "gensim", "nltk"]


def quietly(benchmark: Callable[[], list[dict]]) -> list[dict]:
    """Run a benchmark's ``main()`` and return its rows; whatever it prints is dropped
    (each benchmark also prints its own table when run as a script)."""
    with contextlib.redirect_stdout(io.StringIO()):
        return benchmark()


def machine() -> str:
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or "unknown CPU")
    versions = ", ".join(f"{name} {version(name)}" for name in PACKAGES)
    return f"{os.cpu_count()} CPUs ({cpu}); Python {platform.python_version()}; {versions}"


def throughput_section(tables: dict[str, list[dict]]) -> str:
    rows = tables["retrieval"]
    synthetic = {r["library"]: r for r in rows if r["collection"].startswith("(b)")}
    ours, bm25s_row, rank_row = (synthetic[name] for name in ("mmir_lib", "bm25s (numpy)", "rank_bm25"))
    vs_bm25s = bm25s_row["top10_ms"] / ours["top10_ms"]
    vs_rank = rank_row["top10_ms"] / ours["top10_ms"]
    scoring_vs_bm25s = ours["scoring_ms"] / bm25s_row["scoring_ms"]
    met = lambda ok: "met" if ok else "**not met**"  # noqa: E731
    return "\n".join([
        "## BM25 top-10 retrieval: mmir_lib vs bm25s vs rank_bm25",
        "",
        f"Settings: `{bm25_throughput.describe()}`. Robertson idf floored at 0, no (k1 + 1) factor; "
        "every library indexes the same term lists.",
        "",
        bm25_throughput.markdown(rows),
        "",
        "*build*: index build; *top-10*: time per top-10 query; *scoring*: time per query to score every "
        "document, without the top-k step; *× mmir_lib*: the library's time divided by mmir_lib's on the same "
        "collection (above 1: slower); *same order*: queries whose ten documents came back in exactly "
        "mmir_lib's order. On every timed query the ten scores were asserted equal to mmir_lib's (to float32 "
        "precision for bm25s), so the others differ only in the order of tied documents. rank_bm25 is timed "
        f"on the first {bm25_throughput.SETTINGS.rank_bm25_queries} queries of each collection only.",
        "",
        f"Targets on (b): mmir_lib answers top-10 queries {vs_bm25s:.1f}× as fast as bm25s "
        f"(target ≥ 1: {met(vs_bm25s >= 1)}) and {vs_rank:.0f}× as fast as rank_bm25 "
        f"(target ≥ 50: {met(vs_rank >= 50)}). Scoring alone, without the top-k step, "
        f"mmir_lib's `bm25_scores` takes {scoring_vs_bm25s:.2f}× the time of bm25s's `get_scores`.",
        "",
        f"Where the time of a top-10 query goes: choosing the 10 best of the {bm25_throughput.SETTINGS.num_docs:,} "
        f"scores of (b), for its first {bm25_throughput.SETTINGS.selection_queries} queries.",
        "",
        markdown_table(tables["selection"]),
    ])


def vision_section(tables: dict[str, list[dict]]) -> str:
    met = lambda ok: "met" if ok else "**not met**"  # noqa: E731
    public = lambda rows: [{k: v for k, v in row.items() if not k.startswith("_")} for row in rows]  # noqa: E731
    sift = tables["sift"]
    by = {(row["pair"], row["library"]): row for row in sift}
    pairs = list(dict.fromkeys(row["pair"] for row in sift))
    faster = all(by[p, "mmir_lib"]["s per image"] < by[p, "scikit-image"]["s per image"] for p in pairs)
    share = {lib: sum(by[p, lib]["_correct"] for p in pairs) / sum(by[p, lib]["_judged"] for p in pairs)
             for lib in vision_speed.SIFT_METHODS}
    per_pair = "; ".join(f"{p}: {by[p, 'mmir_lib']['_share']:.1%} against {by[p, 'scikit-image']['_share']:.1%}"
                         for p in pairs)
    kmeans = {row["library"]: row for row in tables["kmeans"]}
    return "\n".join([
        "## Part II: Gaussian blur, SIFT and k-means",
        "",
        "Gaussian blur of the 512 × 512 camera photo (float64, truncated at 4σ, mirror border); "
        "mmir_lib's result equals scipy's within 1e-12 (asserted).",
        "",
        markdown_table(tables["gaussian"]),
        "",
        "SIFT on two pairs with known ground truth: the camera against itself turned by 30° and shrunk to 0.75 "
        "about its centre, and the motorcycle stereo pair with its measured disparity (matches on points without "
        "a measurement are left out). Ratio test 0.8 for every library; a match is correct within 3 px of the "
        "true position.",
        "",
        markdown_table(public(sift)),
        "",
        f"Targets: mmir_lib faster than scikit-image on every pair: {met(faster)}. At least scikit-image's share "
        f"of correct matches: over both pairs {share['mmir_lib']:.1%} against {share['scikit-image']:.1%} "
        f"({met(share['mmir_lib'] >= share['scikit-image'])}); per pair {per_pair}. OpenCV: {share['OpenCV']:.1%}.",
        "",
        "k-means (Lloyd) on the SIFT descriptors of four photos, from the same initial centres, tol = 0:",
        "",
        markdown_table(tables["kmeans"]),
        "",
        f"Inertia of mmir_lib / scikit-learn − 1: {kmeans['mmir_lib']['inertia'] / kmeans['scikit-learn']['inertia'] - 1:.1e} "
        f"(same iterations: {kmeans['mmir_lib']['iterations'] == kmeans['scikit-learn']['iterations']}); time per "
        f"iteration {kmeans['mmir_lib']['ms per iteration'] / kmeans['scikit-learn']['ms per iteration']:.1f}× "
        "scikit-learn's.",
        "",
        "Image retrieval with bags of visual words on the book's image collection (129 images, 12 queries; "
        "codebook by k-means on 10,000 of the collection's descriptors; tf-idf ltc.ltc from Part I): time of one "
        "query from its descriptors to the ten best images, and the SIFT extraction of a query image apart.",
        "",
        markdown_table(tables["bovw"]),
    ])


def widget_section() -> str:
    rows = widget_repaint.main()
    heading = "## Interactive figures: slider response in the built book"
    if not rows:
        return (f"{heading}\n\nNot measured: it needs the built book (`make book`) and Chromium "
                "(`apt-get install -y chromium`).")
    worst = max(row["p95 (ms)"] for row in rows)
    met = "met" if worst <= widget_repaint.TARGET_P95_MS else "**not met**"
    return "\n".join([
        heading,
        "",
        f"Each page of `_build/html` with interactive figures, opened from `file://` in headless Chromium; "
        f"every slider moved one step at a time with the keyboard, sweeping its range (at least "
        f"{widget_repaint.MOVES_PER_SLIDER} moves per slider and {widget_repaint.MOVES_PER_PAGE} per page). "
        "A move is timed from the key going down to the first moment after the browser painted the new frame.",
        "",
        markdown_table(rows),
        "",
        f"Target: 95th percentile at most {widget_repaint.TARGET_P95_MS:g} ms on every page; worst page "
        f"{worst:.1f} ms: {met}.",
    ])


def ngram_section(rows: list[dict]) -> str:
    slowest = min(float(row["speed-up"].rstrip("×").replace(",", "")) for row in rows)
    met = "met" if slowest >= 20 else "**not met**"
    return "\n".join([
        "## Part III: n-gram models against nltk.lm",
        "",
        "Word bigram models of Part III's corpus in nltk's convention (one padded sentence per speech, words seen "
        "fewer than twice in training as `<unk>`), the same sentences and vocabulary for both. Timed: counting the "
        "training n-grams and scoring every test bigram (nltk: `fit` and `perplexity`, one run; mmir_lib: "
        "`count_ngrams` and one vectorised `prob`, best of 3). nltk's Kneser-Ney scans every bigram context for "
        f"each probability, so it gets the first {ngram_vs_nltk.KN_TRAIN_SPEECHES:,} training and "
        f"{ngram_vs_nltk.KN_TEST_SPEECHES:,} test speeches only.",
        "",
        markdown_table(rows),
        "",
        "*difference*: |mmir_lib's perplexity − nltk's| (asserted ≤ 1e-9 relative). "
        f"Target: at least 20× as fast as nltk.lm with the same perplexity; slowest speed-up {slowest:,.0f}×: {met}.",
    ])


def evaluation_section(rows: list[dict]) -> str:
    ratio = float(rows[-1]["time"].rstrip("×"))
    met = "met" if ratio <= eval_speed.TARGET else "**not met**"
    return "\n".join([
        "## Metric evaluation: mmir_lib vs pytrec_eval",
        "",
        markdown_table(rows),
        "",
        "Every value is asserted equal to pytrec_eval's within 1e-12. mmir_lib places only the judged documents "
        "a query retrieved (binary search in the sorted scores, docnos compared only inside their tie group), "
        "rather than sorting every retrieved document.",
        "",
        f"Target: at most {eval_speed.TARGET:g}× pytrec_eval's time; measured {ratio:.2f}×: {met}.",
    ])


def word2vec_section(tables: dict[str, list[dict]]) -> str:
    speed = {row["implementation"].split()[0]: row for row in tables["speed"]}
    quality = tables["quality"]
    return "\n".join([
        "## Part III: word2vec (skip-gram, negative sampling) against gensim",
        "",
        f"Settings: `{sgns_vs_gensim.describe()}`; one thread each. Text: {tables['corpus'][0]['value']}, "
        "the training split of Part III's corpus, lower-cased words only, one sequence per speech.",
        "",
        markdown_table(tables["speed"]),
        "",
        f"mmir_lib's epoch takes {speed['mmir_lib']['× gensim (CPU)']:.1f}× gensim's processor time (processor "
        "time, not wall time, because other programs on a shared machine inflate the latter). "
        f"Target: at most {sgns_vs_gensim.TARGET:g}×: "
        f"{'met' if speed['mmir_lib']['× gensim (CPU)'] <= sgns_vs_gensim.TARGET else '**not met**'}.",
        "",
        "Quality (Spearman's ρ over the covered pairs; analogy accuracy over the covered questions):",
        "",
        markdown_table(quality),
        "",
        "Neighbour overlap@10 of the most frequent words (the share of a word's ten nearest neighbours two sets "
        "of vectors agree on; two seeds of one implementation show what to expect from chance alone):",
        "",
        markdown_table(tables["overlap"]),
    ])


def autograd_section(rows: list[dict]) -> str:
    ratio = float(rows[0]["ratio"].rstrip("×"))
    met = "met" if ratio <= autograd_speed.TARGET else "**not met**"
    return "\n".join([
        "## Part IV: the autograd engine against torch.autograd",
        "",
        "One training step of chapter IV.2's two-layer perceptron (784-128-10, ReLU, softmax cross-entropy, "
        "float64, the course notes' layout X of shape (784, m)) on 256 MNIST digits: forward pass, backward pass "
        "and an SGD update; one thread each; processor time, the best of 5 runs of 30 steps, the libraries taking "
        "turns.",
        "",
        markdown_table(rows),
        "",
        f"Target: at most {autograd_speed.TARGET:g}× torch's time per step; measured {ratio:.2f}×: {met}.",
    ])


def layer_section(rows: list[dict], floor: dict[str, float]) -> str:
    name = "layer (float64, one thread)"
    missed = [row[name] for row in rows if row["met"] != "yes"]
    fused, pass_, reduction = floor.values()
    return "\n".join([
        "## Hand-written layers against torch's",
        "",
        "Layer norm (the transformer's), average and max pooling and the convolution's backward pass (V.1), "
        "float64, one thread, the same inputs; processor time, the best of 20 calls, the two libraries taking "
        "turns; results equal to 1e-12 relative to torch's largest magnitude (asserted). The backward pass "
        "computes ∂x by col2im.",
        "",
        markdown_table(rows),
        "",
        f"Target: at most {layer_speed.TARGET:g}× torch's time on every row: "
        + ("met." if not missed else "**not met** by " + " and by ".join(f"*{name}*" for name in missed) + ".")
        + " Why layer norm by hand cannot get there: torch's kernel is fused (it reads each row once and "
        "writes it once, the row in cache in between), while the book's, made of torch operations, makes "
        "three element-wise passes and two reductions through memory. Measured on the same input, the two "
        f"taking turns: one element-wise pass (x − μ) takes {pass_:.2f} ms and one reduction (the mean) "
        f"{reduction:.2f} ms, against {fused:.2f} ms for torch's whole layer norm, so the three passes alone "
        f"take {3 * pass_ / fused:.1f}× torch's time.",
    ])


def main() -> str:
    started, date = time.perf_counter(), datetime.datetime.now(datetime.timezone.utc)
    sections = [throughput_section(quietly(bm25_throughput.main))]
    sections.append("## The BM25 chapter: latency over the Shakespeare speeches\n\n"
                    + markdown_table(quietly(bm25_latency.main)))
    sections.append(evaluation_section(quietly(eval_speed.main)))
    sections.append(vector_search.SECTION + markdown_table(quietly(vector_search.main)))
    sections.append(vision_section(quietly(vision_speed.main)))
    sections.append(ngram_section(quietly(ngram_vs_nltk.main)))
    sections.append(word2vec_section(quietly(sgns_vs_gensim.main)))
    sections.append("## Sequence labelling: Viterbi against nltk's HMM tagger\n\n"
                    "The same probability tables (nltk's, trained on the UD English EWT training split), "
                    "decoded by both; the paths must be identical. Target: at least 20× faster.\n\n"
                    + markdown_table(quietly(tagging_speed.main)))
    sections.append("## Optimisers: one step against torch.optim\n\n"
                    "One step of each optimiser on a 1M-parameter model (float64, one thread); both copies "
                    "must agree to 1e-12 after the timed steps. Target: at most 2× torch.optim's time.\n\n"
                    + markdown_table(quietly(optim_speed.main)))
    sections.append(autograd_section(quietly(autograd_speed.main)))
    sections.append("## Convolution layers: im2col against torch's conv2d\n\n"
                    "LeNet-5's two convolution layers on a batch of 256, one thread; the book's layer computes "
                    "in float64 and must agree with torch's float64 result to 1e-12. Target: at most 3× "
                    "torch's float64 time (torch's float32 kernels are shown for scale).\n\n"
                    + markdown_table(quietly(conv_speed.main)))
    sections.append(layer_section(quietly(layer_speed.main), layer_speed.layer_norm_floor()))
    sections.append("## Attention: scaled dot-product attention against torch's\n\n"
                    "One head, query, key and value of shape (1, 1, 256, 64), float32, one thread; the book's "
                    "function checks its arguments and returns the weights too, torch's fused CPU kernel returns "
                    "the output only. Outputs equal to 1e-5 (asserted). Target: at most 2× torch's time without "
                    "a mask.\n\n"
                    + markdown_table(quietly(attention_speed.main)))
    sections.append("## LeNet-5: the chapter's training run against scikit-learn's flat classifiers\n\n"
                    "Chapter V.2's LeNet-5 run (10 epochs of Adam on shifted copies of the 3,500 training digits, "
                    "float32, one thread) beside scikit-learn's softmax regression and MLP on the same split; "
                    "training time and accuracy on the 1,000 test digits. Target: LeNet-5 at 97% or more "
                    "(asserted), trained within 30 s.\n\n"
                    + markdown_table(quietly(lenet_speed.main)))
    sections.append("## Non-max suppression: against OpenCV's NMSBoxes\n\n"
                    "10,000 boxes, IoU threshold 0.5, one thread each; both must keep the same indices in the "
                    "same order. Target: at most 2× OpenCV's time.\n\n"
                    + markdown_table(quietly(nms_speed.main)))
    sections.append("## BLEU: corpus BLEU against sacrebleu\n\n"
                    "V.5's corpus BLEU and sacrebleu's `corpus_bleu` (tokenize='none') on 10,000 noisy French "
                    "number-word hypotheses against their references; the scores must agree to 1e-9. Target: at "
                    "most sacrebleu's time.\n\n" + markdown_table(quietly(bleu_speed.main)))
    sections.append("## Recurrent networks: the LSTM by hand, and the character language model\n\n"
                    "One forward pass of the by-hand LSTM (numpy, float64) against torch's nn.LSTM with the "
                    "same weights (equal to 1e-12 asserted), one thread; then the chapter's character LSTM: "
                    "its training time and held-out bits per character, and the committed checkpoint's "
                    "(the figure to compare with the transformer's at the same training time).\n\n"
                    + markdown_table(quietly(rnn_speed.main)))
    sections.append("## Transformers: multi-head attention, and the transformer against the LSTM\n\n"
                    "V.7's causal multi-head attention against torch's nn.MultiheadAttention with the same "
                    "weights (one thread; outputs equal to 1e-4 asserted); the training speed of the chapter's "
                    "transformer and of V.4's checkpoint LSTM on one thread; and the two checkpoints at the same "
                    "training time: the LSTM's two passes over the training plays, timed at its measured speed, "
                    "against the transformer's validation loss after as many seconds at its own speed (read off "
                    "its training log, before its learning rate has decayed). Target: the transformer below the "
                    "best n-gram (Kneser-Ney, order and discount tuned on validation) on the test plays.\n\n"
                    + markdown_table(quietly(transformer_speed.main)))
    sections.append(knn_lm_search.SECTION + markdown_table(quietly(knn_lm_search.main)))
    sections.append(widget_section())
    peak_gb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # ru_maxrss is in kB on Linux
    header = "\n".join([
        "# Benchmark results",
        "",
        f"Measured {date:%Y-%m-%d %H:%M} UTC by `make bench` (`benchmarks/run_all.py`), all benchmarks "
        f"in one process, in {time.perf_counter() - started:.0f} s with a peak memory of {peak_gb:.1f} GB. "
        f"Machine: {machine()}.",
    ])
    return "\n\n".join([header, *sections]) + "\n"


if __name__ == "__main__":
    report = main()
    RESULTS.write_text(report)
    print(report, end="")
