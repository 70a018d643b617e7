"""The book's figure style: text that reads at the column's width.

A figure is shown at its natural size if it fits the column (COLUMN_PX) and scaled
down to it if not; text of s points in a figure of d dpi then measures
s × d / 72 × min(1, COLUMN_PX / width in px) CSS px on screen. fit_to_column keeps
the last factor at 1 and s at least MIN_FONT_PT, so every text is at least
MIN_FONT_PT × 96 / 72 = 10.7 px.
"""

import base64
import io
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.text import Text  # noqa: E402
from PIL import Image  # noqa: E402

from mmir_lib.plotting import BOOK_STYLE, COLUMN_PX, MIN_FONT_PT, fit_to_column  # noqa: E402


def screen_px(fig, points):
    """CSS px of text of `points` points in fig, once the book scales it to the column."""
    width_px = fig.get_figwidth() * fig.dpi
    return points * fig.dpi / 72 * min(1.0, COLUMN_PX / width_px)


def smallest_text(fig):
    fig.canvas.draw()  # tick labels as drawn
    return min(t.get_fontsize() for t in fig.findobj(Text) if t.get_text() and t.get_visible())


def wide_figure(dpi):
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4), dpi=dpi)
    for ax in axes:
        ax.plot([0, 1], [1, 0], label="a line")
        ax.set_title("a title", fontsize=6)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    return fig


def test_book_style_draws_points_as_css_points():
    assert BOOK_STYLE["figure.dpi"] == 96 and MIN_FONT_PT * 96 / 72 >= 10.5


def test_a_wide_figure_with_small_text_reads_at_the_column_width():
    fig = wide_figure(dpi=80)  # as the book drew it before: 880 px, scaled to 660
    assert screen_px(fig, smallest_text(fig)) < 5.5
    before_ratio = fig.get_figwidth() / fig.get_figheight()
    assert fit_to_column(fig) is fig
    assert fig.get_figwidth() * fig.dpi == pytest.approx(COLUMN_PX)
    assert fig.get_figwidth() / fig.get_figheight() == pytest.approx(before_ratio)
    assert smallest_text(fig) == MIN_FONT_PT
    assert screen_px(fig, smallest_text(fig)) >= MIN_FONT_PT * 80 / 72  # 8.9 px at 80 dpi, 10.7 at the book's 96
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    assert Image.open(buffer).width <= COLUMN_PX
    plt.close(fig)


def test_a_figure_that_fits_is_left_alone():
    fig, ax = plt.subplots(figsize=(5, 3), dpi=96)
    ax.plot([0, 1])
    position = ax.get_position().bounds
    fit_to_column(fig)
    assert tuple(fig.get_size_inches()) == (5, 3) and ax.get_position().bounds == position
    assert screen_px(fig, smallest_text(fig)) >= 10.5
    plt.close(fig)


def test_fit_to_column_refuses_what_is_not_a_figure():
    with pytest.raises(TypeError, match="fig must be"):
        fit_to_column("a figure")


def test_figures_a_chapter_displays_are_fitted(tmp_path):
    # In a kernel, use_book_style wraps Jupyter's PNG formatter: static figures too.
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in (
        f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parents[1])!r})\n"
        "import matplotlib.pyplot as plt\nfrom mmir_lib import setup_chapter\nrng = setup_chapter()",
        "fig, ax = plt.subplots(figsize=(11, 3))\nax.plot([0, 1])\nax.set_title('a title', fontsize=6)",
        "fig, ax = plt.subplots(figsize=(4, 3))\nax.plot([0, 1])",
    )]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}).execute()
    widths = [Image.open(io.BytesIO(base64.b64decode(output["data"]["image/png"]))).width
              for cell in notebook.cells for output in cell.outputs if "image/png" in output.get("data", {})]
    assert len(widths) == 2
    assert COLUMN_PX - 60 < widths[0] <= COLUMN_PX  # 11 in shrunk to the column (tight bounding box: a little less)
    assert widths[1] <= 4 * 96  # a narrow figure keeps its size at 96 dpi
