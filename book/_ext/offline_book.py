"""Sphinx extension: keep the built book free of anything that needs the network.

Jupyter Book 1 always loads sphinx-thebe (live code cells through Binder). This book
has no server to reach, and sphinx-thebe also declares its ``THEBE_JS_URL`` constant
twice on every page, which is a JavaScript error. This extension removes its
scripts, its stylesheet and its per-page configuration block from every page.
"""

from docutils import nodes


def _is_thebe(asset) -> bool:
    filename = getattr(asset, "filename", None) or ""
    body = getattr(asset, "attributes", {}).get("body", "") or ""
    return "thebe" in filename or "THEBE_JS_URL" in body


def drop_thebe_assets(app, pagename, templatename, context, doctree):
    for key in ("script_files", "css_files"):
        if key in context:
            context[key] = [a for a in context[key] if not _is_thebe(a)]


def drop_thebe_config(app, doctree, docname):
    for node in list(doctree.findall(nodes.raw)):
        if "text/x-thebe-config" in node.astext():
            node.parent.remove(node)


def setup(app):
    app.connect("html-page-context", drop_thebe_assets)
    app.connect("doctree-resolved", drop_thebe_config, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
