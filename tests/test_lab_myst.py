"""`make lab`: a chapter opened in JupyterLab reads as MyST (jupyterlab-myst), not as
raw markup: math typeset, the solutions' `{admonition}` blocks as closed dropdowns,
no raw `$…$` or directive fences. Glued numbers and citations are the two things
jupyterlab-myst does not know: they show as the glued name (`name:.2f`) and the BibTeX
key, as the README's `make lab` row says; the test checks that too, so that the README
is updated when a later jupyterlab-myst learns them.

Starts JupyterLab on a free local port (about 15 s), on a copy of the chapter (so
that nothing can save over the stored notebook), and drives it with headless
Chromium; skips without Chromium or jupyterlab-myst.
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHAPTER = ROOT / "notebooks" / "lm" / "03-softmax-neural.ipynb"
TOKEN = "mmir-lab-test"

if not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed: run `apt-get install -y chromium` (Debian)", allow_module_level=True)
pytest.importorskip("jupyterlab_myst")
playwright = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab")
    shutil.copy(CHAPTER, folder / CHAPTER.name)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={folder}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start within 60 s")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_chapter_reads_as_myst_in_jupyterlab(lab):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{lab}/lab/tree/{CHAPTER.name}?token={TOKEN}")
            page.wait_for_selector(".jp-MarkdownCell .katex", timeout=90_000)
            markdown_cells = sum(c["cell_type"] == "markdown" for c in json.loads(CHAPTER.read_text())["cells"])
            texts, solution = {}, None
            for _ in range(250):  # the notebook renders the cells in view: scroll through it
                # Read what jupyterlab-myst rendered (`.myst`), never the cell's editor: a cell
                # scrolled into view shows its source for a moment before it is rendered.
                for cell in page.query_selector_all(".jp-MarkdownCell[data-windowed-list-index]"):
                    rendered = cell.query_selector(".myst")
                    text = rendered.inner_text() if rendered is not None else ""
                    index = cell.get_attribute("data-windowed-list-index")
                    if len(text) > len(texts.get(index, "")):  # rendered in steps: keep the fullest
                        texts[index] = text
                solution = solution or page.query_selector(".jp-MarkdownCell details")
                at_end = page.evaluate("() => { const o = document.querySelector('.jp-WindowedPanel-outer');"
                                       " const end = o.scrollTop + o.clientHeight >= o.scrollHeight - 2;"
                                       " o.scrollBy(0, 700); return end; }")
                if at_end and len(texts) == markdown_cells:
                    break
                page.wait_for_timeout(100)
            prose = "\n".join(texts.values())
            assert len(texts) == markdown_cells, f"{len(texts)} of {markdown_cells} markdown cells rendered"
            assert page.query_selector_all(".jp-MarkdownCell .katex"), "math is not typeset"
            assert "```{admonition}" not in prose and ":class: dropdown" not in prose, "raw directive"
            assert solution is not None and solution.evaluate("d => !d.open"), "no closed solution dropdown"
            assert "{glue:text}" not in prose and "{footcite:p}" not in prose, "raw role markup"
            # What jupyterlab-myst 2.7.0 shows for the roles it does not know (README, `make lab`).
            assert "entropy_t1:.2f" in prose, "a glued number no longer shows as its name: update the README"
        finally:
            browser.close()
