"""Shards: the merged answer of a split collection equals the unsharded index's answer, for
exact search and for IVF-Flat shards that share their centroids, in this process and on a
Dask cluster; the merge keeps the k best with ties to the smaller id."""

import logging

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.ivf import IVFFlat
from mmir_lib.ann.shards import VectorShard, build_shards, merge_shards, search_shard, sharded_search, split_rows
from tests.ann._glove import subset


def local_search(shards, queries, k, metric="l2", **options):
    return merge_shards([search_shard(shard, queries, k, **options) for shard in shards], k, metric)


@pytest.fixture(scope="module")
def glove():
    base, queries = subset(3_000, 100)
    centroids = base[np.random.default_rng(0).permutation(len(base))[:32]]
    return base, queries, centroids


@pytest.mark.parametrize("num_shards", [1, 3, 7])
@pytest.mark.parametrize("nprobe", [1, 4, 32])
def test_ivf_shards_with_shared_centroids_equal_the_unsharded_index(glove, num_shards, nprobe):
    base, queries, centroids = glove
    whole = IVFFlat(centroids).add(base).search(queries, 10, nprobe)
    shards = build_shards(base, num_shards, lambda x: IVFFlat(centroids).add(x))
    merged = local_search(shards, queries, 10, nprobe=nprobe)
    assert np.array_equal(merged[1], whole[1])
    np.testing.assert_allclose(merged[0], whole[0], rtol=1e-5, atol=1e-5)


def test_one_list_per_shard_is_exact_search(glove):
    """An IVF index with one list scans everything: its shards' merge is exact search."""
    base, queries, _ = glove
    shards = build_shards(base, 4, lambda x: IVFFlat(x[:1]).add(x))
    assert np.array_equal(local_search(shards, queries, 10)[1], exact_search(base, queries, 10, "l2")[1])


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 30), num_shards=st.integers(1, 30), k=st.integers(1, 12), seed=st.integers(0, 10**6))
def test_merging_shards_of_exact_answers_is_exact_search(n, num_shards, k, seed):
    """Any split, any k (more than a shard holds: padded), ties included (values rounded)."""
    num_shards = min(num_shards, n)
    rng = np.random.default_rng(seed)
    base = np.round(rng.normal(size=(n, 3)), 1).astype(np.float32)   # coarse values: many exact ties
    queries = np.round(rng.normal(size=(4, 3)), 1).astype(np.float32)
    answers = []
    for rows in split_rows(n, num_shards):
        values, local = exact_search(base[rows], queries, min(k, len(rows)), "l2")
        answers.append((values, rows[local]))
    values, ids = merge_shards(answers, k)
    expected_values, expected_ids = exact_search(base, queries, min(k, n), "l2")
    assert np.array_equal(ids[:, :min(k, n)], expected_ids)
    np.testing.assert_allclose(values[:, :min(k, n)], expected_values, rtol=1e-6, atol=1e-6)
    assert np.all(ids[:, n:] == -1) and np.all(np.isinf(values[:, n:]))


def test_inner_product_keeps_the_largest():
    answers = [(np.array([[0.5, 0.1]]), np.array([[4, 9]])), (np.array([[0.9]]), np.array([[2]]))]
    values, ids = merge_shards(answers, 2, "ip")
    assert ids.tolist() == [[2, 4]] and np.allclose(values, [[0.9, 0.5]])


def test_split_rows_covers_every_row_once():
    parts = split_rows(10, 3)
    assert [len(p) for p in parts] == [4, 3, 3] and np.array_equal(np.concatenate(parts), np.arange(10))


def test_on_a_dask_cluster_equal_to_the_local_merge(glove):
    distributed = pytest.importorskip("distributed")
    base, queries, centroids = glove
    shards = build_shards(base, 3, lambda x: IVFFlat(centroids).add(x))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        on_cluster = sharded_search(client, shards, queries, 10, nprobe=4)
    local = local_search(shards, queries, 10, nprobe=4)
    assert np.array_equal(on_cluster[1], local[1]) and np.array_equal(on_cluster[0], local[0])


def test_bad_input_is_named(glove):
    base, queries, centroids = glove
    with pytest.raises(ValueError, match="num_shards must be at most"):
        split_rows(3, 4)
    with pytest.raises(TypeError, match="make_index must"):
        build_shards(base, 2, "IVFFlat")
    with pytest.raises(TypeError, match="make_index must return a vector index"):
        build_shards(base, 2, lambda x: x)
    with pytest.raises(TypeError, match="shard must be a VectorShard"):
        search_shard((np.arange(3), None), queries, 2)
    with pytest.raises(ValueError, match=r"answers\[1\] has 2 queries"):
        merge_shards([(np.zeros((1, 2)), np.zeros((1, 2), int)), (np.zeros((2, 2)), np.zeros((2, 2), int))], 2)
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        sharded_search(object(), [VectorShard(np.arange(3), IVFFlat(centroids))], queries, 2)


def test_a_shard_checks_its_ids_and_index(glove):
    _, _, centroids = glove
    with pytest.raises(ValueError, match="ids must not repeat"):
        VectorShard(np.array([0, 1, 1]), IVFFlat(centroids))
    with pytest.raises(TypeError, match="index must be a vector index"):
        VectorShard(np.arange(3), "an index")
