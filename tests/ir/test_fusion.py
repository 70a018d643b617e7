"""Tests of mmir_lib.ir.fusion: weighted reciprocal rank fusion."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ir.fusion import RRF_K, reciprocal_rank_fusion
from mmir_lib.ir.trec import trec_ranking

A = {"q": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
B = {"q": {"d3": 0.9, "d4": 0.5}, "r": {"d1": 0.1}}


def test_rrf_by_hand():
    fused = reciprocal_rank_fusion([A, B])
    expected = {"d1": 1 / 61, "d2": 1 / 62, "d3": 1 / 63 + 1 / 61, "d4": 1 / 62}
    assert fused["q"] == pytest.approx(expected)
    assert list(fused["q"]) == ["d3", "d1", "d4", "d2"]  # d2 and d4 tie: docno descending, as trec_eval
    assert fused["r"] == pytest.approx({"d1": 1 / 61})


def test_weights_zero_and_one_give_each_run():
    assert trec_ranking(reciprocal_rank_fusion([A, B], [1, 0])["q"])[:3] == ["d1", "d2", "d3"]
    assert trec_ranking(reciprocal_rank_fusion([A, B], [0, 1])["q"])[:2] == ["d3", "d4"]


runs = st.dictionaries(st.sampled_from([f"d{i}" for i in range(12)]), st.floats(-50, 50), min_size=1)


@settings(max_examples=60, deadline=None)
@given(a=runs, b=runs, weight=st.floats(0, 1), depth=st.integers(1, 30))
def test_rrf_invariant_to_monotone_score_transforms(a, b, weight, depth):
    fused = reciprocal_rank_fusion([{"q": a}, {"q": b}], [1 - weight, weight], depth=depth)
    stretched = {"q": {d: float(np.exp(s / 10)) + 7.0 for d, s in b.items()}}  # strictly increasing
    # (an increasing transform keeps the order and the ties, as long as it keeps float32 distinctions)
    if trec_ranking(stretched["q"]) == trec_ranking(b):
        assert reciprocal_rank_fusion([{"q": a}, stretched], [1 - weight, weight], depth=depth) == fused
    assert len(fused["q"]) == min(depth, len(set(a) | set(b)))
    values = list(fused["q"].values())
    assert values == sorted(values, reverse=True)


def test_bad_input():
    with pytest.raises(ValueError, match="weights"):
        reciprocal_rank_fusion([A, B], [1.0])
    with pytest.raises(ValueError, match=r"weights\[1\]"):
        reciprocal_rank_fusion([A, B], [1.0, -1.0])
    with pytest.raises(ValueError, match="runs"):
        reciprocal_rank_fusion([])
    assert RRF_K == 60
