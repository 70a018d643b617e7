"""nbval over the chapters: a failing cell shows the text of its unexpected streams.

nbval reports a cell that printed to stderr (a warning, a message from a library's C
code) only as "Unexpected output fields from running code: {'stderr'}". The words
themselves are what explains such a failure, so they are added to the report here.
"""

from __future__ import annotations

import pytest


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
