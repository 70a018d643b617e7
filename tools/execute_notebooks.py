"""Re-execute notebooks in place, storing outputs and widget state (`make execute`).

Usage: python tools/execute_notebooks.py [--jobs N] [notebook-or-folder ...]

Each notebook runs in a fresh kernel from this environment, with its own folder as
the working directory, exactly as nbval runs it in `make test` (kernels on IPC
sockets: ``tools/ipc_kernels.py``). Prints the wall time
of each notebook (the book's budget is 60 s per chapter on 2 cores). With ``--jobs N``
N notebooks run at once, each in its own process (every chapter computes on one
thread, so N = the number of cores keeps them all busy).
"""

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from ipc_kernels import ipc_kernel_manager


def notebooks(paths):
    for p in map(Path, paths or ["notebooks"]):
        if p.is_dir():
            yield from sorted(q for q in p.rglob("*.ipynb") if ".ipynb_checkpoints" not in q.parts)
        else:
            yield p


def coalesce_streams(nb) -> None:
    """Join consecutive stream outputs of the same stream (stdout or stderr) in each cell.

    A kernel sends printed text in chunks whose boundaries depend on timing (a busy
    machine splits one table into a dozen outputs); stored as one output per stream, the
    notebook is the same whatever the load, and so are its diffs.
    """
    for cell in nb.cells:
        merged = []
        for output in cell.get("outputs", []):
            if (output.output_type == "stream" and merged and merged[-1].output_type == "stream"
                    and merged[-1].name == output.name):
                merged[-1].text += output.text
            else:
                merged.append(output)
        if "outputs" in cell:
            cell.outputs = merged


def fold_solutions(nb) -> None:
    """Fold every solution's code cell (tagged ``hide-input``) in JupyterLab as the book does.

    The book moves such a cell into the dropdown above it (``book/_ext/offline_book.py``);
    JupyterLab ignores the tag but honours ``jupyter.source_hidden`` and
    ``jupyter.outputs_hidden``: the student sees a folded cell and opens it by a click.
    """
    for cell in nb.cells:
        if cell.cell_type == "code" and "hide-input" in cell.metadata.get("tags", []):
            cell.metadata.setdefault("jupyter", {}).update(source_hidden=True, outputs_hidden=True)


def execute(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    kernel = ipc_kernel_manager(kernel_name="python3")
    client = NotebookClient(
        nb, km=kernel, timeout=600, kernel_name="python3", store_widget_state=True,
        record_timing=False, resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    try:
        client.execute()
    finally:  # the client shuts down only a kernel it started itself
        kernel.shutdown_kernel()
    seconds = time.perf_counter() - start
    coalesce_streams(nb)
    fold_solutions(nb)
    nbformat.write(nb, path)
    print(f"{path}: executed in {seconds:.1f} s", flush=True)


def main(args):
    jobs = 1
    if args[:1] == ["--jobs"]:
        jobs, args = int(args[1]), args[2:]
    paths = list(notebooks(args))
    if jobs == 1:
        for path in paths:
            execute(path)
        return 0
    run = lambda path: subprocess.run([sys.executable, __file__, str(path)]).returncode  # noqa: E731
    with ThreadPoolExecutor(jobs) as pool:
        codes = list(pool.map(run, paths))
    failed = [str(p) for p, code in zip(paths, codes) if code]
    if failed:
        print("failed: " + ", ".join(failed), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
