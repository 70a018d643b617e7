"""Every frame of every interactive figure stored in the notebooks is right.

The book shows the notebooks' stored outputs, so an interactive figure's frames are
read here exactly as the book gets them: from each output's ``text/html``, the JSON
block of frames that the page's script swaps in. A frame that holds an error, an
index that points at no frame or an image without alt text fails the test, naming the
notebook, the figure and the slider values where it happens. A frame image wider than
the column fails too: the browser would scale it down, and its text below a readable
size (:func:`mmir_lib.plotting.fit_to_column` prevents it when the notebook runs).

:func:`mmir_lib.widgets.interactive` itself raises when a grid point errors, so a
notebook executed today cannot store an error frame; this test guards what is stored.
"""

import html
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from mmir_lib.plotting import COLUMN_PX

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").rglob("*.ipynb"))
DATA = re.compile(r'<script type="application/json" class="mmir-widget-data">(.*?)</script>', re.S)
ERROR_MARKS = ("mmir-widget-error", "Traceback", "Error at")
IMAGE = re.compile(r"<img\b[^>]*>")


def stored_widgets(path: Path):
    """(cell number, title, data) of each interactive figure stored in a notebook."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(notebook["cells"]):
        for output in cell.get("outputs", []):
            text = output.get("data", {}).get("text/html")
            text = "".join(text) if isinstance(text, list) else text
            if not text or 'class="mmir-widget' not in text:
                continue
            caption = re.search(r"<figcaption[^>]*>(.*?)</figcaption>", text, re.S) \
                or re.search(r'class="mmir-widget"[^>]*aria-label="([^"]*)"', text)
            title = html.unescape(caption.group(1)) if caption else "(untitled)"
            block = DATA.search(text)
            assert block, f"cell {number}: an interactive figure without its frame data"
            yield number, title, text, json.loads(block.group(1).replace("<\\/", "</"))


def frame_problems(data: dict) -> list[str]:
    """What is wrong with one figure's frame data, each naming the slider values."""
    shape, labels, index, frames = data["shape"], data["labels"], data["index"], data["frames"]
    if [len(values) for values in labels] != shape:
        return [f"labels {[len(values) for values in labels]} do not match the grid's shape {shape}"]
    if len(index) != math.prod(shape):
        return [f"{len(index)} grid points indexed, the grid has {math.prod(shape)}"]
    if "alts" in data and len(data["alts"]) != len(index):
        return [f"{len(data['alts'])} alt texts for {len(index)} grid points"]
    problems = []
    for flat, f in enumerate(index):
        point = ", ".join(values[j] for values, j in zip(labels, np.unravel_index(flat, shape)))
        if not (isinstance(f, int) and 0 <= f < len(frames)):
            problems.append(f"at ({point}): frame index {f!r} is out of range (0 to {len(frames) - 1})")
            continue
        frame = frames[f]
        for mark in ERROR_MARKS:
            if mark in frame:
                excerpt = re.sub(r"<[^>]+>", "", frame)[:160]
                problems.append(f"at ({point}): the frame shows an error ({mark!r}): {excerpt}")
                break
        for image in IMAGE.findall(frame):
            alt = re.search(r'\balt="([^"]*)"', image)
            if not alt or not alt.group(1).strip():
                problems.append(f"at ({point}): an image without alt text")
    return problems


def too_wide(data: dict) -> set[int]:
    """The widths (px) of a figure's frame images that are wider than the column."""
    widths = (re.search(r'\bwidth="(\d+)"', image) for frame in data["frames"] for image in IMAGE.findall(frame))
    return {int(w.group(1)) for w in widths if w and int(w.group(1)) > COLUMN_PX}


def test_there_are_stored_widgets_to_check():
    assert sum(1 for path in NOTEBOOKS for _ in stored_widgets(path)) >= 10


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(ROOT / "notebooks")) for p in NOTEBOOKS])
def test_every_frame_of_every_stored_widget_is_right(path):
    problems = []
    for number, title, text, data in stored_widgets(path):
        shown = re.search(r'<div class="mmir-widget-frame"[^>]*><div data-frame="(\d+)">', text)
        if not shown or int(shown.group(1)) >= len(data["frames"]):
            problems.append(f"cell {number}, {title!r}: the first frame shown is not one of its frames")
        problems += [f"cell {number}, {title!r} {problem}" for problem in frame_problems(data)]
    assert not problems, f"{len(problems)} bad frames:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[str(p.relative_to(ROOT / "notebooks")) for p in NOTEBOOKS])
def test_stored_widget_frames_fit_the_column(path):
    wide = [f"cell {number}, {title!r}: frames {sorted(too_wide(data))} px wide"
            for number, title, _, data in stored_widgets(path) if too_wide(data)]
    assert not wide, (f"frame images wider than the column ({COLUMN_PX} px) are scaled down by the browser, "
                      "text included; re-execute the notebook (frames are fitted when made):\n" + "\n".join(wide))


# ---- the checker itself ------------------------------------------------------------

def good_data():
    return {"shape": [2, 2], "labels": [["0", "1"], ["a", "b"]], "index": [0, 1, 1, 0],
            "frames": ['<img src="data:image/png;base64,AAAA" width="600" height="200" alt="a curve">', "<p>ok</p>"]}


def test_the_checker_passes_good_frames():
    assert frame_problems(good_data()) == []


@pytest.mark.parametrize("change, message", [
    (lambda d: d["frames"].__setitem__(1, '<div class="mmir-widget-error">Error at k1 = 2: ValueError</div>'),
     "at (0, b): the frame shows an error ('mmir-widget-error')"),
    (lambda d: d["frames"].__setitem__(1, "<pre>Traceback (most recent call last):</pre>"),
     "at (0, b): the frame shows an error ('Traceback')"),
    (lambda d: d["index"].__setitem__(3, 2), "at (1, b): frame index 2 is out of range (0 to 1)"),
    (lambda d: d["index"].pop(), "3 grid points indexed, the grid has 4"),
    (lambda d: d["frames"].__setitem__(0, '<img src="x.png" width="600">'), "at (0, a): an image without alt text"),
    (lambda d: d["frames"].__setitem__(0, '<img src="x.png" alt=" ">'), "at (0, a): an image without alt text"),
])
def test_the_checker_finds_each_kind_of_bad_frame(change, message):
    data = good_data()
    change(data)
    assert any(problem.startswith(message) for problem in frame_problems(data)), frame_problems(data)


def test_the_checker_finds_frames_wider_than_the_column():
    data = good_data()
    assert too_wide(data) == set()
    data["frames"].append('<img src="x.png" width="768" height="200" alt="wide">')
    assert too_wide(data) == {768}
