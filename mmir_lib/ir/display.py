"""Showing rankings to a reader: an HTML table of results with matched words marked.

All corpus text is escaped (``html.escape``) before it is put in the table, so a
document that contains ``<script>`` shows as text and never runs.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .text import TOKEN, Analyzer

__all__ = ["snippet", "ranking_table"]

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
    order, ``scores`` their scores. Returns an HTML string.
    """
    term_set = set(terms)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in ("rank", "score", *columns, text_column))
    body = []
    for rank, (row, score) in enumerate(zip(rows, scores), start=1):
        cells = "".join(f"<td>{html.escape(str(row[c]))}</td>" for c in columns)
        text = snippet(row[text_column], term_set, analyzer)
        body.append(f"<tr><td>{rank}</td><td>{score:.3f}</td>{cells}<td>{text}</td></tr>")
    if not body:
        body.append(f'<tr><td colspan="{len(columns) + 3}">no document contains a query term</td></tr>')
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    # Styled by the book's stylesheet (book/_assets/mmir.css), class "mmir-ranking".
    return (f'<table class="mmir-ranking">{cap}<thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(body)}</tbody></table>')
