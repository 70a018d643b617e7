"""axe-core (pinned in package.json, installed by `npm ci`, which `make test` runs)
on representative pages of the built book, in light and dark mode: no colour-contrast
violation in the article (WCAG 2 AA, 4.5:1 for text), and no control whose accessible
name leaves out its visible text (label-content-name-mismatch), on the whole page.

Chapter I.3 is on the list for its tables and its top-10 widget, the book's largest: axe's
contrast rule takes minutes on its whole 20,000-element article, so there it reads the
tables and widgets only (the prose and formulas look as on the other chapters checked).
A widget's frames other than the one shown are left out everywhere: a reader sees them only
after moving a slider, and they are drawn by the same code, with the same styles, as the
frame shown.

Needs `make book` first and Chromium, as tests/test_book_browser.py does. Under CI
(CI=true) a missing axe-core is a failure; elsewhere the test skips and says how to
install it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_book_browser import HTML, browser  # noqa: F401 (the shared Chromium fixture)
from tests.offline_page import open_offline

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["index.html", "book/performance.html", "notebooks/ir/03-bm25.html",
         "notebooks/vision/03-derivatives-gaussian.html", "notebooks/lm/02-ngrams.html"]
# What the contrast rule reads on each page (axe's context selectors): the article, or a part of it.
CONTRAST_PARTS = {"notebooks/ir/03-bm25.html": [[".bd-article .mmir-widget"], [".bd-article table"]]}
HIDDEN_FRAMES = [[".mmir-widget-frame > [hidden]"]]

if not AXE.exists():
    message = "axe-core is not installed: run `npm ci` in the repository root"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)

_RUN = """async ([context, rules]) => {
  const r = await axe.run(context, {runOnly: {type: 'rule', values: rules}});
  return r.violations.flatMap(v => v.nodes.map(n =>
    `${v.id}: ${n.target.join(' ')}: ${(n.any[0] || {}).message || n.failureSummary}`.slice(0, 300))); }"""


@pytest.mark.parametrize("name", PAGES)
def test_axe_contrast_and_names(browser, name):  # noqa: F811
    page, outside, errors = open_offline(browser, HTML / name)
    try:
        # The book's CSS skips the rendering of sections out of view (content-visibility:
        # auto): a reader scrolls them into view and sees them rendered, but axe reads
        # colours without scrolling, and would read the stale styles of skipped sections.
        page.add_style_tag(content=".bd-article section { content-visibility: visible !important; }")
        page.add_script_tag(path=str(AXE))
        for mode in ("light", "dark"):  # one page load for both modes: a chapter takes seconds to load
            page.evaluate(f"document.documentElement.dataset.theme = '{mode}'")
            page.wait_for_timeout(200)
            context = {"include": CONTRAST_PARTS.get(name, [["article"]]), "exclude": HIDDEN_FRAMES}
            contrast = page.evaluate(_RUN, [context, ["color-contrast"]])
            names = page.evaluate(_RUN, ["html", ["label-content-name-mismatch"]])
            assert contrast == [], f"{len(contrast)} colour-contrast violations in {mode} mode: {contrast[:5]}"
            assert names == [], f"{mode} mode: {len(names)} accessible names without their visible text: {names[:5]}"
        assert outside == [] and errors == [], (outside, errors)
    finally:
        page.close()
