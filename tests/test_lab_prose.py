"""The JupyterLab extension of `make lab` (tools/lab-extension) formats glued numbers exactly
as myst-nb writes them into the book: every glued value of every chapter with the format
its prose asks for, and random values in every format the book uses, through node against
myst_nb's own ``format_plain_text`` (skipped without node); and the committed prebuilt
extension is built from the committed source."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from myst_nb.core.variables import format_plain_text

ROOT = Path(__file__).resolve().parents[1]
FORMAT = ROOT / "tools" / "lab-extension" / "src" / "format.js"
NODE = shutil.which("node")
ROLE = re.compile(r"\{glue:text\}`([^`]+)`")
SPECS = ["", ".3f", ".2f", ".1f", ",", "+.3f", ".0%", "g", ".4f", ".0f", ".0e", ".1e", ",.0f", "+.2f", ".1%", ",.1f"]

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian: apt-get install -y nodejs)")


def node_format(cases: list[tuple[str, str]]) -> list[str | None]:
    script = (f"const {{formatGlue}} = require({json.dumps(str(FORMAT))});"
              "const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
              "process.stdout.write(JSON.stringify(cases.map(([t, s]) => formatGlue(t, s))));")
    done = subprocess.run([NODE, "-e", script], input=json.dumps(cases), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def glued_values(notebook: Path) -> dict[str, str]:
    values = {}
    for cell in json.loads(notebook.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name and "application/papermill.record/text/plain" in output.get("data", {}):
                values[name] = output["data"]["application/papermill.record/text/plain"]
    return values


def book_cases() -> list[tuple[str, str]]:
    cases = set()
    for notebook in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        values = glued_values(notebook)
        prose = "".join("".join(c["source"]) for c in json.loads(notebook.read_text())["cells"]
                        if c["cell_type"] == "markdown")
        for role in ROLE.findall(prose):
            key, _, spec = role.partition(":") if ":" in role else (role, "", "")
            if key in values:
                cases.add((values[key], spec))
    return sorted(cases)


@needs_node
def test_every_glued_number_of_the_book_formats_as_in_the_book():
    cases = book_cases()
    assert len(cases) > 900  # distinct (value, format) pairs
    got = node_format(cases)
    wrong = [(t, s, g, format_plain_text(t, s or "s")) for (t, s), g in zip(cases, got) if g != format_plain_text(t, s or "s")]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:5]}"


@needs_node
def test_random_values_format_as_python_does():
    rng = random.Random(0)
    values = [0.0, -0.0, 0.5, 2.5, 0.125, 0.375, 1e-5, 1e5, 123456.0, 999999.5, 1e16, 0.045, 1.005, 2.675]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-8, 9) for _ in range(400)]
    values += [round(rng.uniform(-50, 50), rng.randint(0, 4)) for _ in range(300)]
    texts = [repr(v) for v in values] + [str(rng.randint(-10**9, 10**9)) for _ in range(100)]
    cases = [(t, s) for t in texts for s in SPECS if not (s == "," and "e" in t)]
    got = node_format(cases)
    wrong = [(t, s, g, format_plain_text(t, s or "s")) for (t, s), g in zip(cases, got) if g != format_plain_text(t, s or "s")]
    assert wrong == [], f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:8]}"


def test_the_prebuilt_extension_is_built_from_the_source():
    # The committed bundle (tools/lab-extension/labextension) must be rebuilt when src/ changes
    # (README: `npm install` and `jupyter labextension build .` in that folder); a stale one
    # misses some of the source's string literals, which minifying keeps.
    bundle = "".join(p.read_text() for p in (FORMAT.parents[1] / "labextension" / "static").glob("*.js"))
    for source in FORMAT.parent.glob("*.js"):
        for literal in set(re.findall(r"'([A-Za-z][\w:@/.\- ]{5,})'", source.read_text())):
            assert literal in bundle, f"{source.name}: {literal!r} is not in the built extension: rebuild it"
