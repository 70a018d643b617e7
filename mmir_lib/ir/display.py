"""Showing rankings to a reader: an HTML table of results with matched words marked.

All corpus text is escaped (``html.escape``) before it is put in the table, so a
document that contains ``<script>`` shows as text and never runs.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from ..validation import (check_array, check_count, check_instance, check_mapping, check_same_length, check_str,
                          check_str_list, describe)
from .text import TOKEN, Analyzer

__all__ = ["snippet", "ranking_table"]

# The table carries its own few styles, inline, so that it reads the same in the book,
# in JupyterLab (a live widget's frame; an untrusted notebook, whose <style> elements
# are removed) and under any theme. They are set on the table, its head and body and
# the striped rows, never on each cell: cells inherit them (text-align, vertical-align)
# or take them from the table (cellpadding), which keeps a widget's many frames light.
# The stripe is a translucent grey, visible on light and dark pages alike.
_TABLE = ' cellpadding="4" style="font-size:0.85em;border-collapse:collapse"'
_HEAD = ' style="text-align:left"'
_BODY = ' style="vertical-align:top"'
_STRIPE = ' style="background:rgba(127,127,127,0.12)"'


def _mark(word: str, terms: set[str], analyzer: Analyzer) -> tuple[str, bool]:
    """Escape ``word`` (one whitespace-free piece of text), wrapping the parts whose
    analysed form is a query term in <mark>; also say whether any part was marked."""
    out, pos, hit = [], 0, False
    for m in TOKEN.finditer(word):
        out.append(html.escape(word[pos : m.start()]))
        part = html.escape(m.group())
        if set(analyzer(m.group())) & terms:
            part, hit = f"<mark>{part}</mark>", True
        out.append(part)
        pos = m.end()
    out.append(html.escape(word[pos:]))
    return "".join(out), hit


def snippet(text: str, terms: set[str], analyzer: Analyzer, width: int = 24) -> str:
    """HTML snippet of ``text``: ``width`` words starting a little before the first
    word whose analysed form is in ``terms``, with every such word in <mark>."""
    check_str("text", text, allow_empty=True)
    terms = set(check_str_list("terms", terms))
    check_instance("analyzer", analyzer, Analyzer)
    width = check_count("width", width, low=1)
    marked = [_mark(w, terms, analyzer) for w in text.split()]
    first = next((i for i, (_, hit) in enumerate(marked) if hit), 0)
    lo = max(0, first - width // 3)
    shown = " ".join(w for w, _ in marked[lo : lo + width])
    return ("… " if lo > 0 else "") + shown + (" …" if lo + width < len(marked) else "")


def ranking_table(
    rows: Sequence[dict],
    scores: Sequence[float],
    terms: Sequence[str],
    analyzer: Analyzer,
    columns: Sequence[str],
    text_column: str = "text",
    caption: str = "",
) -> str:
    """An HTML table: rank, score, the chosen ``columns`` of each row, and a snippet of
    its ``text_column`` with the query's terms marked.

    ``rows`` are dicts (or dataclasses converted with ``dataclasses.asdict``) in rank
    order, ``scores`` their scores (one each). Returns an HTML string.
    """
    if isinstance(rows, (str, bytes, Mapping)) or not isinstance(rows, Sequence):
        raise TypeError(f"rows must be a list of dicts, got {describe(rows)}")
    scores = check_array("scores", scores, ndim=1)
    terms = check_str_list("terms", terms)
    check_instance("analyzer", analyzer, Analyzer)
    columns = check_str_list("columns", columns)
    check_str("text_column", text_column)
    check_str("caption", caption, allow_empty=True)
    check_same_length(rows=rows, scores=scores)
    for i, row in enumerate(rows):
        check_mapping(f"rows[{i}]", row)
        missing = [c for c in (*columns, text_column) if c not in row]
        if missing:
            raise ValueError(f"rows[{i}] has no {missing[0]!r} (a column or the text_column); it has {list(row)}")
        check_str(f"rows[{i}][{text_column!r}]", row[text_column], allow_empty=True)
    term_set = set(terms)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ("rank", "score", *columns, text_column))
    body = []
    for rank, (row, score) in enumerate(zip(rows, scores), start=1):
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in columns)
        text = snippet(row[text_column], term_set, analyzer)
        stripe = _STRIPE if rank % 2 else ""
        body.append(f"<tr{stripe}><td>{rank}</td><td>{score:.3f}</td>{cells}<td>{text}</td></tr>")
    if not body:
        body.append(f'<tr><td colspan="{len(columns) + 3}">no document contains a query term</td></tr>')
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return (f'<table class="mmir-ranking"{_TABLE}>{cap}<thead{_HEAD}><tr>{head}</tr></thead>'
            f'<tbody{_BODY}>{"".join(body)}</tbody></table>')
