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
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from ..validation import check_array, check_callable, check_count, check_number, check_str_list, describe

#: Most distinct queries or requests the functions below draw (each builds an array of them).
MAX_QUERIES = 10**7

__all__ = [
    "LRUCache",
    "query_vocabulary",
    "zipf_probabilities",
    "zipf_query_stream",
    "lru_hit_rate",
    "static_cache_hit_rate",
    "che_lru_hit_rate",
]


def _check_key(name: str, key: object) -> Hashable:
    """A value that can be a dict key (a query string, a tuple of terms, ...)."""
    try:
        hash(key)
    except TypeError:
        raise TypeError(f"{name} must be hashable (a str, a number, a tuple), got {describe(key)}") from None
    return key


def _check_probabilities(name: str, probabilities: object) -> np.ndarray:
    """Request probabilities: a 1-D array of numbers in [0, 1] that add up to 1 (to rounding)."""
    p = check_array(name, probabilities, kind="number", ndim=1, nonempty=True, low=0, high=1).astype(np.float64)
    if abs(p.sum() - 1) > 1e-6:
        raise ValueError(f"{name} must add up to 1 (a distribution over the queries), got {p.sum():g}")
    return p


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
        self.capacity = check_count("capacity", capacity)
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable, default: Any = None) -> Any:
        """The value stored for ``key`` (a hit, which makes it the most recent), or
        ``default`` (a miss)."""
        _check_key("key", key)
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
        _check_key("key", key)
        if self.capacity == 0:
            return
        self._entries[key] = value
        self._entries.move_to_end(key)
        if len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def lookup(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """The cached value for ``key``; on a miss, ``compute()`` it and store it."""
        _check_key("key", key)
        check_callable("compute", compute)
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
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Iterable):
        raise TypeError(f"documents must be a sequence of documents (lists of words), got {describe(documents)}")
    size = check_count("size", size, low=1)
    min_count = check_count("min_count", min_count, low=1)
    counts: Counter[str] = Counter()
    for d, words in enumerate(documents):
        words = check_str_list(f"documents[{d}]", words)
        counts.update(words)
        counts.update(f"{a} {b}" for a, b in zip(words, words[1:]))
    ranked = sorted((item for item in counts.items() if item[1] >= min_count), key=lambda kv: (-kv[1], kv[0]))
    return [query for query, _ in ranked[:size]]


def zipf_probabilities(n: int, s: float = 1.0) -> np.ndarray:
    """p_r = r^−s / Σ_{j=1..n} j^−s for popularity ranks r = 1..n: (n,) float64.

    >>> zipf_probabilities(3, 1.0).round(3).tolist()  # 1, 1/2, 1/3 normalised
    [0.545, 0.273, 0.182]
    """
    n = check_count("n", n, low=1, high=MAX_QUERIES)
    s = check_number("s", s, low=0)
    weights = np.arange(1, n + 1, dtype=np.float64) ** -s
    return weights / weights.sum()


def zipf_query_stream(queries: Sequence[str], length: int, *, s: float = 1.0, seed: int = 0) -> list[str]:
    """A seeded stream of ``length`` queries drawn independently from ``queries``,
    the r-th of which (counting from 1) has probability :func:`zipf_probabilities`.

    >>> zipf_query_stream(["love", "king", "ghost"], 8, seed=1)
    ['love', 'ghost', 'love', 'ghost', 'love', 'love', 'ghost', 'love']
    """
    queries = check_str_list("queries", queries, nonempty=True)
    length = check_count("length", length, high=MAX_QUERIES)
    s = check_number("s", s, low=0)
    seed = check_count("seed", seed)
    p = zipf_probabilities(len(queries), s)
    draws = np.random.default_rng(seed).choice(len(queries), size=length, p=p)
    return [queries[i] for i in draws]


def lru_hit_rate(stream: Iterable[Hashable], capacity: int) -> float:
    """Hit rate of an initially empty :class:`LRUCache` of ``capacity`` entries
    serving ``stream`` (the first request of each query is always a miss).

    >>> lru_hit_rate(["a", "b", "a", "c", "b", "a"], 2)
    0.16666666666666666
    """
    if isinstance(stream, (bytes, Mapping)) or not isinstance(stream, Iterable):
        raise TypeError(f"stream must be a sequence of queries, got {describe(stream)}")
    capacity = check_count("capacity", capacity)
    stream = list(stream)
    for i, query in enumerate(stream):
        _check_key(f"stream[{i}]", query)
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
    p = _check_probabilities("probabilities", probabilities)
    capacity = check_count("capacity", capacity)
    p = np.sort(p)[::-1]
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

    p = _check_probabilities("probabilities", probabilities)
    capacity = check_count("capacity", capacity)
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
