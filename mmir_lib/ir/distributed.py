"""Distributed query processing: shards on a Dask cluster, and two ways to split an index.

**Document partitioning.** The collection is split into S shards, each with its own
inverted index over its own documents. A *manager* sends the query to every shard;
each answers with its local top k; the manager merges them into the global top k.
The merge is exact when every shard scores with the same statistics as a single
index would: the *global* N, avdl and n_t. A shard that uses its *local* statistics
(its own N_s, avdl_s, n_t^s) weighs terms differently from its neighbours, and the
merged ranking changes. Global statistics cost one more round of messages: the
manager first collects each shard's counts (N_s, Σ dl, n_t^s of the query terms),
sums them and broadcasts the totals with the query.

:func:`distributed_search` runs the shards as tasks on a Dask ``distributed``
cluster (Rocklin, 2015): pass any ``dask.distributed.Client``, whether connected to
a ``LocalCluster`` of worker processes on one machine or to a real cluster.

**Term partitioning.** Each node holds the complete postings lists of some terms. A
query goes only to the nodes holding its terms, but each of them must read and ship
back whole lists (the manager needs every document's partial score), and a node
holding a popular term is hit by every query that uses it.
:func:`document_partition_costs` and :func:`term_partition_costs` count, for a query
log, the nodes contacted, the postings each node reads and the entries it ships.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import (check_array, check_choice, check_count, check_instance, check_optional, check_str,
                          check_str_list, describe)
from .index import InvertedIndex
from .query_processing import ALGORITHMS, CollectionStatistics
from ..ranking import top_k
from .text import Analyzer

__all__ = [
    "Shard",
    "partition_documents",
    "build_shards",
    "shard_statistics",
    "search_shard",
    "merge_results",
    "distributed_search",
    "PartitionCosts",
    "document_partition_costs",
    "term_partition_costs",
    "term_node",
]

Ranking = tuple[np.ndarray, np.ndarray]  # (doc_ids (m,) int64, scores (m,) float64), best first

#: Most documents :func:`partition_documents` numbers (it builds an array of them all).
_MAX_DOCS = 10**8
#: Most nodes :func:`term_partition_costs` counts (it builds a matrix with a column per node).
_MAX_NODES = 10**4


def _check_queries(name: str, queries: object) -> list:
    """A list of queries, each a str or a list of str terms (checked when analysed)."""
    if isinstance(queries, (str, bytes)) or not isinstance(queries, Sequence):
        raise TypeError(f"{name} must be a list of queries (str or lists of terms), got {describe(queries)}")
    for i, query in enumerate(queries):
        if not isinstance(query, str) and (not isinstance(query, Sequence)
                                           or not all(isinstance(t, str) for t in query)):
            raise TypeError(f"{name}[{i}] must be a str or a list of str terms, got {describe(query)}")
    return list(queries)


def _check_parts(name: str, parts: object, num_docs: int) -> list[np.ndarray]:
    """Disjoint, non-empty, increasing arrays of document numbers that cover 0..num_docs − 1."""
    if isinstance(parts, (str, bytes)) or not isinstance(parts, Sequence) or len(parts) == 0:
        raise TypeError(f"{name} must be a non-empty list of arrays of document numbers, got {describe(parts)}")
    checked = [check_array(f"{name}[{s}]", p, kind="int", ndim=1, nonempty=True, low=0, high=max(num_docs - 1, 0))
               for s, p in enumerate(parts)]
    if any(np.any(np.diff(p) <= 0) for p in checked):
        raise ValueError(f"each of {name} must list its document numbers in increasing order")
    if not np.array_equal(np.sort(np.concatenate(checked)), np.arange(num_docs)):
        raise ValueError(f"{name} must hold every document number 0..{num_docs - 1} exactly once")
    return checked


def partition_documents(num_docs: int, num_shards: int, *, method: str = "contiguous", seed: int = 0) -> list[np.ndarray]:
    """Split document numbers 0..N−1 into ``num_shards`` parts of (nearly) equal size.

    Parameters
    ----------
    num_docs, num_shards : int
        N >= S >= 1.
    method : {"contiguous", "round_robin", "random"}
        ``contiguous``: consecutive ranges (for a collection stored play by play,
        each shard holds whole plays: its vocabulary is skewed). ``round_robin``:
        document d goes to shard d mod S. ``random``: a seeded random permutation,
        cut into S pieces.

    Returns
    -------
    list of S int64 arrays, each increasing; together they hold every document once.

    >>> [p.tolist() for p in partition_documents(7, 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in partition_documents(7, 3, method="round_robin")]
    [[0, 3, 6], [1, 4], [2, 5]]
    """
    num_docs = check_count("num_docs", num_docs, low=1, high=_MAX_DOCS)
    num_shards = check_count("num_shards", num_shards, low=1, high=num_docs)
    check_choice("method", method, ("contiguous", "round_robin", "random"))
    seed = check_count("seed", seed)
    ids = np.arange(num_docs, dtype=np.int64)
    if method == "contiguous":
        return np.array_split(ids, num_shards)
    if method == "round_robin":
        return [ids[s::num_shards] for s in range(num_shards)]
    shuffled = np.random.default_rng(seed).permutation(ids)
    return [np.sort(part) for part in np.array_split(shuffled, num_shards)]


@dataclass(frozen=True, eq=False)
class Shard:
    """One document partition: its own index over its own documents.

    ``doc_ids`` (n_s,) int64, increasing: the global number of each local document
    (local document i is global document ``doc_ids[i]``). Because the order is kept,
    the tie rule (smaller number first) means the same locally and globally.
    """

    doc_ids: np.ndarray
    index: InvertedIndex

    def __post_init__(self) -> None:
        check_instance("index", self.index, InvertedIndex)
        doc_ids = check_array("doc_ids", self.doc_ids, kind="int", ndim=1, low=0)
        if len(doc_ids) != self.index.num_docs:
            raise ValueError(f"doc_ids must give one global number per document of the index: "
                             f"{len(doc_ids)} for {self.index.num_docs}")
        if np.any(np.diff(doc_ids) <= 0):
            raise ValueError("doc_ids must be strictly increasing (local order = global order)")
        object.__setattr__(self, "doc_ids", doc_ids)

    def __repr__(self) -> str:
        return f"Shard({len(self.doc_ids):,} documents, {self.index!r})"


def build_shards(
    documents: Sequence[Sequence[str]], parts: Sequence[np.ndarray], analyzer: Analyzer | None = None
) -> list[Shard]:
    """Index each part of a collection of analysed documents separately.

    ``documents`` are term lists (as for :meth:`InvertedIndex.from_tokens`); ``parts``
    come from :func:`partition_documents` (or any disjoint cover of 0..N−1 by
    increasing, non-empty arrays); ``analyzer`` is kept by every shard's index so
    that shards can analyse query strings.
    """
    if isinstance(documents, (str, bytes)) or not isinstance(documents, Sequence) or len(documents) == 0:
        raise TypeError(f"documents must be a non-empty list of documents (lists of terms), got {describe(documents)}")
    for d, terms in enumerate(documents):
        check_str_list(f"documents[{d}]", terms)
    parts = _check_parts("parts", parts, len(documents))
    check_optional(check_instance, "analyzer", analyzer, kind=Analyzer)
    return [Shard(p, InvertedIndex.from_tokens([documents[d] for d in p], analyzer)) for p in parts]


def _all_terms(index: InvertedIndex, queries: Sequence[str | Sequence[str]]) -> list[str]:
    return sorted({t for q in queries for t in index.query_terms(q)})


def shard_statistics(shard: Shard, queries: Sequence[str | Sequence[str]]) -> CollectionStatistics:
    """The shard's N_s, Σ dl and n_t^s for every term of ``queries``: what it sends
    the manager so that global statistics can be formed (:meth:`CollectionStatistics.combine`)."""
    check_instance("shard", shard, Shard)
    queries = _check_queries("queries", queries)
    return CollectionStatistics.of(shard.index, _all_terms(shard.index, queries))


def search_shard(
    shard: Shard,
    queries: Sequence[str | Sequence[str]],
    k: int = 10,
    *,
    statistics: CollectionStatistics | None = None,
    algorithm: str = "taat",
    **params,
) -> list[Ranking]:
    """Answer a batch of queries on one shard: its top ``k`` for each, in global numbers.

    ``statistics=None`` scores with the shard's local statistics; pass the global
    ones to make the merged ranking equal the single-index ranking. ``algorithm`` is
    a key of :data:`~mmir_lib.ir.query_processing.ALGORITHMS`; ``params`` go to it
    (k1, b, variant).
    """
    check_instance("shard", shard, Shard)
    queries = _check_queries("queries", queries)
    k = check_count("k", k, low=1)
    check_optional(check_instance, "statistics", statistics, kind=CollectionStatistics)
    check_choice("algorithm", algorithm, ALGORITHMS)
    search = ALGORITHMS[algorithm]
    answers = []
    for query in queries:
        result = search(shard.index, query, k, statistics=statistics, **params)
        answers.append((shard.doc_ids[result.doc_ids], result.scores))
    return answers


def _check_rankings(name: str, rankings: object) -> list[Ranking]:
    """A non-empty list of (doc_ids, scores) pairs of equal lengths."""
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, Sequence) or len(rankings) == 0:
        raise TypeError(f"{name} must be a non-empty list of (doc_ids, scores) pairs, got {describe(rankings)}")
    checked = []
    for s, ranking in enumerate(rankings):
        if not isinstance(ranking, Sequence) or len(ranking) != 2:
            raise TypeError(f"{name}[{s}] must be a pair (doc_ids, scores), got {describe(ranking)}")
        ids = check_array(f"{name}[{s}]'s doc_ids", ranking[0], kind="int", ndim=1, low=0)
        scores = check_array(f"{name}[{s}]'s scores", ranking[1], ndim=1)
        if len(ids) != len(scores):
            raise ValueError(f"{name}[{s}] has {len(ids)} doc_ids but {len(scores)} scores")
        checked.append((ids, scores))
    return checked


def merge_results(rankings: Sequence[Ranking], k: int) -> Ranking:
    """The manager's merge: the top ``k`` of the union of the shards' rankings.

    Exact: a document of the global top k is in its own shard's top k, since any
    document that beats it in its shard beats it globally. Ties go to the smaller
    global document number, as everywhere in the book.

    >>> merge_results([(np.array([4, 0]), np.array([2.0, 1.0])), (np.array([1]), np.array([2.0]))], 2)
    (array([1, 4]), array([2., 2.]))
    """
    rankings = _check_rankings("rankings", rankings)
    k = check_count("k", k, low=1)
    doc_ids = np.concatenate([ids for ids, _ in rankings])
    scores = np.concatenate([s for _, s in rankings])
    if len(np.unique(doc_ids)) != len(doc_ids):
        raise ValueError("a document appears in more than one ranking: shards must be disjoint")
    by_doc = np.argsort(doc_ids)  # so that top_k's tie rule (smaller position) = smaller doc number
    positions, best = top_k(scores[by_doc], k)
    return doc_ids[by_doc][positions], best


def distributed_search(
    client,
    shards: Sequence[Shard],
    queries: Sequence[str | Sequence[str]],
    k: int = 10,
    *,
    statistics: str = "global",
    **params,
) -> list[Ranking]:
    """Run a batch of queries over document-partitioned shards on a Dask cluster.

    Each shard is sent to a worker (``client.scatter``); one task per shard answers
    the whole batch, and the manager (this process) merges the answers per query.
    With ``statistics="global"`` a first round of tasks collects every shard's
    counts (:func:`shard_statistics`), which the manager sums and sends along with
    the queries; with ``"local"`` each shard uses its own.

    Parameters
    ----------
    client : dask.distributed.Client
        Any client: a ``LocalCluster``'s or a real cluster's.
    shards : list of Shard
    queries : list of str or of term lists
    k : int
    statistics : {"global", "local"}
    params
        Passed to :func:`search_shard` (algorithm, k1, b, variant).

    Returns
    -------
    list of (doc_ids, scores), one per query, in global document numbers.
    """
    if not all(callable(getattr(client, method, None)) for method in ("scatter", "map", "submit", "gather")):
        raise TypeError(f"client must be a dask.distributed.Client (scatter, map, submit, gather), "
                        f"got {describe(client)}")
    if isinstance(shards, (str, bytes)) or not isinstance(shards, Sequence) or len(shards) == 0:
        raise TypeError(f"shards must be a non-empty list of Shard, got {describe(shards)}")
    for s, shard in enumerate(shards):
        check_instance(f"shards[{s}]", shard, Shard)
    queries = _check_queries("queries", queries)
    k = check_count("k", k, low=1)
    check_choice("statistics", statistics, ("global", "local"))
    check_choice("algorithm", params.get("algorithm", "taat"), ALGORITHMS)
    # hash=False: fresh keys on every call. With content-hashed keys, a second call
    # could re-scatter a shard while the first call's release of it is still in flight.
    on_workers = client.scatter(list(shards), hash=False)
    shared = None
    if statistics == "global":
        parts = client.gather(client.map(shard_statistics, on_workers, queries=queries))
        shared = CollectionStatistics.combine(parts)
    tasks = [client.submit(search_shard, s, queries, k, statistics=shared, **params) for s in on_workers]
    answers = client.gather(tasks)  # answers[shard][query]
    return [merge_results([a[q] for a in answers], k) for q in range(len(queries))]


# ---- term vs document partitioning: counting messages and load ----------------------


@dataclass(frozen=True)
class PartitionCosts:
    """Per query and node, what answering a query log costs.

    ``contacted`` (Q, S) bool: node s receives query q; ``postings`` (Q, S) int: the
    postings node s reads for q; ``shipped`` (Q, S) int: the (document, score)
    entries node s sends back to the manager for q.
    """

    scheme: str
    contacted: np.ndarray
    postings: np.ndarray
    shipped: np.ndarray

    @property
    def messages(self) -> np.ndarray:
        """(Q,) messages per query: a request to and a reply from each contacted node."""
        return 2 * self.contacted.sum(axis=1)

    @property
    def node_load(self) -> np.ndarray:
        """(S,) postings read by each node over the whole log."""
        return self.postings.sum(axis=0)

    @property
    def imbalance(self) -> float:
        """max / mean of :attr:`node_load`: 1 is perfect balance, S the worst."""
        load = self.node_load
        return float(load.max() / load.mean()) if load.sum() else 1.0


def _query_postings(index: InvertedIndex, query) -> list[np.ndarray]:
    """The postings lists (doc ids) of the distinct terms of ``query`` that are in the index."""
    lists = [index.postings_list(t)[0] for t in sorted(set(index.query_terms(query)))]
    return [ids for ids in lists if len(ids)]


def document_partition_costs(
    index: InvertedIndex, queries: Sequence[str | Sequence[str]], parts: Sequence[np.ndarray], k: int = 10
) -> PartitionCosts:
    """Costs of a query log when the documents are split into ``parts`` (one per node).

    Every query goes to every node (the manager cannot know which shards hold a
    term); node s reads the postings of the query terms that fall in its shard and
    ships back at most ``k`` results: min(k, its documents matching the query).
    Distinct query terms are read once.
    """
    check_instance("index", index, InvertedIndex)
    queries = _check_queries("queries", queries)
    parts = _check_parts("parts", parts, index.num_docs)
    k = check_count("k", k, low=1)
    node_of_doc = np.full(index.num_docs, -1, dtype=np.int64)
    for s, part in enumerate(parts):
        node_of_doc[part] = s
    n_nodes = len(parts)
    postings = np.zeros((len(queries), n_nodes), dtype=np.int64)
    shipped = np.zeros_like(postings)
    for q, query in enumerate(queries):
        lists = _query_postings(index, query)
        for ids in lists:
            postings[q] += np.bincount(node_of_doc[ids], minlength=n_nodes)
        if lists:
            matched = np.unique(np.concatenate(lists))
            shipped[q] = np.minimum(k, np.bincount(node_of_doc[matched], minlength=n_nodes))
    contacted = np.ones_like(postings, dtype=bool)
    return PartitionCosts("document", contacted, postings, shipped)


def term_node(term: str, num_nodes: int) -> int:
    """The node holding ``term``'s postings list: CRC-32 of its UTF-8 bytes mod S
    (a fixed hash, the same on every machine and every run).

    >>> term_node("love", 4), term_node("king", 4)
    (1, 3)
    """
    check_str("term", term, allow_empty=True)
    num_nodes = check_count("num_nodes", num_nodes, low=1)
    return zlib.crc32(term.encode("utf-8")) % num_nodes


def term_partition_costs(index: InvertedIndex, queries: Sequence[str | Sequence[str]], num_nodes: int) -> PartitionCosts:
    """Costs of a query log when each term's whole postings list lives on node
    :func:`term_node` (term).

    A query goes only to the nodes holding its terms; each reads those terms' full
    lists and, for an exact top k, ships one partial score per distinct document
    in them (it merges its own lists first). Distinct query terms are read once.
    """
    check_instance("index", index, InvertedIndex)
    queries = _check_queries("queries", queries)
    num_nodes = check_count("num_nodes", num_nodes, low=1, high=_MAX_NODES)
    postings = np.zeros((len(queries), num_nodes), dtype=np.int64)
    shipped = np.zeros_like(postings)
    for q, query in enumerate(queries):
        per_node: dict[int, list[np.ndarray]] = {}
        for term in sorted(set(index.query_terms(query))):
            ids = index.postings_list(term)[0]
            if len(ids):
                per_node.setdefault(term_node(term, num_nodes), []).append(ids)
        for node, lists in per_node.items():
            postings[q, node] = sum(len(ids) for ids in lists)
            shipped[q, node] = len(np.unique(np.concatenate(lists)))
    return PartitionCosts("term", postings > 0, postings, shipped)
