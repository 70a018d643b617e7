"""The book's look for matplotlib figures, in one place.

:data:`BOOK_STYLE` is applied by :func:`mmir_lib.setup_chapter`; a figure made in any
chapter therefore has the same resolution, grid and spines.

**Readable text at the column's width.** The book shows a figure at its natural size
if it fits the text column and scales it down to the column if not, text included.
Figures are therefore drawn at 96 dpi, CSS's own pixels per inch, so that a size in
points means on screen what it means in CSS (8 pt = 10.7 px), and
:func:`fit_to_column` shrinks a figure wider than the column (:data:`COLUMN_PX`) in
inches before it is drawn: its text keeps its size in points while the drawing gets
smaller, instead of everything being scaled down by the browser. It also raises any
text smaller than :data:`MIN_FONT_PT`. Figures a chapter displays pass through it
(:func:`use_book_style` installs it in Jupyter's PNG formatter), and so do the frames
of interactive figures (:mod:`mmir_lib.widgets`).
"""

from __future__ import annotations

import warnings

from .validation import check_instance

__all__ = ["BOOK_STYLE", "COLUMN_PX", "MIN_FONT_PT", "fit_to_column", "use_book_style"]

#: Width (CSS px) a figure may have without being scaled down: in the book at a
#: 1280 px wide window, a cell's output is 688 px wide and an interactive figure's
#: frame, inside its box, 662 px (sphinx-book-theme 1.3, measured in Chromium).
COLUMN_PX = 660

#: Smallest text in a figure, in points: 10.7 CSS px at the book's 96 dpi.
MIN_FONT_PT = 8

#: matplotlib rcParams of every figure in the book.
BOOK_STYLE = {
    "figure.dpi": 96,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def fit_to_column(fig):
    """Make a matplotlib figure read at the book's column width; returns the figure.

    A figure wider than :data:`COLUMN_PX` pixels at its dpi is shrunk, keeping its
    aspect ratio, to exactly that width; text smaller than :data:`MIN_FONT_PT` is
    raised to it. A figure changed this way is laid out again (``tight_layout``), since
    its text now takes more of its room, unless it has a layout engine that does so
    at every draw (``layout="constrained"``).
    """
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import PlaceHolderLayoutEngine
    from matplotlib.text import Text

    check_instance("fig", fig, Figure)
    changed = False
    width, height = fig.get_size_inches()
    widest = COLUMN_PX / fig.dpi
    if width > widest * (1 + 1e-9):
        fig.set_size_inches(widest, height * widest / width)
        changed = True
    for ax in fig.axes:  # tick labels are remade at draw time from the axis's settings
        for axis, labels in (("x", ax.get_xticklabels(which="both")), ("y", ax.get_yticklabels(which="both"))):
            if any(label.get_fontsize() < MIN_FONT_PT for label in labels):
                ax.tick_params(axis=axis, which="both", labelsize=MIN_FONT_PT)
                changed = True
    for text in fig.findobj(Text):
        if text.get_fontsize() < MIN_FONT_PT:
            text.set_fontsize(MIN_FONT_PT)
            changed = True
    # fig.tight_layout() leaves a placeholder engine: the layout was made for the old size
    if changed and isinstance(fig.get_layout_engine(), (type(None), PlaceHolderLayoutEngine)):
        with warnings.catch_warnings():  # e.g. "not compatible with tight_layout" for some insets
            warnings.simplefilter("ignore")
            fig.tight_layout()
    return fig


def _fitted(display):
    """Jupyter's PNG formatter for figures, fitting each figure to the column first."""
    def png(fig):
        return display(fit_to_column(fig))

    png.fits_to_column = True
    return png


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib's global settings, and, in a Jupyter
    kernel, pass every displayed figure through :func:`fit_to_column`."""
    import matplotlib
    import matplotlib.pyplot as plt

    plt.rcParams.update(BOOK_STYLE)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    formatters = getattr(getattr(get_ipython(), "display_formatter", None), "formatters", {})
    if "image/png" not in formatters:  # not in Jupyter
        return
    from functools import partial

    from IPython.core.pylabtools import print_figure
    from matplotlib.figure import Figure

    backend = matplotlib.get_backend(auto_select=False)
    if backend:  # load it now: the inline backend installs its own PNG formatter when loaded
        plt.switch_backend(backend)
    formatter = formatters["image/png"]
    current = formatter.lookup_by_type(Figure) if Figure in formatter.type_printers else None
    if getattr(current, "fits_to_column", False):
        return
    formatter.for_type(Figure, _fitted(current or partial(print_figure, fmt="png", base64=True)))
