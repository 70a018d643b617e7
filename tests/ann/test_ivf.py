"""IVF-Flat: with faiss's centroids, the same lists and the same neighbours as
IndexIVFFlat at every nprobe; recall grows with nprobe and is exact at nprobe = nlist."""

import faiss
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.ivf import IVFFlat, train_coarse_quantizer
from mmir_lib.ann.ivfpq import IVFPQ
from mmir_lib.ann.pq import ProductQuantizer
from tests.ann._glove import recall_at, subset

NLIST = 64


@pytest.fixture(scope="module")
def pair():
    base, queries = subset(10_000, 200)
    quantizer = faiss.IndexFlatL2(50)
    reference = faiss.IndexIVFFlat(quantizer, 50, NLIST)
    reference.train(base[:5_000])
    reference.add(base)
    ours = IVFFlat(quantizer.reconstruct_n(0, NLIST)).add(base)
    return base, queries, reference, ours


def test_same_inverted_lists_as_faiss(pair):
    _, _, reference, ours = pair
    invlists = reference.invlists
    sizes = np.array([invlists.list_size(j) for j in range(NLIST)])
    assert np.array_equal(ours.list_sizes(), sizes)
    for j in (0, 17, NLIST - 1):
        theirs = faiss.rev_swig_ptr(invlists.get_ids(j), int(sizes[j])).copy()
        assert np.array_equal(np.sort(ours.ids[ours.offsets[j]:ours.offsets[j + 1]]), np.sort(theirs))


@pytest.mark.parametrize("nprobe", [1, 2, 8, 32, NLIST])
def test_same_neighbours_as_faiss_at_every_nprobe(pair, nprobe):
    """Measured: identical ids on 200 queries × 10 at every nprobe, distances within 1e-5 relative."""
    _, queries, reference, ours = pair
    reference.nprobe = nprobe
    theirs_d, theirs_ids = reference.search(queries, 10)
    distances, ids = ours.search(queries, 10, nprobe)
    assert np.array_equal(ids, theirs_ids)
    np.testing.assert_allclose(distances, theirs_d, rtol=1e-5, atol=1e-4)


def test_recall_grows_with_nprobe_and_is_exact_at_nlist(pair):
    base, queries, _, ours = pair
    truth = exact_search(base, queries, 10, "l2")[1]
    recalls = [recall_at(ours.search(queries, 10, nprobe)[1], truth) for nprobe in (1, 4, 16, NLIST)]
    assert recalls == sorted(recalls) and recalls[0] < 0.8 and recalls[-1] == 1.0


def test_inner_product_with_a_trained_quantizer():
    base, queries = subset(3_000, 50)
    centroids = train_coarse_quantizer(base, 16, max_iter=10, seed=0)
    ours = IVFFlat(centroids, metric="ip").add(base[:1_000]).add(base[1_000:])  # added in two parts
    quantizer = faiss.IndexFlatIP(50)
    reference = faiss.IndexIVFFlat(quantizer, 50, 16, faiss.METRIC_INNER_PRODUCT)
    reference.train(centroids)  # k-means on 16 points into 16 cells: the centroids themselves ...
    quantizer.reset()
    quantizer.add(centroids)  # ... set exactly, to be sure
    reference.add(base)
    for nprobe in (1, 4, 16):
        reference.nprobe = nprobe
        assert np.array_equal(ours.search(queries, 5, nprobe)[1], reference.search(queries, 5)[1])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 6), st.integers(1, 8))
def test_a_short_list_pads_with_minus_one(seed, nlist, k):
    """A query may probe fewer than k vectors: the empty places are id −1 at +inf, as in
    faiss; every id returned is in a probed list."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(12, 3)).astype(np.float32)
    index = IVFFlat(base[:nlist]).add(base)
    queries = rng.normal(size=(4, 3)).astype(np.float32)
    distances, ids = index.search(queries, k, nprobe=1)
    assert np.array_equal(np.isinf(distances), ids < 0)
    lists = index.assign(base)
    for query, row in zip(queries, ids):
        probed = index.assign(query[None])[0]
        assert np.all(lists[row[row >= 0]] == probed)


@pytest.mark.parametrize("make", [IVFFlat, lambda centroids: IVFPQ(centroids, ProductQuantizer(np.zeros((5, 4, 10))))],
                         ids=["IVFFlat", "IVFPQ"])
def test_bad_input_is_named(make):
    """The search checks both inverted-file indexes share (ivf._check_search)."""
    base, _ = subset(1_000, 10)
    index = make(base[:8])
    with pytest.raises(ValueError, match="the index is empty"):
        index.search(base[:2], 1)
    index.add(base)
    with pytest.raises(ValueError, match="nprobe must be at most the number of lists, nlist = 8"):
        index.search(base[:2], 1, nprobe=9)
    with pytest.raises(ValueError, match="queries must have d = 50"):
        index.search(base[:2, :10], 1)
    with pytest.raises(ValueError, match="k must be at most"):
        index.search(base[:2], 1_001)
    with pytest.raises(ValueError, match="vectors must hold finite"):
        index.add(np.full((1, 50), np.inf, dtype=np.float32))
