"""Sphinx extension: keep the built book free of anything that needs the network.

* **No sphinx-thebe.** Jupyter Book 1 always loads sphinx-thebe (live code cells
  through Binder). This book has no server to reach, and sphinx-thebe also declares
  its ``THEBE_JS_URL`` constant twice on every page, which is a JavaScript error.
  Its scripts, stylesheet and per-page configuration block are removed from every
  page, and its static folder is not copied into the build (its script names Binder
  and a CDN).
* **Search without fetching.** Sphinx's search page shows, under each result, a
  summary of the page around the query's words, which it gets by fetching the result
  page; a browser refuses that from ``file://`` and logs an error for each result.
  The book switches Sphinx's summaries off (``html_show_search_summary: false`` in
  ``_config.yml``) and this extension writes the text of every page into one script,
  ``_static/mmir-search-text.js``, loaded by the search page alone, where
  ``_static/mmir-search.js`` (``book/_assets``) shows the same kind of summary from it.
  Math in that text is written as plain text (``\\sigma`` as σ, ``\\frac{a}{b}`` as
  ``(a)/(b)``), so that no summary shows raw LaTeX. The ranking puts chapters above the
  back matter (``html_search_scorer``, ``book/_assets/mmir-scorer.js``).
* **Solutions stay closed.** An exercise's solution is a ``{admonition}`` with
  ``:class: dropdown``, followed by its code cell tagged ``hide-input``. myst-nb would
  fold only that cell's source, and its output (the answer) would show under the closed
  box. The cell is moved into the dropdown instead (its source shown, not folded
  again), so that the closed box hides the code and its output, and opening it shows
  the explanation, the code and the answer together.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

SEARCH_TEXT = "mmir-search-text.js"


def _is_thebe(asset) -> bool:
    filename = getattr(asset, "filename", None) or ""
    body = getattr(asset, "attributes", {}).get("body", "") or ""
    return "thebe" in filename or "THEBE_JS_URL" in body


def resolve_scorer(app, config):
    """Sphinx opens ``html_search_scorer`` relative to the working directory: make it
    relative to the book instead, so that the build works from any directory."""
    if config.html_search_scorer and not Path(config.html_search_scorer).is_absolute():
        config.html_search_scorer = str(Path(app.srcdir) / config.html_search_scorer)


def drop_thebe_static(app):
    app.config.html_static_path = [p for p in app.config.html_static_path if "sphinx_thebe" not in str(p)]


def drop_thebe_assets(app, pagename, templatename, context, doctree):
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if not _is_thebe(a)]


def drop_thebe_config(app, doctree, docname):
    for node in list(doctree.findall(nodes.raw)):
        if "text/x-thebe-config" in node.astext():
            node.parent.remove(node)


class SolutionCells(SphinxPostTransform):
    """Move a ``hide-input`` code cell that follows a dropdown admonition into it."""

    default_priority = 190  # before myst-nb's HideInputCells (199) wraps the source
    formats = ("html",)

    def run(self, **kwargs):
        for box in list(self.document.findall(nodes.admonition)):
            if "dropdown" not in box["classes"] or box.parent is None:
                continue
            at = box.parent.index(box)
            cell = box.parent[at + 1] if at + 1 < len(box.parent) else None
            if (isinstance(cell, nodes.container) and cell.get("nb_element") == "cell_code"
                    and cell.get("hide_mode") == "input"):
                del cell["hide_mode"]
                cell["classes"].append("mmir-solution-cell")
                box.parent.remove(cell)
                box.append(cell)


_GREEK = {name: chr(code) for name, code in (
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("iota", 0x3B9),
    ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0),
    ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("phi", 0x3C6), ("varphi", 0x3C6),
    ("chi", 0x3C7), ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394),
    ("Theta", 0x398), ("Lambda", 0x39B), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6),
    ("Psi", 0x3A8), ("Omega", 0x3A9), ("sum", 0x2211), ("prod", 0x220F), ("infty", 0x221E),
    ("cdot", 0x22C5), ("times", 0xD7), ("le", 0x2264), ("leq", 0x2264), ("ge", 0x2265),
    ("geq", 0x2265), ("ne", 0x2260), ("neq", 0x2260), ("approx", 0x2248), ("in", 0x2208),
    ("to", 0x2192), ("rightarrow", 0x2192), ("mid", 0x2223), ("partial", 0x2202), ("nabla", 0x2207),
    ("propto", 0x221D), ("sqrt", 0x221A), ("pm", 0xB1), ("ell", 0x2113))}
_GREEK.update({name: name + " " for name in ("log", "exp", "max", "min", "arg", "sin", "cos", "det", "lim")})
_MATH = re.compile(r'<(span|div) class="math notranslate nohighlight">(.*?)</\1>', re.S)
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)\s*")


def plain_math(tex: str) -> str:
    """LaTeX as readable plain text, for search summaries: ``\\sigma^2`` becomes ``σ^2``."""
    tex = tex.strip()
    for left, right in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"), ("$", "$")):
        if tex.startswith(left) and tex.endswith(right):
            tex = tex[len(left):len(tex) - len(right)]
            break
    for _ in range(3):
        tex = _FRAC.sub(r"(\1)/(\2)", tex)
    tex = _COMMAND.sub(lambda m: _GREEK.get(m.group(1), " " if m.group(1) in ("quad", "qquad") else ""), tex)
    tex = re.sub(r"\\[,;:! ]|[{}&]|\\\\", " ", tex).replace("\\", "")
    return _SPACE.sub(" ", tex).strip()


_SKIPPED = re.compile(r"<(script|style)\b.*?</\1>|<a class=\"headerlink\".*?</a>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_CLOSING_SPACE = re.compile(r" ([,.;:!?)\]])")
_OPENING_SPACE = re.compile(r"([(\[]) ")


def page_text(body: str) -> str:
    """The readable text of a page's body HTML: scripts, styles and the ¶ links left out,
    math as plain text."""
    body = _MATH.sub(lambda m: html.escape(plain_math(html.unescape(m.group(2)))), _SKIPPED.sub(" ", body))
    text = _SPACE.sub(" ", html.unescape(_TAG.sub(" ", body))).strip()
    # A tag's edge became a space: "the idf [ 2 ] , then" reads "the idf [2], then".
    return _CLOSING_SPACE.sub(r"\1", _OPENING_SPACE.sub(r"\1", text))


def collect_text(app, pagename, templatename, context, doctree):
    if pagename == "search":
        app.add_js_file(SEARCH_TEXT)
        app.add_js_file("mmir-search.js")
    elif doctree is not None and "body" in context:
        app.env.mmir_page_text = getattr(app.env, "mmir_page_text", {})
        app.env.mmir_page_text[pagename] = page_text(context["body"])


def write_search_text(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    texts = dict(sorted(getattr(app.env, "mmir_page_text", {}).items()))
    payload = json.dumps(texts, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    target = Path(app.outdir) / "_static" / SEARCH_TEXT
    target.write_text(f"window.MMIR_PAGE_TEXT = {payload};\n", encoding="utf-8")


def setup(app):
    app.add_post_transform(SolutionCells)
    app.connect("config-inited", resolve_scorer)
    app.connect("builder-inited", drop_thebe_static, priority=900)  # after sphinx-thebe adds it
    app.connect("html-page-context", drop_thebe_assets)
    app.connect("html-page-context", collect_text, priority=400)  # before the list is replaced
    app.connect("doctree-resolved", drop_thebe_config, priority=900)
    app.connect("build-finished", write_search_text)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
