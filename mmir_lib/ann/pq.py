"""Product quantization (Jégou, Douze and Schmid 2011): vectors as short codes, distances
from tables.

**Codebooks.** Cut each d-dimensional vector into m sub-vectors of d/m dimensions,

    x = (x¹, x², …, xᵐ),   xʲ ∈ ℝ^(d/m),

and learn for each position j a codebook of K = 2^nbits centres c_1ʲ … c_Kʲ by k-means on
the training vectors' j-th sub-vectors (:mod:`mmir_lib.kmeans`). The seed's vector
quantization with one codebook of K^m centres would be unlearnable for m · nbits = 80
bits; the product of m small codebooks has K^m cells for m · K centres.

**Codes.** x is stored as the m numbers of its nearest centres,

    code(x)_j = argmin_c ‖xʲ − c_cʲ‖²,

m bytes for nbits = 8 (a 50-d float32 vector is 200 bytes; m = 10 codes take 10), and
stands for its reconstruction x̂ = (c¹_{code_1}, …, cᵐ_{code_m}).

**Asymmetric distance (ADC).** The query is not quantized: for each query q, a table of
its sub-vectors' distances to every centre,

    T[j, c] = ‖qʲ − c_cʲ‖²        (m × K numbers, m · K · d/m = K · d multiply-adds),

gives the distance to every reconstruction by m look-ups and additions,

    ‖q − x̂‖² = Σ_j T[j, code(x)_j],

so scanning n codes costs n · m additions instead of n · d multiply-adds on vectors that
would not fit in memory. The ranking is that of the reconstructions, an approximation:
re-ranking the best few by their full vectors (when they are kept) recovers the exact
order among them.

With faiss's codebooks (``faiss.vector_to_array(pq.centroids)``, laid out (m, K, d/m) as
here), :meth:`ProductQuantizer.encode` gives the same codes as ``pq.compute_codes`` and
:class:`PQIndex` the same distances as ``IndexPQ`` (float32 rounding).
"""

from __future__ import annotations

import numpy as np

from ..kmeans import kmeans
from ..validation import check_array, check_count
from ._checks import as_vectors, check_k
from .exact import _search
from .topk import _update

__all__ = ["ProductQuantizer", "train_product_quantizer", "PQIndex"]

#: Codes scanned per block of a search (a (queries, BLOCK) float32 accumulator).
BLOCK = 32_768
#: Codes per look-up pass inside :func:`_adc` (measured fastest of 1,024 to 65,536).
CHUNK = 2_048


class ProductQuantizer:
    """m codebooks of K centres over sub-vectors of d/m dimensions (module notes).

    Parameters
    ----------
    codebooks : (m, K, d/m), centre c of sub-space j at ``codebooks[j, c]``; K ≤ 65,536.
    """

    def __init__(self, codebooks: object):
        codebooks = check_array("codebooks", codebooks, ndim=3, nonempty=True)
        self.codebooks = np.ascontiguousarray(codebooks, dtype=np.float32)
        self.m, self.ksub, self.dsub = self.codebooks.shape
        if self.ksub > 2**16:
            raise ValueError(f"codebooks must hold at most 65,536 centres per sub-space, got {self.ksub}")
        self.d = self.m * self.dsub
        self.code_dtype = np.uint8 if self.ksub <= 256 else np.uint16

    def __repr__(self) -> str:
        return f"ProductQuantizer(m={self.m}, K={self.ksub}, d={self.d}: {self.code_size} bytes a vector)"

    @property
    def code_size(self) -> int:
        """Bytes of one code (m bytes when K ≤ 256)."""
        return self.m * np.dtype(self.code_dtype).itemsize

    def _sub(self, vectors: np.ndarray, j: int) -> np.ndarray:
        return np.ascontiguousarray(vectors[:, j * self.dsub:(j + 1) * self.dsub])

    def encode(self, vectors: object) -> np.ndarray:
        """code(x)_j = argmin_c ‖xʲ − c_cʲ‖² for ``vectors`` (n, d): (n, m) uint8 (uint16 if K > 256)."""
        vectors = as_vectors("vectors", vectors, dim=self.d)
        codes = np.empty((len(vectors), self.m), dtype=self.code_dtype)
        for j in range(self.m):
            codes[:, j] = _search(self.codebooks[j], self._sub(vectors, j), 1, "l2")[1][:, 0]
        return codes

    def _check_codes(self, codes: object) -> np.ndarray:
        codes = check_array("codes", codes, kind="int", ndim=2, shape=(None, self.m), low=0, high=self.ksub - 1)
        return codes.astype(self.code_dtype)

    def decode(self, codes: object) -> np.ndarray:
        """x̂ = (c¹_{code_1}, …, cᵐ_{code_m}) for ``codes`` (n, m): (n, d) float32."""
        codes = self._check_codes(codes)
        return self.codebooks[np.arange(self.m), codes].reshape(len(codes), self.d)

    def distance_tables(self, queries: object) -> np.ndarray:
        """T[i, j, c] = ‖q_iʲ − c_cʲ‖² for ``queries`` (q, d): (q, m, K) float32."""
        queries = as_vectors("queries", queries, dim=self.d)
        return self._tables(queries)

    def _tables(self, queries: np.ndarray) -> np.ndarray:
        sub = queries.reshape(len(queries), self.m, self.dsub)  # (q, m, d/m)
        diff = sub[:, :, None, :] - self.codebooks[None]  # (q, m, K, d/m): from differences, as faiss for d/m < 16
        return np.einsum("qmkd,qmkd->qmk", diff, diff)

    def adc(self, tables: object, codes: object) -> np.ndarray:
        """Σ_j T[i, j, code(x)_j]: the asymmetric distances (q, n) float32 of ``tables``
        (q, m, K) (from :meth:`distance_tables`) to ``codes`` (n, m)."""
        tables = check_array("tables", tables, ndim=3, shape=(None, self.m, self.ksub), nonempty=True)
        return _adc(tables.astype(np.float32), self._check_codes(codes))


def _adc(tables: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Σ_j tables[:, j, codes[:, j]], (q, n) float32, summed in the order j = 0, 1, …

    Codes are read in blocks of ``CHUNK`` (their look-ups stay in the processor's cache),
    from tables laid out (m, q, K) so that each look-up gathers whole columns."""
    by_space = np.ascontiguousarray(tables.transpose(1, 0, 2))  # (m, q, K)
    out = np.empty((len(tables), len(codes)), dtype=np.float32)
    for start in range(0, len(codes), CHUNK):
        columns = codes[start:start + CHUNK].T.astype(np.intp)  # (m, chunk)
        part = by_space[0][:, columns[0]]  # contiguous (q, chunk): a strided view of out thrashes the cache
        for j in range(1, len(columns)):
            part += by_space[j][:, columns[j]]
        out[:, start:start + CHUNK] = part
    return out


def train_product_quantizer(vectors: object, m: int, nbits: int = 8, max_iter: int = 20,
                            seed: int = 0) -> ProductQuantizer:
    """Learn m codebooks of 2^nbits centres, one k-means per sub-space of ``vectors``
    (n, d), d divisible by m (:func:`mmir_lib.kmeans.kmeans`, k-means++ start with seed
    ``seed`` + j for sub-space j, at most ``max_iter`` rounds)."""
    vectors = as_vectors("vectors", vectors)
    m = check_count("m", m, low=1)
    if vectors.shape[1] % m:
        raise ValueError(f"m must divide the dimension d = {vectors.shape[1]} of vectors; got m={m}")
    nbits = check_count("nbits", nbits, low=1, high=16)
    if 2**nbits > len(vectors):
        raise ValueError(f"nbits asks for 2**{nbits} centres but vectors holds only {len(vectors)} training vectors")
    max_iter, seed = check_count("max_iter", max_iter, low=1), check_count("seed", seed)
    dsub = vectors.shape[1] // m
    codebooks = [kmeans(vectors[:, j * dsub:(j + 1) * dsub].astype(np.float64), 2**nbits,
                        max_iter=max_iter, seed=seed + j).centres for j in range(m)]
    return ProductQuantizer(np.stack(codebooks))


class PQIndex:
    """A flat index of PQ codes searched by asymmetric distances (module notes): what
    faiss calls ``IndexPQ``. ``pq``: a trained :class:`ProductQuantizer`."""

    def __init__(self, pq: ProductQuantizer):
        if not isinstance(pq, ProductQuantizer):
            raise TypeError(f"pq must be a ProductQuantizer (train one with train_product_quantizer), "
                            f"got {type(pq).__name__}")
        self.pq = pq
        self.codes = np.zeros((0, pq.m), dtype=pq.code_dtype)

    def __repr__(self) -> str:
        return f"PQIndex({self.pq!r}, {self.ntotal:,} vectors)"

    @property
    def ntotal(self) -> int:
        """The number of vectors stored."""
        return len(self.codes)

    def add(self, vectors: object) -> "PQIndex":
        """Encode ``vectors`` (n, d) and store their codes (ids ntotal …); returns self."""
        self.codes = np.concatenate([self.codes, self.pq.encode(vectors)])
        return self

    def search(self, queries: object, k: int) -> tuple[np.ndarray, np.ndarray]:
        """The k smallest asymmetric distances ‖q − x̂‖² for ``queries`` (q, d):
        (distances (q, k) float32, ids (q, k) int64), nearest first, ties by the smaller id."""
        if self.ntotal == 0:
            raise ValueError("the index is empty: add vectors before searching (PQIndex.add)")
        queries = as_vectors("queries", queries, dim=self.pq.d)
        k = check_k(k, self.ntotal)
        tables = self.pq._tables(queries)
        best = None
        for start in range(0, self.ntotal, BLOCK):
            scores = _adc(tables, self.codes[start:start + BLOCK])
            np.negative(scores, out=scores)  # larger is nearer
            best = _update(best, scores, start, k)
        return -best[0], best[1]
