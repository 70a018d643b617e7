"""Small GloVe subsets shared by the vector-search tests (held out as the chapter does)."""

from functools import lru_cache

import faiss
import numpy as np

from mmir_lib.ann.datasets import held_out_split
from mmir_lib.data import glove_6b_50d

faiss.omp_set_num_threads(1)  # faiss's results do not depend on threads, but its timing and load do


@lru_cache(maxsize=None)
def subset(n_base: int, n_queries: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(base (n_base, 50), queries (n_queries, 50)) float32 from the 20,000 most frequent words."""
    _, vectors = glove_6b_50d(max_words=20_000)
    queries, base = held_out_split(vectors, n_queries, n_base, seed)
    return np.ascontiguousarray(vectors[base]), np.ascontiguousarray(vectors[queries])


def recall_at(found: np.ndarray, truth: np.ndarray) -> float:
    """The mean share of the true k nearest found, over queries."""
    return float(np.mean([len(set(f) & set(t)) / len(t) for f, t in zip(found, truth)]))
