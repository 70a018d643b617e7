"""IVF-PQ: an inverted file whose lists hold product-quantized residuals (Jégou, Douze and
Schmid 2011, §IV), what faiss calls ``IndexIVFPQ`` (with ``by_residual``, its default).

**Encoding.** The coarse quantizer's centroids c_1 … c_nlist (:mod:`.ivf`) put each vector
x in the list of its nearest centroid, l(x) = argmin_j ‖x − c_j‖². What is stored there
is not x but its **residual** to that centroid, PQ-encoded (:mod:`.pq`):

    r(x) = x − c_{l(x)},      code(x) = PQ code of r(x)     (m bytes for 8-bit codebooks),

so that x ≈ c_{l(x)} + r̂(x). Residuals are smaller than the vectors and alike across
cells, so one set of PQ codebooks, learnt on the residuals of a training sample, quantizes
them more finely than it would the vectors themselves.

**Search (asymmetric distances per probed list).** A query q probes its ``nprobe`` nearest
lists. In list j every stored vector shares the centroid c_j, so

    ‖q − (c_j + r̂)‖² = ‖(q − c_j) − r̂‖² = Σ_s T_j[s, code_s],
    T_j[s, c] = ‖(q − c_j)ˢ − c_cˢ‖²     (one (m, K) table per query and probed list),

the plain PQ distance of the query's own residual q − c_j: one table of K · d
multiply-adds per (query, list) pair, then m look-ups and additions per code scanned.
The k smallest over all probed lists are the answer.

**The tables, cheaply.** Building T_j for each of nprobe lists would cost nprobe · K · d
per query, more than the scan of short lists. Expanding the square splits T_j into a part
that depends only on the list and a part that depends only on the query,

    T_j[s, c] = ‖(q − c_j)ˢ‖² + (‖c_cˢ‖² + 2 c_jˢ · c_cˢ) − 2 qˢ · c_cˢ,
    Σ_s T_j[s, code_s] = ‖q − c_j‖² + Σ_s (B_j[s, code_s] + A_q[s, code_s]),

B_j (nlist, m, K) computed once per index, A_q (m, K) once per query: per (query, list)
pair only an addition of two tables remains. This is what faiss does by default
(``use_precomputed_table``), so the distances are the same to float32 rounding, and
two distances within that rounding of each other may rank in either order.

With faiss's centroids (``index.quantizer``) and PQ codebooks (``index.pq.centroids``,
laid out (m, K, d/m)), the codes are the same as ``IndexIVFPQ``'s and so are the lists.
Squared Euclidean distance only (faiss's metric "l2").

Memory per vector: m code bytes + 8 bytes of its id (int64) in its list, as faiss.
"""

from __future__ import annotations

import numpy as np

from ..validation import check_array
from ._checks import as_vectors
from .exact import _search, squared_norms
from .ivf import _check_search, _regroup, _scan_lists, train_coarse_quantizer
from .pq import ProductQuantizer, _adc, train_product_quantizer

__all__ = ["IVFPQ", "train_ivfpq"]


class IVFPQ:
    """An inverted file of PQ-encoded residuals (module notes).

    Parameters
    ----------
    centroids : (nlist, d) the coarse quantizer's centroids.
    pq : a :class:`~mmir_lib.ann.pq.ProductQuantizer` of dimension d, for the residuals.
    """

    def __init__(self, centroids: object, pq: ProductQuantizer):
        self.centroids = as_vectors("centroids", centroids)
        self.nlist, self.d = self.centroids.shape
        if not isinstance(pq, ProductQuantizer):
            raise TypeError(f"pq must be a ProductQuantizer (train one with train_ivfpq), got {type(pq).__name__}")
        if pq.d != self.d:
            raise ValueError(f"pq must have the dimension of centroids, d = {self.d}; got a ProductQuantizer of d = {pq.d}")
        self.pq = pq
        self.codes = np.zeros((0, pq.m), dtype=pq.code_dtype)  # stored list by list
        self.ids = np.zeros(0, dtype=np.int64)
        self.offsets = np.zeros(self.nlist + 1, dtype=np.int64)
        sub = self.centroids.reshape(self.nlist, pq.m, pq.dsub)
        # B_j[s, c] = ‖c_cˢ‖² + 2 c_jˢ · c_cˢ, (nlist, m, K) float32, once per index (module notes)
        self.list_tables = (np.einsum("mks,mks->mk", pq.codebooks, pq.codebooks)[None]
                            + 2 * np.matmul(sub.transpose(1, 0, 2), pq.codebooks.transpose(0, 2, 1)).transpose(1, 0, 2))

    def __repr__(self) -> str:
        return f"IVFPQ(nlist={self.nlist}, d={self.d}, m={self.pq.m}, K={self.pq.ksub}, {self.ntotal:,} vectors)"

    @property
    def ntotal(self) -> int:
        """The number of vectors stored."""
        return len(self.ids)

    @property
    def bytes_per_vector(self) -> int:
        """Memory of one stored vector: its code (m bytes when K ≤ 256) and its int64 id."""
        return self.pq.code_size + 8

    def list_sizes(self) -> np.ndarray:
        """(nlist,) the number of vectors in each inverted list."""
        return np.diff(self.offsets)

    def assign(self, vectors: object) -> np.ndarray:
        """l(x): the nearest centroid of each of ``vectors`` (n, d), (n,) int64."""
        vectors = as_vectors("vectors", vectors, dim=self.d)
        return _search(self.centroids, vectors, 1, "l2")[1][:, 0]

    def encode(self, vectors: object) -> tuple[np.ndarray, np.ndarray]:
        """(l(x) (n,) int64, code(x) = PQ code of x − c_{l(x)} (n, m)) for ``vectors`` (n, d)."""
        vectors = as_vectors("vectors", vectors, dim=self.d)
        lists = _search(self.centroids, vectors, 1, "l2")[1][:, 0]
        return lists, self.pq.encode(vectors - self.centroids[lists])

    def reconstruct(self, lists: object, codes: object) -> np.ndarray:
        """c_l + r̂: the vectors (n, d) float32 that ``lists`` (n,) and ``codes`` (n, m) stand for."""
        lists = check_array("lists", lists, kind="int", ndim=1, low=0, high=self.nlist - 1)
        decoded = self.pq.decode(codes)
        if len(decoded) != len(lists):
            raise ValueError(f"codes must have one row per entry of lists, {len(lists)}; got {len(decoded)}")
        return self.centroids[lists] + decoded

    def add(self, vectors: object) -> "IVFPQ":
        """Encode ``vectors`` (n, d), ids ntotal … ntotal + n − 1, into their lists; returns self."""
        lists, codes = self.encode(vectors)
        self.ids, self.codes, self.offsets = _regroup(self.ids, self.codes, self.offsets, lists, codes)
        return self

    def search(self, queries: object, k: int, nprobe: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The k smallest asymmetric distances ‖q − (c_j + r̂)‖² over each query's ``nprobe``
        nearest lists, ``queries`` (q, d): (distances (q, k) float32, ids (q, k) int64),
        nearest first, ties by the smaller id; id −1 at +inf where the probed lists hold
        fewer than k vectors, as faiss."""
        queries, k, nprobe = _check_search(self, queries, k, nprobe)
        probes = _search(self.centroids, queries, nprobe, "l2")[1]  # (q, nprobe)
        codebooks = self.pq.codebooks  # (m, K, d/m)
        sub = queries.reshape(len(queries), self.pq.m, self.pq.dsub).transpose(1, 0, 2)  # (m, q, d/m)
        by_query = np.matmul(sub, codebooks.transpose(0, 2, 1)).transpose(1, 0, 2)  # qˢ · c_cˢ: (q, m, K)
        by_query *= -2  # A_q, once per query
        by_list = self.list_tables

        def score(j: int, rows: np.ndarray, first: int, last: int) -> np.ndarray:
            tables = by_query[rows] + by_list[j]  # T_j − ‖q − c_j‖² (module notes): (pairs, m, K)
            scores = _adc(tables, self.codes[first:last])
            scores += squared_norms(queries[rows] - self.centroids[j])[:, None]
            return np.negative(scores, out=scores)  # larger is nearer

        scores, ids = _scan_lists(probes, k, self.offsets, self.ids, score)
        return np.negative(scores), ids  # −(−inf) = +inf at the empty places


def train_ivfpq(vectors: object, nlist: int, m: int, nbits: int = 8, max_iter: int = 20,
                seed: int = 0) -> IVFPQ:
    """An empty :class:`IVFPQ` trained on ``vectors`` (n, d): nlist centroids by k-means
    (:func:`.ivf.train_coarse_quantizer`), then m codebooks of 2^nbits centres on the
    residuals x − c_{l(x)} (:func:`.pq.train_product_quantizer`, d divisible by m), both
    with ``max_iter`` rounds and ``seed``."""
    vectors = as_vectors("vectors", vectors)
    centroids = train_coarse_quantizer(vectors, nlist, max_iter, seed)
    lists = _search(centroids, vectors, 1, "l2")[1][:, 0]
    pq = train_product_quantizer(vectors - centroids[lists], m, nbits, max_iter, seed)
    return IVFPQ(centroids, pq)
