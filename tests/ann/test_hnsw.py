"""HNSW: recall@10 near faiss's IndexHNSWFlat at the same M, efConstruction, efSearch;
the graph's invariants."""

import faiss
import numpy as np
import pytest

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.hnsw import HNSW
from tests.ann._glove import recall_at, subset

M, EF_CONSTRUCTION = 8, 40


SEEDS = 3


@pytest.fixture(scope="module")
def built():
    """Three builds of each library that differ only by chance: ours with seeds 0-2, faiss's
    (whose generators are fixed) on the vectors shuffled by the same seeds."""
    base, queries = subset(1_500, 500)
    truth = exact_search(base, queries, 10, "l2")[1]
    ours, theirs = [], []
    for seed in range(SEEDS):
        order = np.random.default_rng(seed).permutation(len(base))
        reference = faiss.IndexHNSWFlat(50, M)
        reference.hnsw.efConstruction = EF_CONSTRUCTION
        reference.add(base[order])
        theirs.append((reference, order))
        ours.append(HNSW(50, M, EF_CONSTRUCTION, seed=seed).add(base))
    return base, queries, truth, theirs, ours


@pytest.mark.parametrize("ef_search", [16, 32, 64])
def test_mean_recall_near_faiss(built, ef_search):
    """The mean recall@10 of three builds within 0.02 of faiss's (issue target). Measured
    (1,500 base vectors, 500 held-out queries): ours 0.913/0.970/0.993 against faiss's
    0.907/0.965/0.991 at efSearch 16/32/64; one build alone moves by up to 0.008 here,
    0.06 on chapter VI.2's 1,000 vectors. Inserting in the order given instead of the
    highest layers first (faiss's order, module notes) put ours 0.06-0.07 lower there."""
    _, queries, truth, theirs, ours = built
    mine = np.mean([recall_at(graph.search(queries, 10, ef_search)[1], truth) for graph in ours])
    reference = []
    for index, order in theirs:
        index.hnsw.efSearch = ef_search
        reference.append(recall_at(order[index.search(queries, 10)[1]], truth))
    assert abs(mine - np.mean(reference)) <= 0.02, (mine, reference)


def test_recall_grows_with_ef_search(built):
    _, queries, truth, _, graphs = built
    ours = graphs[0]
    recalls = [recall_at(ours.search(queries[:100], 10, ef)[1], truth[:100]) for ef in (10, 30, 90)]
    assert recalls == sorted(recalls) and recalls[-1] >= 0.97


def test_graph_invariants(built):
    base, _, _, _, graphs = built
    ours = graphs[0]
    assert ours.ntotal == len(base) and ours.levels[ours.entry] == ours.max_level == ours.levels.max()
    for level, links in enumerate(ours.links):
        for node, neighbours in enumerate(links):
            assert len(neighbours) <= ours._max_links(level) and node not in neighbours
            assert len(set(neighbours)) == len(neighbours)
            assert not neighbours or ours.levels[node] >= level
            assert all(ours.levels[n] >= level for n in neighbours)
    assert 0.05 < np.mean(ours.levels >= 1) < 0.2  # about 1/M of the vectors above layer 0


def test_small_graphs_find_themselves():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(30, 4)).astype(np.float32)
    index = HNSW(4, M=2, ef_construction=8).add(points[:1]).add(points[1:])
    distances, ids = index.search(points, 1, ef_search=30)
    assert np.array_equal(ids[:, 0], np.arange(30)) and np.all(distances == 0)


def test_bad_input_is_named():
    index = HNSW(3, M=4)
    with pytest.raises(ValueError, match="the index is empty"):
        index.search(np.zeros((1, 3)), 1)
    index.add(np.eye(3))
    with pytest.raises(ValueError, match="k must be at most"):
        index.search(np.zeros((1, 3)), 4)
    with pytest.raises(ValueError, match="queries must have d = 3"):
        index.search(np.zeros((1, 2)), 1)
    with pytest.raises(ValueError, match="M must"):
        HNSW(3, M=1)
