"""Input checks shared by the vector indexes (private: each public function names its own
arguments through these)."""

from __future__ import annotations

import numpy as np

from ..validation import check_array, check_choice, check_count, describe

#: The two similarity measures, as faiss names them: "ip" (larger inner product is nearer)
#: and "l2" (smaller squared Euclidean distance is nearer).
METRICS = ("ip", "l2")


def as_vectors(name: str, value: object, dim: int | None = None, of: str = "the index's dimension") -> np.ndarray:
    """A non-empty (n, d) array of finite numbers, returned as C-contiguous float32
    (float32 input is not copied); ``dim``: the required number of columns d, ``of``
    where it comes from (for the message)."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        if value.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional (n, d), got shape {value.shape}")
        if value.size == 0:
            raise ValueError(f"{name} must not be empty")
        if not np.isfinite(value).all():
            raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
        array = np.ascontiguousarray(value)
    else:
        if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
            finite = np.isfinite(value).all()  # before float32 rounding turns 1e300 into inf
            if not finite:
                raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
        array = check_array(name, value, ndim=2, nonempty=True)
        if np.abs(array).max() > np.finfo(np.float32).max:
            raise ValueError(f"{name} must hold numbers that fit a float32 (|x| <= 3.4e38)")
        array = np.ascontiguousarray(array, dtype=np.float32)
    if dim is not None and array.shape[1] != dim:
        raise ValueError(f"{name} must have d = {dim} columns ({of}), got shape {array.shape}")
    return array


def check_k(k: object, n: int, what: str = "the number of vectors in the index") -> int:
    """k ≥ 1 and at most ``n``."""
    k = check_count("k", k, low=1)
    if k > n:
        raise ValueError(f"k must be at most {what}, {n}; got k={k}")
    return k


def check_metric(metric: object) -> str:
    """"ip" or "l2"."""
    if not isinstance(metric, str):
        raise TypeError(f"metric must be one of {METRICS}, got {describe(metric)}")
    return check_choice("metric", metric, METRICS)
