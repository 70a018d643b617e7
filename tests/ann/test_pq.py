"""Product quantization: with faiss's codebooks, the same codes, reconstructions and
asymmetric distances as faiss's ProductQuantizer and IndexPQ; ADC properties."""

import faiss
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mmir_lib.ann.exact import exact_search
from mmir_lib.ann.pq import PQIndex, ProductQuantizer, train_product_quantizer
from tests.ann._glove import recall_at, subset


@pytest.fixture(scope="module", params=[5, 10])
def pair(request):
    m = request.param
    base, queries = subset(6_000, 200)
    reference = faiss.IndexPQ(50, m, 8)
    reference.pq.cp.niter = 8  # fewer k-means rounds than its 25: the test needs codebooks, not good ones
    reference.pq.cp.min_points_per_centroid = 1  # (no warning for 3,000 training points)
    reference.train(base[:3_000])
    reference.add(base)
    codebooks = faiss.vector_to_array(reference.pq.centroids).reshape(m, 256, 50 // m)
    return base, queries, reference, PQIndex(ProductQuantizer(codebooks)).add(base)


def test_same_codes_as_faiss(pair):
    """Measured: every code equal (6,000 vectors × m), except where a sub-vector's two
    nearest centres are within float32 rounding (none on this subset)."""
    base, _, reference, ours = pair
    theirs = faiss.vector_to_array(reference.codes).reshape(len(base), -1)
    differ = ours.codes != theirs
    if differ.any():  # allowed only at near ties of the two nearest centres
        pq = ours.pq
        for i, j in zip(*np.nonzero(differ)):
            sub = base[i, j * pq.dsub:(j + 1) * pq.dsub]
            d = ((pq.codebooks[j][[ours.codes[i, j], theirs[i, j]]] - sub) ** 2).sum(axis=1)
            assert abs(d[0] - d[1]) <= 1e-5 * max(d.max(), 1)
    assert differ.mean() <= 1e-4
    np.testing.assert_allclose(ours.pq.decode(ours.codes), reference.sa_decode(ours.codes), rtol=0, atol=1e-6)


def test_same_distances_and_neighbours_as_faiss(pair):
    _, queries, reference, ours = pair
    theirs_d, theirs_ids = reference.search(queries, 10)
    distances, ids = ours.search(queries, 10)
    np.testing.assert_allclose(distances, theirs_d, rtol=1e-5, atol=1e-4)
    assert (ids == theirs_ids).mean() >= 0.99  # the rest: near ties of the summed tables


def test_adc_is_the_distance_to_the_reconstruction(pair):
    base, queries, _, ours = pair
    pq = ours.pq
    codes = ours.codes[:300]
    adc = pq.adc(pq.distance_tables(queries[:20]), codes)
    direct = ((queries[:20, None, :] - pq.decode(codes)[None]) ** 2).sum(axis=-1)
    np.testing.assert_allclose(adc, direct, rtol=1e-5, atol=1e-4)


def test_trained_codebooks_more_sub_vectors_better_recall():
    base, queries = subset(2_000, 100)
    truth = exact_search(base, queries, 10, "l2")[1]
    recalls = []
    for m in (2, 5, 25):
        pq = train_product_quantizer(base, m, nbits=5, max_iter=5, seed=0)
        assert pq.code_size == m
        recalls.append(recall_at(PQIndex(pq).add(base).search(queries, 10)[1], truth))
    assert recalls == sorted(recalls) and recalls[-1] > 0.5


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from([1, 2, 3, 6]), st.integers(1, 4))
def test_encode_picks_the_nearest_centre_and_decode_inverts_it(seed, m, nbits):
    rng = np.random.default_rng(seed)
    codebooks = rng.normal(size=(m, 2**nbits, 6 // m)).astype(np.float32)
    pq = ProductQuantizer(codebooks)
    x = rng.normal(size=(7, 6)).astype(np.float32)
    codes = pq.encode(x)
    assert np.array_equal(pq.encode(pq.decode(codes)), codes)  # a reconstruction is its own code
    x_hat = pq.decode(codes)
    for j in range(m):
        sub = slice(j * pq.dsub, (j + 1) * pq.dsub)
        all_d = ((x[:, None, sub] - codebooks[j][None]) ** 2).sum(-1)
        chosen = ((x[:, sub] - x_hat[:, sub]) ** 2).sum(-1)
        assert np.all(chosen <= all_d.min(axis=1) + 1e-5)


def test_bad_input_is_named():
    pq = ProductQuantizer(np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match="the index is empty"):
        PQIndex(pq).search(np.zeros((1, 6)), 1)
    with pytest.raises(TypeError, match="pq must be a ProductQuantizer"):
        PQIndex(np.zeros((2, 4, 3)))
    with pytest.raises(ValueError, match="vectors must have d = 6"):
        pq.encode(np.zeros((1, 5)))
    with pytest.raises(ValueError, match="codes must hold values <= 3"):
        pq.decode([[0, 4]])
    with pytest.raises(ValueError, match="m must divide the dimension d = 50"):
        train_product_quantizer(subset(1_000, 10)[0], 3)
    with pytest.raises(ValueError, match="k must be at most"):
        PQIndex(pq).add(np.zeros((2, 6))).search(np.zeros((1, 6)), 3)
