"""Results tables that are real tables: HTML in the book and in JupyterLab, aligned text elsewhere.

A table of numbers printed as text is cut off or wraps where the column is narrower
than the widest line, and a screen reader reads it as one long string. :func:`table`
returns a :class:`Table` that displays as an HTML ``<table>`` (header cells, a caption,
numbers right-aligned) inside a box that scrolls sideways rather than spilling out of
the page's column, and whose plain-text form (what nbval compares, what a terminal
shows) is the same table as aligned columns.

Cells are formatted once, when the table is made, by ``formats`` (one format string
per column, e.g. ``"{:.3f}"``); round there to what is stable on every CPU.

Example::

    table([("uniform", 6.267), ("7-gram Kneser-Ney", 2.051)],
          headers=["model", "bits/char"], formats=["{}", "{:.3f}"],
          caption="Held-out cross-entropy on the test plays")
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from numbers import Real

from .validation import check_list, check_optional, check_str, check_str_list, describe

__all__ = ["Table", "table"]

# Inline styles only: JupyterLab strips <style> elements from an untrusted notebook's output.
_WRAP = "overflow-x:auto;max-width:100%;margin:0.5em 0"
_TABLE = "border-collapse:collapse;font-size:0.9em"
_CELL = "padding:0.25em 0.6em;border-bottom:1px solid rgba(127,127,127,0.35)"
_CAPTION = "caption-side:top;text-align:left;font-weight:600;padding-bottom:0.3em"


@dataclass(frozen=True)
class Table:
    """A formatted table: ``headers`` and ``rows`` of cell strings, ``numeric[j]`` tells
    whether column j holds numbers (right-aligned), and an optional ``caption``."""

    headers: tuple
    rows: tuple
    numeric: tuple
    caption: str | None = None

    def _repr_html_(self) -> str:
        def cells(tag, values):
            return "".join(
                f'<{tag} style="{_CELL};text-align:{"right" if n else "left"}"'
                f'{" scope=col" if tag == "th" else ""}>{html.escape(v)}</{tag}>'
                for v, n in zip(values, self.numeric))

        caption = f'<caption style="{_CAPTION}">{html.escape(self.caption)}</caption>' if self.caption else ""
        body = "".join(f"<tr>{cells('td', row)}</tr>" for row in self.rows)
        return (f'<div class="mmir-table" style="{_WRAP}"><table style="{_TABLE}">{caption}'
                f"<thead><tr>{cells('th', self.headers)}</tr></thead><tbody>{body}</tbody></table></div>")

    def __repr__(self) -> str:
        widths = [max(len(v) for v in column) for column in zip(self.headers, *self.rows)]

        def line(values):
            return "  ".join(v.rjust(w) if n else v.ljust(w)
                             for v, w, n in zip(values, widths, self.numeric)).rstrip()

        lines = ([self.caption] if self.caption else []) + [line(self.headers)]
        lines.append("  ".join("-" * w for w in widths))
        return "\n".join(lines + [line(row) for row in self.rows])


def table(rows: Sequence[Sequence], headers: Sequence[str], *, formats: Sequence[str] | None = None,
          caption: str | None = None) -> Table:
    """A results table.

    Parameters
    ----------
    rows : sequence of sequences
        One sequence of cell values per row, each as long as ``headers``.
    headers : sequence of str
        The column headings.
    formats : sequence of str, optional
        One format string per column (``"{:.3f}"``, ``"{:,}"``); ``"{}"`` for all when omitted.
    caption : str, optional
        Shown above the table.

    Returns
    -------
    Table
        Displays as an HTML table; its ``repr`` is the same table as aligned text.
        A column is right-aligned when every value in it is a number (not a bool).
    """
    headers = check_str_list("headers", headers, nonempty=True)
    rows = check_list("rows", rows, Sequence)
    width = len(headers)
    for i, row in enumerate(rows):
        if isinstance(row, str) or len(row) != width:
            raise ValueError(f"rows[{i}] must hold {width} cells, one per header, got {describe(row)}")
    formats = check_str_list("formats", formats) if formats is not None else ["{}"] * width
    if len(formats) != width:
        raise ValueError(f"formats must hold {width} format strings, one per header, got {len(formats)}")
    caption = check_optional(check_str, "caption", caption)
    formatted = []
    for i, row in enumerate(rows):
        try:
            formatted.append(tuple(f.format(v) for f, v in zip(formats, row)))
        except (ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
            raise ValueError(f"formats cannot format rows[{i}] = {list(row)!r}: {error}") from None
    numeric = tuple(bool(rows) and all(isinstance(row[j], Real) and not isinstance(row[j], bool) for row in rows)
                    for j in range(width))
    return Table(tuple(headers), tuple(formatted), numeric, caption)
