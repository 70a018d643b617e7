"""Exact k-NN: equal to faiss's IndexFlatIP and IndexFlatL2; the tie rule; properties."""

import faiss
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.topk import top_k
from tests.ann._glove import subset


def _equal_except_near_ties(ours, theirs, values, tolerance=1e-4):
    """Same ids, except in places where two neighbouring scores are within float32 rounding."""
    gaps = np.abs(np.diff(values, axis=1)) <= tolerance * np.maximum(np.abs(values[:, 1:]), 1)
    near_tie = np.zeros_like(ours, dtype=bool)
    near_tie[:, 1:] |= gaps
    near_tie[:, :-1] |= gaps
    assert np.array_equal(ours[~near_tie], theirs[~near_tie])
    return float((ours != theirs).mean())  # the share of places that differ (near ties only)


@pytest.mark.parametrize("metric, index", [("ip", faiss.IndexFlatIP), ("l2", faiss.IndexFlatL2)])
@pytest.mark.parametrize("block", [1_999, 16_384])
def test_equal_to_faiss_flat_indexes(metric, index, block):
    """Measured: identical ids on all 200 queries × 10, scores within 3e-6 relative."""
    base, queries = subset(20_000 - 200, 200)
    reference = index(50)
    reference.add(base)
    theirs_scores, theirs_ids = reference.search(queries, 10)
    scores, ids = exact_search(base, queries, 10, metric, block=block)
    assert scores.dtype == np.float32 and ids.dtype == np.int64
    np.testing.assert_allclose(scores, theirs_scores, rtol=1e-5, atol=1e-5)
    assert _equal_except_near_ties(ids, theirs_ids, theirs_scores) == 0.0


def test_ties_go_to_the_smaller_id_and_faiss_returns_the_same_scores():
    """faiss's order among exactly equal scores is whatever its heaps leave (measured on
    this case, 1.15.1: larger ids first, and at the k-th place the middle copy of three);
    ours is the stated rule. The scores agree place by place, and so do the ids up to
    the copies of one vector."""
    rng = np.random.default_rng(0)
    distinct = rng.normal(size=(50, 8)).astype(np.float32)
    base = np.concatenate([distinct, distinct, distinct])  # every vector three times: ids i, i + 50, i + 100
    queries = distinct[:5] + np.float32(0.01)
    for metric, index in [("ip", faiss.IndexFlatIP), ("l2", faiss.IndexFlatL2)]:
        scores, ids = exact_search(base, queries, 7, metric, block=40)  # tied copies split across blocks
        for row in ids:  # the copies of one vector come together, in increasing id; the 7th is the smallest copy
            groups = row[:6].reshape(2, 3)
            assert all(np.array_equal(g, np.sort(g)) and len(set(g % 50)) == 1 for g in groups)
            assert row[6] < 50
        reference = index(8)
        reference.add(base)
        theirs_scores, theirs_ids = reference.search(queries, 7)
        np.testing.assert_allclose(scores, theirs_scores, rtol=1e-5, atol=1e-5)
        assert np.array_equal(ids % 50, theirs_ids % 50)


def test_top_k_keeps_every_tie_at_the_kth_place():
    scores = np.array([[1.0, 3.0, 3.0, 3.0, 0.0]])
    s, i = top_k(scores, np.array([[9, 8, 7, 6, 5]]), 2)
    assert s.tolist() == [[3.0, 3.0]] and i.tolist() == [[6, 7]]
    s, i = top_k(np.array([[2.0, -np.inf]]), np.array([[4, -1]]), 2)
    assert i.tolist() == [[4, -1]]


@settings(max_examples=40, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 30), st.integers(1, 6)),
              elements=st.integers(-3, 3).map(np.float32)),
       st.integers(1, 5), st.sampled_from(["ip", "l2"]), st.integers(1, 7))
def test_matches_a_full_sort(base, queries_n, metric, block):
    """On small integer vectors (many exact ties): the same as sorting all scores by
    (score, id), whatever the block size."""
    queries = base[:queries_n] + np.float32(0.5)
    k = min(4, len(base))
    scores, ids = exact_search(base, queries, k, metric, block=block)
    full = queries @ base.T if metric == "ip" else -((queries[:, None] - base[None]) ** 2).sum(-1)
    for row, full_row in zip(ids, full):
        expected = sorted(range(len(base)), key=lambda j: (-full_row[j], j))[:k]
        assert row.tolist() == expected
    assert np.all(np.diff(scores, axis=1) <= 0) if metric == "ip" else np.all(np.diff(scores, axis=1) >= 0)


def test_bad_input_is_named():
    base = np.ones((5, 3), dtype=np.float32)
    with pytest.raises(ValueError, match="queries must have d = 3 columns \\(the dimension of base\\)"):
        exact_search(base, np.ones((2, 4)), 2)
    with pytest.raises(ValueError, match="k must be at most"):
        exact_search(base, base, 6)
    with pytest.raises(ValueError, match="base must hold finite"):
        exact_search(np.array([[np.nan, 1.0, 2.0]]), base, 1)
    with pytest.raises(ValueError, match="base must hold numbers that fit a float32"):
        exact_search(np.array([[1e300, 1.0, 2.0]]), base, 1)
    with pytest.raises(ValueError, match="base must not be empty"):
        exact_search(np.zeros((0, 3), dtype=np.float32), base, 1)
    with pytest.raises(ValueError, match="metric"):
        exact_search(base, base, 1, metric="cosine")
