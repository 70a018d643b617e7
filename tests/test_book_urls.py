"""No file of the built book can make the browser reach an outside host.

Every ``.html``, ``.js`` and ``.css`` file of ``_build/html`` (theme files included)
is read as text, with these rules:

1. **Fetchable positions** hold no outside URL: an attribute the browser fetches
   by itself (``src``, ``srcset``, ``poster``, ``data``, ``background``,
   ``<link href>``), a CSS ``url(...)`` or ``@import``, in any file, also inside the
   JSON of an interactive figure's frames (where quotes are escaped).
2. **Scripts** (``.js`` files and inline ``<script>`` elements) name no outside URL
   in their code, comments left out, except in an ``href`` (a link a reader may
   click), XML namespace names (``http://www.w3.org/...``, identifiers that are
   never fetched) and the few strings listed in ``ALLOWED_IN_SCRIPTS``, each with
   the reason it is harmless.
3. **CDN host names** (``CDN_HOSTS``) appear nowhere, not even in a comment or a
   string: a CDN address in the build means a library was meant to load from it.

Plain links (``<a href="https://doi.org/...">`` in the references, license and
credit comments in the theme's files, URLs printed as text by a chapter) are
allowed: nothing fetches them unless a reader follows them.

Needs the built book (``make book``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

HTML = Path(__file__).resolve().parents[1] / "_build" / "html"

CDN_HOSTS = ("cdn.jsdelivr.net", "jsdelivr.com", "cdnjs.cloudflare.com", "unpkg.com", "googleapis.com",
             "gstatic.com", "code.jquery.com", "bootstrapcdn.com", "cdn.plot.ly", "mybinder.org",
             "cdn.mathjax.org", "polyfill.io", "esm.sh", "skypack.dev")

# file (relative to _build/html) -> outside URLs its code may name, and why.
ALLOWED_IN_SCRIPTS = {
    # The text of a warning printed when the version switcher is used from file://.
    "_static/scripts/pydata-sphinx-theme.js": ["https://pydata-sphinx-theme.readthedocs.io/"],
}

URL = re.compile(r"""(?:https?:)?//[a-z0-9][a-z0-9.-]*\.[a-z]{2,}[^\s"'<>\\)]*""", re.I)
FETCHED = re.compile(
    r"""(?:\b(?:src|srcset|poster|data|background)\s*=\s*\\?["']?\s*"""  # attributes fetched on load
    r"""|<link\b[^>]*?\bhref\s*=\s*\\?["']?\s*"""                          # stylesheets, icons, preloads
    r"""|url\(\s*\\?["']?\s*|@import\s+\\?["']?\s*)"""                     # CSS
    r"""(?:https?:)?//[a-z0-9]""", re.I)
LINK = re.compile(r"""\bhref\s*=\s*\\?["']?\s*$""", re.I)
NAMESPACE = re.compile(r"^https?://www\.w3\.org/")
SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script>", re.I | re.S)
COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\w\"'])//[^\n]*", re.S)


def _built_files() -> list[Path]:
    if not (HTML / "index.html").exists():
        pytest.fail("the book is not built: run `make book` first", pytrace=False)
    return sorted(p for p in HTML.rglob("*") if p.suffix in {".html", ".js", ".css"} and "_sources" not in p.parts)


def outside_urls_in_code(code: str, allowed: list[str] = ()) -> list[str]:
    """The outside URLs a piece of JavaScript names in its code (comments left out),
    except links (``href=...``), XML namespaces and the ``allowed`` prefixes."""
    code = COMMENT.sub(" ", code)
    found = []
    for match in URL.finditer(code):
        url = match.group()
        if not url.startswith("http") and not code[max(0, match.start() - 1)] in "\"'(= ":
            continue  # "//" inside a regular expression or a path, not a URL
        if LINK.search(code[max(0, match.start() - 40):match.start()]) or NAMESPACE.match(url):
            continue
        if any(url.startswith(prefix) for prefix in allowed):
            continue
        found.append(url)
    return found


def problems(path: Path, root: Path = HTML) -> list[str]:
    """What in ``path`` (a file under ``root``) breaks the rules above."""
    text = path.read_text(encoding="utf-8", errors="replace")
    name = path.relative_to(root).as_posix()
    found = [f"fetched: {m.group()!r}" for m in FETCHED.finditer(text)]
    found += [f"CDN host {host!r}" for host in CDN_HOSTS if host in text]
    allowed = ALLOWED_IN_SCRIPTS.get(name, [])
    if path.suffix == ".js":
        found += [f"in script: {u}" for u in outside_urls_in_code(text, allowed)]
    elif path.suffix == ".html":
        for attributes, body in SCRIPT.findall(text):
            if "application/json" not in attributes:  # JSON data is checked by the rules above
                found += [f"in inline script: {u}" for u in outside_urls_in_code(body, allowed)]
    return found


def test_no_built_file_names_an_outside_host_it_could_fetch():
    report = {}
    for path in _built_files():
        found = problems(path)
        if found:
            report[str(path.relative_to(HTML))] = found[:5]
    assert report == {}, f"outside URLs in the built book: {report}"


@pytest.mark.parametrize("snippet, bad", [
    ('<script src="https://cdn.example.com/x.js"></script>', True),
    ('<link rel="stylesheet" href="//fonts.example.com/a.css">', True),
    ('<img src=\\"https://example.com/a.png\\">', True),  # inside a widget's JSON frames
    ("body{background:url('https://example.com/a.png')}", True),
    ("<p>see https://cdn.jsdelivr.net/npm/x</p>", True),  # a CDN host, even as text
    ('<script>fetch("https://api.example.com/q")</script>', True),
    ('<a href="https://doi.org/10.1147/rd.14.0309">doi</a>', False),
    ("<p>MIRROR = &quot;https://en.wikipedia.org&quot;</p>", False),  # code shown as text
    ('<script>// see https://example.com/docs\nvar ns = "http://www.w3.org/2000/svg";</script>', False),
])
def test_the_rules_tell_fetched_urls_from_links_and_text(tmp_path, snippet, bad):
    page = tmp_path / "page.html"
    page.write_text(snippet, encoding="utf-8")
    assert bool(problems(page, tmp_path)) == bad, problems(page, tmp_path)
