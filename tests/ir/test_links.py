import networkx as nx
import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings, strategies as st

from mmir_lib.data import wikipedia_sample
from mmir_lib.ir.links import (GOOGLE_MATRIX_MAX_NODES, LinkGraph, adjacency_matrix, google_matrix, pagerank,
                               transition_matrix)


def networkx_pagerank(adjacency, teleport, **kwargs):
    """networkx's PageRank of the same graph, as an array in page order."""
    graph = nx.DiGraph()
    graph.add_nodes_from(range(adjacency.shape[0]))
    coo = scipy.sparse.coo_array(adjacency)
    graph.add_weighted_edges_from(zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()))
    scores = nx.pagerank(graph, alpha=1 - teleport, **kwargs)
    return np.array([scores[i] for i in range(adjacency.shape[0])])


# ---- hand-computed cases ----------------------------------------------------------------

@pytest.mark.parametrize("teleport", [0.0, 0.2, 0.5, 1.0])
def test_two_pages_one_link(teleport):
    # 0 -> 1 and 1 is a dead end: x0 = (1 − λ) x1 / 2 + λ / 2 with x1 = 1 − x0 gives x0 = 1 / (3 − λ)
    result = pagerank([[0, 1], [0, 0]], teleport=teleport)
    assert result.scores == pytest.approx([1 / (3 - teleport), (2 - teleport) / (3 - teleport)], abs=1e-12)


def test_a_cycle_is_uniform_and_needs_one_step():
    cycle = adjacency_matrix([0, 1, 2, 3], [1, 2, 3, 0], num_nodes=4)
    result = pagerank(cycle, teleport=0.15)
    assert result.scores.tolist() == [0.25] * 4 and result.iterations == 1


def test_teleport_one_gives_the_uniform_vector():
    graph = adjacency_matrix([0, 0, 0, 1], [1, 2, 3, 1], num_nodes=5)
    result = pagerank(graph, teleport=1.0)
    assert result.scores == pytest.approx(np.full(5, 0.2), abs=1e-15) and result.iterations == 1


def test_without_teleport_a_periodic_chain_does_not_converge():
    # 0 -> 1, 1 -> 2, 2 -> 1: the mass swings between pages 1 and 2 for ever
    with pytest.raises(RuntimeError, match="did not converge in 50 iterations"):
        pagerank(adjacency_matrix([0, 1, 2], [1, 2, 1], num_nodes=3), teleport=0.0, max_iter=50)


def test_transition_matrix_columns():
    m = transition_matrix(adjacency_matrix([0, 0, 0, 1], [1, 2, 3, 0], num_nodes=4)).toarray()
    assert m[:, 0] == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3]) and m[:, 1].tolist() == [1, 0, 0, 0]
    assert m[:, 2].tolist() == [0] * 4  # dead end


def test_duplicate_links_count_once_and_weights_are_used():
    assert adjacency_matrix([0, 0, 0], [1, 1, 2], num_nodes=3).toarray()[0].tolist() == [0, 1, 1]
    weighted = np.array([[0, 3.0, 1.0], [1.0, 0, 0], [0, 0, 0]])
    assert transition_matrix(weighted).toarray()[:, 0] == pytest.approx([0, 0.75, 0.25])
    assert pagerank(weighted, 0.3, tol=1e-14).scores == pytest.approx(
        networkx_pagerank(weighted, 0.3, tol=1e-15, max_iter=1000), abs=1e-12)


def test_link_graph_names_pages():
    g = LinkGraph.from_links([("b", "c"), ("c", "b"), ("b", "c")], pages=["a"])
    assert g.titles.tolist() == ["a", "b", "c"] and g.num_edges == 2
    assert g.dead_ends.tolist() == [True, False, False] and g.page("c") == 2
    with pytest.raises(ValueError, match="title: no page called 'z'"):
        g.page("z")
    with pytest.raises(ValueError, match="empty"):
        LinkGraph.from_links([])


# ---- the real graph against networkx ------------------------------------------------------

@pytest.fixture(scope="module")
def wikipedia_graph():
    sample = wikipedia_sample()
    links = [(page.title, link.target) for page in sample.pages for link in page.links]
    return LinkGraph.from_links(links, pages=[page.title for page in sample.pages])


@pytest.fixture(scope="module")
def crawled_graph():
    """Only the sample's own articles and the links between them."""
    sample = wikipedia_sample()
    titles = {page.title for page in sample.pages}
    links = [(page.title, link.target) for page in sample.pages for link in page.links if link.target in titles]
    return LinkGraph.from_links(links, pages=[page.title for page in sample.pages])


def test_real_graph_has_many_dead_ends(wikipedia_graph):
    g = wikipedia_graph
    assert g.num_nodes > 20_000 and g.num_edges > 20_000
    assert (~g.dead_ends).sum() == 106  # only the sample's articles have known links


@pytest.mark.parametrize("teleport", [0.15, 0.5])
def test_equals_networkx_on_the_wikipedia_graph(wikipedia_graph, teleport):
    ours = pagerank(wikipedia_graph.adjacency, teleport=teleport, tol=1e-13).scores
    theirs = networkx_pagerank(wikipedia_graph.adjacency, teleport, tol=1e-16, max_iter=1000)
    assert np.max(np.abs(ours - theirs)) <= 1e-10
    assert np.array_equal(np.argsort(-ours, kind="stable")[:10], np.argsort(-theirs, kind="stable")[:10])


@pytest.mark.parametrize("teleport", [0.05, 0.15, 0.85])
def test_equals_networkx_on_the_crawled_graph(crawled_graph, teleport):
    # small teleport: hundreds of iterations, mass piles up in the graph's spider traps
    result = pagerank(crawled_graph.adjacency, teleport=teleport, tol=1e-14, max_iter=5000)
    theirs = networkx_pagerank(crawled_graph.adjacency, teleport, tol=1e-17, max_iter=5000)
    assert np.max(np.abs(result.scores - theirs)) <= 1e-10
    assert (result.iterations > 300) == (teleport == 0.05)


@st.composite
def graphs(draw):
    """Random directed graphs: some pages are dead ends, self-links allowed."""
    n = draw(st.integers(1, 12))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    sources, targets = zip(*edges) if edges else ((), ())
    return adjacency_matrix(list(sources), list(targets), num_nodes=n)


@settings(max_examples=60, deadline=None)
@given(graphs(), st.floats(0.05, 1.0))
def test_equals_networkx_on_random_graphs(adjacency, teleport):
    ours = pagerank(adjacency, teleport=teleport, tol=1e-13, max_iter=5000).scores
    theirs = networkx_pagerank(adjacency, teleport, tol=1e-16, max_iter=5000)
    assert np.max(np.abs(ours - theirs)) <= 1e-10
    assert ours.sum() == pytest.approx(1.0, abs=1e-12) and np.all(ours > 0)


@settings(max_examples=40, deadline=None)
@given(graphs(), st.floats(0.05, 1.0))
def test_equals_the_principal_eigenvector_of_the_google_matrix(adjacency, teleport):
    g = google_matrix(adjacency, teleport)
    assert g.sum(axis=0) == pytest.approx(np.ones(g.shape[0]), abs=1e-12) and np.all(g > 0)
    values, vectors = np.linalg.eig(g)
    principal = np.real(vectors[:, np.argmax(np.real(values))])
    principal /= principal.sum()
    assert np.max(np.real(values)) == pytest.approx(1.0, abs=1e-10)
    assert pagerank(adjacency, teleport, tol=1e-14, max_iter=5000).scores == pytest.approx(principal, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(graphs(), st.floats(0.05, 0.95))
def test_residuals_shrink_at_least_by_one_minus_teleport(adjacency, teleport):
    residuals = pagerank(adjacency, teleport=teleport, tol=1e-12, max_iter=5000).residuals
    assert np.all(residuals[1:] <= (1 - teleport) * residuals[:-1] + 1e-15)


# ---- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("adjacency, message", [
    (np.zeros((0, 0)), "empty"),
    (np.zeros((2, 3)), "square"),
    (np.zeros(4), "2-dimensional"),
    (np.array([[0, -1.0], [1, 0]]), "negative"),
    (np.array([[0, np.nan], [1, 0]]), "finite"),
])
def test_bad_adjacency(adjacency, message):
    with pytest.raises(ValueError, match=message):
        pagerank(adjacency)


@pytest.mark.parametrize("teleport, error", [(-0.1, ValueError), (1.5, ValueError), (float("nan"), ValueError),
                                             (True, TypeError), ("0.15", TypeError)])
def test_teleport_must_be_a_probability(teleport, error):
    with pytest.raises(error, match="teleport must be"):
        pagerank([[0, 1], [1, 0]], teleport=teleport)
    with pytest.raises(error, match="teleport must be"):
        google_matrix([[0, 1], [1, 0]], teleport=teleport)


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(tol=0), ValueError, "tol must be > 0"), (dict(tol=3.0), ValueError, "tol must be <= 1"),
    (dict(max_iter=0), ValueError, "max_iter"), (dict(max_iter=2.5), TypeError, "max_iter must be an int")])
def test_bad_iteration_settings(kwargs, error, message):
    with pytest.raises(error, match=message):
        pagerank([[0, 1], [1, 0]], **kwargs)


@pytest.mark.parametrize("args, message", [
    (([0], [1, 2], 3), "same length"),
    (([0, 3], [1, 2], 3), "sources must hold values <= 2"),
    (([0], [-1], 3), "targets must hold values >= 0"),
    (([], [], 0), "num_nodes"),
])
def test_bad_link_lists(args, message):
    with pytest.raises(ValueError, match=message):
        adjacency_matrix(*args)


def test_google_matrix_refuses_large_graphs():
    n = GOOGLE_MATRIX_MAX_NODES + 1
    with pytest.raises(ValueError, match="use pagerank"):
        google_matrix(scipy.sparse.csr_array((n, n)))


@pytest.mark.parametrize("links, pages, error, message", [
    ([("a", 1)], (), TypeError, r"links\[0\] must be a \(source, target\) pair of str titles"),
    ("ab", (), TypeError, "links must be an iterable of"),
    ([("a", "b")], "ab", TypeError, "pages must be a list of str"),
])
def test_from_links_checks_its_titles(links, pages, error, message):
    with pytest.raises(error, match=message):
        LinkGraph.from_links(links, pages)


def test_link_graph_checks_titles_against_adjacency():
    with pytest.raises(ValueError, match="titles must be distinct"):
        LinkGraph(np.array(["a", "a"], dtype=object), adjacency_matrix([0], [1], 2))
    with pytest.raises(ValueError, match=r"adjacency must be a sparse \(3, 3\) matrix"):
        LinkGraph(np.array(["a", "b", "c"], dtype=object), adjacency_matrix([0], [1], 2))
