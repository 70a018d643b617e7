"""Bad-input cases for mmir_lib.ann (vector search: Chapter II.7's k-d tree and LSH, Part VI.2)."""

import numpy as np

from mmir_lib.ann import datasets, distances, exact, hnsw, ivf, ivfpq, kdtree, lsh, pq, shards, topk
from tests.api_fuzz import Case, SyncClient

_RNG = np.random.default_rng(0)
BASE = _RNG.normal(size=(12, 4)).astype(np.float32)  # d = 4: BAD_VALUES' matrix is 2×3
QUERIES = _RNG.normal(size=(3, 4)).astype(np.float32)
IVF = ivf.IVFFlat(BASE[:3]).add(BASE)
PQ = pq.ProductQuantizer(_RNG.normal(size=(2, 4, 2)))
PQ_INDEX = pq.PQIndex(PQ).add(BASE)
IVFPQ = ivfpq.IVFPQ(BASE[:3], PQ).add(BASE)
GRAPH = hnsw.HNSW(4, M=2, ef_construction=4).add(BASE)
_SCALE = {"huge_int", "huge_float"}
SHARDS = shards.build_shards(BASE, 2, lambda x: ivf.IVFFlat(BASE[:3]).add(x))
# Chapter II.7's indexes take float64 descriptors
DESCRIPTORS_A, DESCRIPTORS_B = _RNG.normal(size=(6, 4)), _RNG.normal(size=(5, 4))
TREE = kdtree.KDTree(DESCRIPTORS_B, leaf_size=2)
LSH = lsh.LSHIndex(DESCRIPTORS_B, n_tables=2, n_hashes=3, width=2.0, seed=0)

CASES = [
    Case(topk.top_k, dict(scores=[[1.0, 2.0, 0.5]], ids=[[0, 1, 2]], k=2)),
    Case(exact.exact_search, dict(base=BASE, queries=QUERIES, k=2, metric="ip", block=5)),
    Case(datasets.held_out_split, dict(vectors=BASE, n_queries=3, n_base=5, seed=0),
         accepts={"vectors": {"matrix"}, "n_base": {"none"}, "seed": {"zero"}}),
    Case(ivf.train_coarse_quantizer, dict(vectors=BASE, nlist=3, max_iter=5, seed=0),
         accepts={"vectors": {"matrix"}, "seed": {"zero"}}),
    Case(ivf.IVFFlat, dict(centroids=BASE[:3], metric="l2"), accepts={"centroids": {"matrix"}}),
    Case(IVF.assign, dict(vectors=QUERIES)),
    Case(IVF.add, dict(vectors=QUERIES)),
    Case(IVF.search, dict(queries=QUERIES, k=2, nprobe=2)),
    Case(IVF.list_sizes, dict()),
    Case(pq.ProductQuantizer, dict(codebooks=np.ones((2, 4, 2)))),
    Case(pq.train_product_quantizer, dict(vectors=BASE, m=2, nbits=2, max_iter=3, seed=0),
         accepts={"seed": {"zero"}}),
    Case(PQ.encode, dict(vectors=QUERIES)),
    Case(PQ.decode, dict(codes=[[0, 3], [1, 2]])),
    Case(PQ.distance_tables, dict(queries=QUERIES)),
    Case(PQ.adc, dict(tables=np.ones((2, 2, 4)), codes=[[0, 3], [1, 2]])),
    Case(pq.PQIndex, dict(pq=PQ)),
    Case(PQ_INDEX.add, dict(vectors=QUERIES)),
    Case(PQ_INDEX.search, dict(queries=QUERIES, k=2)),
    Case(ivfpq.IVFPQ, dict(centroids=BASE[:3], pq=PQ), accepts={"centroids": {"matrix"}}),
    Case(ivfpq.train_ivfpq, dict(vectors=BASE, nlist=2, m=2, nbits=2, max_iter=3, seed=0),
         accepts={"seed": {"zero"}}),
    Case(IVFPQ.assign, dict(vectors=QUERIES)),
    Case(IVFPQ.encode, dict(vectors=QUERIES)),
    Case(IVFPQ.reconstruct, dict(lists=[0, 2], codes=[[0, 3], [1, 2]])),
    Case(IVFPQ.add, dict(vectors=QUERIES)),
    Case(IVFPQ.search, dict(queries=QUERIES, k=2, nprobe=2)),
    Case(IVFPQ.list_sizes, dict()),
    Case(hnsw.HNSW, dict(d=4, M=2, ef_construction=4, seed=0), accepts={"seed": {"zero"}}),
    Case(GRAPH.add, dict(vectors=QUERIES)),
    Case(GRAPH.search, dict(queries=QUERIES, k=2, ef_search=4)),
    Case(shards.split_rows, dict(n=12, num_shards=3)),
    Case(shards.build_shards, dict(vectors=BASE, num_shards=2, make_index=lambda x: ivf.IVFFlat(BASE[:3]).add(x))),
    Case(shards.search_shard, dict(shard=SHARDS[0], queries=QUERIES, k=2, nprobe=2)),
    Case(shards.merge_shards, dict(answers=[(np.ones((3, 2)), np.ones((3, 2), dtype=np.int64))], k=2, metric="l2")),
    Case(shards.sharded_search, dict(client=SyncClient(), shards=SHARDS, queries=QUERIES, k=2, metric="l2", nprobe=2)),
    Case(shards.VectorShard, dict(ids=np.arange(3), index=ivf.IVFFlat(BASE[:3]))),
    Case(distances.check_descriptors, dict(a=DESCRIPTORS_A, b=DESCRIPTORS_B, a_name="a", b_name="b"),
         skip={"a_name": "a label for messages", "b_name": "a label for messages"}),
    Case(distances.pairwise_distances, dict(a=DESCRIPTORS_A, b=DESCRIPTORS_B, squared=False),
         accepts={"squared": {"bool"}}),
    Case(kdtree.KDTree, dict(points=DESCRIPTORS_B, leaf_size=2), accepts={"points": {"matrix"}}),
    Case(TREE.query, dict(queries=DESCRIPTORS_A, k=2, max_leaves=None, return_counts=False),
         accepts={"max_leaves": {"none"}, "return_counts": {"bool"}}),
    Case(lsh.collision_probability, dict(distance=[0.0, 1.0, 2.0], width=4.0),
         accepts={"distance": {"zero", "huge_float", "matrix", "empty_list"}, "width": _SCALE}),
    Case(lsh.candidate_probability, dict(distance=[0.0, 1.0, 2.0], width=4.0, n_hashes=3, n_tables=5),
         accepts={"distance": {"zero", "huge_float", "matrix", "empty_list"}, "width": _SCALE}),
    Case(lsh.LSHIndex, dict(points=DESCRIPTORS_B, n_tables=2, n_hashes=3, width=2.0, seed=0),
         accepts={"points": {"matrix"}, "width": _SCALE, "seed": {"zero"}}),
    Case(LSH.hashes, dict(x=DESCRIPTORS_A)),
    Case(LSH.candidates, dict(query=DESCRIPTORS_A[0])),
    Case(LSH.query, dict(queries=DESCRIPTORS_A, k=2, return_counts=False), accepts={"return_counts": {"bool"}}),
]

EXEMPT = {"mmir_lib.ann.kdtree.SearchCounts": "a plain record of results that the library builds and returns; it has no checks of its own"}
