"""Build chapter VI.4's kNN-LM datastore, search it for the held-out plays, and store the results.

    python tools/build_knn_datastore.py          # the book's run

The book's run took 28.5 minutes on 2 cores shared with other work (1,069 s of processor
time) and a peak of 17.7 GB of memory: the 3.5 million float32 keys are 2.7 GB, and
filling the index and searching the test plays in one call each allocate several times
that. ``--train-chars``, ``--train-sample``, ``--nlist`` and ``--test-chars`` make a quick
trial of the whole pipeline (seconds to minutes; not the book's numbers).

Deterministic: the thread count is fixed (``--threads``, 2), the index's training sample
is drawn with ``numpy.random.default_rng(SEED)``, k-means starts from ``SEED``, samples
are drawn with their own seeded generator. Each stage is logged with its time.

1. **Keys.** V.7's transformer (``load_checkpoint()``) reads the training plays in
   windows of T = 256 every ``HELD_OUT_STRIDE`` = 224 characters, as the held-out table
   reads text (every position has at least 33 characters of context):
   key = the final layer norm's output, value = the next character
   (:func:`mmir_lib.lm.knn_lm.hidden_states`); the same for the first
   ``LOG_VALIDATION_CHARS`` validation characters (V.7's tuning text) and the whole test
   text, with the model's own losses.
2. **Index.** IVF-PQ (:mod:`mmir_lib.ann.ivfpq`): ``NLIST`` k-means cells and ``M``
   sub-quantizers of 2^8 centres, trained on ``TRAIN_SAMPLE`` keys drawn at random, then
   every training key added. Exact search is priced on ``EXACT_QUERIES`` validation
   queries (its time, and the recall of the index against it).
3. **Tuning on validation only.** Each validation query's ``K_MAX`` neighbours at each
   nprobe of ``NPROBE_GRID``; the validation loss of λ p_kNN + (1 − λ) p_LM over the grid
   of k, τ, λ and nprobe; the setting with the lowest loss is chosen (the grid's top
   nprobe is what the time budget allows for the test plays). The three-way mixture with
   V.7's 8-gram: weights on a 0.05 grid, the lowest validation loss.
4. **Test.** Every test position searched once at the chosen nprobe; log p_kNN(target)
   at the chosen τ for the chosen k (and, on the first ``WIDGET_CHARS`` test characters,
   every k of the grid, and the ids of the 4 nearest keys).
5. **Retrieve-then-read.** Training passages of ``PASSAGE`` characters (consecutive
   chunks of the training stream); blocks of ``BLOCK`` test characters; for each, the
   BM25-best passage for the ``BLOCK`` characters before it; the model reads passage and
   own text in one window of T (:func:`mmir_lib.lm.retrieval.read_after_passages`), and,
   as a control, the same own text alone.
6. **Copying.** ``SAMPLES`` samples of ``SAMPLE_CHARS`` characters from the transformer
   (temperature 1, drawn side by side with ``default_rng(SEED)``) and as many passages of the test plays: each one's longest span found
   in the training text, its word 4-gram overlap with it, and its BM25-nearest passage.

Writes ``mmir_lib/checkpoints/knn_lm_results.npz`` (a few MB: per-position losses of the
test plays in float16, the validation grid, the log). Keys and index stay in memory.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mmir_lib.ann.exact import exact_search  # noqa: E402
from mmir_lib.ann.ivfpq import train_ivfpq  # noqa: E402
from mmir_lib.ir.bm25 import bm25_search  # noqa: E402
from mmir_lib.ir.index import InvertedIndex  # noqa: E402
from mmir_lib.ir.text import ENGLISH_STOP_WORDS, Analyzer, tokenize  # noqa: E402
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary  # noqa: E402
from mmir_lib.lm.heldout import best_ngram  # noqa: E402
from mmir_lib.lm.knn_lm import Datastore, hidden_states, knn_log_prob, mix_log_probs  # noqa: E402
from mmir_lib.lm.retrieval import longest_copied_span, ngram_overlap, read_after_passages, word_ngrams  # noqa: E402
from mmir_lib.lm.transformer import HELD_OUT_STRIDE, LOG_VALIDATION_CHARS, load_checkpoint  # noqa: E402

SEED = 0
THREADS = 2
NLIST, M, NBITS, MAX_ITER, TRAIN_SAMPLE = 1024, 24, 8, 10, 50_000
NPROBE_GRID = (1, 2)
K_MAX = 64
K_GRID = (1, 2, 4, 8, 16, 32, 64)
TEMPERATURE_GRID = tuple(2.0 ** np.arange(0, 9))          # τ = 1 … 256
WEIGHT_GRID = np.round(np.arange(0, 1.0001, 0.05), 2)      # V.7's grid of λ
EXACT_QUERIES = 200
WIDGET_CHARS = 20_000
PASSAGE, BLOCK = 128, 64
SAMPLES, SAMPLE_CHARS, OVERLAP_N = 20, 200, 4
#: The slice a test rebuilds: a small index over the first SLICE_TRAIN training positions,
#: searched for the first SLICE_TEST test positions at the chosen k and τ.
SLICE_TRAIN, SLICE_TEST, SLICE_SAMPLE, SLICE_NLIST, SLICE_M, SLICE_NBITS, SLICE_NPROBE = (
    50_000, 2_000, 10_000, 32, 12, 6, 4)
OUT = ROOT / "mmir_lib" / "checkpoints" / "knn_lm_results.npz"

LOG: list[str] = []


def log(message: str, start: float) -> None:
    line = f"[{time.perf_counter() - start:7.1f} s] {message}"
    LOG.append(line)
    print(line, flush=True)


def slice_figures(model, k: int, temperature: float) -> np.ndarray:
    """log p_kNN(target) (SLICE_TEST,) from a small IVF-PQ over the first SLICE_TRAIN training
    positions (what a test rebuilds in seconds to check the stored ``slice_knn``)."""
    newline = vocabulary("character").index[BOUNDARY]
    train, test = corpus_ids("train", "character")[:SLICE_TRAIN], corpus_ids("test", "character")[:SLICE_TEST]
    keys, _ = hidden_states(model, train, newline, stride=HELD_OUT_STRIDE, batch_size=32)
    queries, _ = hidden_states(model, test, newline, stride=HELD_OUT_STRIDE, batch_size=32)
    sample = np.sort(np.random.default_rng(SEED).choice(len(keys), SLICE_SAMPLE, replace=False))
    index = train_ivfpq(keys[sample], SLICE_NLIST, SLICE_M, SLICE_NBITS, MAX_ITER, seed=SEED).add(keys)
    distances, values = Datastore(index, train, model.config.as_dict()).search(queries, k, SLICE_NPROBE)
    return knn_log_prob(distances, values, test, temperature)


def sample_batch(model, n: int, length: int, start: int, unk: int, rng: np.random.Generator) -> np.ndarray:
    """n samples of ``length`` characters after ``start``, drawn side by side at temperature 1
    (``<unk>`` never drawn): each step reads the whole window (length < T), (n, length) ids."""
    ids = np.full((n, 1), start, dtype=np.int64)
    with torch.no_grad():
        for _ in range(length):
            p = torch.softmax(model(torch.from_numpy(ids))[:, -1].double(), dim=-1).numpy()
            p[:, unk] = 0.0
            p /= p.sum(axis=1, keepdims=True)
            ids = np.concatenate([ids, [[rng.choice(len(row), p=row)] for row in p]], axis=1)
    return ids[:, 1:]


def validation_grid(lm_logp, distances, values, targets):
    """Mean validation loss (nats) of λ p_kNN + (1 − λ) p_LM, (len(K_GRID), len(TEMPERATURE_GRID), len(WEIGHT_GRID))."""
    grid = np.empty((len(K_GRID), len(TEMPERATURE_GRID), len(WEIGHT_GRID)))
    for a, k in enumerate(K_GRID):
        for b, tau in enumerate(TEMPERATURE_GRID):
            knn = knn_log_prob(distances[:, :k], values[:, :k], targets, tau)
            for c, w in enumerate(WEIGHT_GRID):
                grid[a, b, c] = -mix_log_probs(np.stack([knn, lm_logp]), [w, 1 - w]).mean()
    return grid


def three_way_grid(log_probs):
    """Mean loss of w_kNN p_kNN + w_ngram p_ngram + (1 − w_kNN − w_ngram) p_LM over the 0.05 grid
    (NaN where the weights exceed 1): (len(WEIGHT_GRID), len(WEIGHT_GRID))."""
    knn, ngram, lm = log_probs
    grid = np.full((len(WEIGHT_GRID), len(WEIGHT_GRID)), np.nan)
    for a, wk in enumerate(WEIGHT_GRID):
        for b, wn in enumerate(WEIGHT_GRID):
            if wk + wn <= 1 + 1e-9:
                grid[a, b] = -mix_log_probs(np.stack([knn, ngram, lm]), [wk, wn, max(0.0, 1 - wk - wn)]).mean()
    return grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=THREADS)
    parser.add_argument("--train-chars", type=int, default=None, help="use only the first this many training "
                        "characters (a quick trial; the book's run uses all)")
    parser.add_argument("--nlist", type=int, default=NLIST, help="k-means cells (a quick trial: fewer)")
    parser.add_argument("--train-sample", type=int, default=TRAIN_SAMPLE, help="keys the index learns from")
    parser.add_argument("--test-chars", type=int, default=None, help="score only the first this many test "
                        "characters (a quick trial)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(SEED)
    start = time.perf_counter()
    timings = {}
    model = load_checkpoint()
    chars = vocabulary("character")
    newline = chars.index[BOUNDARY]
    train = corpus_ids("train", "character")[:args.train_chars]
    validation = corpus_ids("validation", "character")[:LOG_VALIDATION_CHARS]
    test = corpus_ids("test", "character")[:args.test_chars]

    # 1. keys
    t = time.perf_counter()
    train_keys, _ = hidden_states(model, train, newline, stride=HELD_OUT_STRIDE, batch_size=32)
    timings["train_keys_s"] = time.perf_counter() - t
    log(f"keys of {len(train):,} training positions, d = {train_keys.shape[1]}: {timings['train_keys_s']:.0f} s", start)
    validation_keys, validation_lm = hidden_states(model, validation, newline, stride=HELD_OUT_STRIDE, batch_size=32)
    test_keys, test_lm = hidden_states(model, test, newline, stride=HELD_OUT_STRIDE, batch_size=32)
    log(f"keys of {len(validation):,} validation and {len(test):,} test positions", start)

    # 2. index
    t = time.perf_counter()
    sample = np.random.default_rng(SEED).choice(len(train_keys), size=min(args.train_sample, len(train_keys)), replace=False)
    index = train_ivfpq(train_keys[np.sort(sample)], args.nlist, M, NBITS, MAX_ITER, seed=SEED)
    timings["index_train_s"] = time.perf_counter() - t
    t = time.perf_counter()
    index.add(train_keys)
    timings["index_add_s"] = time.perf_counter() - t
    store = Datastore(index, train, model.config.as_dict())
    log(f"{index!r}: trained in {timings['index_train_s']:.0f} s, filled in {timings['index_add_s']:.0f} s", start)

    # exact search, priced on a few queries
    t = time.perf_counter()
    exact_d, exact_ids = exact_search(train_keys, validation_keys[:EXACT_QUERIES], K_MAX, metric="l2")
    timings["exact_qps"] = EXACT_QUERIES / (time.perf_counter() - t)
    log(f"exact search: {timings['exact_qps']:.1f} queries/s over {len(train_keys):,} keys", start)
    del train_keys

    # 3. validation grid
    validation_targets = validation.astype(np.int64)
    grids, recalls, qps, found = [], [], [], {}
    for nprobe in NPROBE_GRID:
        t = time.perf_counter()
        found[nprobe] = distances, values = store.search(validation_keys, K_MAX, nprobe)
        qps.append(len(validation_keys) / (time.perf_counter() - t))
        _, ids = index.search(validation_keys[:EXACT_QUERIES], K_MAX, nprobe)
        recalls.append(np.mean([len(set(a[:10]) & set(b[:10])) / 10 for a, b in zip(ids, exact_ids)]))
        grids.append(validation_grid(-validation_lm, distances, values, validation_targets))
        log(f"nprobe {nprobe}: {qps[-1]:.0f} queries/s, recall@10 {recalls[-1]:.3f}, best validation "
            f"{grids[-1].min() / math.log(2):.4f} bits/char", start)
    grids = np.stack(grids)
    best = np.unravel_index(np.argmin(grids), grids.shape)
    nprobe, k, tau, weight = (NPROBE_GRID[best[0]], K_GRID[best[1]], TEMPERATURE_GRID[best[2]],
                              float(WEIGHT_GRID[best[3]]))
    log(f"chosen on validation: nprobe {nprobe}, k {k}, τ {tau:g}, λ {weight:g}", start)
    distances, values = found[nprobe]
    validation_knn = knn_log_prob(distances[:, :k], values[:, :k], validation_targets, tau)
    ngram = best_ngram("character")
    validation_ngram = -ngram.log_loss(validation, pad=newline)
    mix3_grid = three_way_grid([validation_knn, validation_ngram, -validation_lm])
    a, b = np.unravel_index(np.nanargmin(mix3_grid), mix3_grid.shape)
    mix3 = (float(WEIGHT_GRID[a]), float(WEIGHT_GRID[b]))
    log(f"three-way weights on validation: kNN {mix3[0]:g}, 8-gram {mix3[1]:g}", start)

    # 4. test
    t = time.perf_counter()
    distances, values = store.search(test_keys, K_MAX, nprobe)
    timings["test_search_s"] = time.perf_counter() - t
    log(f"test search: {len(test):,} queries in {timings['test_search_s']:.0f} s", start)
    test_targets = test.astype(np.int64)
    test_knn = knn_log_prob(distances[:, :k], values[:, :k], test_targets, tau)
    widget_knn = np.stack([knn_log_prob(distances[:WIDGET_CHARS, :j], values[:WIDGET_CHARS, :j],
                                        test_targets[:WIDGET_CHARS], tau) for j in K_GRID])
    _, widget_ids = index.search(test_keys[:WIDGET_CHARS], 4, nprobe)
    test_ngram = -ngram.log_loss(test, pad=newline)

    # 5. retrieve-then-read
    t = time.perf_counter()
    train_text = "".join(chars.decode(train))
    passages = [train_text[i:i + PASSAGE] for i in range(0, len(train_text) - PASSAGE + 1, PASSAGE)]
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS)
    bm25 = InvertedIndex.from_texts(passages, analyzer)
    test_text = "".join(chars.decode(test))
    blocks = -(-len(test) // BLOCK)
    chosen = np.full(blocks, -1, dtype=np.int64)
    for j in range(blocks):
        query = test_text[max(0, j * BLOCK - BLOCK):j * BLOCK]
        if analyzer(query):
            found, _ = bm25_search(bm25, query, k=1)
            chosen[j] = found[0] if len(found) else -1
    passage_ids = np.stack([train[p * PASSAGE:(p + 1) * PASSAGE] if p >= 0 else np.full(PASSAGE, newline)
                            for p in chosen])
    rtr = read_after_passages(model, test, newline, BLOCK, passage_ids, PASSAGE, batch_size=32)
    control = read_after_passages(model, test, newline, BLOCK, None, PASSAGE, batch_size=32)
    timings["retrieve_then_read_s"] = time.perf_counter() - t
    log(f"retrieve-then-read: {rtr.mean() / math.log(2):.4f} bits/char, control "
        f"{control.mean() / math.log(2):.4f}, {np.mean(chosen < 0):.2%} blocks without a query term", start)

    # 6. copying
    t = time.perf_counter()
    train_ngrams = word_ngrams(tokenize(train_text), OVERLAP_N)
    rng = np.random.default_rng(SEED)
    generated = ["".join(chars.decode(row)) for row in sample_batch(model, SAMPLES, SAMPLE_CHARS, newline, chars.unk, rng)]
    starts = np.sort(rng.choice(len(test_text) - SAMPLE_CHARS, SAMPLES, replace=False))
    real = [test_text[s:s + SAMPLE_CHARS] for s in starts]
    copying = []
    for kind, texts in (("generated", generated), ("test", real)):
        for text in texts:
            span, at = longest_copied_span(text, train_text)
            found, _ = bm25_search(bm25, text, k=1) if analyzer(text) else (np.array([-1]), None)
            copying.append(dict(kind=kind, text=text, longest=span, longest_at=at,
                                overlap=ngram_overlap(tokenize(text), train_ngrams, OVERLAP_N),
                                nearest_passage=int(found[0]) if len(found) else -1))
    timings["copying_s"] = time.perf_counter() - t
    log(f"copying: {SAMPLES} samples and {SAMPLES} test passages in {timings['copying_s']:.0f} s", start)

    slice_knn = slice_figures(model, k, tau)
    timings["total_s"] = time.perf_counter() - start
    meta = dict(seed=SEED, threads=args.threads, nlist=args.nlist, test_chars=len(test), m=M, nbits=NBITS, max_iter=MAX_ITER,
                train_sample=args.train_sample, nprobe_grid=NPROBE_GRID, k_grid=K_GRID, temperature_grid=TEMPERATURE_GRID,
                weight_grid=WEIGHT_GRID.tolist(), k_max=K_MAX, nprobe=nprobe, k=k, temperature=tau, weight=weight,
                three_way=mix3, train_chars=len(train), validation_chars=len(validation), exact_queries=EXACT_QUERIES,
                recall_at_10=recalls, validation_qps=qps, passage=PASSAGE, block=BLOCK, overlap_n=OVERLAP_N,
                widget_chars=WIDGET_CHARS, timings=timings, copying=copying, log=LOG,
                bytes_per_vector=index.bytes_per_vector)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, meta=np.array(json.dumps(meta)), validation_grid=grids.astype(np.float32),
                        three_way_grid=mix3_grid.astype(np.float32),
                        test_lm=(-test_lm).astype(np.float16), test_knn=test_knn.astype(np.float16),
                        test_ngram=test_ngram.astype(np.float16), test_rtr=(-rtr).astype(np.float16),
                        test_control=(-control).astype(np.float16), widget_knn=widget_knn.astype(np.float16),
                        widget_ids=widget_ids.astype(np.int32),
                        slice_knn=slice_knn.astype(np.float32), rtr_passages=chosen.astype(np.int32))
    log(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB); total "
        f"{timings['total_s'] / 60:.1f} min", start)


if __name__ == "__main__":
    main()
