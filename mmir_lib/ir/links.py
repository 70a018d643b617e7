"""Link analysis: the web as a directed graph, and PageRank by power iteration.

Notation (as in the book). There are n pages. The adjacency matrix A is n×n with
A[i, j] > 0 when page i links to page j (1 for a plain link; any weight >= 0 is
allowed). The out-degree of page i is d_i = Σ_j A[i, j]. The transition matrix

    M[j, i] = A[i, j] / d_i = P(next page j | current page i)

is column-stochastic: column i holds the probabilities of the links leaving page i.
A page with d_i = 0 is a **dead end** (a dangling node): its column of M is all
zero, and a surfer who arrives there has no link to follow.

The random surfer of PageRank teleports with probability λ (the *teleport
probability*): at every step it jumps to a page chosen uniformly at random with
probability λ, and follows one of the current page's links, chosen uniformly, with
probability 1 − λ. At a dead end it always jumps uniformly. With e the dead-end
indicator (e_i = 1 when d_i = 0) and 1 the all-ones vector, the **Google matrix** is

    G = (1 − λ) (M + (1/n) 1 eᵀ) + (λ/n) 1 1ᵀ

and the PageRank vector x is its stationary distribution: G x = x, Σ_i x_i = 1.
This is how networkx treats dead ends by default (``dangling=None`` spreads their
mass over the personalisation vector, uniform by default); networkx's ``alpha`` is
the probability of following a link, alpha = 1 − λ.

G is dense, n² numbers (for a billion pages, 10¹⁸). :func:`pagerank` never forms it:
one step of the power iteration is one sparse product with M plus two scalar terms,

    x ← (1 − λ) (M x + (eᵀx / n) 1) + (λ / n) 1,

so a step costs O(n + number of links). :func:`google_matrix` builds G densely, for
small graphs and teaching only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ..validation import (check_array, check_count, check_memory, check_number, check_probability, check_str,
                          check_str_list, describe)

__all__ = [
    "LinkGraph",
    "adjacency_matrix",
    "transition_matrix",
    "google_matrix",
    "PageRank",
    "pagerank",
]

#: Largest graph :func:`google_matrix` builds (a dense n×n float64 matrix: 200 MB).
GOOGLE_MATRIX_MAX_NODES = 5_000


def adjacency_matrix(sources, targets, num_nodes: int) -> scipy.sparse.csr_array:
    """The binary n×n adjacency matrix of a list of links ``sources[k] -> targets[k]``.

    A link that occurs several times (a page that links twice to the same page)
    counts once, as an edge of a networkx ``DiGraph`` does. Self-links are kept.

    Parameters
    ----------
    sources, targets : (m,) int arrays
        Page numbers in ``range(num_nodes)``.
    num_nodes : int
        n >= 1; pages without any link are part of the graph too.

    Returns
    -------
    scipy.sparse.csr_array of shape (n, n), float64, with 1.0 at [source, target].

    Examples
    --------
    >>> adjacency_matrix([0, 0, 1, 0], [1, 2, 2, 1], num_nodes=3).toarray()
    array([[0., 1., 1.],
           [0., 0., 1.],
           [0., 0., 0.]])
    """
    num_nodes = check_count("num_nodes", num_nodes, low=1)
    check_memory("num_nodes", num_nodes + 1)  # the CSR row pointers
    sources = check_array("sources", sources, kind="int", ndim=1, low=0, high=num_nodes - 1)
    targets = check_array("targets", targets, kind="int", ndim=1, low=0, high=num_nodes - 1)
    if len(sources) != len(targets):
        raise ValueError(f"sources and targets must have the same length, got {len(sources)} and {len(targets)}")
    adjacency = scipy.sparse.coo_array(
        (np.ones(len(sources)), (sources, targets)), shape=(num_nodes, num_nodes)
    ).tocsr()  # duplicates are summed here...
    adjacency.data[:] = 1.0  # ...and set back to one link
    return adjacency


def _check_links(links: object) -> list[tuple[str, str]]:
    """(source title, target title) pairs, as a list."""
    if isinstance(links, (str, bytes, Mapping)) or not isinstance(links, Iterable):
        raise TypeError(f"links must be an iterable of (source, target) title pairs, got {describe(links)}")
    links = list(links)
    for i, link in enumerate(links):
        if not isinstance(link, tuple | list) or len(link) != 2 or not all(isinstance(t, str) for t in link):
            raise TypeError(f"links[{i}] must be a (source, target) pair of str titles, got {describe(link)}")
    return links


@dataclass(frozen=True, eq=False)
class LinkGraph:
    """A link graph with named pages: ``titles[i]`` is page i, ``adjacency`` as in
    :func:`adjacency_matrix`.

    Examples
    --------
    >>> g = LinkGraph.from_links([("A", "B"), ("B", "C"), ("A", "C"), ("A", "B")])
    >>> g.titles.tolist(), g.num_edges, g.out_degree.tolist(), g.in_degree.tolist()
    (['A', 'B', 'C'], 3, [2, 1, 0], [0, 1, 2])
    >>> g.titles[g.dead_ends].tolist()
    ['C']
    """

    titles: np.ndarray
    adjacency: scipy.sparse.csr_array

    def __post_init__(self) -> None:
        if not isinstance(self.titles, np.ndarray) or self.titles.ndim != 1:
            raise TypeError(f"titles must be a 1-D numpy array of str, got {describe(self.titles)}")
        titles = check_str_list("titles", self.titles.tolist())
        if len(set(titles)) != len(titles):
            raise ValueError("titles must be distinct: two pages have the same title")
        if not scipy.sparse.issparse(self.adjacency) or self.adjacency.shape != (len(titles), len(titles)):
            raise ValueError(f"adjacency must be a sparse ({len(titles)}, {len(titles)}) matrix, one row per "
                             f"title, got {describe(self.adjacency)}")

    @classmethod
    def from_links(cls, links: Iterable[tuple[str, str]], pages: Iterable[str] = ()) -> "LinkGraph":
        """Build the graph of ``(source, target)`` title pairs.

        Pages are numbered in order of first appearance: first those in ``pages``
        (useful for pages without any link), then new titles met in ``links``.
        """
        links = _check_links(links)
        pages = check_str_list("pages", pages)
        number: dict[str, int] = {}
        for title in pages:
            number.setdefault(title, len(number))
        sources, targets = [], []
        for source, target in links:
            sources.append(number.setdefault(source, len(number)))
            targets.append(number.setdefault(target, len(number)))
        if not number:
            raise ValueError("the graph is empty: expected at least one page or link")
        titles = np.array(list(number), dtype=object)
        return cls(titles, adjacency_matrix(sources, targets, len(number)))

    @property
    def num_nodes(self) -> int:
        """n, the number of pages."""
        return self.adjacency.shape[0]

    @property
    def num_edges(self) -> int:
        """The number of distinct links."""
        return self.adjacency.nnz

    @property
    def out_degree(self) -> np.ndarray:
        """(n,) int: links leaving each page."""
        return np.diff(self.adjacency.indptr).astype(np.int64)

    @property
    def in_degree(self) -> np.ndarray:
        """(n,) int: links arriving at each page."""
        return np.bincount(self.adjacency.indices, minlength=self.num_nodes).astype(np.int64)

    @property
    def dead_ends(self) -> np.ndarray:
        """(n,) bool: pages without outgoing links."""
        return self.out_degree == 0

    def page(self, title: str) -> int:
        """The number of the page called ``title`` (ValueError if there is none)."""
        check_str("title", title, allow_empty=True)
        hits = np.flatnonzero(self.titles == title)
        if len(hits) == 0:
            raise ValueError(f"title: no page called {title!r} in the graph")
        return int(hits[0])


def _check_adjacency(adjacency) -> scipy.sparse.csr_array:
    """A validated copy of ``adjacency`` as a float64 CSR array."""
    if scipy.sparse.issparse(adjacency):
        matrix = scipy.sparse.csr_array(adjacency, dtype=np.float64)
    else:
        matrix = scipy.sparse.csr_array(check_array("adjacency", adjacency, ndim=2))
    rows, columns = matrix.shape
    if rows != columns:
        raise ValueError(f"adjacency must be square (n×n), got shape {matrix.shape}")
    if rows == 0:
        raise ValueError("the graph is empty: adjacency must have at least one page")
    if not np.all(np.isfinite(matrix.data)):
        raise ValueError("adjacency must be finite (no NaN or infinity)")
    if np.any(matrix.data < 0):
        raise ValueError("adjacency must not have negative weights: a link weight is >= 0")
    matrix.eliminate_zeros()
    return matrix


def transition_matrix(adjacency) -> scipy.sparse.csr_array:
    """M, with M[j, i] = A[i, j] / d_i: the probability of moving from page i to page j.

    Every column of a page with links sums to 1; the column of a dead end is zero.
    The seed's recipe in matrix form: divide each row of A by its sum, then transpose.

    Parameters
    ----------
    adjacency : (n, n) array or scipy.sparse matrix, weights >= 0

    Returns
    -------
    scipy.sparse.csr_array of shape (n, n), float64

    Examples
    --------
    >>> transition_matrix([[0, 1, 1], [0, 0, 1], [0, 0, 0]]).toarray()
    array([[0. , 0. , 0. ],
           [0.5, 0. , 0. ],
           [0.5, 1. , 0. ]])
    """
    a = _check_adjacency(adjacency)
    out_weight = np.asarray(a.sum(axis=1)).ravel()
    inverse = np.divide(1.0, out_weight, out=np.zeros_like(out_weight), where=out_weight > 0)
    return scipy.sparse.csr_array((scipy.sparse.diags_array(inverse) @ a).T)


def google_matrix(adjacency, teleport: float = 0.15) -> np.ndarray:
    """G = (1 − λ) (M + (1/n) 1 eᵀ) + (λ/n) 1 1ᵀ as a dense array (small graphs only).

    Column i is the surfer's next-page distribution from page i: teleport with
    probability λ = ``teleport``, else follow a uniformly chosen link (from a dead end,
    jump uniformly). Every column sums to 1, and for λ > 0 every entry is positive.

    Raises ValueError for graphs above :data:`GOOGLE_MATRIX_MAX_NODES` pages: use
    :func:`pagerank`, which never builds G.

    Examples
    --------
    >>> google_matrix([[0, 1], [0, 0]], teleport=0.2)
    array([[0.1, 0.5],
           [0.9, 0.5]])
    """
    a = _check_adjacency(adjacency)
    teleport = check_probability("teleport", teleport)
    m = transition_matrix(a)
    n = m.shape[0]
    if n > GOOGLE_MATRIX_MAX_NODES:
        raise ValueError(f"google_matrix is dense (n² numbers) and limited to {GOOGLE_MATRIX_MAX_NODES} pages, "
                         f"got {n}; use pagerank(), which never forms it")
    follow = m.toarray()
    dead_ends = follow.sum(axis=0) == 0
    follow[:, dead_ends] = 1.0 / n
    return (1.0 - teleport) * follow + teleport / n


@dataclass(frozen=True)
class PageRank:
    """The result of :func:`pagerank`.

    ``scores`` (n,): the PageRank of every page, summing to 1. ``residuals``: the L1
    change ‖x_{k+1} − x_k‖₁ after each iteration k = 1, 2, ...; the last one is below
    the tolerance.
    """

    scores: np.ndarray
    residuals: np.ndarray

    @property
    def iterations(self) -> int:
        """How many power-iteration steps were taken."""
        return len(self.residuals)


def pagerank(adjacency, teleport: float = 0.15, *, tol: float = 1e-12, max_iter: int = 1000) -> PageRank:
    """PageRank by power iteration on the Google matrix, without forming it.

    Starting from the uniform vector x₀ = 1/n, repeat

        x_{k+1} = (1 − λ) (M x_k + (eᵀ x_k / n) 1) + (λ / n) 1

    until ‖x_{k+1} − x_k‖₁ < ``tol``. Dead ends (e) hand their mass to every page
    uniformly, as networkx does by default.

    Parameters
    ----------
    adjacency : (n, n) array or scipy.sparse matrix
        A[i, j] = weight of the link i -> j, >= 0 (see :func:`adjacency_matrix`).
    teleport : float
        λ in [0, 1], the probability of a random jump at each step (0.15 is the
        classic choice: the surfer follows about 1/λ − 1 ≈ 5.7 links between jumps).
    tol : float
        Stop when the L1 change of one step is below ``tol``, in (0, 1]. (networkx's
        ``tol`` is per page: it stops when the L1 change is below n · tol.)
    max_iter : int
        RuntimeError if the iteration has not converged after this many steps
        (possible with λ = 0, where a cycle of links can make x oscillate).

    Returns
    -------
    PageRank
        ``scores`` (n,) float64 summing to 1, and the residual of every step.

    Notes
    -----
    G maps probability vectors to probability vectors and shrinks the L1 length of
    any vector whose entries sum to 0 by a factor (1 − λ) at least. So the residuals
    fall at least as fast as (1 − λ)^k, and the distance to the true PageRank after
    the last step is at most residual · (1 − λ) / λ.

    Examples
    --------
    A page linked by both others outranks them; a dead end's mass is spread evenly:

    >>> result = pagerank([[0, 1, 1], [0, 0, 1], [0, 0, 0]], teleport=0.15)
    >>> result.scores.round(3), round(float(result.scores.sum()), 12)
    (array([0.198, 0.282, 0.521]), 1.0)
    """
    a = _check_adjacency(adjacency)
    teleport = check_probability("teleport", teleport)
    tol = check_number("tol", tol, low=0.0, low_open=True, high=1.0)
    max_iter = check_count("max_iter", max_iter, low=1)
    m = transition_matrix(a)
    n = m.shape[0]
    dead_ends = np.asarray(m.sum(axis=0)).ravel() == 0
    x = np.full(n, 1.0 / n)
    residuals = []
    for _ in range(max_iter):
        x_next = (1.0 - teleport) * (m @ x + x[dead_ends].sum() / n) + teleport / n
        residuals.append(float(np.abs(x_next - x).sum()))
        x = x_next
        if residuals[-1] < tol:
            return PageRank(x / x.sum(), np.array(residuals))
    raise RuntimeError(
        f"PageRank did not converge in {max_iter} iterations (last L1 change {residuals[-1]:.2e} >= tol {tol:g}); "
        "raise max_iter or the teleport probability"
    )
