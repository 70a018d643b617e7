"""The third judging round of the test collection (README, "Round 3"): chapter VI.1's
dense and hybrid runs, recomputed, have exactly the judged speeches of round 3 as their
unjudged top 20; no earlier judgement changed; and collection.unjudged on toy runs."""

from collections import Counter

import pytest

from mmir_lib.ir import collection
from mmir_lib.ir.dense_experiment import SEEDS, fit, topic_runs

SECOND_READING = collection.COLLECTION_DIR / "judgements_round3_second_reading.tsv"


def test_unjudged_takes_both_tie_orders_and_sorts():
    runs = {"a": {"1": {"x": 1.0, "y": 1.0, "z": 0.5}, "2": {"w": 2.0}}}
    judged = {"1": {"z": 0}, "2": {"w": 1}}
    # depth 1: top_k order gives x, trec_eval's (ties by docno descending) gives y
    assert collection.unjudged(runs, judged, depth=1) == {"1": ["x", "y"]}
    assert collection.unjudged(runs, {"1": {"x": 0, "y": 1}, "2": {"w": 1}}, depth=3) == {"1": ["z"]}
    assert collection.unjudged(runs, {"1": {"x": 0, "y": 1, "z": 0}, "2": {"w": 1}}, depth=3) == {}
    assert list(collection.unjudged({"a": {"10": {"p": 1.0}, "9": {"q": 1.0}}}, {}, depth=1)) == ["9", "10"]


def test_round3_adds_judgements_and_changes_none():
    before, after = collection.qrels(), collection.qrels(rounds=3)
    for qid, judgements in before.items():
        assert all(after[qid][d] == g for d, g in judgements.items())
    added = sum(map(len, after.values())) - sum(map(len, before.values()))
    reasons = collection.judgement_reasons(rounds=3)
    assert all((q, d) in reasons for q, docs in after.items() for d in docs)
    assert added > 0 and set(Counter(g for docs in after.values() for g in docs.values())) <= {0, 1, 2}


def test_round3_judged_exactly_the_unjudged_top20_of_the_chapters_runs():
    runs = topic_runs({seed: fit(seed)[0] for seed in SEEDS})
    missing = collection.unjudged(runs, collection.qrels(), depth=20)
    before, after = collection.qrels(), collection.qrels(rounds=3)
    third = {(q, d) for q, docs in after.items() for d in docs if d not in before.get(q, {})}
    assert third == {(q, d) for q, docs in missing.items() for d in docs}


def test_the_second_reading_agrees_as_the_readme_says():
    """59 of 60 grades, Cohen's κ 0.94 on three grades, 60 of 60 on relevant / not relevant."""
    rows = [line.split("\t") for line in SECOND_READING.read_text().splitlines()[1:]]
    second = {(q, d): int(g) for q, d, g, _ in rows}
    first = collection.qrels(rounds=3)
    assert len(second) == 60 and all(d not in collection.qrels()[q] for q, d in second)  # all from round 3
    pairs = [(first[q][d], g) for (q, d), g in second.items()]

    def kappa(pairs, labels):
        observed = sum(a == b for a, b in pairs) / len(pairs)
        expected = sum(sum(a == c for a, _ in pairs) * sum(b == c for _, b in pairs) for c in labels) / len(pairs) ** 2
        return observed, (observed - expected) / (1 - expected)

    observed, k3 = kappa(pairs, (0, 1, 2))
    binary, k2 = kappa([(a > 0, b > 0) for a, b in pairs], (False, True))
    assert round(observed * 60) == 59 and round(k3, 2) == 0.94
    assert binary == 1.0 and k2 == pytest.approx(1.0)
