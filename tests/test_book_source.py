"""Checks on the book's sources (notebooks and book/*.md) that need no build:

* no wrapped line inside inline or display math starts with a list marker
  (``* ``, ``+ ``, ``- `` or ``1. ``): Markdown makes it a bullet, and the math around
  it shows as raw LaTeX;
* every static figure (a code cell with an image output) carries alt text and a
  caption in its metadata (``mystnb.image.alt``, ``mystnb.figure.caption``), which
  myst-nb renders as the image's ``alt`` and a ``<figcaption>``; and a cell has one
  image at most and no HTML output beside it (myst-nb would give both the same caption,
  alt text and name);
* every solution cell (tagged ``hide-input``) is folded in JupyterLab too
  (``jupyter.source_hidden`` and ``outputs_hidden``);
* no printed output shows floating-point residue as a measurement: a difference, error
  or largest |…| printed as ``0``, ``0.0e+00`` or ``4e-16`` is zero in algebra, and its
  printed digits depend on the CPU (IV.4 printed ``0`` on Intel and ``4e-17`` on AMD,
  where MKL takes another code path that no setting reproduces on Intel). Print that it
  holds to a tolerance instead ("below 1e-12: True").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").rglob("*.ipynb"))
NOTEBOOKS = [p for p in NOTEBOOKS if ".ipynb_checkpoints" not in p.parts]
PAGES = sorted((ROOT / "book").glob("*.md"))
_MARKER = re.compile(r"[*+-] |\d+[.)] ")
# A fence of code (```python, ```, ```{code-cell}, ```{math}) holds no Markdown; a
# directive's fence (```{admonition}) holds Markdown, which is checked.
_FENCE = re.compile(r"^\s*(```+|~~~+)\s*(\{[\w-]+\})?")
_VERBATIM = (None, "{code-cell}", "{code-block}", "{code}", "{math}", "{raw}")


# A measured quantity ("difference", "error", "largest |x − y|"), then within a few
# characters a number: a bare zero in a format that would show a residue (``0``, ``0.0``,
# ``0e+00``; fixed decimals such as ``0.000`` are stable and pass) or a residue below 1e-9.
_RESIDUE = re.compile(
    r"\b(?:differ\w*|error\w*|residu\w*|deviation\w*|gap|largest|smallest|max\w*|min\w*)"
    r"(?P<between>(?:\|[^|\n]{1,40}\||[^\n\d|]){0,40}?)"
    r"(?<![\w.\-])(?P<number>-?\d+(?:\.\d*)?(?:e[+-]?\d+)?)(?![\w./])", re.I)
_TOLERANCE = re.compile(r"(?:below|within|under|above|to|than|<|>|≤|≥|tolerance)\s*$", re.I)


def printed_residues(text: str) -> list[str]:
    """The numbers in ``text`` that print floating-point residue as a measurement.

    A number after "below", "within", "to", "<" … is a tolerance, not a measurement.
    """
    found = []
    for match in _RESIDUE.finditer(text):
        number = match.group("number")
        if _TOLERANCE.search(match.group("between")):
            continue
        value = float(number)
        bare_zero = value == 0 and ("e" in number.lower() or re.fullmatch(r"-?0(?:\.0?)?", number))
        if bare_zero or 0 < abs(value) < 1e-9:
            found.append(number)
    return found


def _cells(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def markers_in_math(text: str) -> list[str]:
    """Lines that start with a list marker while a ``$…$`` or ``$$…$$`` span is open.

    Code fences and inline code spans are skipped; ``\\$`` is a dollar sign, not math.
    A paragraph break (blank line) closes an inline span, as it does in Markdown. Display
    math whose ``$$`` opens a line is a block of its own, where such lines are harmless.
    """
    found, math, block, fence = [], None, False, None  # math: None, "$" or "$$"
    for number, line in enumerate(text.split("\n"), start=1):
        opened = _FENCE.match(line) if math is None else None
        if opened and fence is None:
            if opened.group(2) in _VERBATIM:
                fence = opened.group(1)
            continue
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        if opened:  # the closing fence of a directive
            continue
        if not line.strip() and math is not None and not block:
            math = None
        if math is not None and not block and _MARKER.match(line.lstrip()):
            found.append(f"line {number}: {line.strip()[:70]}")
        i = 0
        while i < len(line):
            c = line[i]
            if c == "\\":
                i += 2
                continue
            if c == "`" and math is None:
                end = line.find("`", i + 1)
                i = len(line) if end < 0 else end + 1
                continue
            if c == "$":
                token = "$$" if line.startswith("$$", i) else "$"
                if math is None:
                    math, block = token, token == "$$" and not line[:i].strip()
                elif math == token:
                    math, block = None, False
                i += len(token)
                continue
            i += 1
    return found


def test_the_math_check_finds_a_bullet_inside_math():
    assert markers_in_math("where $a\n+ b$ is") == ["line 2: + b$ is"]
    assert markers_in_math("so $$x = a\n- b$$ holds") == ["line 2: - b$$ holds"]
    assert markers_in_math("$$\nx = a\n- b\n$$") == []  # a display block: not a list
    assert markers_in_math("```{admonition} Solution\n:class: dropdown\n$a\n* b$\n```") == ["line 4: * b$"]
    assert markers_in_math("a list\n- $x$ first\n- $y$ second") == []
    assert markers_in_math("costs \\$5 and\n- a bullet") == []
    assert markers_in_math("```\n$x\n- y\n```") == []
    assert markers_in_math("`$` sign\n- item") == []


def _markdown_sources():
    for path in NOTEBOOKS:
        for c, cell in enumerate(_cells(path)):
            if cell["cell_type"] == "markdown":
                yield f"{path.relative_to(ROOT)} cell {c}", _source(cell)
    for path in PAGES:
        yield str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")


def test_no_line_inside_math_starts_with_a_list_marker():
    bad = [f"{where}, {line}" for where, text in _markdown_sources() for line in markers_in_math(text)]
    assert not bad, ("a wrapped line inside $…$ starts with a list marker (Markdown makes it a bullet "
                     "and the math shows raw); re-wrap so the operator ends the previous line:\n"
                     + "\n".join(bad))


def _has_image(cell) -> int:
    return sum(1 for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))


def figure_problems(cells) -> list[str]:
    """Figure cells without alt text or caption, or with more than one image."""
    problems = []
    for c, cell in enumerate(cells):
        if cell["cell_type"] != "code" or not _has_image(cell):
            continue
        mystnb = cell.get("metadata", {}).get("mystnb", {})
        alt = (mystnb.get("image") or {}).get("alt", "")
        caption = (mystnb.get("figure") or {}).get("caption", "")
        lacks = [name for name, value in (("alt text", alt), ("caption", caption)) if not str(value).strip()]
        if _has_image(cell) > 1:
            # myst-nb wraps each image output in its own <figure>, with the same caption
            # and alt text; a figure name then is a duplicate target (a build warning).
            problems.append(f"cell {c}: {_has_image(cell)} images; one figure per cell (draw them as subplots)")
        if any("text/html" in out.get("data", {}) for out in cell.get("outputs", [])):
            # myst-nb gives the cell's figure name to the HTML output too (a listing, a
            # table): the name becomes a duplicate target, a build warning
            problems.append(f"cell {c}: an image and an HTML output; put the HTML in a cell of its own")
        if lacks:
            problems.append(f"cell {c} (execution count {cell.get('execution_count')}): no {' and no '.join(lacks)}")
    return problems


def test_the_figure_check_accepts_a_described_figure_only():
    image = {"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}
    described = {"mystnb": {"figure": {"caption": "Recall rises.", "name": "fig-r"},
                            "image": {"alt": "A line plot of recall against k."}}}
    cell = {"cell_type": "code", "execution_count": 3, "metadata": described, "outputs": [image]}
    assert figure_problems([cell]) == []
    assert figure_problems([{**cell, "metadata": {}}]) == ["cell 0 (execution count 3): no alt text and no caption"]
    no_alt = {"mystnb": {"figure": described["mystnb"]["figure"], "image": {"alt": " "}}}
    assert figure_problems([{**cell, "metadata": no_alt}]) == ["cell 0 (execution count 3): no alt text"]
    assert len(figure_problems([{**cell, "outputs": [image, image]}])) == 1
    listing = {"output_type": "display_data", "data": {"text/html": "<figure>", "text/plain": "code"}}
    assert len(figure_problems([{**cell, "outputs": [listing, image]}])) == 1


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_figure_has_alt_text_and_a_caption(path):
    missing = figure_problems(_cells(path))
    assert not missing, ("figures without alt text or caption (set metadata.mystnb.image.alt and "
                         "metadata.mystnb.figure.caption):\n" + "\n".join(missing))


def test_the_residue_check_finds_printed_zeros_and_residues_only():
    assert printed_residues("largest difference between two hidden units 0, loss 2.29") == ["0"]
    assert printed_residues("largest |D(P ‖ P)|: 0.0e+00 bits") == ["0.0e+00"]
    assert printed_residues("character, order 7: largest |sum − 1| = 4e-16") == ["4e-16"]
    assert printed_residues("largest difference below 1e-12: True") == []
    assert printed_residues("agree within 1e-12; largest rounding error 0.000") == []
    assert printed_residues("largest difference between two hidden units 1, loss 0.45") == []
    assert printed_residues("its softmax is 0/0; pages that differ by more than 1e-10: 0 of 106") == []


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_printed_output_shows_floating_point_residue(path):
    shown = []
    for index, cell in enumerate(_cells(path)):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = output.get("text", "")
                text = "".join(text) if isinstance(text, list) else text
                shown += [f"cell {index}: {line.strip()}" for line in text.splitlines() if printed_residues(line)]
    assert not shown, ("printed floating-point residue (zero in algebra, CPU-dependent digits); print that it "
                       "holds to a tolerance instead:\n" + "\n".join(shown))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_solutions_are_folded_in_jupyterlab(path):
    """A solution's code cell (tagged hide-input: the book moves it into its dropdown) is
    folded in JupyterLab too, input and output (`tools/execute_notebooks.py` sets it)."""
    open_cells = [index for index, cell in enumerate(_cells(path))
                  if "hide-input" in cell.get("metadata", {}).get("tags", [])
                  and not (cell["metadata"].get("jupyter", {}).get("source_hidden")
                           and cell["metadata"].get("jupyter", {}).get("outputs_hidden"))]
    assert open_cells == [], f"solution cells not folded in JupyterLab (run `make execute`): {open_cells}"
