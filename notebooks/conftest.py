"""nbval over the chapters: kernels on IPC sockets, and failing cells that explain themselves.

Every kernel nbval starts talks over Unix-domain sockets of its own
(``tools/ipc_kernels.py``), so that two nbval runs side by side cannot race for a TCP
port and lose a kernel at start.

nbval reports a cell that printed to stderr (a warning, a message from a library's C
code) only as "Unexpected output fields from running code: {'stderr'}". The words
themselves are what explains such a failure, so they are added to the report here.
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
