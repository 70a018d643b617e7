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
        "fig, ax = plt.subplots(figsize=(11, 4))\nax.plot([0, 1])\nax.set_title('a title', fontsize=6)",
        "fig, ax = plt.subplots(figsize=(4, 3))\nax.plot([0, 1])",
        "fig, axes = plt.subplots(1, 8, figsize=(16, 2.4))\nfor ax in axes: ax.imshow([[0.0] * 64] * 64)",
    )]
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": tmp_path}}).execute()
    widths = [Image.open(io.BytesIO(base64.b64decode(output["data"]["image/png"]))).width
              for cell in notebook.cells for output in cell.outputs if "image/png" in output.get("data", {})]
    assert len(widths) == 2
    assert COLUMN_PX - 60 < widths[0] <= COLUMN_PX  # 11 in shrunk to the column (tight bounding box: a little less)
    assert widths[1] <= 4 * 96  # a narrow figure keeps its size at 96 dpi
    # a figure that does not read at the column is not shown: its cell holds the error instead
    shown = "".join(str(output) for output in notebook.cells[3].outputs)
    assert "does not read at the column" in shown and "under 120 px on its shorter side" in shown


# ---- figures that read: no overlapping texts, no panel below MIN_PANEL_PX ----------------

from hypothesis import given, settings, strategies as st  # noqa: E402
import numpy as np  # noqa: E402

from mmir_lib.plotting import MIN_PANEL_PX, figure_problems, panel_grid, wrap_title  # noqa: E402

TITLE = "Gaussian, sigma = 2, reflect"


def image_strip(n, width_in, side=64):
    fig, axes = plt.subplots(1, n, figsize=(width_in, 2.4), dpi=96)
    for ax in np.ravel(axes):
        ax.imshow(np.arange(side * side + 0.0).reshape(side, side))
        ax.set_title(TITLE)
    return fig


def test_titles_that_run_into_each_other_fail():
    fig = image_strip(3, 6)
    problems = figure_problems(fig)
    assert problems and all("overlap" in p for p in problems)
    assert any(repr(TITLE) in p for p in problems)
    plt.close(fig)


def test_a_strip_of_eight_images_fails_the_panel_minimum():
    fig = image_strip(8, 16)
    with pytest.raises(ValueError, match="under 120 px on its shorter side"):
        fit_to_column(fig)  # 16 in shrunk to 660 px: 8 panels of about 60 px
    plt.close(fig)


def test_small_panels_showing_every_pixel_of_their_images_pass():
    fig = image_strip(8, 6.875, side=28)  # 28 x 28 digits in 60 px panels: no pixel lost
    assert [p for p in figure_problems(fig) if "panel" in p] == []
    fig.axes[0].plot([0, 27], [0, 27])  # a panel that draws more than its image is held to the minimum
    assert [p for p in figure_problems(fig) if "panel" in p] == [
        next(p for p in figure_problems(fig) if "panel" in p)]
    plt.close(fig)


def test_the_same_strip_laid_out_by_panel_grid_passes():
    fig, axes = panel_grid(8)
    for ax in axes:
        ax.imshow(np.arange(4096.0).reshape(64, 64))
        wrap_title(ax, TITLE)
    assert fit_to_column(fig) is fig and figure_problems(fig) == []
    assert fig.get_figwidth() * fig.dpi == pytest.approx(COLUMN_PX)
    assert {ax.get_subplotspec().get_gridspec().get_geometry() for ax in axes} == {(2, 4)}
    assert "\n" in axes[0].get_title()  # wrapped to a 165 px panel
    plt.close(fig)


def test_hidden_empty_colorbar_and_inset_are_not_checked():
    fig, ax = plt.subplots(figsize=(4, 3))
    image = ax.imshow(np.eye(4))
    fig.colorbar(image, ax=ax)  # a colorbar is narrower than MIN_PANEL_PX, and exempt
    ax.inset_axes([0.7, 0.7, 0.25, 0.25]).plot([0, 1])
    ax.text(0.5, 0.5, "", transform=ax.transAxes)
    ax.text(0.5, 0.5, "hidden", visible=False, transform=ax.transAxes)
    ax.text(0.5, 0.5, "shown", transform=ax.transAxes)
    assert figure_problems(fig) == []
    plt.close(fig)


def test_a_text_drawn_over_another_is_found():
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1])
    ax.annotate("first note", (0.5, 0.5))
    ax.annotate("second note", (0.52, 0.5))
    assert figure_problems(fig) == [next(p for p in figure_problems(fig) if "'first note' and 'second note'" in p)]
    plt.close(fig)


@settings(max_examples=6, deadline=None)
@given(n=st.integers(1, 12), aspect=st.floats(0.5, 1.5), min_px=st.integers(MIN_PANEL_PX, 330))
def test_panel_grid_fits_the_column_at_the_minimum(n, aspect, min_px):
    fig, axes = panel_grid(n, aspect=aspect, min_px=min_px)
    rows, cols = axes[0].get_subplotspec().get_gridspec().get_geometry()
    assert len(axes) == n and len(fig.axes) == n
    assert cols * min_px * max(1, 1 / aspect) <= COLUMN_PX or cols == 1
    assert rows * cols >= n > (rows - 1) * cols  # no empty row
    assert fig.get_figwidth() * fig.dpi == pytest.approx(COLUMN_PX)
    for ax in axes:
        ax.imshow(np.zeros((4, 4)))
        wrap_title(ax, TITLE)
    assert [p for p in figure_problems(fig) if "panel" in p] == []
    plt.close(fig)


def test_the_new_helpers_refuse_bad_input():
    with pytest.raises(TypeError, match="fig must be"):
        figure_problems("a figure")
    with pytest.raises(ValueError, match="min_panel_px must be >= 0"):
        figure_problems(plt.figure(), min_panel_px=-1)
    with pytest.raises(ValueError, match="n must be"):
        panel_grid(0)
    with pytest.raises(ValueError, match="min_px must be >= 120"):
        panel_grid(3, min_px=60)
    with pytest.raises(TypeError, match="ax must be"):
        wrap_title("an axes", TITLE)
    plt.close("all")


@pytest.mark.parametrize("label, plain", [
    ("P_T[next]", True), ("n_t / N", True), ("L − L_MLE", True), ("(x / 100)^0.75", True), ("β_W = 0.5", True),
    ("$P_T$[next]", False), ("$n_t / N$ (fraction)", False), ("$(x / 100)^{0.75}$", False),
    ("separable_filter (m + n)", False), ("bm25_scores", False), ("recall@10", False), (r"\$ and n_t", True),
])
def test_a_plain_subscript_or_superscript_is_a_problem(label, plain):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    ax.set_xlabel(label)
    problems = figure_problems(fig)
    plt.close(fig)
    assert any("plain _ or ^" in p for p in problems) == plain, problems
