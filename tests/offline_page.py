"""Opening a page of the built book with every outside host blocked: shared by the
browser test (tests/test_book_browser.py) and the slider benchmark
(benchmarks/widget_repaint.py)."""

from __future__ import annotations

from pathlib import Path


def open_offline(browser, path: Path):
    """Open ``path`` with outside hosts blocked; return (page, outside requests, errors)."""
    page = browser.new_page()
    outside, errors = [], []

    def route(r):
        if r.request.url.startswith(("file:", "data:", "blob:", "about:")):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    if 'http-equiv="Refresh"' in path.read_text(errors="ignore")[:1000]:
        # a redirect page (the book's index.html): wait until the page it leads to has loaded
        page.wait_for_url(lambda url: url != path.as_uri(), wait_until="load")
    page.wait_for_timeout(300)  # MathJax typesets after load
    return page, outside, errors
