"""Held-out queries for the vector-search experiments: a seeded sample of the collection
taken out of it, so that no query is its own nearest neighbour (a query found in the
index would be answered at distance 0 and flatter every method's recall)."""

from __future__ import annotations

import numpy as np

from ..validation import check_count
from ._checks import as_vectors

__all__ = ["held_out_split"]


def held_out_split(vectors: object, n_queries: int, n_base: int | None = None,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Split the rows of ``vectors`` (n, d) into query ids and base ids, (n_queries,) and
    (n_base,) int64: a seeded random permutation (``numpy.random.default_rng(seed)``), its
    first ``n_queries`` the queries, the next ``n_base`` (all the rest when None) the base,
    each sorted. The two never share a row."""
    vectors = as_vectors("vectors", vectors)
    n_queries = check_count("n_queries", n_queries, low=1)
    if n_queries >= len(vectors):
        raise ValueError(f"n_queries must leave at least one base vector of the {len(vectors)} rows of vectors: at most {len(vectors) - 1}, got {n_queries}")
    rest = len(vectors) - n_queries
    n_base = rest if n_base is None else check_count("n_base", n_base, low=1)
    if n_base > rest:
        raise ValueError(f"n_base must be at most the {rest} vectors left after the queries; got {n_base}")
    order = np.random.default_rng(check_count("seed", seed)).permutation(len(vectors))
    return np.sort(order[:n_queries]), np.sort(order[n_queries:n_queries + n_base])
