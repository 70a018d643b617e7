"""Argument checks shared by the whole library: one door, one kind of message.

Every public function of :mod:`mmir_lib` checks its arguments first, with these
functions, before any work is done. Each check

* takes the argument's **name** first, so that the message can say which argument is
  wrong: ``check_number("k1", k1, low=0)`` raises ``ValueError: k1 must be >= 0, got -1``;
* raises **TypeError** for a value of the wrong kind (a string where a number is
  expected, ``True`` where a count is expected) and **ValueError** for a value of the
  right kind outside its range (a negative count, NaN, an empty array);
* **returns the value normalised** (a Python ``int`` or ``float``, a numpy array of the
  requested dtype), so the caller goes on with a clean value;
* accepts numpy scalars wherever Python numbers are accepted (``np.int64(3)`` is a
  count, ``np.float32(0.5)`` a number) and rejects ``bool`` (and ``np.bool_``) where a
  number is meant: ``k1=True`` is a mistake, not 1.

A size that passes its own check can still ask for more memory than a machine has (a
Gaussian of σ = 10⁴ on a small image, a warp to 10⁶ × 10⁶ pixels, an embedding of
10⁹ words): :func:`check_memory` refuses an array over :data:`MEMORY_LIMIT` at the
door, naming the argument that makes it and the bytes it would take.

The chapters' code listings (:mod:`mmir_lib.listing`) leave out the calls to these
functions, so that a listing shows the algorithm, not its guard rails.

Examples
--------
>>> check_count("k", 3), check_count("k", np.int64(3))
(3, 3)
>>> check_number("b", np.float32(0.5), low=0, high=1)
0.5
>>> check_number("k1", "1.2")
Traceback (most recent call last):
...
TypeError: k1 must be a real number, got str '1.2'
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Integral, Real
from pathlib import Path

import numpy as np

__all__ = [
    "check_number", "check_count", "check_probability", "check_bool", "check_str", "check_path", "check_choice",
    "check_callable", "check_array", "check_same_length", "check_broadcast", "check_list", "check_str_list",
    "check_mapping", "check_distribution", "check_tensor",
    "check_instance", "check_optional", "check_memory", "describe",
]

#: Largest integer the integer codes and counters of the library work with (int64).
MAX_INT = 2**63 - 1

#: Largest array (in bytes) one call of the library may allocate: 2 GiB. A size that
#: passes the argument checks can still ask for more memory than a laptop has (a
#: Gaussian kernel of σ = 10⁹, a warp to 10⁶ × 10⁶ pixels, a table of 10¹² slots);
#: :func:`check_memory` refuses it at the door instead of letting the machine swap.
MEMORY_LIMIT = 2 * 1024**3


def describe(value: object) -> str:
    """A short, safe description of a value for an error message: its type and a
    truncated repr (``str 'abc'``, ``ndarray of shape (3, 2) float64``)."""
    if isinstance(value, np.ndarray):
        return f"ndarray of shape {value.shape} {value.dtype}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def _is_bool(value: object) -> bool:
    return isinstance(value, (bool, np.bool_))


def check_number(name: str, value: object, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float:
    """A finite real number, optionally within [low, high] (open ends with
    ``low_open``/``high_open``); returned as a Python float."""
    if _is_bool(value) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a real number, got {describe(value)}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value}")
    if low is not None and (value <= low if low_open else value < low):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low:g}, got {value:g}")
    if high is not None and (value >= high if high_open else value > high):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high:g}, got {value:g}")
    return value


def check_probability(name: str, value: object) -> float:
    """A number in [0, 1]."""
    return check_number(name, value, low=0.0, high=1.0)


def check_count(name: str, value: object, *, low: int = 0, high: int | None = None) -> int:
    """An integer (Python or numpy, not bool) in [low, high]; returned as a Python int.

    ``high`` defaults to :data:`MAX_INT`, so a count always fits an int64."""
    if _is_bool(value) or not isinstance(value, Integral):
        raise TypeError(f"{name} must be an int, got {describe(value)}")
    value = int(value)
    high = MAX_INT if high is None else high
    if value < low:
        raise ValueError(f"{name} must be >= {low}, got {value}")
    if value > high:
        raise ValueError(f"{name} must be <= {high}, got {value}")
    return value


def check_bool(name: str, value: object) -> bool:
    """True or False (a numpy bool too)."""
    if not _is_bool(value):
        raise TypeError(f"{name} must be True or False, got {describe(value)}")
    return bool(value)


def check_str(name: str, value: object, *, allow_empty: bool = False) -> str:
    """A str; not empty or blank unless ``allow_empty``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {describe(value)}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{name} must not be empty")
    return value


def check_path(name: str, value: object, *, exists: bool = False) -> Path:
    """A file path (str or os.PathLike, not empty) as a :class:`pathlib.Path`; with
    ``exists``, one that names an existing file."""
    if not isinstance(value, (str, os.PathLike)) or not str(value):
        raise TypeError(f"{name} must be a file path (str or pathlib.Path), got {describe(value)}")
    path = Path(value)
    if exists and not path.is_file():
        raise ValueError(f"{name} must name an existing file; {str(path)!r} does not exist")
    return path


def check_choice(name: str, value: object, choices: Iterable) -> object:
    """One of ``choices`` (compared with ==; the message lists them)."""
    choices = list(choices)
    try:
        if value in choices:
            return value
    except (TypeError, ValueError):  # an unhashable value in a dict's keys; an array's ambiguous ==
        pass
    listed = ", ".join(repr(c) for c in choices)
    raise ValueError(f"{name} must be one of {listed}; got {describe(value)}")


def check_callable(name: str, value: object) -> Callable:
    """Something that can be called."""
    if not callable(value):
        raise TypeError(f"{name} must be callable, got {describe(value)}")
    return value


def check_instance(name: str, value: object, kind: type | tuple[type, ...]) -> object:
    """An instance of ``kind`` (a class or a tuple of classes)."""
    if not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = " or ".join(k.__name__ for k in kinds)
        article = "an" if wanted[0] in "AEIOUaeiou" else "a"
        raise TypeError(f"{name} must be {article} {wanted}, got {describe(value)}")
    return value


#: numpy dtype kinds each ``kind`` of :func:`check_array` accepts.
_DTYPE_KINDS = {"float": "iubf", "int": "iu", "bool": "b", "number": "iuf"}


def check_array(name: str, value: object, *, ndim: int | tuple[int, ...] | None = None,
                kind: str = "float", shape: tuple | None = None, nonempty: bool = False,
                finite: bool = True, low: float | None = None, high: float | None = None) -> np.ndarray:
    """An array-like converted to a numpy array and checked.

    Parameters
    ----------
    kind : "float" (returned as float64; ints and bools are accepted and converted),
        "int" (integer dtype, returned as int64), "bool" or "number" (int or float,
        returned as given).
    ndim : required number of dimensions (or a tuple of allowed ones).
    shape : required shape; ``None`` in a position allows any length there.
    nonempty : reject an array with no elements.
    finite : reject NaN and ±inf (float arrays).
    low, high : every element must lie in [low, high].
    """
    if isinstance(value, (str, bytes, Mapping)) or value is None:
        raise TypeError(f"{name} must be an array or a sequence of numbers, got {describe(value)}")
    try:
        array = np.asarray(value)
    except (ValueError, TypeError) as error:  # ragged nested lists, odd objects
        raise TypeError(f"{name} must be a rectangular array of numbers ({error})") from None
    check_choice("kind", kind, _DTYPE_KINDS)
    if array.dtype.kind not in _DTYPE_KINDS[kind] and not (array.size == 0 and array.dtype.kind == "f"):
        # (np.asarray([]) is float64: an empty list is acceptable for any kind)
        raise TypeError(f"{name} must hold {kind} values, got dtype {array.dtype}")
    if kind == "float":
        array = array.astype(np.float64, copy=False)
    elif kind == "int":
        if array.dtype == np.uint64 and array.size and array.max() > MAX_INT:
            raise ValueError(f"{name} must hold values <= {MAX_INT} (int64), found {array.max()}")
        array = array.astype(np.int64, copy=False)
    if ndim is not None:
        allowed_ndim = (ndim,) if isinstance(ndim, int) else ndim
        if array.ndim not in allowed_ndim:
            wanted = " or ".join(map(str, allowed_ndim))
            raise ValueError(f"{name} must be {wanted}-dimensional, got shape {array.shape}")
    if shape is not None:
        if len(shape) != array.ndim or any(s is not None and s != a for s, a in zip(shape, array.shape)):
            wanted = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {wanted}, got {array.shape}")
    if nonempty and array.size == 0:
        raise ValueError(f"{name} must not be empty")
    if array.size and array.dtype.kind == "f" and finite and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
    if array.size and low is not None and array.min() < low:
        raise ValueError(f"{name} must hold values >= {low:g}, found {array.min():g}")
    if array.size and high is not None and array.max() > high:
        raise ValueError(f"{name} must hold values <= {high:g}, found {array.max():g}")
    return array


def check_distribution(name: str, value: object, *, ndim: int | tuple[int, ...] | None = None,
                       atol: float = 1e-6) -> np.ndarray:
    """Probability distributions along the last axis: finite, >= 0, each summing to 1
    within ``atol`` (float32 sums are off by about 1e-7); returned as float64.

    >>> check_distribution("p", [0.25, 0.75])
    array([0.25, 0.75])
    >>> check_distribution("p", [0.5, 0.6])
    Traceback (most recent call last):
    ...
    ValueError: p must sum to 1 along its last axis (a probability distribution), found a sum of 1.1
    """
    array = check_array(name, value, ndim=ndim, low=0, nonempty=True)
    if array.ndim == 0:
        raise ValueError(f"{name} must be a distribution (an array of probabilities), got a single number")
    sums = array.sum(axis=-1)
    worst = float(np.max(np.abs(sums - 1.0)))
    if worst > atol:
        found = sums.flat[int(np.argmax(np.abs(sums - 1.0)))]
        raise ValueError(f"{name} must sum to 1 along its last axis (a probability distribution), "
                         f"found a sum of {found:.6g}")
    return array


def check_tensor(name: str, value: object, *, kind: str = "float", ndim: int | None = None, min_ndim: int = 0,
                 length: int | None = None, nonempty: bool = True):
    """A torch tensor, returned as it is (never copied: it may carry gradients).

    ``kind`` "float": floating-point and finite; "int": integers (bool refused). ``ndim``
    axes exactly, or at least ``min_ndim``; ``length`` entries along the first axis when
    given; no axis of length 0 unless ``nonempty=False``. The finiteness test sums the
    tensor first (a NaN or ±inf carries through one sum) and looks entry by entry only
    when the sum is not finite, so it costs one pass in the common case.
    """
    import torch  # only code that already works with tensors calls this

    check_choice("kind", kind, ("float", "int"))
    if not isinstance(value, torch.Tensor):
        hint = " (torch.from_numpy converts a numpy array)" if isinstance(value, np.ndarray) else ""
        dims = f"{ndim}-D " if ndim is not None else ""
        raise TypeError(f"{name} must be a {dims}torch tensor{hint}, got {describe(value)}")
    if ndim is not None and value.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {tuple(value.shape)}")
    if value.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} axes, got shape {tuple(value.shape)}")
    if kind == "float" and not value.is_floating_point():
        raise TypeError(f"{name} must hold floating-point numbers, got dtype {value.dtype}")
    if kind == "int" and (value.is_floating_point() or value.is_complex() or value.dtype == torch.bool):
        raise TypeError(f"{name} must hold integers, got dtype {value.dtype}")
    if length is not None and (value.ndim == 0 or len(value) != length):
        raise ValueError(f"{name} must have {length} entries along its first axis, got shape {tuple(value.shape)}")
    if nonempty and value.numel() == 0:
        raise ValueError(f"{name} must not be empty, got shape {tuple(value.shape)}")
    if kind == "float" and not math.isfinite(float(value.detach().sum())) and not bool(torch.isfinite(value).all()):
        raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
    return value


def check_same_length(**named: Sequence) -> int:
    """All the named sequences have the same length; returns it.

    >>> check_same_length(scores=[1, 2], labels=[0, 1])
    2
    """
    lengths = {name: len(value) for name, value in named.items()}
    if len(set(lengths.values())) > 1:
        listed = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"{' and '.join(lengths)} must have the same length; {listed}")
    return next(iter(lengths.values()), 0)


def check_broadcast(**named: np.ndarray) -> tuple[int, ...]:
    """The named arrays (already checked, e.g. by :func:`check_array`) have shapes that
    broadcast together, as element-wise formulas need; returns the broadcast shape.

    >>> check_broadcast(tf=np.ones((2, 3)), dl=np.ones(3))
    (2, 3)
    >>> check_broadcast(tf=np.ones(3), dl=np.ones(2))
    Traceback (most recent call last):
    ...
    ValueError: tf and dl must have shapes that broadcast together; tf has (3,), dl has (2,)
    """
    shapes = {name: np.shape(value) for name, value in named.items()}
    try:
        return np.broadcast_shapes(*shapes.values())
    except ValueError:
        listed = ", ".join(f"{name} has {shape}" for name, shape in shapes.items())
        raise ValueError(f"{' and '.join(shapes)} must have shapes that broadcast together; {listed}") from None


def check_list(name: str, value: object, kind: type, *, nonempty: bool = False) -> list:
    """A list (or other iterable, not a str nor a mapping) of ``kind`` instances; returned
    as a list.

    >>> check_list("sizes", (1, 2), int)
    [1, 2]
    """
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of {kind.__name__}, got {describe(value)}")
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise TypeError(f"{name}[{i}] must be a {kind.__name__}, got {describe(item)}")
    if nonempty and not items:
        raise ValueError(f"{name} must not be empty")
    return items


def check_str_list(name: str, value: object, *, nonempty: bool = False) -> list[str]:
    """A list (or other iterable, not a str nor a mapping) of str; returned as a list."""
    return check_list(name, value, str, nonempty=nonempty)


def check_mapping(name: str, value: object) -> Mapping:
    """A dict-like mapping."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (dict), got {describe(value)}")
    return value


def check_memory(name: str, n_elements: object, itemsize: int = 8) -> int:
    """An array of ``n_elements`` items of ``itemsize`` bytes, made by the argument
    ``name``, fits :data:`MEMORY_LIMIT`; returns the number of elements (a Python int,
    computed exactly, so a product of huge sizes does not overflow).

    >>> check_memory("shape", 1000 * 1000)
    1000000
    >>> check_memory("sigma", 10**12)
    Traceback (most recent call last):
    ...
    ValueError: sigma asks for an array of 1000000000000 elements (8 TB), over the library's memory limit of 2.1 GB
    """
    n_elements = int(n_elements)
    n_bytes = n_elements * int(itemsize)
    if n_bytes > MEMORY_LIMIT:
        raise ValueError(f"{name} asks for an array of {n_elements} elements ({_bytes(n_bytes)}), "
                         f"over the library's memory limit of {_bytes(MEMORY_LIMIT)}")
    return n_elements


def _bytes(n: int) -> str:
    """A byte count in decimal units, 2 significant digits: 2.1 GB, 8 TB."""
    for unit, size in (("EB", 1e18), ("PB", 1e15), ("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.2g} {unit}" if n < 1e21 else f"{n:.2g} bytes"
    return f"{n} bytes"


def check_optional(check: Callable, name: str, value: object, **limits) -> object:
    """None (an optional argument left out), or whatever ``check(name, value, **limits)``
    returns: one statement for an argument that may be None.

    >>> check_optional(check_count, "k", None, low=1) is None
    True
    >>> check_optional(check_count, "k", np.int64(3), low=1)
    3
    """
    return None if value is None else check(name, value, **limits)
