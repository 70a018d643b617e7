"""The built book, opened in headless Chromium from file:// with every outside host
blocked: no outside request, no console error, math typeset, images loaded, each
page's own content within budget, every interactive figure responding, and the search
page showing results. Nothing here is timed: how fast the figures respond is measured
by `make bench` (benchmarks/widget_repaint.py).

Needs `make book` first (`make test` does it) and Debian's Chromium. Under CI
(CI=true) a missing Chromium is a failure; elsewhere the test skips and says how to
install it.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from tests.offline_page import open_offline

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PAGE_BUDGET = 3_000_000  # bytes of a page's own content: HTML and its own images
SEARCH_WORD = "saturation"  # a word of the BM25 chapter

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


@pytest.mark.parametrize("path", _pages(), ids=lambda p: str(p.relative_to(HTML)))
def test_page_reads_offline(browser, path):
    page, outside, errors = open_offline(browser, path)
    try:
        assert outside == [], f"requests to outside hosts: {outside}"
        assert errors == [], f"console errors: {errors}"
        text = page.inner_text("article") if page.query_selector("article") else ""
        assert "\\(" not in text and "\\[" not in text and "$$" not in text, "raw LaTeX left on the page"
        if page.query_selector(".math"):
            assert page.query_selector("mjx-container"), "math present but MathJax did not typeset it"
        broken = page.eval_on_selector_all(
            "img", "els => els.filter(e => !(e.complete && e.naturalWidth > 0)).map(e => e.src.slice(0, 80))")
        assert broken == [], f"images that did not load: {broken}"
        weight = _own_weight(page, path)
        assert weight <= PAGE_BUDGET, f"page's own content weighs {weight:,} bytes > {PAGE_BUDGET:,}"
    finally:
        page.close()


_WIDGET_PAGES = [p for p in _pages() if "mmir-widget-data" in p.read_text(encoding="utf-8")]

# The frame a figure shows: the one child of its view that is not hidden.
_SHOWN = "v => [...v.children].filter(c => !c.hidden).map(c => c.innerHTML)"


@pytest.mark.skipif(not _WIDGET_PAGES, reason="no page has an interactive figure")
@pytest.mark.parametrize("path", _WIDGET_PAGES, ids=lambda p: str(p.relative_to(HTML)))
def test_widgets_respond_offline(browser, path):
    page, outside, errors = open_offline(browser, path)
    try:
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
        assert outside == [] and errors == [], (outside, errors)
    finally:
        page.close()


def test_search_shows_results_offline(browser):
    """search.html?q=<a word of the book> lists real pages with a summary around the
    word, fetching nothing (from file:// a browser refuses fetches and logs errors)."""
    page, outside, errors = open_offline(browser, HTML / "search.html")
    try:
        page.goto((HTML / "search.html").as_uri() + f"?q={SEARCH_WORD}", wait_until="load")
        page.wait_for_function("() => document.querySelectorAll('#search-results li').length > 0 && "
                               "document.querySelector('#search-results').textContent.includes('found')",
                               timeout=10_000)
        page.wait_for_timeout(300)
        results = page.eval_on_selector_all(
            "#search-results li", "els => els.map(e => [e.querySelector('a').getAttribute('href'), "
            "(e.querySelector('p.context') || {textContent: ''}).textContent])")
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
