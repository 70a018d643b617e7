"""The library-wide argument checks (mmir_lib.validation): every check names the
argument it is given, accepts numpy scalars where Python numbers are accepted, refuses
bools where a number is meant, refuses NaN and infinity, and keeps to its bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from mmir_lib.validation import (MAX_INT, check_array, check_bool, check_broadcast, check_callable, check_choice,
                                 check_count, check_distribution, check_instance, check_mapping, check_number, check_optional,
                                 check_path, check_probability, check_same_length, check_str, check_str_list, check_tensor,
                                 describe)

NAME = "some_argument"  # a name that occurs in no message unless the check puts it there

# (check, keyword limits, a value it refuses): every refusal must name the argument
REFUSALS = [
    (check_number, {}, "1.5"), (check_number, {}, True), (check_number, {}, np.bool_(True)),
    (check_number, {}, float("nan")), (check_number, {}, float("inf")), (check_number, {}, None),
    (check_number, {"low": 0}, -1), (check_number, {"high": 1}, 2), (check_number, {"low": 0, "low_open": True}, 0),
    (check_number, {"high": 1, "high_open": True}, 1), (check_probability, {}, 1.5), (check_probability, {}, -0.1),
    (check_count, {}, 1.0), (check_count, {}, True), (check_count, {}, "3"), (check_count, {}, -1),
    (check_count, {"low": 1}, 0), (check_count, {"high": 5}, 6), (check_count, {}, 2**63),
    (check_bool, {}, 1), (check_bool, {}, "True"), (check_str, {}, 3), (check_str, {}, ""), (check_str, {}, "  "),
    (check_choice, {"choices": ("a", "b")}, "c"), (check_choice, {"choices": ("a", "b")}, ["a"]),
    (check_choice, {"choices": (1, 2)}, np.array([1, 2])), (check_callable, {}, 3),
    (check_instance, {"kind": int}, "3"), (check_instance, {"kind": (int, str)}, 1.5),
    (check_array, {}, None), (check_array, {}, "abc"), (check_array, {}, {"a": 1}), (check_array, {}, [[1], [1, 2]]),
    (check_array, {}, [np.nan]), (check_array, {}, [np.inf]), (check_array, {"kind": "int"}, [1.5]),
    (check_array, {"kind": "int"}, np.array([2**63], dtype=np.uint64)), (check_array, {"kind": "number"}, [True]),
    (check_array, {"ndim": 1}, [[1.0]]), (check_array, {"shape": (2,)}, [1.0]), (check_array, {"nonempty": True}, []),
    (check_array, {"low": 0}, [-1]), (check_array, {"high": 1}, [2]), (check_str_list, {}, "abc"),
    (check_str_list, {}, {"a": 1}), (check_str_list, {}, ["a", 1]), (check_str_list, {"nonempty": True}, []),
    (check_mapping, {}, [("a", 1)]),
    (check_distribution, {}, [0.5, 0.6]), (check_distribution, {}, [[1.0, 0.0], [0.5, 0.4]]),
    (check_distribution, {}, [-0.5, 1.5]), (check_distribution, {}, 1.0), (check_distribution, {}, []),
    (check_distribution, {}, [np.nan, 1.0]), (check_distribution, {"ndim": 1}, [[1.0]]),
]


@pytest.mark.parametrize("check, limits, value", REFUSALS, ids=lambda x: getattr(x, "__name__", None))
def test_every_refusal_names_the_argument(check, limits, value):
    with pytest.raises((TypeError, ValueError)) as error:
        check(NAME, value, **limits)
    assert NAME in str(error.value)


@pytest.mark.parametrize("value", [True, False, np.bool_(True)])
def test_bools_are_no_numbers(value):
    with pytest.raises(TypeError, match=f"{NAME} must be a real number"):
        check_number(NAME, value)
    with pytest.raises(TypeError, match=f"{NAME} must be an int"):
        check_count(NAME, value)
    assert check_bool(NAME, value) is bool(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), np.float32("nan"), np.float64("inf")])
def test_nan_and_infinity_are_refused(value):
    with pytest.raises(ValueError, match=f"{NAME} must be finite"):
        check_number(NAME, value)
    with pytest.raises(ValueError, match="finite"):
        check_array(NAME, [1.0, value])


def test_numpy_scalars_are_numbers():
    for scalar in (np.int8(3), np.int64(3), np.uint64(3), np.float32(3.0), np.float64(3.0)):
        assert check_number(NAME, scalar) == 3.0 and type(check_number(NAME, scalar)) is float
    for scalar in (np.int8(3), np.int32(3), np.int64(3), np.uint16(3)):
        assert check_count(NAME, scalar) == 3 and type(check_count(NAME, scalar)) is int
    assert check_probability(NAME, np.float32(0.5)) == 0.5
    assert check_optional(check_count, NAME, np.int64(2), low=1) == 2


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(-1e6, 1e6), st.floats(-1e6, 1e6))
def test_check_number_keeps_to_its_bounds(value, a, b):
    low, high = min(a, b), max(a, b)
    inside = low <= value <= high
    try:
        checked = check_number(NAME, value, low=low, high=high)
    except ValueError as error:
        assert not inside and NAME in str(error)
    else:
        assert inside and checked == value


@given(st.floats(allow_nan=False, allow_infinity=False), st.floats(-10, 10))
def test_open_bounds_exclude_the_end(value, bound):
    try:
        check_number(NAME, value, low=bound, low_open=True)
        assert value > bound
    except ValueError:
        assert value <= bound
    try:
        check_number(NAME, value, high=bound, high_open=True)
        assert value < bound
    except ValueError:
        assert value >= bound


@given(st.integers(-2**70, 2**70), st.integers(-100, 100), st.integers(-100, 100))
def test_check_count_keeps_to_its_bounds_and_to_int64(value, a, b):
    low, high = min(a, b), max(a, b)
    assert check_count(NAME, value, low=-2**80) == value if -2**80 <= value <= MAX_INT else True
    try:
        checked = check_count(NAME, value, low=low, high=high)
    except ValueError as error:
        assert not low <= value <= high and NAME in str(error)
    else:
        assert low <= value <= high and checked == value and type(checked) is int
    if value > MAX_INT:  # the default upper bound: a count always fits an int64
        with pytest.raises(ValueError, match=f"{NAME} must be <= {MAX_INT}"):
            check_count(NAME, value, low=-2**80)


@given(st.lists(st.floats(-1e9, 1e9), max_size=20), st.floats(-1e9, 1e9))
def test_check_array_low_bound(values, low):
    try:
        array = check_array(NAME, values, low=low)
    except ValueError as error:
        assert values and min(values) < low and NAME in str(error)
    else:
        assert array.dtype == np.float64 and list(array) == values and (not values or min(values) >= low)


def test_check_array_kinds_and_shapes():
    assert check_array(NAME, [1, 2], kind="int").dtype == np.int64
    assert check_array(NAME, [True, False]).dtype == np.float64  # a float array may be given as bools
    assert check_array(NAME, [], kind="int").dtype == np.int64  # an empty list is empty of any kind
    assert check_array(NAME, np.ones((2, 3)), shape=(None, 3)).shape == (2, 3)
    with pytest.raises(ValueError, match=r"some_argument must have shape \(any, 4\), got \(2, 3\)"):
        check_array(NAME, np.ones((2, 3)), shape=(None, 4))
    with pytest.raises(ValueError, match="some_argument must be 1 or 2-dimensional"):
        check_array(NAME, np.ones((1, 1, 1)), ndim=(1, 2))
    assert np.isnan(check_array(NAME, [np.nan], finite=False)).all()


def test_check_str_and_lists():
    assert check_str(NAME, "", allow_empty=True) == ""
    assert check_str_list(NAME, ("a", "b")) == ["a", "b"] and check_str_list(NAME, iter(["c"])) == ["c"]
    with pytest.raises(TypeError, match=r"some_argument\[1\] must be a str"):
        check_str_list(NAME, ["a", 1])


def test_check_path(tmp_path):
    saved = tmp_path / "model.pt"
    saved.write_bytes(b"")
    assert check_path(NAME, str(saved), exists=True) == saved and check_path(NAME, tmp_path / "new.pt").name == "new.pt"
    with pytest.raises(TypeError, match="some_argument must be a file path"):
        check_path(NAME, "")
    with pytest.raises(ValueError, match="some_argument must name an existing file"):
        check_path(NAME, tmp_path / "new.pt", exists=True)


def test_choice_callable_instance_mapping():
    assert check_choice(NAME, "b", ("a", "b")) == "b"
    with pytest.raises(ValueError, match="some_argument must be one of 'a', 'b'; got str 'c'"):
        check_choice(NAME, "c", ("a", "b"))
    assert check_callable(NAME, len) is len
    with pytest.raises(TypeError, match="some_argument must be an int or str, got float 1.5"):
        check_instance(NAME, 1.5, (int, str))
    with pytest.raises(TypeError, match="some_argument must be a float"):
        check_instance(NAME, 1, float)
    assert check_mapping(NAME, {"a": 1}) == {"a": 1}


def test_same_length_and_broadcast_name_every_argument():
    assert check_same_length(a=[1, 2], b="xy") == 2
    with pytest.raises(ValueError, match="a and b must have the same length; a has 2, b has 3"):
        check_same_length(a=[1, 2], b=[1, 2, 3])
    assert check_broadcast(tf=np.ones((4, 1)), dl=np.ones(3), df=np.float64(2.0)) == (4, 3)
    with pytest.raises(ValueError, match=r"tf and dl must have shapes that broadcast together; tf has \(2,\), dl has \(3,\)"):
        check_broadcast(tf=np.ones(2), dl=np.ones(3))


def test_check_distribution_accepts_rows_of_probabilities():
    rows = check_distribution(NAME, np.array([[0.2, 0.8], [1.0, 0.0]], dtype=np.float32))
    assert rows.dtype == np.float64 and rows.shape == (2, 2)
    assert check_distribution(NAME, [1 / 3] * 3).sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="some_argument must sum to 1 along its last axis"):
        check_distribution(NAME, [0.5, 0.5 + 1e-5])
    assert check_distribution(NAME, [0.5, 0.5 + 1e-5], atol=1e-4)[1] == pytest.approx(0.50001)


def test_check_tensor_returns_the_tensor_itself_and_names_what_is_wrong():
    torch = pytest.importorskip("torch")
    x = torch.ones(2, 3, requires_grad=True)
    assert check_tensor("x", x, ndim=2, length=2) is x  # never copied: gradients still flow
    assert check_tensor("ids", torch.tensor([1, 2]), kind="int", ndim=1) is not None
    assert check_tensor("x", torch.zeros(0), nonempty=False).numel() == 0
    for value, limits, error, message in [
        (np.ones(3), {}, TypeError, r"x must be a torch tensor \(torch.from_numpy"),
        ([1.0], {"ndim": 1}, TypeError, "x must be a 1-D torch tensor"),
        (torch.ones(3), {"ndim": 2}, ValueError, "x must be 2-dimensional, got shape"),
        (torch.ones(3), {"min_ndim": 2}, ValueError, "x must have at least 2 axes"),
        (torch.ones(3, dtype=torch.int64), {}, TypeError, "x must hold floating-point numbers"),
        (torch.ones(3), {"kind": "int"}, TypeError, "x must hold integers"),
        (torch.ones(3, dtype=torch.bool), {"kind": "int"}, TypeError, "x must hold integers"),
        (torch.ones(3), {"length": 4}, ValueError, "x must have 4 entries along its first axis"),
        (torch.ones(2, 0), {}, ValueError, "x must not be empty"),
        (torch.tensor([1.0, math.nan]), {}, ValueError, "x must hold finite numbers"),
        (torch.tensor([1e38, 1e38], dtype=torch.float32), {}, None, None),  # the sum overflows, the entries do not
        (torch.ones(3), {"kind": "complex"}, ValueError, "kind must be one of"),
    ]:
        if error is None:
            assert check_tensor("x", value, **limits) is value
            continue
        with pytest.raises(error, match=message):
            check_tensor("x", value, **limits)


def test_describe_is_short_and_safe():
    assert describe("abc") == "str 'abc'"
    assert describe(np.ones((3, 2))) == "ndarray of shape (3, 2) float64"
    long = describe("x" * 1000)
    assert len(long) < 80 and long.endswith("...")
    assert math.isclose(check_number(NAME, 10**400 // 10**399), 10.0)  # a big Python int is a number


def _numeric_arguments():
    """(case, argument, numpy value) for every plain number in the cases of the modules
    that call these checks (tests/bad_input_cases: chapters 1-3 and the shared modules)."""
    from numbers import Integral, Real

    from tests.bad_input_cases import ir_chapters_1_3, shared

    for case in ir_chapters_1_3.CASES + shared.CASES:
        for argument, value in case.kwargs.items():
            if isinstance(value, Real) and not isinstance(value, (bool, np.generic)):
                kinds = (np.int64, np.int32) if isinstance(value, Integral) else (np.float64, np.float32)
                for kind in kinds:
                    yield case, argument, kind(value)


@pytest.mark.parametrize("case, argument, value", list(_numeric_arguments()),
                         ids=lambda x: getattr(x, "name", None) or (type(x).__name__ if isinstance(x, np.generic) else x))
def test_numpy_scalars_are_accepted_wherever_python_numbers_are(case, argument, value):
    case.func(*case.args, **{**case.kwargs, argument: value})
