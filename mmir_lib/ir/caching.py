"""Query-result caching: an LRU cache, a Zipf query stream, and what theory predicts.

A search engine sees the same queries again and again, so it keeps the answers of
recent queries (the top-k document ids) in memory and serves a repeated query
without touching the index. How many queries such a cache answers, its **hit
rate**, depends on its capacity and on how skewed query popularity is. This module
holds:

* :class:`LRUCache`, least-recently-used replacement on an ``OrderedDict``;
* :func:`query_vocabulary`, the most frequent words and word pairs of a collection,
  used as the pool of distinct queries, and :func:`zipf_query_stream`, which draws a
  seeded stream from it with P(query of popularity rank r) ∝ 1 / r^s;
* :func:`lru_hit_rate` (simulation), :func:`static_cache_hit_rate` (a static cache
  holding the c most popular queries: hit rate = the sum of their probabilities)
  and :func:`che_lru_hit_rate` (Che's approximation of LRU's hit rate under
  independent requests).

What is synthetic: real engines learn popularity from their query logs; here the
popularity of a query is *assumed* to follow Zipf's law over the ranking of word
pairs and words by their frequency in the collection.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

__all__ = [
    "LRUCache",
    "query_vocabulary",
    "zipf_probabilities",
    "zipf_query_stream",
    "lru_hit_rate",
    "static_cache_hit_rate",
    "che_lru_hit_rate",
]


def _check_capacity(capacity: int) -> None:
    if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)):
        raise TypeError(f"capacity must be an int, got {type(capacity).__name__}")
    if capacity < 0:
        raise ValueError(f"capacity must be >= 0, got {capacity}")


class LRUCache:
    """A cache of at most ``capacity`` entries that evicts the least recently used.

    The entries live in an ``OrderedDict`` kept in order of last use: a hit moves
    the key to the end, a new key is appended, and when the cache is full the key
    at the front (used longest ago) is dropped. Every operation is O(1).
    ``hits`` and ``misses`` count the lookups made with :meth:`get`.

    Examples
    --------
    >>> cache = LRUCache(2)
    >>> for query in ["love", "king", "love", "ghost", "king"]:
    ...     _ = cache.lookup(query, lambda: f"results for {query}")
    >>> cache.hits, cache.misses, list(cache)  # "king" was evicted by "ghost", then came back
    (1, 4, ['ghost', 'king'])
    """

    def __init__(self, capacity: int):
        _check_capacity(capacity)
        self.capacity = int(capacity)
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value stored for ``key`` (a hit, which makes it the most recent), or
        ``default`` (a miss)."""
        try:
            value = self._entries[key]
        except KeyError:
            self.misses += 1
            return default
        self._entries.move_to_end(key)
        self.hits += 1
        return value

    def put(self, key: Hashable, value: Any) -> None:
        """Store ``value`` as the most recent entry, evicting the least recent if full."""
        if self.capacity == 0:
            return
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def lookup(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value for ``key``; on a miss, ``compute()`` it and store it."""
        missing = object()
        value = self.get(key, missing)
        if value is missing:
            value = compute()
            self.put(key, value)
        return value

    @property
    def hit_rate(self) -> float:
        """hits / lookups (0 before the first lookup)."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        """Keys from least to most recently used."""
        return iter(self._entries)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._entries


def query_vocabulary(documents: Iterable[Sequence[str]], size: int, *, min_count: int = 2) -> list[str]:
    """The ``size`` most frequent words and adjacent word pairs of a collection.

    Each document is a list of words (e.g. tokens with stop words removed, not
    stemmed, so that the queries read naturally). Single words and pairs of
    neighbouring words are counted together and ranked by frequency (ties: the
    string's alphabetical order); only those seen at least ``min_count`` times
    qualify. The result, most frequent first, is the pool of distinct queries.

    >>> query_vocabulary([["sweet", "love"], ["sweet", "love", "sweet"]], 3)
    ['sweet', 'love', 'sweet love']
    """
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
        raise ValueError(f"size must be a positive int, got {size!r}")
    counts: Counter[str] = Counter()
    for words in documents:
        if isinstance(words, str):
            raise TypeError("each document must be a sequence of words, not a str")
        counts.update(words)
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    ranked = sorted((item for item in counts.items() if item[1] >= min_count), key=lambda kv: (-kv[1], kv[0]))
    return [query for query, _ in ranked[:size]]


def zipf_probabilities(n: int, s: float = 1.0) -> np.ndarray:
    """p_r = r^−s / Σ_{j=1..n} j^−s for popularity ranks r = 1..n: (n,) float64.

    >>> zipf_probabilities(3, 1.0).round(3).tolist()  # 1, 1/2, 1/3 normalised
    [0.545, 0.273, 0.182]
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive int, got {n!r}")
    if not np.isfinite(s) or s < 0:
        raise ValueError(f"s must be a finite number >= 0, got {s}")
    weights = np.arange(1, n + 1, dtype=np.float64) ** -float(s)
    return weights / weights.sum()


def zipf_query_stream(queries: Sequence[str], length: int, *, s: float = 1.0, seed: int = 0) -> list[str]:
    """A seeded stream of ``length`` queries drawn independently from ``queries``,
    the r-th of which (counting from 1) has probability :func:`zipf_probabilities`.

    >>> zipf_query_stream(["love", "king", "ghost"], 8, seed=1)
    ['love', 'ghost', 'love', 'ghost', 'love', 'love', 'ghost', 'love']
    """
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
        raise ValueError(f"length must be an int >= 0, got {length!r}")
    p = zipf_probabilities(len(queries), s)
    draws = np.random.default_rng(seed).choice(len(queries), size=length, p=p)
    return [queries[i] for i in draws]


def lru_hit_rate(stream: Iterable[Hashable], capacity: int) -> float:
    """Hit rate of an initially empty :class:`LRUCache` of ``capacity`` entries
    serving ``stream`` (the first request of each query is always a miss).

    >>> lru_hit_rate(["a", "b", "a", "c", "b", "a"], 2)
    0.16666666666666666
    """
    cache = LRUCache(capacity)
    for query in stream:
        cache.lookup(query, lambda: None)
    return cache.hit_rate


def static_cache_hit_rate(probabilities: Sequence[float], capacity: int) -> float:
    """Long-run hit rate of a static cache that holds the ``capacity`` most popular
    queries: Σ of their probabilities (the best any cache of that size can do when
    requests are independent draws from ``probabilities``).

    >>> static_cache_hit_rate([0.5, 0.3, 0.2], 2)
    0.8
    """
    _check_capacity(capacity)
    p = np.sort(np.asarray(probabilities, dtype=np.float64))[::-1]
    return float(p[:capacity].sum())


def che_lru_hit_rate(probabilities: Sequence[float], capacity: int) -> float:
    """Che's approximation of LRU's long-run hit rate under independent requests.

    The characteristic time T is the root of Σ_i (1 − e^{−p_i T}) = C (in expectation
    C distinct queries are requested within T requests); a query is then in the
    cache with probability 1 − e^{−p_i T}, and the hit rate is Σ_i p_i (1 − e^{−p_i T})
    (Che, Tung and Wang, 2002). Exact at the ends: 0 for C = 0, 1 when C covers
    every query.

    >>> round(che_lru_hit_rate([0.5, 0.5], 1), 3)
    0.5
    """
    import scipy.optimize  # here, not at the top: only this function needs it

    _check_capacity(capacity)
    p = np.asarray(probabilities, dtype=np.float64)
    p = p[p > 0]
    if capacity == 0:
        return 0.0
    if capacity >= len(p):
        return 1.0
    in_cache = lambda t: -np.expm1(-p * t)  # noqa: E731  P(query i requested within t)
    upper = 1.0
    while in_cache(upper).sum() < capacity:
        upper *= 2
    t = scipy.optimize.brentq(lambda t: in_cache(t).sum() - capacity, 0.0, upper, xtol=1e-12)
    return float(p @ in_cache(t))
