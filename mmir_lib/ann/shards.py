"""Shards: one collection of vectors split across machines, searched in parallel, merged.

When the vectors outgrow one machine, split their rows into S disjoint **shards**, build
an index on each, send every query to every shard, and let a manager merge: each shard
answers with its own k best (its local ids mapped back to the collection's), and the
manager keeps the k best of the S · k answers.

**Equal to the unsharded index** for exact search, and for inverted-file indexes whose
shards share one coarse quantizer (the same centroids, so that a query probes the same
``nprobe`` lists in every shard, and the shards' probed lists together hold exactly the
vectors the unsharded index would scan): a vector of the global top k is in its own
shard's top k, since anything nearer to the query in its shard is nearer globally, and
ties go to the smaller id in both (:mod:`.topk`). Shards that each train their own
centroids, or graphs built per shard, give another (usually close) answer.

:func:`sharded_search` runs one task per shard on a Dask ``distributed`` cluster, as
Chapter I.2 does for inverted indexes (:mod:`mmir_lib.ir.distributed`): the shards are
scattered to the workers once, each task answers the whole batch of queries, and the
merge runs in this process. Pass any ``dask.distributed.Client``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_count, check_instance, describe
from ._checks import as_vectors, check_metric
from .topk import top_k

__all__ = ["VectorShard", "split_rows", "build_shards", "search_shard", "merge_shards", "sharded_search"]


@dataclass(frozen=True)
class VectorShard:
    """One shard: ``index``, any vector index with ``search(queries, k, **options)`` returning
    (distances or scores (q, k), local ids (q, k), −1 for an empty place), and ``ids``
    (n_s,) int64, the collection's id of each of the index's local ids 0 … n_s − 1."""

    ids: np.ndarray
    index: object

    def __post_init__(self):
        ids = check_array("ids", self.ids, kind="int", ndim=1, nonempty=True, low=0).astype(np.int64)
        if len(np.unique(ids)) != len(ids):
            raise ValueError("ids must not repeat: a shard holds each vector once")
        if not callable(getattr(self.index, "search", None)):
            raise TypeError(f"index must be a vector index with a search method, got {describe(self.index)}")
        object.__setattr__(self, "ids", ids)


def split_rows(n: int, num_shards: int) -> list[np.ndarray]:
    """The row numbers 0 … n − 1 cut into ``num_shards`` contiguous runs of sizes that differ
    by at most one (``np.array_split``), each (n_s,) int64.

    >>> [rows.tolist() for rows in split_rows(5, 2)]
    [[0, 1, 2], [3, 4]]
    """
    n = check_count("n", n, low=1)
    num_shards = check_count("num_shards", num_shards, low=1)
    if num_shards > n:
        raise ValueError(f"num_shards must be at most the number of rows, n = {n}; got {num_shards}")
    return [rows.astype(np.int64) for rows in np.array_split(np.arange(n), num_shards)]


def build_shards(vectors: object, num_shards: int, make_index: Callable[[np.ndarray], object]) -> list[VectorShard]:
    """Split ``vectors`` (n, d) into ``num_shards`` contiguous shards (:func:`split_rows`) and
    index each with ``make_index(shard_vectors)``, which returns an index holding them (for
    example ``lambda x: IVFFlat(centroids).add(x)``, the same centroids for every shard)."""
    vectors = as_vectors("vectors", vectors)
    if not callable(make_index):
        raise TypeError(f"make_index must be a function from an (n_s, d) array to an index, got {describe(make_index)}")
    shards = []
    for rows in split_rows(len(vectors), num_shards):
        index = make_index(vectors[rows])
        if not callable(getattr(index, "search", None)):
            raise TypeError(f"make_index must return a vector index with a search method, got {describe(index)}")
        shards.append(VectorShard(rows, index))
    return shards


def _check_shard(name: str, shard: object) -> VectorShard:
    return check_instance(name, shard, VectorShard)


def search_shard(shard: VectorShard, queries: object, k: int, **options) -> tuple[np.ndarray, np.ndarray]:
    """One shard's answer: its index's k best for each of ``queries`` (q, d), ids mapped to
    the collection's (−1 stays −1). ``k`` is capped at the shard's size; ``options`` go to
    the index's ``search`` (``nprobe``, ``ef_search``). Returns (values (q, k'), ids (q, k'))."""
    _check_shard("shard", shard)
    k = min(check_count("k", k, low=1), len(shard.ids))
    values, local = shard.index.search(queries, k, **options)
    return values, np.where(local >= 0, shard.ids[np.maximum(local, 0)], -1)


def merge_shards(answers: Sequence[tuple[np.ndarray, np.ndarray]], k: int, metric: str = "l2") -> tuple[np.ndarray, np.ndarray]:
    """The manager's merge: the k best of the shards' answers, query by query.

    ``answers``: one (values (q, k_s), ids (q, k_s)) per shard, values squared distances
    (``metric`` "l2", smaller is nearer) or scores ("ip", larger is nearer), ids the
    collection's, −1 for an empty place. Returns (values (q, k), ids (q, k)), best first,
    ties by the smaller id, padded with (inf or −inf, −1) when the shards hold fewer than k.

    >>> merge_shards([(np.array([[1.0, 4.0]]), np.array([[7, 2]])), (np.array([[1.0]]), np.array([[3]]))], 2)
    (array([[1., 1.]], dtype=float32), array([[3, 7]]))
    """
    metric = check_metric(metric)
    k = check_count("k", k, low=1)
    if isinstance(answers, (str, bytes)) or not isinstance(answers, Sequence) or len(answers) == 0:
        raise TypeError(f"answers must be a non-empty list of (values, ids) pairs, got {describe(answers)}")
    values, ids = [], []
    for s, answer in enumerate(answers):
        if not isinstance(answer, Sequence) or len(answer) != 2:
            raise TypeError(f"answers[{s}] must be a pair (values, ids), got {describe(answer)}")
        v, i = np.asarray(answer[0], dtype=np.float32), np.asarray(answer[1])
        if v.ndim != 2 or v.shape != i.shape or i.dtype.kind not in "iu":
            raise ValueError(f"answers[{s}] must be two (q, k) arrays, values and integer ids, of one shape; "
                             f"got {v.shape} and {i.shape} ({i.dtype})")
        if values and v.shape[0] != values[0].shape[0]:
            raise ValueError(f"answers[{s}] has {v.shape[0]} queries, answers[0] {values[0].shape[0]}")
        values.append(v)
        ids.append(i.astype(np.int64))
    values, ids = np.concatenate(values, axis=1), np.concatenate(ids, axis=1)
    scores = np.where(ids >= 0, -values if metric == "l2" else values, -np.inf)  # larger is better, empty last
    if k > scores.shape[1]:  # fewer answers than k: pad, as an index does
        scores = np.pad(scores, ((0, 0), (0, k - scores.shape[1])), constant_values=-np.inf)
        ids = np.pad(ids, ((0, 0), (0, k - ids.shape[1])), constant_values=-1)
    best, best_ids = top_k(scores, ids, k)
    return (-best if metric == "l2" else best).astype(np.float32), best_ids


def sharded_search(client, shards: Sequence[VectorShard], queries: object, k: int, metric: str = "l2",
                   **options) -> tuple[np.ndarray, np.ndarray]:
    """Search ``shards`` on a Dask cluster and merge: one task per shard answers every query
    (:func:`search_shard`), this process merges (:func:`merge_shards`).

    Parameters
    ----------
    client : dask.distributed.Client, any (a ``LocalCluster``'s or a real cluster's).
    shards : list of VectorShard, disjoint, together the collection.
    queries : (q, d); k : the number of neighbours; metric : "l2" or "ip", the indexes' own.
    options : passed to every shard's ``search`` (``nprobe``, ``ef_search``).

    Returns (values (q, k), ids (q, k)) in the collection's ids, best first.
    """
    if not all(callable(getattr(client, method, None)) for method in ("scatter", "submit", "gather")):
        raise TypeError(f"client must be a dask.distributed.Client (scatter, submit, gather), got {describe(client)}")
    if isinstance(shards, (str, bytes)) or not isinstance(shards, Sequence) or len(shards) == 0:
        raise TypeError(f"shards must be a non-empty list of VectorShard, got {describe(shards)}")
    for s, shard in enumerate(shards):
        _check_shard(f"shards[{s}]", shard)
    queries = as_vectors("queries", queries)
    k = check_count("k", k, low=1)
    metric = check_metric(metric)
    # hash=False: fresh keys on every call (a content-hashed key could be released by an
    # earlier call while this one still needs it), as mmir_lib.ir.distributed does.
    on_workers = client.scatter(list(shards), hash=False)
    tasks = [client.submit(search_shard, shard, queries, k, **options) for shard in on_workers]
    return merge_shards(client.gather(tasks), k, metric)
