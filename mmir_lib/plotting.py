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

**Panels that can be read.** Shrinking a wide figure keeps its text size but not its
panels' room: a strip of eight images becomes eight 60 px thumbnails under titles
that run into each other. After fitting, :func:`fit_to_column` therefore measures the
figure (:func:`figure_problems`) and raises a ``ValueError`` naming each pair of texts
that overlap and each panel smaller than :data:`MIN_PANEL_PX`; a chapter whose figure
breaks this fails when it is executed. :func:`panel_grid` lays ``n`` panels out in rows
that fit the column at a readable size, and :func:`wrap_title` wraps a panel's title
to the panel's width.
"""

from __future__ import annotations

import math
import re
import textwrap
import warnings
from contextlib import contextmanager

import numpy as np

from .validation import check_count, check_instance, check_number, check_str

__all__ = ["BOOK_STYLE", "COLUMN_PX", "MIN_FONT_PT", "MIN_PANEL_PX", "figure_problems", "fit_to_column",
           "panel_grid", "use_book_style", "wrap_title"]

#: Width (CSS px) a figure may have without being scaled down: in the book at a
#: 1280 px wide window, a cell's output is 688 px wide and an interactive figure's
#: frame, inside its box, 662 px (sphinx-book-theme 1.3, measured in Chromium).
COLUMN_PX = 660

#: Smallest text in a figure, in points: 10.7 CSS px at the book's 96 dpi.
MIN_FONT_PT = 8

#: Smallest panel (an axes showing something), in CSS px on its shorter side. A panel
#: this size holds a title line of about 18 characters of :data:`MIN_FONT_PT` text
#: (6.5 px a character) and, as an image, keeps a 3x3 filter's cells or a keypoint's
#: circle several pixels wide even for a 512 px image; five tick labels fit along it.
#: Colorbars and insets are exempt, and so is a panel showing only images at full
#: resolution or more (a gallery of 28 × 28 digits at 60 px loses nothing).
MIN_PANEL_PX = 120

#: A text's box holds its line's full ascent and descent, white space above and below
#: most glyphs; two texts overlap only if their boxes, each shrunk on every side by this
#: fraction of its font size, still meet (a title 5 px into the box of the tick labels
#: above it does not touch them on screen).
_TEXT_MARGIN = 0.25

#: CSS px a panel of :func:`panel_grid` needs across beside its axes: tick labels of
#: three digits (25 px) and constrained layout's gap.
_DECOR_PX = 35

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
    problems = figure_problems(fig)
    if problems:
        raise ValueError("the figure does not read at the column's width:\n  " + "\n  ".join(problems)
                         + "\n(lay its panels out with mmir_lib.plotting.panel_grid and wrap_title)")
    return fig


@contextmanager
def _drawn_texts():
    """Record every Text (titles, labels, tick labels, annotations, legends) as it is drawn."""
    from matplotlib.text import Text

    drawn = []
    draw = Text.draw

    def recording(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn.append(self)
        return draw(self, renderer)

    Text.draw = recording
    try:
        yield drawn
    finally:
        Text.draw = draw


# Outside $…$, a short symbol joined by _ to a short index (n_t, L_MLE, Rec_i), or anything
# raised by ^ ((x / 100)^0.75): matplotlib shows the _ or ^ itself. Longer snake_case names
# (separable_filter) are code and stay as written.
_MATH = re.compile(r"(?<!\\)\$.*?(?<!\\)\$")
_PLAIN_SCRIPT = re.compile(r"(?<![\w\\])[^\W\d_]{1,3}_[^\W_]{1,3}(?!\w)|[\w)\]]\^[\w({.\-−]")


def _plain_script(text: str) -> bool:
    return bool(_PLAIN_SCRIPT.search(_MATH.sub("", text)))


def _label(artist) -> str:
    text = " ".join(artist.get_text().split())
    return repr(text if len(text) <= 40 else text[:37] + "...")


def _is_panel(ax) -> bool:
    """An axes that shows something and is neither a colorbar nor an inset."""
    return (ax.get_visible() and getattr(ax, "_colorbar", None) is None and ax.get_axes_locator() is None
            and (ax.has_data() or ax.axison))


def _full_resolution(ax, width: float, height: float) -> bool:
    """Whether an axes ``width`` × ``height`` CSS px shows images only, each at least one
    screen pixel per pixel of the image (a 28 × 28 digit in a 60 px panel: nothing lost)."""
    if not ax.images or ax.lines or ax.collections:
        return False
    return all(width >= image.get_array().shape[1] and height >= image.get_array().shape[0] for image in ax.images)


def figure_problems(fig, *, min_panel_px: float = MIN_PANEL_PX) -> list[str]:
    """What keeps a figure from reading at its size: one line per problem, none if fine.

    The figure is laid out and its texts collected as drawn (one draw, nothing rendered).
    Two visible, non-empty texts overlap if their window extents, each shrunk by
    :data:`_TEXT_MARGIN` × its font size on every side, still meet. A panel
    (:func:`_is_panel`) is too small if the shorter side of its box is below
    ``min_panel_px`` CSS px (figure px × 96 / dpi), unless it shows only images, none
    of them shrunk below one screen pixel per image pixel (:func:`_full_resolution`).
    A text that writes a subscript or superscript as a plain ``_`` or ``^`` outside
    mathtext (``n_t``, ``(x / 100)^0.75``) is a problem too: the reader sees the symbol.
    """
    from matplotlib.figure import Figure

    check_instance("fig", fig, Figure)
    check_number("min_panel_px", min_panel_px, low=0, high=COLUMN_PX)
    css = 96 / fig.dpi
    with _drawn_texts() as texts:
        fig.draw_without_rendering()
    renderer = fig._get_renderer()  # the one draw_without_rendering used, whatever the canvas
    boxes = []
    for text in dict.fromkeys(texts):  # a text drawn twice is one text
        box = text.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            boxes.append((text, box.padded(-_TEXT_MARGIN * text.get_fontsize() * fig.dpi / 72)))
    problems = [f"text {_label(text)} writes a subscript or superscript as a plain _ or ^: put it in "
                f"mathtext ($n_t$, $x^{{0.75}}$)" for text, _ in boxes if _plain_script(text.get_text())]
    if boxes:  # all pairs at once: (n, n) overlaps in x and y
        x0, y0, x1, y1 = np.array([box.extents for _, box in boxes]).T
        dx = np.minimum(x1[:, None], x1[None]) - np.maximum(x0[:, None], x0[None])
        dy = np.minimum(y1[:, None], y1[None]) - np.maximum(y0[:, None], y0[None])
        for i, j in zip(*np.nonzero(np.triu((dx > 0) & (dy > 0), k=1))):
            problems.append(f"texts {_label(boxes[i][0])} and {_label(boxes[j][0])} overlap "
                            f"({dx[i, j] * css:.0f} x {dy[i, j] * css:.0f} px)")
    for k, ax in enumerate(fig.axes):
        if _is_panel(ax):
            box = ax.get_window_extent(renderer)
            side = min(box.width, box.height) * css
            if side < min_panel_px and not _full_resolution(ax, box.width * css, box.height * css):
                name = _label(ax.title) if ax.get_title() else f"number {k}"
                problems.append(f"panel {name} is {box.width * css:.0f} x {box.height * css:.0f} px, "
                                f"under {min_panel_px:g} px on its shorter side")
    return problems


def wrap_title(ax, title: str, **kwargs):
    """Set ``ax``'s title wrapped (textwrap) to the panel's width; returns the Text.

    The panel's width is its share of the figure's width: its columns' share of its
    grid (width ratios counted), less 8 % for the gaps, or, for an axes outside a grid,
    its own width. A character of the title's font is taken as 0.58 × its size in
    points × dpi / 72 pixels wide (DejaVu Sans averages 0.55), so a panel ``w`` px
    wide holds ``w / (0.58 × size × dpi / 72)`` characters a line. Lines the title
    already breaks are kept. Keyword arguments go to ``ax.set_title``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    check_instance("ax", ax, Axes)
    check_str("title", title, allow_empty=True)
    size = kwargs.get("fontsize", plt.rcParams["axes.titlesize"])
    points = plt.matplotlib.font_manager.FontProperties(size=size).get_size_in_points()
    fig = ax.get_figure(root=True)
    spec = ax.get_subplotspec()
    if spec is None:
        share = ax.get_position().width
    else:
        ratios = spec.get_gridspec().get_width_ratios() or [1] * spec.get_gridspec().ncols
        share = 0.92 * sum(ratios[spec.colspan.start:spec.colspan.stop]) / sum(ratios)
    width_px = share * fig.get_figwidth() * fig.dpi
    chars = max(4, int(width_px / (0.58 * points * fig.dpi / 72)))
    lines = [textwrap.fill(line, chars) if line else line for line in title.split("\n")]
    return ax.set_title("\n".join(lines), **kwargs)


def panel_grid(n: int, *, aspect: float = 1.0, min_px: float = MIN_PANEL_PX, max_cols: int | None = None,
               extra_height: float = 0.55, **subplot_kw):
    """``n`` panels in rows that fit the column, each axes at least ``min_px`` CSS px a side.

    A panel ``w`` px wide is ``aspect × w`` tall and needs :data:`_DECOR_PX` more
    across for its tick labels and the gap to the next, so the column holds
    ``c = COLUMN_PX // (min_px / min(1, aspect) + _DECOR_PX)`` of them (at most ``n``
    and ``max_cols``); rows ``r = ceil(n / c)``, and then ``c = ceil(n / r)`` so that
    the rows are as even as can be (8 panels at 120 px: 2 rows of 4; 5 panels: 3 + 2).
    The figure is the column's width; each row is ``aspect × COLUMN_PX / c`` tall plus
    ``extra_height`` inches for its title and tick labels, laid out by matplotlib's
    constrained layout. Returns ``(fig, axes)`` with ``axes`` a list of the ``n`` axes
    in reading order; unused cells of the grid are removed.
    """
    import matplotlib.pyplot as plt

    n = check_count("n", n, low=1)
    aspect = check_number("aspect", aspect, low=0.1, high=10)
    min_px = check_number("min_px", min_px, low=MIN_PANEL_PX, high=COLUMN_PX - _DECOR_PX)
    max_cols = n if max_cols is None else check_count("max_cols", max_cols, low=1)
    extra_height = check_number("extra_height", extra_height, low=0, high=3)
    cols = max(1, min(n, max_cols, int(COLUMN_PX // (min_px / min(1.0, aspect) + _DECOR_PX))))
    rows = math.ceil(n / cols)
    cols = math.ceil(n / rows)
    width = COLUMN_PX / plt.rcParams["figure.dpi"]
    height = rows * (width / cols * aspect + extra_height)
    fig, grid = plt.subplots(rows, cols, figsize=(width, height), layout="constrained", squeeze=False,
                             **subplot_kw)
    axes = list(grid.flat)
    for ax in axes[n:]:
        ax.remove()
    return fig, axes[:n]


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
