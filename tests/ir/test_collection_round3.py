"""The third judging round of the test collection (README, "Round 3"): chapter VI.1's
dense and hybrid runs, recomputed, have exactly the judged speeches of round 3 as their
unjudged top 20; no earlier judgement changed; and collection.unjudged on toy runs."""

from collections import Counter

import pytest

from mmir_lib.ir import collection
from mmir_lib.ir.dense_experiment import SEEDS, fit, topic_runs

ROUND3 = collection.COLLECTION_DIR / "judgements_round3.tsv"
needs_round3 = pytest.mark.skipif(not ROUND3.exists(), reason="round 3 not merged yet")


def test_unjudged_takes_both_tie_orders_and_sorts():
    runs = {"a": {"1": {"x": 1.0, "y": 1.0, "z": 0.5}, "2": {"w": 2.0}}}
    judged = {"1": {"z": 0}, "2": {"w": 1}}
    # depth 1: top_k order gives x, trec_eval's (ties by docno descending) gives y
    assert collection.unjudged(runs, judged, depth=1) == {"1": ["x", "y"]}
    assert collection.unjudged(runs, {"1": {"x": 0, "y": 1}, "2": {"w": 1}}, depth=3) == {"1": ["z"]}
    assert collection.unjudged(runs, {"1": {"x": 0, "y": 1, "z": 0}, "2": {"w": 1}}, depth=3) == {}
    assert list(collection.unjudged({"a": {"10": {"p": 1.0}, "9": {"q": 1.0}}}, {}, depth=1)) == ["9", "10"]


@needs_round3
def test_round3_adds_judgements_and_changes_none():
    before, after = collection.qrels(), collection.qrels(rounds=3)
    for qid, judgements in before.items():
        assert all(after[qid][d] == g for d, g in judgements.items())
    added = sum(map(len, after.values())) - sum(map(len, before.values()))
    reasons = collection.judgement_reasons(rounds=3)
    assert all((q, d) in reasons for q, docs in after.items() for d in docs)
    assert added > 0 and set(Counter(g for docs in after.values() for g in docs.values())) <= {0, 1, 2}


@needs_round3
def test_round3_judged_exactly_the_unjudged_top20_of_the_chapters_runs():
    runs = topic_runs({seed: fit(seed)[0] for seed in SEEDS})
    missing = collection.unjudged(runs, collection.qrels(), depth=20)
    before, after = collection.qrels(), collection.qrels(rounds=3)
    third = {(q, d) for q, docs in after.items() for d in docs if d not in before.get(q, {})}
    assert third == {(q, d) for q, docs in missing.items() for d in docs}
