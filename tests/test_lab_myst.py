"""`make lab`: every chapter opened in JupyterLab reads as the built book does.

jupyterlab-myst renders the markdown as MyST (math typeset, the solutions' admonitions as
closed dropdowns, no raw fences); the book's own extension (tools/lab-extension,
installed by tools/lab_setup.py) puts in what jupyterlab-myst does not know: each glued
number as myst-nb formats it from the notebook's stored glue output, each citation as its
footnote number ("[3]", or "Author [3]"), each chapter's reference list in place of
an "Unknown Directive" box, and a note on each interactive figure's static preview that
running the cell makes it live (its controls disabled until then). Solutions' code cells
are folded, input and output.

One JupyterLab serves copies of all chapters (so that nothing can save over a stored
notebook), with the notebook's windowing off so that every cell is rendered at once;
headless Chromium opens each chapter in turn. Skips without Chromium or jupyterlab-myst.
"""

from __future__ import annotations

import json
import re
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
NOTEBOOKS = sorted(p.relative_to(ROOT / "notebooks") for p in (ROOT / "notebooks").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts)
TOKEN = "mmir-lab-test"
GLUE = re.compile(r"\{glue:text\}`([^`]+)`")
CITE = re.compile(r"\{footcite(?::[pt])?\}`([^`]+)`")

if not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed: run `apt-get install -y chromium` (Debian)", allow_module_level=True)
pytest.importorskip("jupyterlab_myst")
playwright = pytest.importorskip("playwright.sync_api")
format_plain_text = pytest.importorskip("myst_nb.core.variables").format_plain_text


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lab")
    for notebook in NOTEBOOKS:
        (folder / notebook).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "notebooks" / notebook, folder / notebook)
    settings = tmp_path_factory.mktemp("settings") / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", f"--ServerApp.token={TOKEN}", f"--ServerApp.root_dir={folder}",
         f"--LabApp.user_settings_dir={settings.parents[1]}", f"--LabApp.workspaces_dir={folder}",
         "--LabApp.expose_app_in_browser=True"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not start within 2 minutes")
        with playwright.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{url}/lab?token={TOKEN}")
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=120_000)
            page.evaluate("() => window.jupyterapp.restored.then(() => true)")
            page.wait_for_function("() => window.jupyterapp.commands.hasCommand('docmanager:open')", timeout=120_000)
            yield page
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


def expected_roles(notebook: dict) -> tuple[list[tuple[str, str]], list[str], int]:
    """(role, text the book shows) of every glued number; the roles of the citations; the
    number of cited works."""
    values = {}
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                values[name] = output["data"]["application/papermill.record/text/plain"]
    prose = "\n".join("".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown")
    glued = []
    for role in GLUE.findall(prose):
        key, spec = role.rsplit(":", 1) if ":" in role else (role, "s")
        glued.append((role, format_plain_text(values[key], spec)))
    cites = CITE.findall(prose)
    works = {key.strip() for keys in cites for key in keys.split(",")}
    return glued, cites, len(works)


READ = """() => {
    const spans = [...document.querySelectorAll('.jp-MarkdownCell .myst span[data-mmir-role]')];
    const hidden = (c) => c.querySelector('.jp-InputPlaceholder') !== null
                          && c.querySelector('.jp-Cell-inputArea') === null;
    return {
        cells: document.querySelectorAll('.jp-Notebook .jp-Cell').length,
        rendered: [...document.querySelectorAll('.jp-MarkdownCell')].filter(c => c.querySelector('.myst')).length,
        roles: spans.map(s => [s.getAttribute('data-mmir-role'), s.textContent]),
        prose: [...document.querySelectorAll('.jp-MarkdownCell .myst')].map(m => m.textContent).join('\\n'),
        katex: document.querySelectorAll('.jp-MarkdownCell .katex').length,
        references: [...document.querySelectorAll('.jp-MarkdownCell ol.mmir-references')].map(o => o.children.length),
        openDetails: [...document.querySelectorAll('.jp-MarkdownCell details')].filter(d => d.open).length,
        details: document.querySelectorAll('.jp-MarkdownCell details').length,
        foldedInputs: [...document.querySelectorAll('.jp-CodeCell')].filter(hidden).length,
        foldedOutputs: document.querySelectorAll('.jp-CodeCell .jp-OutputPlaceholder').length,
        previews: [...document.querySelectorAll('.jp-OutputArea figure.mmir-widget')].map(f =>
            [f.querySelector('.mmir-widget-note')?.textContent || '',
             [...f.querySelectorAll('input')].every(i => i.disabled)]),
    };
}"""


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[str(n.with_suffix("")) for n in NOTEBOOKS])
def test_chapter_reads_as_the_book_in_jupyterlab(lab, notebook):
    page = lab
    stored = json.loads((ROOT / "notebooks" / notebook).read_text())
    glued, cites, works = expected_roles(stored)
    markdown = sum(c["cell_type"] == "markdown" for c in stored["cells"])
    folded = sum(c["metadata"].get("jupyter", {}).get("source_hidden", False) for c in stored["cells"])
    page.evaluate("path => window.jupyterapp.commands.execute('docmanager:open', {path})", str(notebook))
    page.wait_for_function(f"() => document.querySelectorAll('.jp-MarkdownCell .myst').length >= {markdown}",
                           timeout=120_000)
    expected_marks = len(glued) + len(cites)
    page.wait_for_function("n => document.querySelectorAll('.jp-MarkdownCell .myst span[data-mmir-role]').length >= n",
                           arg=expected_marks, timeout=60_000)
    seen = page.evaluate(READ)
    # (JupyterLab marks a notebook it has just opened as changed: close it without saving)
    page.evaluate("() => { for (const w of [...window.jupyterapp.shell.widgets('main')]) {"
                  " if (w.context) w.context.model.dirty = false; w.close(); } }")
    page.wait_for_function("() => document.querySelectorAll('.jp-Notebook').length === 0", timeout=30_000)

    assert seen["cells"] == len(stored["cells"]) and seen["rendered"] == markdown
    prose = seen["prose"]
    assert "Unknown Directive" not in prose and "```{" not in prose and ":class: dropdown" not in prose
    assert "{glue" not in prose and "{footcite" not in prose, "raw role markup"
    if "$" in "".join("".join(c["source"]) for c in stored["cells"] if c["cell_type"] == "markdown"):
        assert seen["katex"] > 0, "math is not typeset"
    # every glued number shows what the book shows, every citation its number
    shown = [pair for pair in seen["roles"] if pair[0] != "footbibliography"]
    assert sorted(r for r, _ in shown) == sorted([r for r, _ in glued] + cites)
    assert sorted(map(tuple, (p for p in shown if p[0] in dict(glued)))) == sorted(glued)
    assert all(re.fullmatch(r"(\[\d+\])+|.+ \[\d+\](, .+ \[\d+\])*", text) for role, text in shown if role in cites)
    if works:
        assert seen["references"] == [works], "the reference list: one entry per cited work"
    # an interactive figure shown before its cell runs says so, its dead controls disabled
    widgets = sum("mmir-widget" in json.dumps(c.get("outputs", [])) for c in stored["cells"]
                  if not c["metadata"].get("jupyter", {}).get("outputs_hidden", False))
    assert len(seen["previews"]) >= widgets and all(
        note.startswith("A preview: run this cell") and disabled for note, disabled in seen["previews"])
    # solutions folded until opened
    assert seen["openDetails"] == 0
    assert seen["foldedInputs"] >= folded and seen["foldedOutputs"] >= 0
