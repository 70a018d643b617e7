"""Document-partitioned shards (merged exactly with global statistics, differently with
local ones) on a real Dask cluster, and the costs of term vs document partitioning."""

import logging

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import Analyzer, InvertedIndex, bm25_search, top_k
from mmir_lib.ir.distributed import (
    build_shards,
    distributed_search,
    document_partition_costs,
    merge_results,
    partition_documents,
    search_shard,
    shard_statistics,
    term_node,
    term_partition_costs,
)
from mmir_lib.ir.query_processing import CollectionStatistics

# Shard 0 (documents 0-3) is all about cats; shard 1 (4-7) mentions a cat once.
CATS = ["cat cat cat", "cat a", "cat b", "cat c", "cat d e f", "g", "h", "i"]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        with distributed.Client(cluster) as client:
            yield client


@pytest.fixture(scope="module")
def cats():
    analyzer = Analyzer()
    tokens = [analyzer(t) for t in CATS]
    index = InvertedIndex.from_tokens(tokens, analyzer)
    return index, build_shards(tokens, partition_documents(len(CATS), 2), analyzer)


def test_partitions():
    parts = partition_documents(10, 3)
    assert [p.tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    rr = partition_documents(10, 3, method="round_robin")
    assert [p.tolist() for p in rr] == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]]
    rnd = partition_documents(10, 3, method="random", seed=1)
    assert sorted(np.concatenate(rnd).tolist()) == list(range(10))
    assert all(np.all(np.diff(p) > 0) for p in rnd) and [len(p) for p in rnd] == [4, 3, 3]
    assert [p.tolist() for p in rnd] == [p.tolist() for p in partition_documents(10, 3, method="random", seed=1)]


def test_shards_have_local_statistics(cats):
    index, shards = cats
    assert [s.doc_ids.tolist() for s in shards] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    local = [shard_statistics(s, ["cat"]) for s in shards]
    assert [(st.num_docs, st.total_length, dict(st.df)) for st in local] == [(4, 9, {"cat": 4}), (4, 7, {"cat": 1})]
    assert CollectionStatistics.combine(local) == CollectionStatistics.of(index, ["cat"])


def test_local_statistics_change_the_ranking(cats):
    index, shards = cats
    # Globally "cat" is in 5 of 8 documents and document 0 (tf 3, short) wins. Locally
    # shard 0 has n_t = N_s: idf ln(4/4) = 0, so its documents all score 0, and the
    # lone cat of shard 1 (idf ln 4) wins.
    assert bm25_search(index, "cat", k=1)[0].tolist() == [0]
    local = merge_results([search_shard(s, ["cat"], 1)[0] for s in shards], 1)
    assert local[0].tolist() == [4]
    stats = CollectionStatistics.combine([shard_statistics(s, ["cat"]) for s in shards])
    merged = merge_results([search_shard(s, ["cat"], 1, statistics=stats)[0] for s in shards], 1)
    assert merged[0].tolist() == [0]


def test_on_a_dask_cluster(client, cats):
    index, shards = cats
    queries = ["cat", "cat e", "g h i", "zebra"]
    answers = distributed_search(client, shards, queries, k=3, statistics="global")
    for query, (ids, scores) in zip(queries, answers):
        expected_ids, expected_scores = bm25_search(index, query, k=3)
        assert np.array_equal(ids, expected_ids) and np.array_equal(scores, expected_scores)
    local = distributed_search(client, shards, ["cat"], k=1, statistics="local", algorithm="wand")
    assert local[0][0].tolist() == [4]


def test_distributed_search_rejects_bad_arguments(client, cats):
    _, shards = cats
    with pytest.raises(ValueError, match="statistics must be"):
        distributed_search(client, shards, ["cat"], statistics="sometimes")
    with pytest.raises(TypeError, match="shards must be a non-empty list"):
        distributed_search(client, [], ["cat"])
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        distributed_search(None, shards, ["cat"])


@settings(max_examples=40, deadline=None)
@given(docs=st.lists(st.lists(st.sampled_from("abcde"), min_size=1, max_size=6), min_size=2, max_size=30),
       query=st.lists(st.sampled_from("abcdef"), min_size=1, max_size=4), k=st.integers(1, 8),
       n_shards=st.integers(1, 4), method=st.sampled_from(["contiguous", "round_robin", "random"]),
       algorithm=st.sampled_from(["taat", "daat", "maxscore", "wand"]))
def test_global_statistics_reproduce_the_single_index(docs, query, k, n_shards, method, algorithm):
    n_shards = min(n_shards, len(docs))
    shards = build_shards(docs, partition_documents(len(docs), n_shards, method=method, seed=0))
    stats = CollectionStatistics.combine([shard_statistics(s, [query]) for s in shards])
    merged = merge_results([search_shard(s, [query], k, statistics=stats, algorithm=algorithm)[0] for s in shards], k)
    expected = bm25_search(InvertedIndex.from_tokens(docs), query, k=k)
    assert merged[0].tolist() == expected[0].tolist()
    assert merged[1].tolist() == expected[1].tolist()  # bit for bit


@settings(max_examples=60)
@given(scores=st.lists(st.integers(0, 4), min_size=1, max_size=40), n_parts=st.integers(1, 5), k=st.integers(1, 10),
       seed=st.integers(0, 100))
def test_merge_equals_top_k_of_everything(scores, n_parts, k, seed):
    scores = np.array(scores, dtype=float)  # small integers: many ties
    owner = np.random.default_rng(seed).integers(0, n_parts, len(scores))
    rankings = []
    for s in range(n_parts):
        ids = np.flatnonzero(owner == s)
        if len(ids):
            local, best = top_k(scores[ids], k)
            rankings.append((ids[local], best))
    merged = merge_results(rankings, k)
    expected = top_k(scores, k)
    assert merged[0].tolist() == expected[0].tolist() and merged[1].tolist() == expected[1].tolist()


def test_partition_costs_hand_computed(cats):
    index, _ = cats
    queries = ["cat", "cat g", "zebra"]
    parts = partition_documents(len(CATS), 2)
    doc = document_partition_costs(index, queries, parts, k=2)
    assert doc.contacted.all() and doc.messages.tolist() == [4, 4, 4]
    # cat: 4 postings in shard 0, 1 in shard 1; g: 1 in shard 1
    assert doc.postings.tolist() == [[4, 1], [4, 2], [0, 0]]
    assert doc.shipped.tolist() == [[2, 1], [2, 2], [0, 0]]  # min(k, matching documents)
    assert doc.node_load.tolist() == [8, 3]

    # term partitioning over 3 nodes; CRC-32 places cat, g, i on node 1, d, e, h on 0, f on 2
    assert [term_node(t, 3) for t in ["cat", "g", "d", "e", "h", "f"]] == [1, 1, 0, 0, 0, 2]
    term = term_partition_costs(index, ["cat", "cat g", "cat d f h", "d e", "zebra"], 3)
    assert term.postings.tolist() == [[0, 5, 0], [0, 6, 0], [2, 5, 1], [2, 0, 0], [0, 0, 0]]
    # d and e are both in document 4: node 0 reads two postings but ships one partial score
    assert term.shipped.tolist() == [[0, 5, 0], [0, 6, 0], [2, 5, 1], [1, 0, 0], [0, 0, 0]]
    assert term.messages.tolist() == [2, 2, 6, 2, 0]  # "zebra": no node holds it
    assert term.node_load.tolist() == [4, 16, 1] and term.imbalance == pytest.approx(16 / 7)


def test_bad_partitions():
    with pytest.raises(ValueError, match="num_shards must be <= 3"):
        partition_documents(3, 4)
    with pytest.raises(ValueError, match="method must be one of"):
        partition_documents(3, 2, method="alphabetical")
    with pytest.raises(TypeError, match="num_shards"):
        partition_documents(3, 2.0)
    with pytest.raises(ValueError, match="exactly once"):
        build_shards([["a"], ["b"]], [np.array([0]), np.array([0])])
    with pytest.raises(ValueError, match="increasing"):
        build_shards([["a"], ["b"]], [np.array([1, 0])])
    with pytest.raises(ValueError, match=r"parts\[1\] must not be empty"):
        build_shards([["a"]], [np.array([0]), np.array([], dtype=int)])
    with pytest.raises(ValueError, match="disjoint"):
        merge_results([(np.array([1]), np.array([1.0])), (np.array([1]), np.array([2.0]))], 1)
    with pytest.raises(ValueError, match="algorithm must be one of"):
        search_shard(build_shards([["a"]], [np.array([0])])[0], [["a"]], algorithm="grep")


def test_merge_results_checks_its_rankings():
    # once an IndexError: a ranking with more documents than scores
    with pytest.raises(ValueError, match=r"rankings\[0\] has 2 doc_ids but 1 scores"):
        merge_results([([1, 2], [1.0])], 3)
    with pytest.raises(TypeError, match=r"rankings\[0\] must be a pair"):
        merge_results([np.array([1.0, 2.0, 3.0])], 1)
    with pytest.raises(TypeError, match="rankings must be a non-empty list"):
        merge_results([], 1)
    ids, scores = merge_results([(np.array([3]), np.array([1.0]))], np.int64(2))
    assert ids.tolist() == [3] and scores.tolist() == [1.0]
