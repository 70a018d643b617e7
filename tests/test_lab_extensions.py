"""`make lab`: JupyterLab and the extensions the book installs into it are a pair their
authors support. jupyterlab-myst 2.7.0 declares `@jupyter/ydoc` >= 3, < 4; JupyterLab
4.6 moved to ydoc 4 and `jupyter labextension list` then flags the extension as
incompatible (it loaded, but nobody tests that pair). requirements.txt pins the last
JupyterLab series on ydoc 3 (4.5) until a jupyterlab-myst release declares ydoc 4."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("jupyterlab_myst")


def test_every_lab_extension_is_compatible_with_the_installed_jupyterlab():
    listing = subprocess.run([sys.executable, "-m", "jupyterlab.labextensions", "list"], capture_output=True,
                             text=True, timeout=120)
    text = re.sub(r"\x1b\[[0-9;]*m", "", listing.stdout + listing.stderr)  # drop the terminal colours
    assert "not compatible" not in text, text
    for extension in ("jupyterlab-myst", "@jupyter-widgets/jupyterlab-manager", "mmir-lab-prose"):
        line = next((row for row in text.splitlines() if extension in row), None)
        assert line is not None and re.search(r"enabled\s+OK", line), f"{extension}: {line!r}\n{text}"
