"""Set up JupyterLab for the book's chapters (run by ``make setup`` and before ``make lab``
and ``make test``; each step is idempotent).

1. **The prose extension** (``tools/lab-extension``, prebuilt in its ``labextension``
   folder): glued numbers, citations and reference lists, which jupyterlab-myst does not
   know, shown as the built book shows them. It is copied into this environment's
   ``share/jupyter/labextensions``, with ``static/references.json``: each entry of
   ``book/references.bib`` formatted as the book formats it (pybtex's ``unsrt`` style,
   which sphinxcontrib-bibtex uses) and its authors' short name for ``{footcite:t}``.
   To change the extension: edit ``tools/lab-extension/src``, then in that folder run
   ``npm install`` and ``jupyter labextension build .`` and commit ``labextension``.

2. **Keys for the live widgets.** In command mode JupyterLab binds bare keys to notebook
   commands (ArrowUp and ArrowDown move between cells, A inserts a cell, 1 makes a
   heading, D D deletes) on the selector
   ``.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus``. The notebook marks
   itself read-write (``jp-mod-readWrite``) when the focus is in an ``<input>`` or
   ``<textarea>``, but not in a ``<select>``: on a focused ipywidgets drop-down (the
   book's live controls, :meth:`mmir_lib.widgets.InteractiveFigure.live_widget`) the arrow
   keys moved to another cell instead of changing the value, and typing a value could
   change the cell (ipywidgets issue 3912). JupyterLab's ``overrides.json`` (the defaults
   of this environment's settings) disables every default shortcut on that selector and
   binds it again on the same selector minus a focused ``<select>`` or slider. It reads
   the installed schemas, so a JupyterLab with more such shortcuts is covered too.

3. **Widget state saved with the notebook** (ipywidgets' ``saveState``, in the same
   ``overrides.json``), as ``make execute`` stores it. Without it, a chapter run, saved
   and reopened showed "Error displaying widget: model not found" in each widget cell
   (the outputs name the run's widget models, the notebook still held the state of the
   stored run's); with it, the widgets come back as they were saved, live again once
   the cell is run.

    python tools/lab_setup.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from pybtex.database import parse_file
from pybtex.plugin import find_plugin
from pybtex.richtext import Text

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "tools" / "lab-extension" / "labextension"
BIBLIOGRAPHY = ROOT / "book" / "references.bib"

COMMAND_MODE = ".jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus"
OUTSIDE_CONTROLS = COMMAND_MODE + ":not(select):not([role='slider'])"
SETTING = "@jupyterlab/shortcuts-extension:shortcuts"
WIDGETS = "@jupyter-widgets/jupyterlab-manager:plugin"


def command_mode_shortcuts(prefix: Path) -> list[dict]:
    """The default shortcuts on :data:`COMMAND_MODE` in every installed settings schema."""
    found = []
    for schema in sorted((prefix / "share/jupyter/lab/schemas").rglob("*.json")):
        data = json.loads(schema.read_text())
        if isinstance(data, dict):
            found += [s for s in data.get("jupyter.lab.shortcuts", []) if s.get("selector") == COMMAND_MODE]
    return found


def overrides(shortcuts: list[dict]) -> dict:
    """Each shortcut disabled on :data:`COMMAND_MODE` and bound on :data:`OUTSIDE_CONTROLS`;
    widget state saved with the notebook."""
    user = []
    for s in shortcuts:
        user.append({**s, "disabled": True})
        user.append({**s, "selector": OUTSIDE_CONTROLS})
    return {SETTING: {"shortcuts": user}, WIDGETS: {"saveState": True}}


def short_author(entry) -> str:
    """"Johnson", "Johnson and Douze" or "Johnson et al.", as a textual citation names them."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [Text.from_latex(" ".join(p.last_names)).render_as("text") for p in people]
    if len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names) or entry.fields.get("title", "?")


def references(path: Path = BIBLIOGRAPHY) -> dict[str, dict[str, str]]:
    """key -> {"text": the entry as the book's reference lists show it, "author": short name}."""
    bib = parse_file(str(path))
    style = find_plugin("pybtex.style.formatting", "unsrt")()
    return {entry.key: {"text": entry.text.render_as("text"), "author": short_author(bib.entries[entry.key])}
            for entry in style.format_entries(bib.entries.values())}


def install_extension(prefix: Path) -> Path:
    """The prebuilt extension, and the book's references beside it."""
    target = prefix / "share/jupyter/labextensions/mmir-lab-prose"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(EXTENSION, target)
    (target / "static" / "references.json").write_text(json.dumps(references(), ensure_ascii=False) + "\n")
    return target


def main() -> None:
    prefix = Path(sys.prefix)
    shortcuts = command_mode_shortcuts(prefix)
    if not shortcuts:
        sys.exit(f"no JupyterLab shortcut on {COMMAND_MODE!r} under {prefix}: is JupyterLab installed?")
    target = prefix / "share/jupyter/lab/settings/overrides.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    current = json.loads(target.read_text()) if target.exists() else {}
    current.update(overrides(shortcuts))
    target.write_text(json.dumps(current, indent=1) + "\n")
    print(f"{target}: {len(shortcuts)} command-mode shortcuts leave focused drop-downs and sliders alone; "
          "widget state is saved with the notebook")
    print(f"{install_extension(prefix)}: glued numbers, citations and references in JupyterLab")


if __name__ == "__main__":
    main()
