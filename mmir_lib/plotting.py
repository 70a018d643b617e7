"""The book's look for matplotlib figures, in one place.

:data:`BOOK_STYLE` is applied by :func:`mmir_lib.setup_chapter`; a figure made in any
chapter therefore has the same size, resolution, grid and spines. Figures are drawn
at a modest resolution (80 dpi): the book shows them at about their natural size, and
interactive figures store one image per slider position, so small images keep pages
light.
"""

from __future__ import annotations

__all__ = ["BOOK_STYLE", "use_book_style"]

#: matplotlib rcParams of every figure in the book.
BOOK_STYLE = {
    "figure.dpi": 80,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def use_book_style() -> None:
    """Apply :data:`BOOK_STYLE` to matplotlib's global settings."""
    import matplotlib.pyplot as plt

    plt.rcParams.update(BOOK_STYLE)
