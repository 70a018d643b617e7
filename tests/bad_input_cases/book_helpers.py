"""Bad-input cases for the helpers every chapter uses: listings, plotting style and the tools/ loader."""

from matplotlib.figure import Figure

from mmir_lib.chapter import load_tool
from mmir_lib.listing import show_code
from mmir_lib.plotting import figure_problems, fit_to_column, panel_grid, use_book_style, wrap_title
from tests.api_fuzz import Case


def _example(values, weight=1.0):
    """An example function to list."""
    total = 0.0
    for v in values:
        total += weight * v
    return total


CASES = [
    Case(show_code, dict(obj=_example, between=("for v", "return"), checks=False), accepts={"between": {"none"}, "checks": {"bool"}}),
    Case(use_book_style, {}),
    Case(fit_to_column, dict(fig=Figure(figsize=(9, 3)))),
    Case(figure_problems, dict(fig=Figure(figsize=(4, 3)), min_panel_px=120), accepts={"min_panel_px": {"zero"}}),
    Case(panel_grid, dict(n=3, aspect=1.0, min_px=150, max_cols=2, extra_height=0.5),
         accepts={"max_cols": {"none"}, "extra_height": {"zero"}}),
    Case(wrap_title, dict(ax=Figure(figsize=(4, 3)).add_subplot(), title="a title"), accepts={"title": {"empty", "str"}}),
    Case(load_tool, dict(name="train_date_translators")),
]

EXEMPT = {
    "mmir_lib.chapter.setup_chapter": "changes process-wide state (threads, seeds); its bad seeds are tested "
                                      "in a fresh process by tests/test_chapter.py",
    "mmir_lib.chapter.use_deterministic_torch": "switches torch's deterministic kernels for the whole process; "
                                                "its bad input is tested in tests/test_chapter.py",
    "mmir_lib.listing.Listing": "a plain record (code, caption) that show_code builds",
}
