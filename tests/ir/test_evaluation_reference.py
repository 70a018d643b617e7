"""Cross-checks against trec_eval's own code, through pytrec_eval (pytrec-eval-terrier).

Random runs built to hit every corner where an evaluator can go wrong: many equal
scores (so trec_eval's tie-break by docno, descending, decides ranks), scores that
differ by less than float32 resolution (trec_eval stores scores as C floats), docnos
whose string order differs from their numeric order ("d10" < "d9") or that are not
ASCII, graded judgements 0/1/2 and a few negative ones, queries with no relevant
document, judged documents never retrieved, retrieved documents never judged, run
depths from 0 to the whole pool, run queries without judgements and judged queries
without a run.
"""

import io
import math

import numpy as np
import pytest
import pytrec_eval

from mmir_lib.ir.evaluation import (
    RECALL_LEVELS, aggregate, evaluate, geometric_mean, interpolated_precision,
)
from mmir_lib.ir.trec import read_qrels, read_run, write_qrels, write_run

TOLERANCE = 1e-12
NUM_QUERIES = 200
POOL = [f"d{i}" for i in range(90)] + ["D7", "dé", "d-x", "Z", "a10", "a9"]
EXTRA_CUTOFFS = (1, 2, 3, 7)
EXTRA_LEVELS = (0.05, 0.25, 0.33)

# the same measures, as pytrec_eval wants them and as evaluate() takes them
DEFAULT_CUTOFFS = "5,10,15,20,30,100,200,500,1000"
CUTOFF_LIST = DEFAULT_CUTOFFS + "," + ",".join(map(str, EXTRA_CUTOFFS))
LEVEL_LIST = ",".join(f"{r:.2f}" for r in RECALL_LEVELS + EXTRA_LEVELS)
THEIR_MEASURES = {"map", "Rprec", "recip_rank", "bpref", "ndcg", "set_P", "set_recall", "set_F", "num_ret", "num_rel",
                  "num_rel_ret", f"P.{CUTOFF_LIST}", f"recall.{CUTOFF_LIST}", f"map_cut.{CUTOFF_LIST}",
                  f"ndcg_cut.{CUTOFF_LIST}", f"iprec_at_recall.{LEVEL_LIST}"}
OUR_MEASURES = (["map", "Rprec", "recip_rank", "bpref", "ndcg", "set_P", "set_recall", "set_F", "num_ret", "num_rel",
                 "num_rel_ret", "P", "recall", "map_cut", "ndcg_cut", "iprec_at_recall"]
                + [f"{family}_{k}" for family in ("P", "recall", "map_cut", "ndcg_cut") for k in EXTRA_CUTOFFS]
                + [f"iprec_at_recall_{r}" for r in EXTRA_LEVELS])


def _scores(rng, depth):
    kind = rng.integers(4)
    if kind == 0:  # a handful of distinct values: ties everywhere
        return rng.integers(0, 5, depth) / 4
    if kind == 1:  # near-ties: equal as float32, different as float64
        return 3.0 + rng.integers(0, 3, depth) * 1e-9 + rng.integers(0, 2, depth) * 1e-3
    if kind == 2:  # BM25-like magnitudes, rounded so that some tie
        return np.round(rng.gamma(2.0, 4.0, depth), 2)
    return rng.normal(0, 1e6, depth)  # large and negative


def _collection(seed=20240607):
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(NUM_QUERIES):
        qid = f"q{q}"
        if q % 20 != 19:  # some judged queries have no run at all
            depth = int(rng.choice([0, 1, 3, 10, int(rng.integers(0, len(POOL) + 1))], p=[.03, .05, .07, .15, .7]))
            docs = rng.choice(POOL, depth, replace=False)
            run[qid] = {str(d): float(s) for d, s in zip(docs, _scores(rng, depth))}
        if q % 25 == 24:
            continue  # a run query that nobody judged
        judged = rng.choice(POOL, int(rng.integers(1, 50)), replace=False)
        top_grade = 0 if q % 10 == 3 else 2  # some queries have no relevant document
        grades = rng.integers(0, top_grade + 1, len(judged))
        grades[rng.random(len(judged)) < 0.03] = -1  # "in the pool, not judged"
        qrels[qid] = {str(d): int(g) for d, g in zip(judged, grades)}
    return run, qrels


@pytest.fixture(scope="module")
def collection():
    run, qrels = _collection()
    theirs = pytrec_eval.RelevanceEvaluator(qrels, THEIR_MEASURES).evaluate(run)
    return run, qrels, theirs


def _assert_agree(ours, theirs, run):
    assert set(ours) == set(theirs)
    compared = 0
    for qid, values in theirs.items():
        assert set(ours[qid]) == set(values), qid
        for name, value in values.items():
            if name.startswith("iprec_at_recall") and not run.get(qid):
                # nothing retrieved: trec_eval divides 0 by 0 for the levels it fills in at the
                # end (NaN) and leaves the others 0; we return 0 (documented)
                assert (math.isnan(value) or value == 0.0) and ours[qid][name] == 0.0
                continue
            assert abs(ours[qid][name] - value) <= TOLERANCE, (qid, name, ours[qid][name], value)
            compared += 1
    return compared


def test_the_collection_has_every_corner(collection):
    run, qrels, _ = collection
    judged_in_run = [q for q in qrels if q in run]
    assert len(judged_in_run) >= 150
    assert any(not run[q] for q in judged_in_run)  # empty rankings
    assert any(max(qrels[q].values()) < 1 for q in judged_in_run)  # no relevant document
    assert any(g < 0 for q in qrels for g in qrels[q].values())
    assert any(q not in run for q in qrels) and any(q not in qrels for q in run)
    ties = sum(len(set(np.float32(list(run[q].values())))) < len(run[q]) for q in judged_in_run)
    assert ties >= 80


def test_every_measure_equals_trec_eval(collection):
    run, qrels, theirs = collection
    ours = evaluate(run, qrels, OUR_MEASURES)
    compared = _assert_agree(ours, theirs, run)
    assert compared > 150 * 90  # ~ 90 values per query


def test_missing_zero_equals_trec_eval_on_empty_rankings(collection):
    run, qrels, _ = collection
    completed = {**run, **{q: {} for q in qrels if q not in run}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, THEIR_MEASURES).evaluate(completed)
    ours = evaluate(run, qrels, OUR_MEASURES, missing="zero")
    assert len(ours) > len(evaluate(run, qrels, "map"))
    _assert_agree(ours, theirs, completed)


def test_means_equal_pytrec_eval_aggregation(collection):
    run, qrels, theirs = collection
    measures = ["map", "P_10", "ndcg_cut_10", "recip_rank", "num_rel_ret"]
    summary = aggregate(evaluate(run, qrels, measures))
    for name, value in summary.items():
        expected = pytrec_eval.compute_aggregated_measure(name, [row[name] for row in theirs.values()])
        assert value == pytest.approx(expected, rel=TOLERANCE, abs=TOLERANCE), name
    gm = pytrec_eval.RelevanceEvaluator(qrels, {"gm_map"}).evaluate(run)
    expected_gmap = pytrec_eval.compute_aggregated_measure("gm_map", [row["gm_map"] for row in gm.values()])
    ours = evaluate(run, qrels, "map")
    assert geometric_mean([row["map"] for row in ours.values()]) == pytest.approx(expected_gmap, rel=TOLERANCE)
    assert aggregate(ours, mean="geometric")["map"] == pytest.approx(expected_gmap, rel=TOLERANCE)


@pytest.mark.parametrize("num_rel", range(1, 61))
def test_recall_levels_round_as_in_trec_eval(num_rel):
    # R relevant documents, every third one retrieved late: all the +0.9 rounding cases up to R = 60
    rng = np.random.default_rng(num_rel)
    relevant = [f"r{i}" for i in range(num_rel)]
    ranking = list(rng.permutation(relevant + [f"n{i}" for i in range(num_rel)]))[: int(1.5 * num_rel) + 1]
    judgements = dict.fromkeys(relevant, 1)
    levels = [i / 20 for i in range(21)]
    evaluator = pytrec_eval.RelevanceEvaluator({"q": judgements}, {"iprec_at_recall." + ",".join(map(str, levels))})
    theirs = evaluator.evaluate({"q": {d: float(-i) for i, d in enumerate(ranking)}})["q"]
    ours = interpolated_precision(ranking, judgements, levels)
    assert ours.tolist() == pytest.approx([theirs[f"iprec_at_recall_{r:.2f}"] for r in levels], abs=TOLERANCE)


def test_files_written_and_read_back_evaluate_the_same(collection):
    run, qrels, theirs = collection
    run_text, qrels_text = io.StringIO(), io.StringIO()
    write_run(run, run_text)
    write_qrels(qrels, qrels_text)
    their_run = pytrec_eval.parse_run(run_text.getvalue().splitlines())
    their_qrels = pytrec_eval.parse_qrel(qrels_text.getvalue().splitlines())
    our_run, our_qrels = read_run(run_text.getvalue().splitlines()), read_qrels(qrels_text.getvalue().splitlines())
    assert our_qrels == dict(their_qrels) == qrels
    assert our_run == dict(their_run) == {q: d for q, d in run.items() if d}  # an empty query writes no line
    from_files = pytrec_eval.RelevanceEvaluator(their_qrels, THEIR_MEASURES).evaluate(their_run)
    _assert_agree(evaluate(our_run, our_qrels, OUR_MEASURES), from_files, our_run)
