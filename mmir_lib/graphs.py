"""A real link graph that every Python installation carries: who imports whom.

Each module of Python's standard library is a source file written by the CPython
developers, and its ``import`` statements name the other modules it relies on: a
link from the importing module to the imported one, written by the importer's author,
like a hyperlink or a citation. :func:`import_graph` reads those links from the
source files under a directory (with :mod:`ast`, so strings and comments that look
like imports do not count). :func:`stdlib_import_graph` returns the graph it read from
the standard library of CPython 3.11.7 (its tests, ``site-packages`` and compiled
modules left out), stored with the book as :data:`STDLIB_SNAPSHOT`: the standard
library changes from one Python release to the next, and the book's numbers must be the
same on every reader's machine. ``python -m mmir_lib.graphs`` writes the snapshot again
from the running Python.

How an import statement becomes links (in the importer ``m``):

* ``import a.b.c`` links ``m`` to ``a.b.c``, or to the longest prefix of it that is
  a module of the tree (``import os.path`` links to ``os``: ``os.path`` is set up by
  ``os`` at run time, there is no file of that name);
* ``from a.b import x, y`` links to ``a.b.x`` where that is a module of the tree
  (``from email import utils``), and otherwise to ``a.b`` (``from os import path``);
* relative imports (``from . import x``, ``from ..y import z``) are resolved against
  the importer's package first;
* a name with no file in the tree (``sys``, ``_io``, Windows-only ``nt``) is an
  *external* link, kept apart: its target exists (compiled into Python, or on
  another system) but its own links are unknown, like a page never crawled.
"""

from __future__ import annotations

import ast
import gc
import gzip
import json
import platform
import sysconfig
from dataclasses import dataclass
from pathlib import Path

from .validation import check_instance, check_str_list

__all__ = ["ModuleGraph", "import_graph", "stdlib_import_graph"]

#: The standard library's import graph as the book uses it (see the module docstring).
STDLIB_SNAPSHOT = Path(__file__).with_name("graphdata") / "stdlib-imports.json.gz"

#: Folders never read by :func:`stdlib_import_graph`: tests and their data, installed
#: third-party packages, compiled modules and build files.
STDLIB_SKIP = ("test", "tests", "idle_test", "site-packages", "dist-packages", "__pycache__", "lib-dynload")


@dataclass(frozen=True)
class ModuleGraph:
    """The modules of a source tree and the import links among them.

    ``modules[i]`` is a dotted module name and ``files[i]`` its source file, relative
    to ``root`` (a package's file is its ``__init__.py``); ``links`` are distinct
    ``(importer, imported)`` pairs of module names, both in ``modules``; ``external``
    are distinct ``(importer, name)`` pairs whose target has no file in the tree.
    All three are sorted. ``texts[i]``, when present, is the text :meth:`source` gives
    for ``modules[i]`` (a stored snapshot has no source files to read).
    """

    root: Path | None
    modules: tuple[str, ...]
    files: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    external: tuple[tuple[str, str], ...]
    texts: tuple[str, ...] = ()

    def source(self, module: str) -> str:
        """The text of ``module``: its source file, or the stored text of a snapshot
        (ValueError if it is not in the graph)."""
        try:
            i = self.modules.index(module)
        except ValueError:
            raise ValueError(f"module: {module!r} is not a module of the graph") from None
        if self.texts:
            return self.texts[i]
        return (self.root / self.files[i]).read_text(encoding="utf-8", errors="replace")


def _module_name(relative: Path) -> str | None:
    """``json/decoder.py`` -> ``json.decoder``; ``json/__init__.py`` -> ``json``; None if not importable."""
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def _longest_module(name: str, modules: set[str]) -> str | None:
    """``name`` or its longest dotted prefix that is a module of the tree."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _statements(node: ast.AST):
    """Every statement inside ``node``, at any depth (imports are statements, so the
    expressions, most of a module's nodes, need not be visited)."""
    for field in ("body", "orelse", "finalbody", "handlers", "cases"):
        for child in getattr(node, field, ()):
            if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                yield child
                yield from _statements(child)


def _imports(tree: ast.AST, importer: str, is_package: bool, modules: set[str]):
    """Yield (target, internal) for every module an import statement of ``importer`` names."""
    package = importer if is_package else importer.rpartition(".")[0]
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            named = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: drop level - 1 trailing parts of the importer's package
                anchor = package.split(".") if package else []
                anchor = anchor[: len(anchor) - (node.level - 1)] if node.level > 1 else anchor
                base = ".".join(anchor + ([base] if base else []))
            named = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names if alias.name != "*"] or [base]
        else:
            continue
        for name in named:
            if not name:
                continue
            target = _longest_module(name, modules)
            if target is None:
                yield name.partition(".")[0], False
            elif target != importer:
                yield target, True


def import_graph(root, *, skip=()) -> ModuleGraph:
    """The import links among the Python modules under the folder ``root``.

    Every ``*.py`` file under ``root`` whose path is a valid dotted module name is a
    module (folders named in ``skip`` are not entered); every ``import`` and
    ``from ... import`` statement anywhere in its code (also inside functions and
    ``try`` blocks) is a link, resolved as the module docstring says. Self-imports
    are dropped, repeats count once.

    Parameters
    ----------
    root : str or pathlib.Path
        An existing folder; module names are paths relative to it.
    skip : iterable of str
        Folder names not to enter (anywhere in the tree).

    Returns
    -------
    ModuleGraph
    """
    check_instance("root", root, (str, Path))
    skip = set(check_str_list("skip", skip))
    root = Path(root)
    if not root.is_dir():
        raise ValueError(f"root must be an existing folder, got {str(root)!r}")
    found: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if any(part in skip for part in relative.parts[:-1]):
            continue
        name = _module_name(relative)
        if name is not None:
            found.setdefault(name, relative)
    if not found:
        raise ValueError(f"root: no Python module found under {str(root)!r}")
    modules = set(found)
    links, external = set(), set()
    collecting = gc.isenabled()
    gc.disable()  # syntax trees hold no reference cycles; the collector would only rescan the caller's objects
    try:
        for name, relative in found.items():
            tree = ast.parse((root / relative).read_bytes(), filename=str(relative))
            for target, internal in _imports(tree, name, relative.name == "__init__.py", modules):
                (links if internal else external).add((name, target))
    finally:
        if collecting:
            gc.enable()
    names = sorted(found)
    return ModuleGraph(root, tuple(names), tuple(found[n].as_posix() for n in names),
                       tuple(sorted(links)), tuple(sorted(external)))


def stdlib_import_graph() -> ModuleGraph:
    """The import graph of CPython 3.11.7's standard library, from :data:`STDLIB_SNAPSHOT`.

    Its ``texts`` stand in for the source files as the pages of the book's crawl
    simulation: each module's name, docstring and the names it imports.
    """
    data = json.loads(gzip.decompress(STDLIB_SNAPSHOT.read_bytes()))
    pairs = lambda key: tuple(tuple(pair) for pair in data[key])  # noqa: E731
    return ModuleGraph(None, tuple(data["modules"]), tuple(data["files"]), pairs("links"), pairs("external"),
                       tuple(data["texts"]))


def _page_text(graph: ModuleGraph, relative: str, module: str) -> str:
    """A module as a short page: its name, its docstring and what it imports."""
    tree = ast.parse((graph.root / relative).read_bytes(), filename=relative)
    imported = sorted(t for s, t in graph.links + graph.external if s == module)
    return (f"Module {module}.\n\n{ast.get_docstring(tree) or ''}\n\n"
            f"Imports: {', '.join(imported) or 'nothing'}.")


def write_stdlib_snapshot(path: Path = STDLIB_SNAPSHOT) -> ModuleGraph:
    """Read the running Python's standard library with :func:`import_graph` (leaving out
    :data:`STDLIB_SKIP`) and store it at ``path``, with a short page text per module."""
    graph = import_graph(sysconfig.get_paths()["stdlib"], skip=STDLIB_SKIP)
    data = {"python": platform.python_version(), "modules": graph.modules, "files": graph.files,
            "links": graph.links, "external": graph.external,
            "texts": [_page_text(graph, f, m) for m, f in zip(graph.modules, graph.files)]}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(json.dumps(data, indent=0).encode(), mtime=0))
    return graph


if __name__ == "__main__":
    written = write_stdlib_snapshot()
    print(f"{STDLIB_SNAPSHOT}: Python {platform.python_version()}, {len(written.modules)} modules, "
          f"{len(written.links)} links")
