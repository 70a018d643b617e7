"""Two-dimensional loss surfaces for watching optimisers move (chapter IV.3).

Each :class:`Surface` has its loss J(x, y), vectorised for contour plots, its
gradient, where the optimisers start, the view to draw and where its minima are.

* :data:`ILL_CONDITIONED`: J = (x² + 25 y²) / 2, a quadratic bowl 25 times steeper
  along y than along x (condition number 25): plain descent zig-zags across the
  valley and crawls along it;
* :data:`ROSENBROCK`: J = (1 − x)² + 100 (y − x²)², a curved, flat-bottomed valley
  with its minimum at (1, 1) (Rosenbrock 1960);
* :data:`SADDLE`: J = x²/2 − y²/2 + y⁴/4, a saddle point at the origin between two
  minima at (0, ±1): the gradient vanishes at the start (0, 0.001) in all but a tiny
  y component, so a method must amplify that component to escape.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["Surface", "ILL_CONDITIONED", "ROSENBROCK", "SADDLE", "SURFACES"]


@dataclass(frozen=True)
class Surface:
    """A loss J(x, y) with its gradient; ``start`` is where optimisers begin, ``view``
    the (x_min, x_max, y_min, y_max) to draw, ``minima`` the points of lowest loss."""

    name: str
    loss: Callable
    gradient: Callable
    start: tuple
    view: tuple
    minima: tuple


ILL_CONDITIONED = Surface(
    "ill-conditioned bowl",
    loss=lambda x, y: (x ** 2 + 25 * y ** 2) / 2,
    gradient=lambda t: np.array([t[0], 25 * t[1]]),
    start=(-4.0, 1.5), view=(-4.5, 1.0, -2.0, 2.0), minima=((0.0, 0.0),))

ROSENBROCK = Surface(
    "Rosenbrock valley",
    loss=lambda x, y: (1 - x) ** 2 + 100 * (y - x ** 2) ** 2,
    gradient=lambda t: np.array([-2 * (1 - t[0]) - 400 * t[0] * (t[1] - t[0] ** 2), 200 * (t[1] - t[0] ** 2)]),
    start=(-1.5, 2.0), view=(-2.0, 1.6, -0.5, 3.0), minima=((1.0, 1.0),))

SADDLE = Surface(
    "saddle",
    loss=lambda x, y: x ** 2 / 2 - y ** 2 / 2 + y ** 4 / 4,
    gradient=lambda t: np.array([t[0], -t[1] + t[1] ** 3]),
    start=(1.5, 1e-3), view=(-1.0, 2.0, -1.6, 1.6), minima=((0.0, 1.0), (0.0, -1.0)))

#: The three surfaces by name.
SURFACES = {s.name: s for s in (ILL_CONDITIONED, ROSENBROCK, SADDLE)}
