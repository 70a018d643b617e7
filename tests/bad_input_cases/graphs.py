"""Bad-input cases for mmir_lib.graphs (the import graph of a source tree)."""

from pathlib import Path

from mmir_lib import graphs
from tests.api_fuzz import Case

_HERE = Path(graphs.__file__).parent  # mmir_lib itself: a small tree of modules

CASES = [
    Case(graphs.import_graph, dict(root=_HERE, skip=["__pycache__"]), accepts={"skip": {"empty_list"}}),
    Case(graphs.stdlib_import_graph, {}),
]

EXEMPT = {
    "mmir_lib.graphs.ModuleGraph": "a plain record that import_graph builds",
}
