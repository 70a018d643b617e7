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
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from docutils import nodes

SEARCH_TEXT = "mmir-search-text.js"


def _is_thebe(asset) -> bool:
    filename = getattr(asset, "filename", None) or ""
    body = getattr(asset, "attributes", {}).get("body", "") or ""
    return "thebe" in filename or "THEBE_JS_URL" in body


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


_SKIPPED = re.compile(r"<(script|style)\b.*?</\1>|<a class=\"headerlink\".*?</a>", re.S | re.I)
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def page_text(body: str) -> str:
    """The readable text of a page's body HTML: scripts, styles and the ¶ links left out."""
    text = html.unescape(_TAG.sub(" ", _SKIPPED.sub(" ", body)))
    return _SPACE.sub(" ", text).strip()


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
    app.connect("builder-inited", drop_thebe_static, priority=900)  # after sphinx-thebe adds it
    app.connect("html-page-context", drop_thebe_assets)
    app.connect("html-page-context", collect_text, priority=400)  # before the list is replaced
    app.connect("doctree-resolved", drop_thebe_config, priority=900)
    app.connect("build-finished", write_search_text)
    return {"parallel_read_safe": True, "parallel_write_safe": False}
