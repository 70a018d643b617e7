"""The bad-input contract of the public API, and the machinery that checks it.

Every public callable of :mod:`mmir_lib` (a name in a module's ``__all__`` that the
module defines: functions and classes) must, given a bad value for any one of its
arguments, raise **ValueError or TypeError whose message names that argument**, within
a bounded time: never a silent result, an unrelated exception from deep inside numpy,
a crash or a hang.

A :class:`Case` is one *valid* call of a callable. ``tests/test_bad_input.py`` replaces
one argument at a time by each value of :data:`BAD_VALUES` and sorts what happens:

* ``clear``: ValueError/TypeError naming the argument (the contract);
* ``accepted``: the call returned, and the case declares that bad value acceptable for
  that argument (``accepts={"b": {"zero"}}``: b = 0 is a legal BM25 setting);
* ``silent``: it returned although the value was not declared acceptable;
* ``unclear``: ValueError/TypeError whose message does not name the argument, or any
  other exception;
* ``hang``: no answer within :data:`HANG_SECONDS` (a guard against endless loops, not a
  speed requirement: any correct call returns in milliseconds).

The cases live in ``tests/bad_input_cases/``, one file per part of the library; a test
checks that every public callable has a case or an entry in :data:`EXEMPT` with a reason.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import signal
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import mmir_lib

class SyncClient:
    """A stand-in, for the cases of Dask-backed functions, for a dask.distributed.Client that runs every task at once, here."""

    def scatter(self, data, hash=True):
        return list(data)

    def map(self, func, items, **kwargs):
        return [func(item, **kwargs) for item in items]

    def submit(self, func, *args, **kwargs):
        return func(*args, **kwargs)

    def gather(self, futures):
        return list(futures)


#: Seconds a single call may take before it counts as a hang.
HANG_SECONDS = 20

#: Bad values by name; each is built fresh for every call (a function may mutate a list).
BAD_VALUES: dict[str, Callable[[], object]] = {
    "none": lambda: None,
    "str": lambda: "not a valid value",
    "bytes": lambda: b"x",
    "bool": lambda: True,
    "nan": lambda: float("nan"),
    "inf": lambda: float("inf"),
    "negative": lambda: -1,
    "negative_float": lambda: -0.5,
    "zero": lambda: 0,
    "huge_int": lambda: 2**64,
    "huge_float": lambda: 1e300,
    "empty_list": lambda: [],
    "ragged": lambda: [[1], [1, 2]],
    "dict": lambda: {"a": 1},
    "object": lambda: object(),
    "nan_array": lambda: np.array([np.nan, 1.0]),
    "matrix": lambda: np.ones((2, 3)),
}


@dataclass
class Case:
    """One valid call ``func(*args, **kwargs)``; every keyword argument is fuzzed.

    ``accepts`` maps an argument to the names of :data:`BAD_VALUES` that are in fact
    legal for it (None for an optional argument, 0 for a weight that may be 0, ...).
    ``skip`` maps an argument to a reason it is not fuzzed at all (say, a callback
    whose every input is legal).
    """

    func: Callable
    kwargs: dict
    args: tuple = ()
    accepts: dict[str, set[str]] = field(default_factory=dict)
    skip: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return getattr(self.func, "__qualname__", repr(self.func))


#: Public callables with no case, and why (e.g. a plain record type with no checks of its own).
EXEMPT: dict[str, str] = {}


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def outcome(case: Case, argument: str, bad_name: str) -> tuple[str, str]:
    """Call ``case`` with ``argument`` replaced by the bad value ``bad_name``;
    return (kind, detail) with kind one of clear/accepted/silent/unclear/hang."""
    kwargs = dict(case.kwargs)
    kwargs[argument] = BAD_VALUES[bad_name]()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    try:
        case.func(*case.args, **kwargs)
    except Hang:
        return "hang", f"no answer in {HANG_SECONDS} s"
    except (ValueError, TypeError) as error:
        message = str(error)
        if argument in message:
            return "clear", message
        return "unclear", f"{type(error).__name__}: {message}"
    except Exception as error:  # noqa: BLE001 -- every other exception is the finding
        return "unclear", f"{type(error).__name__}: {error}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if bad_name in case.accepts.get(argument, ()):
        return "accepted", ""
    return "silent", "returned normally"


def public_callables() -> dict[str, Callable]:
    """Every function or class that a module of mmir_lib defines and lists in ``__all__``,
    by its qualified name ``module.name``."""
    found = {}
    for info in pkgutil.walk_packages(mmir_lib.__path__, "mmir_lib."):
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = obj
    return found


def qualified_name(func: Callable) -> str:
    """``module.name`` of a function, class or bound method's class (as :func:`public_callables`)."""
    target = func
    if inspect.ismethod(func):  # a bound method: counts for its class
        target = type(func.__self__) if not inspect.isclass(func.__self__) else func.__self__
    return f"{target.__module__}.{target.__qualname__.split('.')[0]}"



# ---- Bad values derived from a valid one: shapes, dtypes, emptiness, NaN, masks ----------
# BAD_VALUES above are the same for every argument. An array or tensor argument can also
# be wrong in ways only its valid value defines: one axis too many or too few, the last
# axis one shorter, no rows, a NaN among its numbers, integers where floats are meant (or
# floats where integers or a bool mask are meant), a mask that hides everything. Each of
# these is built from the case's valid value; the sweep of Parts IV and V runs them all.

#: Names of the derived kinds of bad value (see :func:`derived_bad_values`).
DERIVED_KINDS = ("extra_axis", "missing_axis", "short_last_axis", "no_rows", "nan_entry", "other_dtype", "all_masked")


def derived_bad_values(valid: object) -> dict[str, Callable[[], object]]:
    """Bad variants of a valid numpy array or torch tensor, by kind (only the kinds that
    make sense for it: a NaN only among floats, ``all_masked`` only for a bool mask)."""
    import torch

    if isinstance(valid, torch.Tensor):
        v = valid.detach()
        full = lambda t, value: torch.full_like(t, value)  # noqa: E731
        nan_ok, is_bool = v.is_floating_point(), v.dtype == torch.bool
        other = (lambda: v.float() + 0.5) if not v.is_floating_point() else (lambda: v.round().long())
    elif isinstance(valid, np.ndarray) and valid.dtype.kind in "biuf":
        v = valid
        full = lambda t, value: np.full_like(t, value)  # noqa: E731
        nan_ok, is_bool = v.dtype.kind == "f", v.dtype.kind == "b"
        other = (lambda: v.astype(float) + 0.5) if v.dtype.kind != "f" else (lambda: np.round(v).astype(np.int64))
    else:
        return {}
    found: dict[str, Callable[[], object]] = {"extra_axis": lambda: v[None].clone() if hasattr(v, "clone") else v[None].copy(),
                                              "other_dtype": other}
    if v.ndim >= 1:
        found["missing_axis"] = lambda: v[0].clone() if hasattr(v, "clone") else v[0].copy()
        found["no_rows"] = lambda: v[:0]
        if v.shape[-1] > 1:
            found["short_last_axis"] = lambda: v[..., :-1]
    if nan_ok and v.ndim >= 1 and v.shape[0]:
        def with_nan():
            out = v.clone() if hasattr(v, "clone") else v.copy()
            out.reshape(-1)[0] = float("nan")
            return out
        found["nan_entry"] = with_nan
    if is_bool:
        found["all_masked"] = lambda: full(v, False)
    return found


def derived_outcome(case: Case, argument: str, kind: str) -> tuple[str, str]:
    """:func:`outcome` for a derived bad value of ``argument`` (a kind of :func:`derived_bad_values`)."""
    make = derived_bad_values(case.kwargs[argument])[kind]
    name = f"derived:{kind}"
    BAD_VALUES[name] = make  # outcome() builds the value from BAD_VALUES by name
    try:
        return outcome(case, argument, name)
    finally:
        del BAD_VALUES[name]
