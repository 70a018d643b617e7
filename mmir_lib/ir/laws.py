"""Zipf's and Heaps' laws: two power laws of text, fitted by least squares in log-log space.

**Zipf's law.** Sort the terms by collection frequency, most frequent first, and call
a term's place in that list its rank r. Then, roughly,

    cf_r = C · r^(−α),        i.e.   log cf_r = log C − α · log r,

with α close to 1 for natural language: the second commonest word occurs about half
as often as the first, the tenth about a tenth as often.

**Heaps' law.** Read the collection token by token and count the distinct terms seen
so far. After n tokens the vocabulary has grown to about

    V(n) = k · n^b,           i.e.   log V = log k + b · log n,

with b typically between 0.4 and 0.6: the vocabulary keeps growing, ever more slowly,
and never stops (names, misspellings, rare words).

Both are straight lines in log-log coordinates, so both are fitted by ordinary least
squares on the logarithms (:func:`fit_loglog`). Neither holds over the whole range:
the head of Zipf's curve (the few commonest words) and its tail (the many words seen
once or twice) bend away from the line, and the first few hundred tokens of Heaps'
curve are steeper. The fitting range is therefore a parameter of both fits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_count, check_optional, describe

__all__ = ["LogLogFit", "fit_loglog", "ZipfFit", "rank_frequency", "fit_zipf",
           "HeapsFit", "vocabulary_growth", "fit_heaps"]


def _check_positive(name: str, values) -> np.ndarray:
    """A 1-D array of finite numbers > 0 (logarithms are taken), as float64."""
    array = check_array(name, values, kind="number", ndim=1).astype(np.float64)
    if np.any(array <= 0):
        raise ValueError(f"{name} must hold numbers > 0 (logarithms are taken), found {array.min():g}")
    return array


@dataclass(frozen=True)
class LogLogFit:
    """The least-squares line log y = intercept + slope · log x (natural logarithms),
    with its coefficient of determination r² and the number of points fitted."""

    slope: float
    intercept: float
    r_squared: float
    num_points: int


def fit_loglog(x, y) -> LogLogFit:
    """Least squares for log y = a + s · log x, in closed form.

    With u = log x and w = log y (means ū, w̄):

        s = Σ (u − ū)(w − w̄) / Σ (u − ū)²,   a = w̄ − s · ū,
        r² = 1 − Σ (w − a − s·u)² / Σ (w − w̄)².

    x and y are 1-D, of equal length, positive; at least two distinct x are needed.

    >>> fit = fit_loglog([1, 2, 4, 8], [24, 12, 6, 3])   # y = 24 / x
    >>> round(fit.slope, 6), round(float(np.exp(fit.intercept)), 6), fit.r_squared
    (-1.0, 24.0, 1.0)
    """
    x, y = _check_positive("x", x), _check_positive("y", y)
    if len(x) != len(y):
        raise ValueError(f"x and y must have the same length, got {len(x)} and {len(y)}")
    if len(np.unique(x)) < 2:
        raise ValueError("x must hold at least two different values: a line needs two points with different x")
    u, w = np.log(x), np.log(y)
    du = u - u.mean()
    sxx = float(du @ du)
    slope = float(du @ (w - w.mean())) / sxx
    intercept = float(w.mean() - slope * u.mean())
    total = float(((w - w.mean()) ** 2).sum())
    residual = float(((w - intercept - slope * u) ** 2).sum())
    r_squared = 1.0 - residual / total if total > 0 else 1.0
    return LogLogFit(slope, intercept, r_squared, len(x))


# ---- Zipf ---------------------------------------------------------------------------

@dataclass(frozen=True)
class ZipfFit:
    """cf_r ≈ c · r^(−alpha), fitted on ranks ``rank_min`` … ``rank_max``."""

    alpha: float
    c: float
    r_squared: float
    rank_min: int
    rank_max: int

    def __call__(self, rank):
        """The fitted frequency at ``rank`` (array-like, > 0)."""
        rank = check_array("rank", rank, kind="number")
        if np.any(rank <= 0):
            raise ValueError(f"rank must be > 0, found {rank.min():g}")
        return self.c * np.asarray(rank, dtype=np.float64) ** -self.alpha


def rank_frequency(frequencies) -> tuple[np.ndarray, np.ndarray]:
    """(ranks 1…V, frequencies sorted in decreasing order) for a Zipf plot.

    >>> rank_frequency([3, 10, 1])
    (array([1, 2, 3]), array([10,  3,  1]))
    """
    array = check_array("frequencies", frequencies, kind="number", ndim=1, nonempty=True)
    _check_positive("frequencies", array)
    ranked = np.sort(array)[::-1]
    return np.arange(1, len(ranked) + 1), ranked


def fit_zipf(frequencies, *, rank_min: int = 1, rank_max: int | None = None) -> ZipfFit:
    """Fit Zipf's law cf_r = c · r^(−α) to term frequencies (in any order).

    Parameters
    ----------
    frequencies : (V,) array of positive numbers
        One frequency per term, e.g. ``InvertedIndex.cf``.
    rank_min, rank_max : int
        Fit only ranks rank_min … rank_max (inclusive, 1-based); ``rank_max=None``
        means the last rank V.

    Returns
    -------
    ZipfFit with alpha = −slope and c = exp(intercept) of :func:`fit_loglog`.

    >>> ranks = np.arange(1, 101)
    >>> fit = fit_zipf(1000.0 * ranks ** -1.2)
    >>> round(fit.alpha, 6), round(fit.c, 3)
    (1.2, 1000.0)
    """
    ranks, ranked = rank_frequency(frequencies)
    rank_min = check_count("rank_min", rank_min, low=1)
    rank_max = check_optional(check_count, "rank_max", rank_max, low=2, high=len(ranked))
    rank_max = len(ranked) if rank_max is None else rank_max
    if rank_min >= rank_max:
        raise ValueError(f"rank_min must be < rank_max = {rank_max} (a fit needs two ranks), got {rank_min}")
    fit = fit_loglog(ranks[rank_min - 1 : rank_max], ranked[rank_min - 1 : rank_max])
    return ZipfFit(-fit.slope, float(np.exp(fit.intercept)), fit.r_squared, rank_min, rank_max)


# ---- Heaps --------------------------------------------------------------------------

@dataclass(frozen=True)
class HeapsFit:
    """V(n) ≈ k · n^b, fitted on the points with n_min <= n <= n_max."""

    k: float
    b: float
    r_squared: float
    n_min: int
    n_max: int

    def __call__(self, n):
        """The fitted vocabulary size after ``n`` tokens (array-like, >= 0)."""
        n = check_array("n", n, kind="number", low=0)
        return self.k * np.asarray(n, dtype=np.float64) ** self.b


def vocabulary_growth(tokens: Sequence, sizes=None) -> tuple[np.ndarray, np.ndarray]:
    """V(n): the number of distinct tokens among the first n, for each n in ``sizes``.

    A token adds to the vocabulary at its first occurrence only, so V(n) counts the
    first occurrences that fall before position n. Tokens may be any hashable
    values (strings, term ids). ``sizes`` defaults to 1 … T
    (T = number of tokens); otherwise integers in [1, T].

    Returns ``(sizes, V)``, both int64 arrays.

    >>> vocabulary_growth("to be or not to be".split())
    (array([1, 2, 3, 4, 5, 6]), array([1, 2, 3, 4, 4, 4]))
    """
    if isinstance(tokens, (str, bytes)) or not isinstance(tokens, Sequence | np.ndarray):
        raise TypeError(f"tokens must be a sequence of tokens (a list, or an array), got {describe(tokens)}")
    if isinstance(tokens, np.ndarray) and (tokens.ndim != 1 or tokens.dtype.kind not in "iuU"):
        raise ValueError(f"tokens must be a 1-D array of str or int, got {describe(tokens)}")
    if len(tokens) == 0:
        raise ValueError("tokens is empty: the vocabulary of no text does not grow")
    if sizes is not None:
        sizes = check_array("sizes", sizes, kind="int", ndim=1, low=1)
        if sizes.size and sizes.max() > len(tokens):
            raise ValueError(f"sizes must be <= the number of tokens, {len(tokens)}, found {sizes.max()}")

    first_seen: dict = {}
    try:
        for i, token in enumerate(tokens.tolist() if isinstance(tokens, np.ndarray) else tokens):
            first_seen.setdefault(token, i)
    except TypeError:  # an unhashable token
        raise TypeError(f"tokens must be hashable values (str, int), found {describe(token)}") from None
    first = np.fromiter(first_seen.values(), dtype=np.int64)  # increasing: dicts keep insertion order
    if sizes is None:
        sizes = np.arange(1, len(tokens) + 1, dtype=np.int64)
    return sizes, np.searchsorted(first, sizes, side="left").astype(np.int64)


def fit_heaps(n, vocabulary, *, n_min: int = 1, n_max: int | None = None) -> HeapsFit:
    """Fit Heaps' law V = k · n^b to points (n, V(n)) with n_min <= n <= n_max.

    ``n`` and ``vocabulary`` are equal-length positive arrays, such as the output of
    :func:`vocabulary_growth`; ``n_max=None`` means the largest n.

    >>> n = np.array([10, 100, 1000, 10000])
    >>> fit = fit_heaps(n, 30 * n ** 0.5)
    >>> round(fit.k, 6), round(fit.b, 6)
    (30.0, 0.5)
    """
    n_arr = _check_positive("n", n)
    v_arr = _check_positive("vocabulary", vocabulary)
    if len(n_arr) != len(v_arr):
        raise ValueError(f"n and vocabulary must have the same length, got {len(n_arr)} and {len(v_arr)}")
    if len(n_arr) == 0:
        raise ValueError("n must not be empty: a fit needs points")
    n_min = check_count("n_min", n_min, low=1)
    n_max = check_optional(check_count, "n_max", n_max, low=2)
    n_max = int(np.ceil(n_arr.max())) if n_max is None else n_max
    if n_min >= n_max:
        raise ValueError(f"n_min must be < n_max = {n_max}, got {n_min}")
    keep = (n_arr >= n_min) & (n_arr <= n_max)
    if np.count_nonzero(keep) < 2:
        raise ValueError(f"only {np.count_nonzero(keep)} point(s) have n in [{n_min}, {n_max}]; a fit needs 2")
    fit = fit_loglog(n_arr[keep], v_arr[keep])
    return HeapsFit(float(np.exp(fit.intercept)), fit.slope, fit.r_squared, n_min, n_max)
