"""What every benchmark shares: the best of repeated timings, and its rows as a markdown table.

Each benchmark module returns rows (dicts, one key per column) from ``main()`` and prints
them with :func:`markdown_table` when run as a script; ``run_all.py`` collects them into
``results.md``. Kept apart from ``run_all.py`` so that no benchmark imports the runner.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence


def best_time(call: Callable[[], object], repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls, in seconds, after one call that warms
    the caches (and any lazy set-up) up."""
    call()
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - began)
    return best


def markdown_table(rows: Sequence[dict]) -> str:
    """Rows of dicts as a markdown table, one column per key of the first row."""
    cell = lambda v: f"{v:,.4g}" if isinstance(v, float) else str(v)  # noqa: E731
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(cell(v) for v in row.values()) + " |" for row in rows]
    return "\n".join(lines)
