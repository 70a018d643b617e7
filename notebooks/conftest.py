"""nbval over the chapters: kernels on IPC sockets, and failing cells that explain themselves.

Every kernel nbval starts talks over Unix-domain sockets of its own
(``tools/ipc_kernels.py``), so that two nbval runs side by side cannot race for a TCP
port and lose a kernel at start.

nbval reports a cell that printed to stderr (a warning, a message from a library's C
code) only as "Unexpected output fields from running code: {'stderr'}". The words
themselves are what explains such a failure, so they are added to the report here.

At the end of a run, each notebook's time (the sum of its cells') is listed, slowest first.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbval.kernel
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from ipc_kernels import ipc_kernel_manager  # noqa: E402

nbval.kernel.KernelManager = ipc_kernel_manager


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    outputs = getattr(item, "test_outputs", None)
    if report.failed and call.when == "call" and outputs:
        streams = [f"--- {out.get('name', 'stream')} ---\n{out.get('text', '')}"
                   for out in outputs if out.get("output_type") == "stream"]
        if streams:
            report.sections.append(("streams the cell wrote", "\n".join(streams)))
    return report


#: Seconds each notebook's cells took in this run, summed (setup, call and teardown).
_SECONDS: dict[str, float] = {}


def pytest_runtest_logreport(report):
    if "::Cell " in report.nodeid:
        notebook = report.nodeid.split("::", 1)[0]
        _SECONDS[notebook] = _SECONDS.get(notebook, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    """Each chapter's time in this run, slowest first: the book asks for under a minute a
    chapter on two cores, and `make test` runs every chapter twice beside the unit tests,
    so these figures are taken under that load (a quiet machine is faster)."""
    if not _SECONDS:
        return
    terminalreporter.section("seconds per notebook in this run (all its cells)")
    for notebook, seconds in sorted(_SECONDS.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"{seconds:7.1f}  {notebook}")
    terminalreporter.write_line(f"{sum(_SECONDS.values()):7.1f}  in all")
