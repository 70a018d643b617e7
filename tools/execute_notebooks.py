"""Re-execute notebooks in place, storing outputs and widget state (`make execute`).

Usage: python tools/execute_notebooks.py [notebook-or-folder ...]

Each notebook runs in a fresh kernel from this environment, with its own folder as
the working directory, exactly as nbval runs it in `make test`. Prints the wall time
of each notebook (the book's budget is 60 s per chapter on 2 cores).
"""

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def notebooks(paths):
    for p in map(Path, paths or ["notebooks"]):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        else:
            yield p


def main(paths):
    for path in notebooks(paths):
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(
            nb, timeout=600, kernel_name="python3", store_widget_state=True,
            record_timing=False, resources={"metadata": {"path": str(path.parent)}},
        )
        start = time.perf_counter()
        client.execute()
        seconds = time.perf_counter() - start
        nbformat.write(nb, path)
        print(f"{path}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
