"""IVF-PQ: with faiss's centroids and PQ codebooks, the same lists, codes, distances and
neighbours as IndexIVFPQ at nprobe 1, 8 and 32; with one list it is plain PQ on residuals."""

import faiss
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.ivfpq import IVFPQ, train_ivfpq
from mmir_lib.ann.pq import PQIndex, ProductQuantizer, train_product_quantizer
from tests.ann._glove import recall_at, subset

NLIST = 64


@pytest.fixture(scope="module", params=[5, 10])
def pair(request):
    m = request.param
    base, queries = subset(10_000, 200)
    quantizer = faiss.IndexFlatL2(50)
    reference = faiss.IndexIVFPQ(quantizer, 50, NLIST, m, 8)  # by_residual, faiss's default
    reference.cp.niter = reference.pq.cp.niter = 8  # fewer k-means rounds: the test needs codebooks, not good ones
    reference.pq.cp.min_points_per_centroid = 1  # (no warning for 5,000 training points)
    reference.train(base[:5_000])
    reference.add(base)
    codebooks = faiss.vector_to_array(reference.pq.centroids).reshape(m, 256, 50 // m)
    ours = IVFPQ(quantizer.reconstruct_n(0, NLIST), ProductQuantizer(codebooks)).add(base)
    return base, queries, reference, ours


def test_same_lists_and_codes_as_faiss(pair):
    """Measured: every list holds the same ids with the same codes (10,000 vectors, m 5 and 10)."""
    _, _, reference, ours = pair
    invlists, m = reference.invlists, ours.pq.m
    for j in range(NLIST):
        size = invlists.list_size(j)
        ids = faiss.rev_swig_ptr(invlists.get_ids(j), size).copy()
        codes = faiss.rev_swig_ptr(invlists.get_codes(j), size * m).copy().reshape(size, m)
        mine = slice(ours.offsets[j], ours.offsets[j + 1])
        assert np.array_equal(ours.ids[mine], np.sort(ids))
        assert np.array_equal(ours.codes[mine], codes[np.argsort(ids)])


@pytest.mark.parametrize("nprobe", [1, 8, 32])
def test_same_distances_and_neighbours_as_faiss(pair, nprobe):
    """Measured: identical ids on 200 queries × 10 at nprobe 1, 8, 32 (m 5 and 10), distances
    within 1e-6 relative (faiss adds the same terms in another order)."""
    _, queries, reference, ours = pair
    reference.nprobe = nprobe
    theirs_d, theirs_ids = reference.search(queries, 10)
    distances, ids = ours.search(queries, 10, nprobe)
    np.testing.assert_allclose(distances, theirs_d, rtol=1e-5, atol=1e-4)
    differ = ids != theirs_ids
    assert differ.mean() <= 1e-3  # allowed only at ties, exact or within float32 rounding:
    for row, col in zip(*np.nonzero(differ)):
        assert abs(distances[row, col] - theirs_d[row, col]) <= 1e-5 * max(distances[row, col], 1)


def test_recall_grows_with_nprobe(pair):
    base, queries, _, ours = pair
    truth = exact_search(base, queries, 10, "l2")[1]
    recalls = [recall_at(ours.search(queries, 10, nprobe)[1], truth) for nprobe in (1, 4, 16, NLIST)]
    assert recalls == sorted(recalls) and recalls[0] < recalls[-1] < 1


def test_distance_is_to_centroid_plus_reconstructed_residual(pair):
    """The asymmetric distance is ‖q − (c_l + r̂)‖² with the stored list and code."""
    _, queries, _, ours = pair
    lists = np.repeat(np.arange(NLIST), ours.list_sizes())
    distances, ids = ours.search(queries[:20], 10, NLIST)
    stored = {int(i): row for row, i in enumerate(ours.ids)}
    rows = np.array([[stored[int(i)] for i in found] for found in ids])
    x = ours.reconstruct(lists[rows.ravel()], ours.codes[rows.ravel()]).reshape(20, 10, 50)
    np.testing.assert_allclose(distances, ((queries[:20, None] - x) ** 2).sum(-1), rtol=1e-5, atol=1e-4)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2, 3, 6]), st.integers(1, 3), st.integers(1, 8))
def test_one_list_is_plain_pq_on_residuals(seed, m, nbits, k):
    """nlist = nprobe = 1: IVF-PQ is PQ of x − c searched with q − c (same codes; the same
    distances to float32 rounding; each id found is at its reported distance)."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=(20, 6)).astype(np.float32)
    queries = rng.normal(size=(5, 6)).astype(np.float32)
    centroid = rng.normal(size=(1, 6)).astype(np.float32)
    pq = ProductQuantizer(rng.normal(size=(m, 2**nbits, 6 // m)))
    ours = IVFPQ(centroid, pq).add(base)
    plain = PQIndex(pq).add(base - centroid)
    assert np.array_equal(ours.codes, plain.codes)
    distances, ids = ours.search(queries, k, nprobe=1)
    plain_d, _ = plain.search(queries - centroid, k)
    np.testing.assert_allclose(distances, plain_d, rtol=1e-5, atol=1e-5)
    every = pq.adc(pq.distance_tables(queries - centroid), plain.codes)  # (5, 20)
    np.testing.assert_allclose(np.take_along_axis(every, ids, 1), distances, rtol=1e-5, atol=1e-5)


def test_residuals_quantize_finer_than_vectors():
    """Same m and code bytes: PQ of residuals to 64 centroids reconstructs the vectors with a
    smaller error than PQ of the vectors themselves (one seed; the chapter shows seeds)."""
    base, _ = subset(4_000, 10)
    index = train_ivfpq(base, NLIST, 5, nbits=6, max_iter=8, seed=0)
    lists, codes = index.encode(base)
    ivfpq_error = ((index.reconstruct(lists, codes) - base) ** 2).sum(1).mean()
    pq = train_product_quantizer(base, 5, nbits=6, max_iter=8, seed=0)
    pq_error = ((pq.decode(pq.encode(base)) - base) ** 2).sum(1).mean()
    assert ivfpq_error < pq_error


def test_bad_input_is_named():
    """IVFPQ's own checks; those of search, shared with IVFFlat, are in test_ivf.py."""
    base, _ = subset(1_000, 10)
    index = IVFPQ(base[:8], ProductQuantizer(np.zeros((5, 4, 10))))
    with pytest.raises(TypeError, match="pq must be a ProductQuantizer"):
        IVFPQ(base[:8], np.zeros((5, 4, 10)))
    with pytest.raises(ValueError, match="pq must have the dimension of centroids, d = 50"):
        IVFPQ(base[:8], ProductQuantizer(np.zeros((2, 4, 3))))
    with pytest.raises(ValueError, match="vectors must hold finite"):
        index.add(np.full((1, 50), np.nan, dtype=np.float32))
    with pytest.raises(ValueError, match="m must divide the dimension d = 50"):
        train_ivfpq(base, 8, 3)
