"""The LRU cache against functools.lru_cache, and hit rates against theory."""

import functools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir.caching import (
    LRUCache,
    che_lru_hit_rate,
    lru_hit_rate,
    query_vocabulary,
    static_cache_hit_rate,
    zipf_probabilities,
    zipf_query_stream,
)


def functools_hits(stream, capacity):
    """The reference: the standard library's LRU cache, counting its own hits."""
    cached = functools.lru_cache(maxsize=capacity)(lambda query: None)
    for query in stream:
        cached(query)
    return cached.cache_info().hits


def test_lru_evicts_the_least_recently_used():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # a is now the most recent: order b, a
    cache.put("c", 3)  # evicts b
    assert list(cache) == ["a", "c"]
    assert cache.get("b", "gone") == "gone"
    assert (cache.hits, cache.misses, len(cache)) == (1, 1, 2)
    cache.put("a", 10)  # updating an entry refreshes it: order c, a
    cache.put("d", 4)  # evicts c
    assert list(cache) == ["a", "d"] and cache.get("a") == 10


def test_lookup_computes_only_on_a_miss():
    calls = []
    cache = LRUCache(1)
    for query in ["x", "x", "y", "x"]:
        cache.lookup(query, lambda: calls.append(query) or query.upper())
    assert calls == ["x", "y", "x"] and cache.hit_rate == 0.25


def test_a_cached_none_is_a_hit():
    cache = LRUCache(1)
    assert cache.lookup("q", lambda: None) is None
    cache.lookup("q", lambda: pytest.fail("recomputed a cached None"))
    assert cache.hits == 1


def test_capacity_zero_never_hits():
    assert lru_hit_rate(["a"] * 10, 0) == 0.0
    assert functools_hits(["a"] * 10, 0) == 0


@settings(max_examples=100)
@given(stream=st.lists(st.integers(0, 12), max_size=200), capacity=st.integers(0, 15))
def test_hits_equal_functools_lru_cache(stream, capacity):
    cache = LRUCache(capacity)
    for query in stream:
        cache.lookup(query, lambda: None)
    assert cache.hits == functools_hits(stream, capacity)
    assert cache.hits + cache.misses == len(stream)
    assert len(cache) == min(capacity, len(set(stream)))


def test_zipf_probabilities():
    p = zipf_probabilities(4, 1.0)
    harmonic = 1 + 1 / 2 + 1 / 3 + 1 / 4
    assert p == pytest.approx([1 / harmonic, 1 / 2 / harmonic, 1 / 3 / harmonic, 1 / 4 / harmonic])
    assert zipf_probabilities(5, 0.0) == pytest.approx([0.2] * 5)


def test_stream_is_seeded_and_follows_the_probabilities():
    queries = [f"q{i}" for i in range(20)]
    a = zipf_query_stream(queries, 20_000, s=1.0, seed=3)
    assert a == zipf_query_stream(queries, 20_000, s=1.0, seed=3)
    assert a != zipf_query_stream(queries, 20_000, s=1.0, seed=4)
    counts = np.array([a.count(q) for q in queries]) / len(a)
    assert counts == pytest.approx(zipf_probabilities(20, 1.0), abs=0.01)


def test_static_cache_hand_computed():
    assert static_cache_hit_rate([0.1, 0.6, 0.3], 1) == pytest.approx(0.6)
    assert static_cache_hit_rate([0.1, 0.6, 0.3], 2) == pytest.approx(0.9)
    assert static_cache_hit_rate([0.1, 0.6, 0.3], 0) == 0.0


def test_che_approximation_of_two_equal_queries():
    # capacity 1, two queries of probability 1/2: LRU hits exactly when a query repeats
    assert che_lru_hit_rate([0.5, 0.5], 1) == pytest.approx(0.5)
    assert che_lru_hit_rate([0.5, 0.5], 2) == 1.0 and che_lru_hit_rate([0.5, 0.5], 0) == 0.0


def test_simulated_lru_agrees_with_theory_on_a_zipf_stream():
    n, capacity = 2_000, 100
    queries = [f"q{i}" for i in range(n)]
    stream = zipf_query_stream(queries, 60_000, s=1.0, seed=0)
    p = zipf_probabilities(n, 1.0)
    # skip the warm-up (the first 10,000 requests fill the cache) before measuring
    cache = LRUCache(capacity)
    for query in stream[:10_000]:
        cache.lookup(query, lambda: None)
    cache.hits = cache.misses = 0
    for query in stream[10_000:]:
        cache.lookup(query, lambda: None)
    assert cache.hit_rate == pytest.approx(che_lru_hit_rate(p, capacity), abs=0.01)
    assert cache.hit_rate < static_cache_hit_rate(p, capacity)  # LRU wastes room on one-off queries


def test_query_vocabulary_counts_words_and_pairs():
    docs = [["good", "night", "sweet", "prince"], ["good", "night"], ["good", "lord"]]
    assert query_vocabulary(docs, 3) == ["good", "good night", "night"]
    assert query_vocabulary(docs, 10, min_count=3) == ["good"]


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: LRUCache(-1), ValueError, "capacity"),
        (lambda: LRUCache(2.0), TypeError, "capacity"),
        (lambda: zipf_probabilities(0), ValueError, "n must"),
        (lambda: zipf_probabilities(3, -1.0), ValueError, "s must"),
        (lambda: zipf_query_stream(["a"], -1), ValueError, "length"),
        (lambda: query_vocabulary([["a"]], 0), ValueError, "size"),
        (lambda: query_vocabulary(["a b"], 2), TypeError, r"documents\[0\] must be a list of str"),
        (lambda: static_cache_hit_rate([1.0], -2), ValueError, "capacity"),
        # once returned 3.0, a "hit rate" above 1
        (lambda: static_cache_hit_rate([2.0, 3.0], 1), ValueError, "probabilities must hold values <= 1"),
        (lambda: che_lru_hit_rate([0.5, 0.2], 1), ValueError, "probabilities must add up to 1"),
        (lambda: zipf_query_stream(["a"], 3, seed=-1), ValueError, "seed must be >= 0"),
        (lambda: LRUCache(2).get(["a"]), TypeError, "key must be hashable"),
        (lambda: LRUCache(2).lookup("a", compute=None), TypeError, "compute must be callable"),
    ],
)
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
