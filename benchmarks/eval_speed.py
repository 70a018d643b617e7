"""Speed of `mmir_lib.ir.evaluation.evaluate` against pytrec_eval (trec_eval's C code).

A seeded random run of 1,000 queries × 1,000 retrieved documents (scores rounded to
two decimals, so there are ties) and graded qrels (200 judged documents a query,
grades 0/1/2), evaluated for map, ndcg_cut_10, P_10 and recip_rank. pytrec_eval is
timed building its evaluator plus evaluating (it needs both for a new set of qrels);
each time is the best of ``repeat`` runs. The two must agree to 1e-12 on every value.

Run with ``python benchmarks/eval_speed.py``; ``main()`` also returns the table rows.
"""

import time

import numpy as np
import pytrec_eval

from mmir_lib.ir.evaluation import evaluate

MEASURES = ["map", "ndcg_cut_10", "P_10", "recip_rank"]
TARGET = 1.0  # at most pytrec_eval's time


def random_collection(num_queries: int = 1000, depth: int = 1000, judged: int = 200, seed: int = 0):
    """A run {qid: {docno: score}} and qrels {qid: {docno: grade}} over 20,000 documents."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(num_queries):
        qid = f"q{q}"
        docs = rng.choice(20_000, depth, replace=False)
        scores = np.round(rng.normal(size=depth), 2)
        run[qid] = {f"d{d}": float(s) for d, s in zip(docs, scores)}
        judged_docs = rng.choice(20_000, judged, replace=False)
        qrels[qid] = {f"d{d}": int(g) for d, g in zip(judged_docs, rng.integers(0, 3, judged))}
    return run, qrels


def best_time(fn, repeat: int) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(num_queries: int = 1000, depth: int = 1000, repeat: int = 3) -> list[dict[str, str]]:
    run, qrels = random_collection(num_queries, depth)
    theirs_time, theirs = best_time(
        lambda: pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run), repeat)
    ours_time, ours = best_time(lambda: evaluate(run, qrels, MEASURES), repeat)

    assert set(ours) == set(theirs)
    for qid, values in theirs.items():
        for name, value in values.items():
            assert abs(ours[qid][name] - value) <= 1e-12, (qid, name, ours[qid][name], value)

    size = f"{num_queries:,} queries × {depth:,} documents, {', '.join(MEASURES)}"
    rows = [
        {"measurement": f"pytrec_eval (C), {size}", "time": f"{theirs_time:.3f} s"},
        {"measurement": f"mmir_lib evaluate (numpy), {size}", "time": f"{ours_time:.3f} s"},
        {"measurement": "mmir_lib / pytrec_eval", "time": f"{ours_time / theirs_time:.2f}×"},
    ]
    print("| measurement | time |\n|---|---|")
    for row in rows:
        print(f"| {row['measurement']} | {row['time']} |")
    return rows


if __name__ == "__main__":
    main()
