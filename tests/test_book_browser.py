"""The built book, opened in headless Chromium from file:// with every outside host
blocked: no outside request, no console error, math typeset and no raw LaTeX left in
the text, images loaded, each page's own content within budget, every interactive
figure responding, every figure with alt text and a caption, nothing wider than the
column (at 1280 px and at phone width) unless it scrolls sideways, solutions hidden
until opened, and the search page showing results (chapters first, no raw LaTeX in
the summaries). Nothing here is timed: how fast the figures respond is measured
by `make bench` (benchmarks/widget_repaint.py).

Needs `make book` first (`make test` does it) and Debian's Chromium. Under CI
(CI=true) a missing Chromium is a failure; elsewhere the test skips and says how to
install it.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path

import pytest

from tests.offline_page import open_offline

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGE_BUDGET = 3_000_000  # bytes of a page's own content: HTML and its own images
SEARCH_WORD = "saturation"  # a word of the BM25 chapter
# Raw LaTeX in a page's visible text: a command, \\( \\[ or $$ delimiters, or a $…$ pair.
RAW_LATEX = re.compile(r"\\[A-Za-z]{2,}|\\\(|\\\[|\$\$|\$[^$\s][^$\n]{0,200}?\$")
# The text a reader reads: typeset math, code, listings and the widgets' data left out.
_PROSE = """a => { const c = a.cloneNode(true);
  c.querySelectorAll('mjx-container, pre, code, script, style, .mmir-widget-data, .highlight')
   .forEach(e => e.remove());
  return c.textContent; }"""

if not Path(CHROMIUM).exists():
    message = "Chromium is not installed: run `apt-get install -y chromium` (Debian) to run the browser test"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)

playwright = pytest.importorskip("playwright.sync_api")


def _pages() -> list[Path]:
    if not (HTML / "index.html").exists():
        pytest.fail("the book is not built: run `make book` first", pytrace=False)
    return sorted(p for p in HTML.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        yield browser
        browser.close()


def _own_weight(page, path: Path) -> int:
    """The page's HTML plus the files of its own images (theme files under _static excluded)."""
    sources = page.eval_on_selector_all("img", "els => els.map(e => e.src)")
    size = path.stat().st_size
    for src in set(sources):
        if src.startswith("file://") and "/_static/" not in src:
            size += Path(src[len("file://"):]).stat().st_size
    return size


def _reads_offline(page, path: Path) -> None:
    """Math typeset and no raw LaTeX left in the text, images loaded, the page's own content within budget."""
    prose = page.eval_on_selector("article", _PROSE) if page.query_selector("article") else ""
    raw = sorted({m.group(0)[:60] for m in RAW_LATEX.finditer(prose)})
    assert raw == [], f"raw LaTeX left in the page's text: {raw[:10]}"
    if page.query_selector(".math"):
        assert page.query_selector("mjx-container"), "math present but MathJax did not typeset it"
    broken = page.eval_on_selector_all(
        "img", "els => els.filter(e => !(e.complete && e.naturalWidth > 0)).map(e => e.src.slice(0, 80))")
    assert broken == [], f"images that did not load: {broken}"
    weight = _own_weight(page, path)
    assert weight <= PAGE_BUDGET, f"page's own content weighs {weight:,} bytes > {PAGE_BUDGET:,}"


_WIDGET_PAGES = [p for p in _pages() if "mmir-widget-data" in p.read_text(encoding="utf-8")]

# The frame a figure shows: the one child of its view that is not hidden.
_SHOWN = "v => [...v.children].filter(c => !c.hidden).map(c => c.innerHTML)"


def _widgets_respond(page) -> None:
    """Every slider of every interactive figure, moved by keyboard to its two ends, shows
    exactly the pre-rendered frame of its position, labelled and announced."""
    widgets = page.query_selector_all(".mmir-widget")
    assert widgets, "page lists widget data but shows no widget"
    for w, widget in enumerate(widgets):
        data = json.loads(widget.query_selector(".mmir-widget-data").text_content())
        assert len(data["index"]) == math.prod(data["shape"]), "frame index does not cover the grid"
        inputs = widget.query_selector_all("input[type=range]")
        view = widget.query_selector(".mmir-widget-frame")
        for s, slider in enumerate(inputs):
            shown_at = {}
            for key, position in (("Home", 0), ("End", data["shape"][s] - 1)):
                slider.focus()
                slider.press(key)
                positions = [int(i.input_value()) for i in inputs]
                assert positions[s] == position, f"widget {w} slider {s}: {key} did not move it"
                expected = data["frames"][data["index"][_flat(positions, data["shape"])]]
                shown = view.evaluate(_SHOWN)
                assert len(shown) == 1, f"widget {w} slider {s} at {key}: {len(shown)} frames shown, not 1"
                assert shown[0] == page.evaluate("h => { const d = document.createElement('div'); "
                                                 "d.innerHTML = h; return d.innerHTML; }", expected), \
                    f"widget {w} slider {s} at {key}: the shown frame is not the pre-rendered one"
                label = widget.query_selector_all("output")[s].text_content()
                assert label == data["labels"][s][position]
                assert slider.get_attribute("aria-valuetext") == data["labels"][s][position], \
                    f"widget {w} slider {s}: a screen reader would not hear the value"
                shown_at[key] = (shown[0], expected)
            (home, home_expected), (end, end_expected) = shown_at["Home"], shown_at["End"]
            if home_expected != end_expected:
                assert home != end, f"widget {w} slider {s}: the frame did not change from min to max"


def _search(page, word: str) -> list[tuple[str, str]]:
    """The search page's results for ``word``: (address, summary) of each, in order."""
    page.goto((HTML / "search.html").as_uri() + f"?q={word}", wait_until="load")
    page.wait_for_function("() => document.querySelectorAll('#search-results li').length > 0 && "
                           "document.querySelector('#search-results').textContent.includes('found')",
                           timeout=10_000)
    page.wait_for_timeout(300)
    results = page.eval_on_selector_all(
        "#search-results li", "els => els.map(e => [e.querySelector('a').getAttribute('href'), "
        "(e.querySelector('p.context') || {textContent: ''}).textContent])")
    return results


def test_search_shows_results_offline(browser):
    """search.html?q=<a word of the book> lists real pages with a summary around the
    word, fetching nothing (from file:// a browser refuses fetches and logs errors)."""
    page, outside, errors = open_offline(browser, HTML / "search.html")
    try:
        results = _search(page, SEARCH_WORD)
        assert results, f"no result for {SEARCH_WORD!r}"
        for href, summary in results:
            assert (HTML / href.split("#")[0]).exists(), f"result {href} is not a page of the book"
        assert any(SEARCH_WORD in summary.lower() for _, summary in results), \
            f"no summary shows {SEARCH_WORD!r}: {results[:3]}"
        assert outside == [], f"requests to outside hosts: {outside}"
        assert errors == [], f"console errors: {errors}"
    finally:
        page.close()


def _flat(positions, shape):
    flat = 0
    for j, n in zip(positions, shape):
        flat = flat * n + j
    return flat


_CHAPTERS = [p for p in _pages() if "notebooks" in p.parts]

# Every <img> of the article, and whether it is a static figure (an output image, not
# one of an interactive figure's frames) in a <figure> with a non-empty <figcaption>.
_IMAGES = """a => [...a.querySelectorAll('img')].map(i => {
  const f = i.closest('figure'), c = f && f.querySelector('figcaption');
  return {src: i.getAttribute('src').split('/').pop().slice(0, 16), alt: (i.getAttribute('alt') || '').trim(),
          widget: !!i.closest('.mmir-widget'), caption: c ? c.textContent.trim() : ''}; })"""


def _figures_have_alt_text_and_caption(page) -> None:
    images = page.eval_on_selector("article", _IMAGES)
    # Without alt text in the metadata, docutils writes the image's address as its alt.
    no_alt = [i["src"] for i in images if not i["alt"] or i["alt"].endswith((".png", ".jpg", ".svg"))
              or i["alt"].startswith("<Figure")]
    no_caption = [i["src"] for i in images if not i["widget"] and not i["caption"]]
    assert no_alt == [], f"{len(no_alt)} of {len(images)} images without alt text: {no_alt[:5]}"
    assert no_caption == [], f"{len(no_caption)} static figures not in a <figure> with a caption: {no_caption[:5]}"


# Elements of the article wider than their column (or starting left of it), unless an
# ancestor inside the column scrolls sideways (overflow-x auto or scroll). Clipping
# (overflow hidden) does not count: the reader would not know that something is cut off.
# A margin note (aside) is a column of its own: what is in it must fit the note. Math
# counts inline too (a long formula in a sentence is cut off as surely as a display).
_SPILLS = """a => { const out = [];
  const inner = el => { const b = el.getBoundingClientRect(), s = getComputedStyle(el);
    const box = {left: b.left + parseFloat(s.paddingLeft), right: b.right - parseFloat(s.paddingRight)};
    box.width = box.right - box.left; return box; };
  const article = inner(a);
  for (const e of a.querySelectorAll('table, pre, img, mjx-container, .cell_output > *, .mmir-widget')) {
    const r = e.getBoundingClientRect(), note = e.closest('aside'), box = note ? inner(note) : article;
    const fits = r => r.left >= box.left - 1 && r.right <= box.right + 1;
    if (r.width === 0 || fits(r)) continue;
    if (e.tagName === 'MJX-CONTAINER' && e.parentElement.closest('mjx-container')) continue;
    let p = e, scrolls = false;
    while (p && p !== a) {
      const s = getComputedStyle(p);
      if ((s.overflowX === 'auto' || s.overflowX === 'scroll') && fits(p.getBoundingClientRect())) {
        scrolls = true; break; }
      p = p.parentElement;
    }
    if (!scrolls) out.push(`${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ` +
                           `${Math.round(r.width)} px in a ${Math.round(box.width)} px ${note ? 'margin note' : 'column'}`);
  }
  return out; }"""


# The column's width and the full width of every table in it (scrolled part included).
_TABLE_WIDTHS = """a => { const s = getComputedStyle(a);
  return [Math.round(a.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight)),
          [...a.querySelectorAll('table')].filter(t => t.offsetParent).map(t => Math.round(t.scrollWidth))]; }"""


def _nothing_spills_out_of_the_column(page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    for _ in range(20):  # MathJax and mmir-math.js re-lay the formulas out after a resize: on a busy machine, later
        page.wait_for_timeout(250)
        spills = page.eval_on_selector("article", _SPILLS)
        if not spills:
            break
    assert spills == [], f"at {width} px, wider than the column and not scrollable: {spills[:8]}"
    page_width = page.evaluate("document.documentElement.scrollWidth")
    assert page_width <= width + 1, f"at {width} px the page scrolls sideways ({page_width} px wide)"
    if width >= 1000:  # on a desktop, every table fits the column without scrolling
        column, widths = page.eval_on_selector("article", _TABLE_WIDTHS)
        wide = [w for w in widths if w > column + 1]
        assert wide == [], f"at {width} px, tables wider than the {column} px column: {wide}"


_SOLUTION_PAGE = HTML / "notebooks" / "ir" / "03-bm25.html"


def test_solutions_hidden_until_opened(browser):
    """A closed solution shows neither its code nor its printed answer; opened, both."""
    page, outside, errors = open_offline(browser, _SOLUTION_PAGE)
    try:
        boxes = page.query_selector_all(".admonition.dropdown")
        with_cell = [b for b in boxes if b.query_selector(".cell_input")]
        assert with_cell, "no solution holds its code cell"
        loose = page.eval_on_selector_all(
            ".admonition.dropdown + .cell.tag_hide-input", "els => els.length")
        assert loose == 0, f"{loose} solution cells left outside their dropdown"
        for box in with_cell[:3]:
            code, output = box.query_selector(".cell_input pre"), box.query_selector(".cell_output")
            assert not code.is_visible(), "the closed solution shows its code"
            assert output is None or not output.is_visible(), "the closed solution shows its answer"
            box.query_selector(".admonition-title").click()
            page.wait_for_timeout(300)
            assert code.is_visible(), "the opened solution does not show its code"
            assert output is None or output.is_visible(), "the opened solution does not show its answer"
        assert outside == [] and errors == [], (outside, errors)
    finally:
        page.close()


@pytest.mark.parametrize("word, first", [("bm25", "notebooks/ir/03-bm25"), ("gaussian", None), ("sigma", None),
                                         ("attention", "notebooks/deep/06-attention")])
def test_search_ranks_chapters_first_without_latex(browser, word, first):
    """Chapters before the back matter, a chapter whose title names the word first of
    all, and summaries as plain text: no raw LaTeX, no space before punctuation."""
    page, outside, errors = open_offline(browser, HTML / "search.html")
    try:
        results = _search(page, word)
        assert results, f"no result for {word!r}"
        if first:
            assert results[0][0].startswith(first), f"for {word!r} {results[0][0]} ranks above {first}"
        loose = [m for _, summary in results for m in re.findall(r"\w [,.;:)\]]|[(\[] \w", summary)]
        assert loose == [], f"search summaries with a space before punctuation for {word!r}: {loose[:5]}"
        chapters = [i for i, (href, _) in enumerate(results) if href.startswith("notebooks/")]
        others = [i for i, (href, _) in enumerate(results) if not href.startswith("notebooks/")]
        assert chapters and (not others or max(chapters) < min(others)), \
            f"for {word!r} a page of the back matter ranks above a chapter: {[h for h, _ in results[:6]]}"
        raw = [(href, m.group(0)) for href, summary in results for m in RAW_LATEX.finditer(summary)]
        assert raw == [], f"search summaries with raw LaTeX for {word!r}: {raw[:5]}"
        assert outside == [] and errors == [], (outside, errors)
    finally:
        page.close()


# Results tables (mmir_lib.tables) wider than their box, and scroll boxes a keyboard
# cannot reach (no tabindex: Tab never lands on them, so arrows cannot scroll them).
_TABLE_BOXES = """() => [...document.querySelectorAll('.mmir-table, .mmir-widget-frame')]
  .filter(b => b.offsetParent && b.scrollWidth > b.clientWidth + 1)
  .map(b => [b.className, b.clientWidth, b.scrollWidth, b.getAttribute('tabindex')])"""


def _tables_fit_in_dark_mode_and_scroll_boxes_take_the_keyboard(page) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    page.evaluate("document.documentElement.dataset.theme = 'dark'")
    page.wait_for_timeout(200)
    boxes = page.evaluate(_TABLE_BOXES)
    assert [b for b in boxes if b[0] == "mmir-table"] == [], f"dark mode: tables wider than their box: {boxes}"
    page.set_viewport_size({"width": 390, "height": 900})
    page.wait_for_timeout(200)
    page.evaluate("window.dispatchEvent(new Event('load'))")
    unreachable = [b for b in page.evaluate(_TABLE_BOXES) if b[3] != "0"]
    assert unreachable == [], f"at 390 px, scroll boxes a keyboard cannot reach: {unreachable[:5]}"
    page.evaluate("document.documentElement.dataset.theme = 'light'")
    page.set_viewport_size({"width": 1280, "height": 900})


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(HTML)))
def test_page(browser, path):
    """Each page is opened once (a chapter takes seconds to load and typeset) and every
    check runs on it in turn: it reads offline; its figures have alt text and captions;
    nothing spills out of the column at 1280 px or at a phone's 390 px; its results
    tables fit in dark mode and its scroll boxes take the keyboard; its interactive
    figures respond (last: it moves their sliders). Each assertion names its check."""
    page, outside, errors = open_offline(browser, path)
    try:
        assert outside == [], f"requests to outside hosts: {outside}"
        assert errors == [], f"console errors: {errors}"
        _reads_offline(page, path)
        if page.query_selector("article"):
            if path in _CHAPTERS:
                _figures_have_alt_text_and_caption(page)
            for width in (1280, 390):
                _nothing_spills_out_of_the_column(page, width)
            if path in _CHAPTERS:
                _tables_fit_in_dark_mode_and_scroll_boxes_take_the_keyboard(page)
        if path in _WIDGET_PAGES:
            _widgets_respond(page)
        assert outside == [] and errors == [], (outside, errors)
    finally:
        page.close()
