"""Let the book's live widgets keep their keys in JupyterLab.

In command mode JupyterLab binds bare keys to notebook commands (ArrowUp and ArrowDown
move between cells, A inserts a cell, 1 makes a heading, D D deletes) on the selector
``.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus``. The notebook marks
itself read-write (``jp-mod-readWrite``) when the focus is in an ``<input>`` or
``<textarea>``, but not in a ``<select>``: on a focused ipywidgets drop-down (the
book's live controls, :meth:`mmir_lib.widgets.InteractiveFigure.live_widget`) the
arrow keys move to another cell instead of changing the value, and typing a value can
change the cell (ipywidgets issue 3912).

This script writes JupyterLab's ``overrides.json`` (the defaults of this environment's
settings, ``<prefix>/share/jupyter/lab/settings``): every default shortcut on that
selector is disabled and bound again on the same selector minus a focused ``<select>``
or slider. Everywhere else the keys do what they did. ``make setup`` runs it after
installing JupyterLab; it reads the installed schema, so a JupyterLab with more such
shortcuts is covered too.

It also turns on ipywidgets' ``saveState``: saving a notebook stores the state of its
widgets, as ``make execute`` does. Without it, a chapter run, saved and reopened shows
"Error displaying widget: model not found" in each widget cell (the outputs name the
run's widget models, the notebook still holds the state of the stored run's); with it,
the widgets come back as they were saved (live again once the cell is run).

    python tools/lab_overrides.py            # write <sys.prefix>/share/jupyter/lab/settings/overrides.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

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


if __name__ == "__main__":
    main()
