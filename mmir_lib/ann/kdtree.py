"""An exact k-d tree, and what the curse of dimensionality does to it.

Brute-force matching computes all n distances per query. A **k-d tree** (Bentley 1975;
Friedman, Bentley and Finkel 1977) cuts space into boxes so that most of them can be
ruled out without looking inside.

**Building.** A node holds a set of points. If there are at most ``leaf_size`` of them
it is a leaf; otherwise it splits them at the median of the axis along which they
spread most (max − min), so that the two children get half the points each and the
tree has depth about log₂(n / leaf_size). Each node also stores the bounding box of its
points, [lower, upper] per axis.

**Searching** for the k nearest points to q, best bin first: a priority queue holds
nodes by a lower bound on the distance from q to anything inside them, the distance
from q to the node's box,

    dist(q, box)² = Σ_axes max(lower − q, 0, q − upper)².

Take the nearest node from the queue; a leaf is scanned (the distances to its points
are computed and the k best so far kept), an inner node puts its two children in the
queue. Stop when the nearest node in the queue is farther than the k-th best point
found: nothing left can beat it, so the answer is **exact**.

In 2-D the first leaf usually holds the nearest neighbour, and only a few boxes touch
the ball around q. In 128-D (SIFT) the ball around q crosses almost every box, because
a box is split only along log₂(n / leaf_size) of the 128 axes: the search visits nearly
all leaves and is slower than brute force. That is the **curse of dimensionality**,
and :meth:`KDTree.query` counts the leaves and points it examines to show it.

Beis and Lowe (1997) made the search approximate by stopping after ``max_leaves``
leaves (**Best-Bin-First**): the bins visited first are the most promising, so the
true nearest neighbour is usually found early, at a bounded cost.

The tree lives in flat arrays indexed by node number (node 0 is the root), not in
node objects: ``split_axis``, ``split_value``, ``children`` (−1 for a leaf), the
node's range ``start:end`` in ``order`` (the points permuted so that every node's
points are contiguous), and the boxes ``lower``, ``upper``.
"""

from __future__ import annotations

import heapq
from typing import NamedTuple

import numpy as np

from ..validation import check_array, check_bool, check_count, check_optional
from .distances import pairwise_distances

__all__ = ["KDTree", "SearchCounts"]


class SearchCounts(NamedTuple):
    """The work of each query: ``leaves`` visited and ``points`` whose distance was
    computed, both (q,) int64."""

    leaves: np.ndarray
    points: np.ndarray


class KDTree:
    """An exact k-d tree over the rows of ``points`` (n, d), median split on the axis of
    largest spread, at most ``leaf_size`` points per leaf.

    Attributes (read-only arrays; ``n_nodes`` entries unless said otherwise)
    ----------
    ``points``       (n, d) float64, the points indexed
    ``order``        (n,) int64, the points' indices, each node's points contiguous
    ``start, end``   node i holds ``order[start[i]:end[i]]``
    ``split_axis``   the axis node i splits (−1 for a leaf)
    ``split_value``  the median it splits at: left child ≤ value ≤ right child (NaN for a leaf)
    ``children``     (n_nodes, 2) int64, left and right child (−1 for a leaf)
    ``lower, upper`` (n_nodes, d) float64, the bounding box of each node's points
    """

    def __init__(self, points: object, leaf_size: int = 16) -> None:
        points = check_array("points", points, ndim=2, nonempty=True)
        self.leaf_size = check_count("leaf_size", leaf_size, low=1)
        self.points = points.copy()
        self.order = np.arange(len(points))
        nodes: list[tuple] = []  # (start, end, axis, value, left, right, lower, upper), by node number
        self._build(0, len(points), nodes)
        start, end, axis, value, left, right, lower, upper = zip(*nodes)
        self.start, self.end = np.array(start), np.array(end)
        self.split_axis, self.split_value = np.array(axis), np.array(value, dtype=np.float64)
        self.children = np.column_stack([left, right])
        self.lower, self.upper = np.array(lower), np.array(upper)
        self._leaf_points = self.points[self.order]  # the points in leaf order, each leaf a contiguous block
        for array in (self.points, self.order, self.start, self.end, self.split_axis, self.split_value,
                      self.children, self.lower, self.upper, self._leaf_points):
            array.flags.writeable = False

    def _build(self, start: int, end: int, nodes: list[tuple]) -> int:
        """Append the node for ``order[start:end]`` and its subtree to ``nodes``; return its number."""
        node = len(nodes)
        members = self.order[start:end]
        coords = self.points[members]
        lower, upper = coords.min(axis=0), coords.max(axis=0)
        spread = upper - lower
        nodes.append((start, end, -1, np.nan, -1, -1, lower, upper))  # a leaf, unless split below
        if end - start <= self.leaf_size or spread.max() == 0:  # small enough, or all points equal
            return node
        axis = int(np.argmax(spread))
        half = (end - start) // 2
        # argpartition puts the median at position `half`, smaller values before, larger after
        self.order[start:end] = members[np.argpartition(coords[:, axis], half)]
        value = self.points[self.order[start + half], axis]
        left = self._build(start, start + half, nodes)
        right = self._build(start + half, end, nodes)
        nodes[node] = (start, end, axis, value, left, right, lower, upper)
        return node

    @property
    def n_nodes(self) -> int:
        return len(self.start)

    @property
    def n_leaves(self) -> int:
        return int(np.sum(self.split_axis < 0))

    def __repr__(self) -> str:
        n, d = self.points.shape
        return f"KDTree({n:,} points in {d}-D, {self.n_leaves:,} leaves of at most {self.leaf_size})"

    def _box_distance(self, q: np.ndarray, nodes) -> np.ndarray:
        """Distance from q to the bounding boxes of ``nodes``: a lower bound for their points."""
        below = np.maximum(self.lower[nodes] - q, 0.0)
        above = np.maximum(q - self.upper[nodes], 0.0)
        return np.sqrt((below**2 + above**2).sum(axis=-1))

    def _search(self, q: np.ndarray, k: int, max_leaves: int | None) -> tuple[np.ndarray, np.ndarray, int, int]:
        """Best-bin-first search for one query: (distances (k,), indices (k,), leaves, points)."""
        best_d = np.full(k, np.inf)
        best_i = np.full(k, len(self.points))  # placeholders: farther than anything, largest index
        queue = [(float(self._box_distance(q, 0)), 0)]  # (lower bound, node)
        leaves = examined = 0
        while queue:
            bound, node = heapq.heappop(queue)
            if bound > best_d[-1] or leaves == max_leaves:
                break  # exact: no node left can hold a nearer point; BBF: out of budget
            left, right = self.children[node]
            if left >= 0:  # an inner node: queue both children by their bounds
                for child, child_bound in zip((left, right), self._box_distance(q, [left, right])):
                    if child_bound <= best_d[-1]:
                        heapq.heappush(queue, (float(child_bound), int(child)))
                continue
            start, end = self.start[node], self.end[node]
            # measured with q moved to the origin, where ‖a‖² + ‖b‖² − 2a·b has nothing to cancel
            distances = pairwise_distances(np.zeros((1, len(q))), self._leaf_points[start:end] - q)[0]
            leaves += 1
            examined += end - start
            if distances.min() > best_d[-1]:
                continue  # nothing in this leaf beats the k-th best
            candidates_d = np.concatenate([best_d, distances])
            candidates_i = np.concatenate([best_i, self.order[start:end]])
            keep = np.lexsort((candidates_i, candidates_d))[:k]  # by distance, then by index
            best_d, best_i = candidates_d[keep], candidates_i[keep]
        return best_d, best_i, leaves, examined

    def query(self, queries: object, k: int = 1, max_leaves: int | None = None,
              return_counts: bool = False):
        """The ``k`` nearest points to each row of ``queries`` (q, d).

        Exact by default (equal to brute force, and to ``scipy.spatial.cKDTree.query``);
        with ``max_leaves``, approximate: Best-Bin-First stops after that many leaves.

        Returns
        -------
        distances : (q, k) float64, each row non-decreasing;
        indices : (q, k) int64, rows of ``points``; among equal distances the smaller
            index first. (Unlike cKDTree, k = 1 also gives (q, 1) arrays.) A BBF search
            that found fewer than k points pads with distance inf and index n.
        counts : :class:`SearchCounts`, only with ``return_counts=True``.
        """
        queries = check_array("queries", queries, ndim=2)
        if queries.shape[1] != self.points.shape[1]:
            raise ValueError(f"queries must have {self.points.shape[1]} columns, as the tree's points; "
                             f"got shape {queries.shape}")
        k = check_count("k", k, low=1)
        if k > len(self.points):
            raise ValueError(f"k must be at most the number of points in the tree, {len(self.points)}; got k={k}")
        max_leaves = check_optional(check_count, "max_leaves", max_leaves, low=1)
        check_bool("return_counts", return_counts)
        distances, indices = np.empty((len(queries), k)), np.empty((len(queries), k), dtype=np.int64)
        leaves, examined = np.empty(len(queries), dtype=np.int64), np.empty(len(queries), dtype=np.int64)
        for row, q in enumerate(queries):  # one search per query: each follows its own path
            distances[row], indices[row], leaves[row], examined[row] = self._search(q, k, max_leaves)
        if return_counts:
            return distances, indices, SearchCounts(leaves, examined)
        return distances, indices
