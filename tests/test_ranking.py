import numpy as np
import pytest
from hypothesis import given, strategies as st

from mmir_lib.ranking import top_k


def test_ties_go_to_the_smaller_document_number():
    scores = np.array([1.0, 3.0, 2.0, 3.0, 2.0])
    ids, s = top_k(scores, 3)
    assert ids.tolist() == [1, 3, 2] and s.tolist() == [3.0, 3.0, 2.0]


def test_candidates_restrict_the_result():
    ids, _ = top_k(np.array([5.0, 4.0, 3.0]), 10, candidates=np.array([False, True, True]))
    assert ids.tolist() == [1, 2]
    ids, s = top_k(np.array([5.0]), 3, candidates=np.array([False]))
    assert len(ids) == 0 and len(s) == 0


@pytest.mark.parametrize("k, error", [(0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_k(k, error):
    with pytest.raises(error, match="k must"):
        top_k(np.zeros(3), k)


@given(st.lists(st.integers(0, 5), min_size=1, max_size=60), st.integers(1, 70))
def test_equals_a_full_stable_sort(values, k):
    scores = np.array(values, dtype=float)
    expected = sorted(range(len(values)), key=lambda d: (-values[d], d))[:k]
    ids, s = top_k(scores, k)
    assert ids.tolist() == expected
    assert s.tolist() == [values[d] for d in expected]


def test_bad_scores_and_candidates():
    with pytest.raises(ValueError, match="NaN"):
        top_k(np.array([1.0, np.nan]), 1)
    with pytest.raises(ValueError, match="candidates"):
        top_k(np.zeros(3), 1, np.array([True]))


@given(st.lists(st.tuples(st.integers(-3, 3), st.booleans()), min_size=1, max_size=80), st.integers(1, 30))
def test_candidates_equal_a_filtered_stable_sort(rows, k):
    """The block-maximum shortcut must never drop a document that belongs in the top k."""
    values = [v for v, _ in rows]
    keep = np.array([c for _, c in rows])
    expected = sorted((d for d in range(len(rows)) if keep[d]), key=lambda d: (-values[d], d))[:k]
    ids, s = top_k(np.array(values, dtype=float), k, keep)
    assert ids.tolist() == expected
    assert s.tolist() == [values[d] for d in expected]


def test_k_and_candidates_are_checked():
    assert top_k([1.0, 3.0, 2.0], np.int64(2))[0].tolist() == [1, 2]  # a numpy int is a k
    with pytest.raises(TypeError, match="k must be an int"):
        top_k([1.0], True)
    with pytest.raises(ValueError, match=r"candidates must have the shape of scores, \(2,\)"):
        top_k([1.0, 2.0], 1, [True])
    with pytest.raises(TypeError, match="candidates must hold bool values"):
        top_k([1.0, 2.0], 1, [0, 1])
    with pytest.raises(ValueError, match="scores must hold finite numbers"):
        top_k([1.0, np.inf], 1)
