"""How fast the static interactive figures of the built book respond (`make bench`).

For every page of ``_build/html`` that holds an interactive figure
(:mod:`mmir_lib.widgets`), the page is opened from ``file://`` in headless Chromium
(Debian's ``/usr/bin/chromium``, driven by playwright, outside hosts blocked, as in
the browser test), and every slider of every figure is moved with the keyboard, one
grid step at a time, sweeping up and down its range: at least
``MOVES_PER_SLIDER`` moves per slider and ``MOVES_PER_PAGE`` per page.

One move is timed from the key going down (a capturing ``keydown`` listener) to the
first moment after the browser painted the frame the figure's own ``input`` handler
put up (``requestAnimationFrame`` and then a zero ``setTimeout``, which runs after
that paint). Reported per page: median and 95th percentile of these times (the
book's target is a 95th percentile of at most ``TARGET_P95_MS``), and the machine's
load average (1 minute) after the page: other programs competing for the processor
delay paints, and show up in the 95th percentile first.

Needs the built book (``make book``): when ``_build/html`` is missing the benchmark
says so and reports nothing. Timings are not tests: nothing here fails because a page
is slow.
"""

from __future__ import annotations

import math
import os
import shutil
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTML = ROOT / "_build" / "html"

sys.path.insert(0, str(ROOT))  # the page opener shared with the browser test
from tests.offline_page import open_offline  # noqa: E402
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
TARGET_P95_MS = 30.0
MOVES_PER_SLIDER = 40
MOVES_PER_PAGE = 120

# Installed in the page: time from a key going down to the paint after the frame swap.
_TIMER = """() => {
  window.__mmir = {times: []};
  document.addEventListener("keydown", () => { window.__mmir.down = performance.now(); }, true);
  document.querySelectorAll(".mmir-widget input[type=range]").forEach(input =>
    input.addEventListener("input", () => requestAnimationFrame(() => setTimeout(() => {
      window.__mmir.times.push(performance.now() - window.__mmir.down);
      if (window.__mmir.wake) window.__mmir.wake();
    }, 0))));
}"""

# Resolves once n moves are timed. (Playwright's wait_for_function would poll on every
# animation frame, making the browser produce frames while it is being timed.)
_WAIT = """n => new Promise(resolve => {
  window.__mmir.wake = () => { if (window.__mmir.times.length >= n) resolve(); };
  window.__mmir.wake();
})"""


def widget_pages(html: Path = HTML) -> list[Path]:
    """The built pages that contain at least one interactive figure."""
    pages = sorted(p for p in html.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)
    return [p for p in pages if "mmir-widget-data" in p.read_text(encoding="utf-8")]


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100), linear between the two nearest ranks."""
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(position), math.ceil(position)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (position - lo)


def _keys(count: int, size: int, start: int) -> list[str]:
    """``count`` single-step keys that sweep a slider of ``size`` positions up and down."""
    keys, position, step = [], start, 1
    while len(keys) < count:
        if not 0 <= position + step < size:
            step = -step
        position += step
        keys.append("ArrowRight" if step > 0 else "ArrowLeft")
    return keys


def measure_page(browser, path: Path, html: Path = HTML) -> dict:
    """Move every slider on the page; return the page's row of the report."""
    page, outside, _ = open_offline(browser, path)
    page.evaluate(_TIMER)
    sliders = page.query_selector_all(".mmir-widget input[type=range]")
    movable = [s for s in sliders if int(s.get_attribute("max")) > 0]
    per_slider = max(MOVES_PER_SLIDER, math.ceil(MOVES_PER_PAGE / max(len(movable), 1)))
    moves = 0
    for slider in movable:
        size = int(slider.get_attribute("max")) + 1
        slider.focus()
        for key in _keys(per_slider, size, int(slider.input_value())):
            moves += 1
            slider.press(key)
            page.evaluate(_WAIT, moves)
    times = page.evaluate("() => window.__mmir.times")
    figures = len(page.query_selector_all(".mmir-widget"))
    page.close()
    median, p95 = statistics.median(times), percentile(times, 95)
    return {
        "page": str(path.relative_to(html).with_suffix("")),
        "figures": figures,
        "sliders": len(sliders),
        "moves": len(times),
        "median (ms)": round(median, 1),
        "p95 (ms)": round(p95, 1),
        "max (ms)": round(max(times), 1),
        f"p95 ≤ {TARGET_P95_MS:g} ms": "met" if p95 <= TARGET_P95_MS else "**not met**",
        "page HTML (MB)": round(path.stat().st_size / 1e6, 2),
        "outside requests": len(outside),
        "load": round(os.getloadavg()[0], 1),
    }


def main(html: Path = HTML) -> list[dict]:
    """One row per page with interactive figures; [] (and a note on stderr) when the
    book is not built or Chromium is missing."""
    if not (html / "index.html").exists():
        print(f"widget_repaint: no built book in {html}: run `make book` first", file=sys.stderr)
        return []
    if not Path(CHROMIUM).exists():
        print("widget_repaint: Chromium is missing: `apt-get install -y chromium` (Debian)", file=sys.stderr)
        return []
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"],
        )
        try:
            return [measure_page(browser, path, html) for path in widget_pages(html)]
        finally:
            browser.close()


if __name__ == "__main__":
    rows = main(Path(sys.argv[1]) if len(sys.argv) > 1 else HTML)
    if rows:
        print("| " + " | ".join(rows[0]) + " |")
        print("|" + "---|" * len(rows[0]))
        for row in rows:
            print("| " + " | ".join(str(v) for v in row.values()) + " |")
