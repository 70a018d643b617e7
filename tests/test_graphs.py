"""mmir_lib.graphs: the import graph of a source tree, checked on a tree built here and on the standard library."""

import gc
import sys
import textwrap

import networkx as nx
import numpy as np
import pytest

from mmir_lib.graphs import import_graph, stdlib_import_graph
from mmir_lib.ir.links import LinkGraph, pagerank


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


@pytest.fixture
def tree(tmp_path):
    _write(tmp_path, {
        "app.py": """
            import os, sys                    # os: in the tree; sys: external
            import pkg.sub.deep               # the deepest module named
            from pkg import helper, CONSTANT  # helper is a submodule, CONSTANT is not
            text = "import fake"              # a string, not an import
            def later():
                import pkg.missing            # longest prefix in the tree: pkg
            """,
        "os.py": "import app\nimport os\n",  # a self-import is dropped
        "pkg/__init__.py": "from . import helper\nfrom .sub import *\n",
        "pkg/helper.py": "from .sub.deep import thing\nfrom .. import nothing_here\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/deep.py": "from ..helper import x\nfrom . import other\n",
        "pkg/tests/test_x.py": "import app\n",
        "not-a-module.py": "import app\n",
    })
    return tmp_path


def test_links_follow_the_import_rules(tree):
    g = import_graph(tree, skip=["tests"])
    assert g.modules == ("app", "os", "pkg", "pkg.helper", "pkg.sub", "pkg.sub.deep")
    assert g.files[g.modules.index("pkg")] == "pkg/__init__.py"
    assert set(g.links) == {
        ("app", "os"), ("app", "pkg.sub.deep"), ("app", "pkg.helper"), ("app", "pkg"),
        ("os", "app"),
        ("pkg", "pkg.helper"), ("pkg", "pkg.sub"),
        ("pkg.helper", "pkg.sub.deep"),
        ("pkg.sub.deep", "pkg.helper"), ("pkg.sub.deep", "pkg.sub"),
    }
    assert g.links == tuple(sorted(g.links))
    # `from .. import nothing_here` in pkg.helper climbs above the tree: its base is empty
    assert set(g.external) == {("app", "sys")}
    assert "import app" in g.source("os")
    assert gc.isenabled()  # switched off while parsing, and back on


def test_garbage_collection_left_as_found(tree):
    gc.disable()
    try:
        import_graph(tree)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_imports_nested_in_any_statement_count(tmp_path):
    _write(tmp_path, {
        "a.py": """
            class C:
                import b
            with open(__file__) as f:
                try:
                    pass
                except ImportError:
                    import c
                finally:
                    import d
            match 1:
                case 1:
                    if True:
                        pass
                    else:
                        import e
            """,
        **{f"{name}.py": "" for name in "bcde"},
    })
    assert import_graph(tmp_path).links == (("a", "b"), ("a", "c"), ("a", "d"), ("a", "e"))


def test_skip_and_errors(tree, tmp_path_factory):
    with_tests = import_graph(tree)
    assert "pkg.tests.test_x" in with_tests.modules
    assert ("pkg.tests.test_x", "app") in with_tests.links
    with pytest.raises(ValueError, match="root"):
        import_graph(tree / "nowhere")
    with pytest.raises(ValueError, match="root"):
        import_graph(tmp_path_factory.mktemp("empty"))
    with pytest.raises(TypeError, match="root"):
        import_graph(3)
    with pytest.raises(TypeError, match="skip"):
        import_graph(tree, skip="tests")
    with pytest.raises(ValueError, match="module"):
        import_graph(tree).source("nothing")


@pytest.fixture(scope="module")
def stdlib():
    return stdlib_import_graph()


def test_stdlib_graph_is_a_real_link_graph(stdlib):
    assert sys.version_info[:2] == (3, 11)
    assert 600 < len(stdlib.modules) < 900 and 2500 < len(stdlib.links) < 4000
    assert not any(m.startswith("test.") or ".tests." in m for m in stdlib.modules)
    assert ("json", "json.decoder") in stdlib.links
    assert ("json.decoder", "re") in stdlib.links
    assert ("os", "sys") in stdlib.external  # sys is compiled into Python
    names = set(stdlib.modules)
    assert all(a in names and b in names and a != b for a, b in stdlib.links)


def test_pagerank_on_the_stdlib_matches_networkx(stdlib):
    graph = LinkGraph.from_links(stdlib.links, pages=stdlib.modules)
    reference = nx.DiGraph()
    reference.add_nodes_from(range(graph.num_nodes))
    reference.add_edges_from(zip(*graph.adjacency.nonzero()))
    for teleport in (0.05, 0.15, 0.5):
        ours = pagerank(graph.adjacency, teleport=teleport, tol=1e-13, max_iter=5000).scores
        theirs = nx.pagerank(reference, alpha=1 - teleport, tol=1e-16, max_iter=5000)
        assert np.allclose(ours, [theirs[i] for i in range(graph.num_nodes)], atol=1e-10)


def test_snapshot_is_the_graph_of_python_3_11_7(stdlib):
    """The stored graph is what import_graph reads from CPython 3.11.7's standard library
    (checked where the running Python is that version; the snapshot is what every reader uses)."""
    import platform
    import sysconfig

    from mmir_lib.graphs import STDLIB_SKIP

    assert len(stdlib.texts) == len(stdlib.modules) and all(t.strip() for t in stdlib.texts)
    if platform.python_version() != "3.11.7":
        pytest.skip("the live standard library is another version than the snapshot's")
    live = import_graph(sysconfig.get_paths()["stdlib"], skip=STDLIB_SKIP)
    assert (live.modules, live.files, live.links, live.external) == (stdlib.modules, stdlib.files, stdlib.links,
                                                                      stdlib.external)
