"""Code listings in the chapters: the lines that carry the idea, not the guard rails.

A chapter shows the library code it teaches, as d2l does. Printing a whole function
with ``inspect.getsource`` shows its full docstring and its argument checks, which
the reader does not need in order to follow the algorithm. :func:`show_code` prints

* the signature,
* the docstring's summary (its first paragraph; the rest is in the library),
* the body without its leading argument checks: statements that call a validator
  (a function whose name starts with ``check_`` or ``_check_``, see
  :mod:`mmir_lib.validation`) or ``if ...: raise`` blocks, replaced by one comment,
* optionally only the part between two lines (``between=("first", "last")``),
  with ``# ...`` where lines were left out,

with a caption naming the function and its file, so the reader can open the full
source. The listing is syntax-highlighted with inline styles, so it
looks the same in JupyterLab and in the book.

Example (in a notebook cell)::

    show_code(saturation)
    show_code(bm25_scores, between=("impacts =", "return"))
"""

from __future__ import annotations

import ast
import html
import inspect
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .validation import check_bool, check_callable, check_instance, check_str

__all__ = ["Listing", "show_code"]

CHECKS_COMMENT = "# (argument checks left out: see the full source)"
ELISION = "# ..."
#: Longest line of a compacted signature (the book's code lines are at most 120 characters).
WIDTH = 110


@dataclass(frozen=True)
class Listing:
    """A piece of source code with a caption; displays highlighted in Jupyter and the book."""

    code: str
    caption: str

    def __repr__(self) -> str:
        return f"# {self.caption}\n{self.code}"

    def _repr_html_(self) -> str:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer

        formatter = HtmlFormatter(noclasses=True, nobackground=True, style="default")
        body = highlight(self.code, PythonLexer(), formatter)
        return (f'<figure class="mmir-listing" style="margin:.5em 0">{body}'
                f'<figcaption style="font-size:85%;color:#57606a">{html.escape(self.caption)}</figcaption></figure>')


def _is_check(statement: ast.stmt) -> bool:
    """An argument check: a call to check_*/_check_* (bare, assigned, or a tuple of such
    calls assigned at once), or ``if ...: raise``."""
    if isinstance(statement, ast.If):
        return all(isinstance(s, ast.Raise) for s in statement.body) and not statement.orelse
    value = getattr(statement, "value", None)
    if not isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign)):
        return False
    calls = value.elts if isinstance(value, ast.Tuple) else [value]  # x, y = check_a(...), check_b(...)
    return bool(calls) and all(isinstance(call, ast.Call) and _is_check_call(call) for call in calls)


def _is_check_call(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name.startswith(("check_", "_check_"))


def _docstring_summary(node: ast.AST) -> list[str] | None:
    """The docstring's summary: its first paragraph, as lines (a summary that runs over
    two lines is shown whole, never cut off mid-sentence)."""
    doc = ast.get_docstring(node, clean=True)
    if not doc:
        return None
    paragraph = doc.strip().split("\n\n")[0]
    return [line.strip() for line in paragraph.splitlines()]


def _compact_signature(lines: list[str], node: ast.AST) -> None:
    """Set a signature written one parameter per line into as few lines as fit
    :data:`WIDTH`, broken only after a top-level comma (in place: the first line gets
    the signature, the others become empty strings, dropped later)."""
    first = next(i for i in range(node.lineno - 1, len(lines)) if lines[i].lstrip().startswith(("def ", "async def ")))
    last = node.body[0].lineno - 2
    while last > first and not lines[last].rstrip().endswith(":"):
        last -= 1
    if last == first:
        return
    indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
    text = " ".join(line.strip() for line in lines[first:last + 1])
    text = text.replace("( ", "(").replace(", )", ")").replace(",)", ")")
    pieces, depth, start = [], 0, 0
    for i, char in enumerate(text):  # split after each comma outside brackets
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 1:
            pieces.append(text[start:i + 1])
            start = i + 2
    pieces.append(text[start:])
    opening = indent + " " * (text.index("(") + 1)
    out = [indent + pieces[0]]
    for piece in pieces[1:]:
        if len(out[-1]) + 1 + len(piece) <= WIDTH:
            out[-1] += " " + piece
        else:
            out.append(opening + piece)
    lines[first] = "\n".join(out)
    for i in range(first + 1, last + 1):
        lines[i] = None


def show_code(obj, *, between: tuple[str, str] | None = None, checks: bool = False) -> Listing:
    """The source of a library function (or class) as a :class:`Listing`.

    Parameters
    ----------
    obj : function, method or class
        What to show.
    between : (str, str), optional
        Show only the lines from the first one containing ``between[0]`` through the
        first one after it containing ``between[1]`` (the signature and summary are
        kept; left-out lines become ``# ...``).
    checks : bool
        Keep the leading argument checks (left out by default).

    Returns
    -------
    Listing
        Displays as highlighted code with a caption; ``repr`` gives the plain text.
    """
    check_callable("obj", obj)
    check_bool("checks", checks)
    obj = inspect.unwrap(obj)  # the function inside a decorator such as functools.lru_cache
    if between is not None:
        check_instance("between", between, tuple)
        if len(between) != 2:
            raise ValueError(f"between must be a pair (first, last) of str, got {between!r}")
        for text in between:
            check_str("between", text)
    try:
        lines, _ = inspect.getsourcelines(obj)
    except (OSError, TypeError) as error:
        raise TypeError(f"obj has no Python source to show ({error})") from None
    source = textwrap.dedent("".join(lines))
    node = ast.parse(source).body[0]
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        raise TypeError(f"obj must be a function or a class, got {type(obj).__name__}")
    lines = source.splitlines()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
        _compact_signature(lines, node)
    dropped, comment_at = set(), None
    dropped.update(i for i, line in enumerate(lines) if line is None)
    body = list(node.body)
    summary = _docstring_summary(node)
    if summary is not None:
        doc = body.pop(0)
        dropped.update(range(doc.lineno - 1, doc.end_lineno))
        indent = " " * doc.col_offset
        lines[doc.lineno - 1] = "\n".join(f"{indent}{line}" for line in [f'"""{summary[0]}', *summary[1:]]) + '"""'
        dropped.discard(doc.lineno - 1)
    if not checks and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        while body and _is_check(body[0]):
            statement = body.pop(0)
            if comment_at is None:
                comment_at = statement.lineno - 1
                lines[comment_at] = " " * statement.col_offset + CHECKS_COMMENT
            dropped.update(range(statement.lineno - 1, statement.end_lineno))
            dropped.discard(comment_at)
    kept = [i for i in range(len(lines)) if i not in dropped]
    if between is not None:
        head_end = (body[0].lineno - 1) if body else len(lines)  # signature, summary and checks comment
        start = next((i for i in kept if i >= head_end and between[0] in lines[i]), None)
        if start is None:
            raise ValueError(f"between: no line of {obj.__qualname__} contains {between[0]!r}")
        stop = next((i for i in kept if i >= start and between[1] in lines[i]), None)
        if stop is None:
            raise ValueError(f"between: no line of {obj.__qualname__} after {between[0]!r} contains {between[1]!r}")
        indent = lines[start][: len(lines[start]) - len(lines[start].lstrip())]
        middle = [i for i in kept if start <= i <= stop]
        head = [i for i in kept if i < head_end]
        shown = [lines[i] for i in head]
        if middle[0] > (head[-1] + 1 if head else 0):
            shown.append(indent + ELISION)
        shown += [lines[i] for i in middle]
        if any(i > stop for i in kept):
            shown.append(indent + ELISION)
    else:
        shown = [lines[i] for i in kept]
    path = Path(inspect.getsourcefile(obj))
    parts = path.parts
    where = "/".join(parts[parts.index("mmir_lib"):]) if "mmir_lib" in parts else path.name
    left_out = [what for what, done in (("docstring", summary is not None),
                                         ("argument checks", comment_at is not None)) if done]
    caption = f"{obj.__module__}.{obj.__qualname__} ({where})"
    if left_out:
        caption += "; " + " and ".join(left_out) + " shortened"
    return Listing("\n".join(shown), caption)
