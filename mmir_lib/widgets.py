"""Interactive figures that work both live in Jupyter and in the static HTML book.

A static book has no Python kernel, so an ipywidgets callback can never run there.
:func:`interactive` therefore computes the figure for **every point of the slider
grid** when the cell runs, and emits one display bundle with two renderings:

* ``application/vnd.jupyter.widget-view+json`` -- ipywidgets controls and an HTML
  view. JupyterLab shows this one (once the notebook is trusted, e.g. after you run
  the cell). Choosing a value swaps in the frame the kernel computed for that point.
* ``text/html`` -- a self-contained block: ``<input type=range>`` sliders, all
  frames as JSON, and a dozen lines of plain JavaScript that swap them. No outside
  library, no network, works from ``file://``. The book's build picks this one
  (``nb_mime_priority_overrides`` in ``_config.yml``).

Both show exactly the same frames, so what a reader sees in the book is what the
notebook computes. The price is that every frame is computed up front; hence the
**frame budget**: a grid may have at most :data:`MAX_FRAMES` points (checked before
anything is computed) and its frames may weigh at most :data:`MAX_BYTES` (checked
after); either limit raises ValueError saying which grid to coarsen. 256 frames of a
~10 kB figure keeps a page with two or three widgets under the book's 3 MB budget.

Frames may be a matplotlib Figure (fitted to the book's column by
:func:`mmir_lib.plotting.fit_to_column`, so that its text reads at the column's width,
and stored as a palette PNG), anything with a ``_repr_html_``, an HTML string, or a
tuple of these shown side by side. If the plotting function raises at any grid point,
:func:`interactive` raises too, naming the point: a frame that errors is a defect of
the figure, so it fails the notebook's run instead of being shown to a reader.

Accessibility: the figure is a ``<figure>`` whose ``<figcaption>`` is the title; each
slider is named by its label and announces its value (not its grid position); after a
move, a polite live region announces the new frame's alt text, not the whole frame.

Testing with nbval: a cell that calls :func:`interactive` is deterministic (frames
are rendered without timestamps, element ids are not random), so its ``text/html``
and ``text/plain`` outputs are compared like any other; only the PNG bytes inside
are masked by the book's nbval sanitizer, exactly as nbval skips ``image/png``
outputs. The widget-view output is skipped by nbval itself (its model id is random).
No widget cell needs an ignore tag.

Example (the last line of a notebook cell)::

    def curve(k1, b):
        fig, ax = plt.subplots()
        ...
        return fig

    interactive(curve, k1=slider(0, 3, 0.25, value=1.25), b=slider(0, 1, 0.25))
"""

from __future__ import annotations

import base64
import html
import inspect
import io
import itertools
import json
import math
import string
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

from .plotting import fit_to_column
from .validation import check_callable, check_count, check_number, check_optional, check_str, describe

__all__ = ["MAX_FRAMES", "MAX_BYTES", "Slider", "slider", "choice", "interactive", "InteractiveFigure"]

#: Most grid points (frames) one interactive figure may have.
MAX_FRAMES = 256
#: Most bytes the distinct frames of one interactive figure may weigh, as HTML.
MAX_BYTES = 1_500_000


@dataclass(frozen=True)
class Slider:
    """A slider's grid of values, its starting value and the format of its label, as
    :func:`slider` and :func:`choice` build and check them."""

    values: tuple
    value: object = None
    fmt: str = "{:g}"
    label: str | None = None

    def labels(self) -> list[str]:
        return [self.fmt.format(v) for v in self.values]


def slider(min: float, max: float, step: float, *, value: float | None = None, fmt: str = "{:g}",
           label: str | None = None) -> Slider:
    """A numeric slider over the grid min, min + step, ..., up to max.

    ``value`` is the starting position (snapped to the nearest grid point; the
    first point when omitted). ``fmt`` formats the value shown beside the slider.
    ``label`` is what the slider is called on screen and by a screen reader, e.g.
    ``"pseudo-relevant documents m"``; the parameter's name when omitted.
    Raises ValueError for min > max, step <= 0, or a grid of more than
    :data:`MAX_FRAMES` values (before any value is made).
    """
    check_number("min", min), check_number("max", max), check_number("step", step, low=0, low_open=True)
    check_optional(check_number, "value", value)
    label = check_optional(check_str, "label", label)
    min, max, step = _plain(min), _plain(max), _plain(step)
    fmt = _check_format("fmt", fmt, (min, min + step, max))
    if min > max:
        raise ValueError(f"min must be <= max, got min = {min:g} and max = {max:g}")
    gaps = (max - min) / step  # may overflow to inf: then it is surely over the budget
    if not gaps + 1 <= MAX_FRAMES + 1e-9:
        raise ValueError(f"step = {step:g} cuts [min, max] = [{min:g}, {max:g}] into more than {MAX_FRAMES} "
                         f"values, over the frame budget: use a larger step")
    count = int(math.floor(gaps + 1e-9)) + 1
    values = tuple(round(min + i * step, 12) for i in range(count))
    return Slider(values, value, fmt, label)


def choice(values, *, value=None, fmt: str = "{}", label: str | None = None) -> Slider:
    """A slider over an explicit list of values (numbers or labels), in the given order.

    ``value`` (one of ``values``) is the starting position; the first value when omitted.
    ``label`` names the slider on screen and for screen readers, as in :func:`slider`.
    """
    label = check_optional(check_str, "label", label)
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise TypeError(f"values must be a list of values, got {describe(values)}")
    values = tuple(values)
    if not values:
        raise ValueError("values must not be empty")
    if len(values) > MAX_FRAMES:
        raise ValueError(f"values holds {len(values)} values, over the frame budget of {MAX_FRAMES}")
    if value is not None and not any(_same(value, v) for v in values):
        raise ValueError(f"value {describe(value)} is not one of the values")
    fmt = _check_format("fmt", fmt, values)
    return Slider(values, value, fmt, label)


def _plain(x: Real) -> int | float:
    """A checked number as a Python int (ints stay ints: the grid of slider(0, 2, 1)
    is 0, 1, 2) or float."""
    return int(x) if isinstance(x, Integral) else float(x)


def _same(a, b) -> bool:
    """a == b as a plain bool (False where == is not a bool, as for arrays, and
    between a bool and a number: True is no slider value 1)."""
    if isinstance(a, (bool, np.bool_)) != isinstance(b, (bool, np.bool_)):
        return False
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _check_format(name: str, fmt: object, examples: tuple) -> str:
    """A format string with a replacement field (``"{:g}"``) that can format each of ``examples``."""
    check_str(name, fmt)
    try:
        has_field = any(field is not None for _, field, _, _ in string.Formatter().parse(fmt))
    except ValueError as error:  # an unbalanced brace
        raise ValueError(f"{name} {fmt!r} is not a format string: {error}") from None
    if not has_field:
        raise ValueError(f"{name} must hold a replacement field such as '{{:g}}', got {fmt!r}")
    for example in examples:
        try:
            fmt.format(example)
        except (ValueError, TypeError, IndexError, KeyError, AttributeError) as error:
            raise ValueError(f"{name} {fmt!r} cannot format the value {example!r}: {error}") from None
    return fmt


def _check_sliders(plot_fn, sliders: dict) -> None:
    check_callable("plot_fn", plot_fn)
    if not sliders:
        raise ValueError("interactive() needs at least one slider, e.g. k1=slider(0, 3, 0.25)")
    try:
        parameters = inspect.signature(plot_fn).parameters
    except (TypeError, ValueError):  # some built-in functions
        raise TypeError(f"plot_fn must be a function whose parameters can be read, got {describe(plot_fn)}") from None
    takes_any = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
    for name, spec in sliders.items():
        if not takes_any and name not in parameters:
            raise ValueError(
                f"unknown parameter {name!r}: {plot_fn.__name__}() takes {', '.join(parameters) or 'nothing'}"
            )
        if not isinstance(spec, Slider):
            raise TypeError(f"{name} must be a slider(...) or choice(...), got {describe(spec)}")
    missing = [
        n for n, p in parameters.items()
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and n not in sliders
    ]
    if missing:
        raise ValueError(f"{plot_fn.__name__}() needs a slider (or a default) for {', '.join(map(repr, missing))}")
    count = math.prod(len(s.values) for s in sliders.values())
    if count > MAX_FRAMES:
        sizes = " × ".join(f"{n} ({len(s.values)})" for n, s in sliders.items())
        raise ValueError(
            f"{sizes} = {count} frames, over the budget of {MAX_FRAMES}: use a larger step or fewer values"
        )


def _start_index(name: str, spec: Slider) -> int:
    if spec.value is None:
        return 0
    same = [i for i, v in enumerate(spec.values) if _same(v, spec.value)]
    if same:
        return same[0]
    if isinstance(spec.value, Real) and all(isinstance(v, Real) for v in spec.values):
        return min(range(len(spec.values)), key=lambda i: abs(spec.values[i] - spec.value))
    raise ValueError(f"{name}: value {spec.value!r} is not one of the slider's values")


# ---- styles (inline) ------------------------------------------------------------------

# Every style is inline: JupyterLab removes <style> elements from an untrusted
# notebook's output (and keeps inline styles), so the static copy must read right
# without one, and in the book no stylesheet is added to the page per widget.
# The spaces written between a label's name, slider and value keep them apart
# even where no style applies at all.
_BOX = "border:1px solid rgba(127,127,127,0.4);border-radius:6px;padding:0.5em 0.75em;margin:0.5em 0"
_CONTROLS = "display:flex;flex-wrap:wrap;gap:0.25em 1.5em;margin-bottom:0.4em"
_LABEL = "display:inline-flex;align-items:center;gap:0.5em;margin-right:1.5em;font-family:monospace"
_OUTPUT = "display:inline-block;min-width:3.5em"
_ROW = "display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start"
_IMAGE = "max-width:100%;height:auto"
_CAPTION = "margin-top:0.4em;font-size:0.9em;text-align:center"
# Read by screen readers, not shown (the usual "visually hidden" pattern).
_HIDDEN = "position:absolute;width:1px;height:1px;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap"


# ---- rendering one frame ------------------------------------------------------------

def _figure_html(fig, alt: str) -> str:
    """A matplotlib figure, fitted to the column, as an <img> holding a palette PNG
    (about 3× smaller than RGBA, deterministic: no timestamp or software tag is written)."""
    from PIL import Image
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    fit_to_column(fig).savefig(buffer, format="png", metadata={"Software": None})
    plt.close(fig)
    image = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    image = image.quantize(colors=64, dither=Image.Dither.NONE)
    buffer = io.BytesIO()
    image.save(buffer, format="png", optimize=True)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (f'<img src="data:image/png;base64,{data}" width="{image.width}" '
            f'height="{image.height}" alt="{html.escape(alt)}" style="{_IMAGE}">')


def _to_html(result, alt: str) -> str:
    from matplotlib.figure import Figure

    if isinstance(result, Figure):
        return _figure_html(result, alt)
    if isinstance(result, tuple):
        parts = "".join(f"<div>{_to_html(r, alt)}</div>" for r in result)
        return f'<div class="mmir-widget-row" style="{_ROW}">{parts}</div>'
    if hasattr(result, "_repr_html_"):
        return result._repr_html_()
    if isinstance(result, str):
        return result
    raise TypeError(
        f"the plotting function returned {type(result).__name__}; expected a matplotlib "
        "Figure, an object with _repr_html_, an HTML str, or a tuple of these"
    )


def _render(plot_fn, params: dict, alt: str) -> str:
    """One frame's HTML. If plot_fn raises (or returns nothing to show), a RuntimeError
    naming the grid point is raised from the original error, and the figures it opened
    are closed."""
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    try:
        result = plot_fn(**params)
        if result is None:  # the function drew with pyplot and returned nothing
            new = [plt.figure(n) for n in plt.get_fignums() if n not in before]
            result = new[0] if len(new) == 1 else tuple(new) if new else None
            if result is None:
                raise TypeError("the plotting function returned None and drew no figure")
        return _to_html(result, alt)
    except Exception as error:
        for n in set(plt.get_fignums()) - before:
            plt.close(n)
        setting = ", ".join(f"{k} = {v!r}" for k, v in params.items())
        name = getattr(plot_fn, "__name__", "plot_fn")
        raise RuntimeError(f"{name}() failed at the grid point {setting}: {type(error).__name__}: {error}. "
                           "Every grid point must give a frame: fix the function or the sliders' range") from error


# ---- the static HTML rendering -----------------------------------------------------

# Plain JavaScript, run once per widget where it stands (document.currentScript).
# The frame to show is data.index[flat], flat = row-major index of the slider positions;
# data.alts[flat] is its alt text, which the live region announces after a move (a
# screen reader then hears what the figure now shows, not the whole frame read again).
# Fast by design: each frame's HTML is parsed into the page once (on first use, or
# ahead of it while the browser is idle) and kept as a hidden element; moving a
# slider only hides one element and shows another, so no HTML is parsed and no image
# decoded again on a move; and the view keeps the height of its tallest frame so far,
# so the rest of the page stays where it is.
_SCRIPT = """<script>(function (root) {
  var data = JSON.parse(root.querySelector(".mmir-widget-data").textContent);
  var inputs = root.querySelectorAll("input[type=range]");
  var outputs = root.querySelectorAll("output");
  var view = root.querySelector(".mmir-widget-frame");
  var status = root.querySelector(".mmir-widget-status");
  var shown = view.firstElementChild, nodes = [], tallest = 0;
  nodes[Number(shown.getAttribute("data-frame"))] = shown;
  function node(f) {
    if (!nodes[f]) {
      var element = document.createElement("div");
      element.hidden = true;
      element.setAttribute("data-frame", f);
      element.innerHTML = data.frames[f];
      view.appendChild(element);
      nodes[f] = element;
    }
    return nodes[f];
  }
  function show() {
    var flat = 0;
    for (var i = 0; i < inputs.length; i++) {
      var j = Number(inputs[i].value);
      flat = flat * data.shape[i] + j;
      outputs[i].textContent = data.labels[i][j];
      inputs[i].setAttribute("aria-valuetext", data.labels[i][j]);
    }
    status.textContent = data.alts[flat];
    var next = node(data.index[flat]);
    if (next === shown) return;
    if (!tallest) keepHeight();  // the first frame's
    next.hidden = false;
    shown.hidden = true;
    shown = next;
    keepHeight();
  }
  // The view never shrinks, so the page below it does not move (and need not be laid
  // out and painted again) when a shorter frame follows a taller one.
  function keepHeight() {
    var height = view.offsetHeight;
    if (height > tallest) { tallest = height; view.style.minHeight = height + "px"; }
  }
  var ahead = 0;
  function prepare(deadline) {
    while (ahead < data.frames.length && deadline.timeRemaining() > 2) node(ahead++);
    if (ahead < data.frames.length) requestIdleCallback(prepare);
  }
  for (var i = 0; i < inputs.length; i++) inputs[i].addEventListener("input", show);
  if (window.requestIdleCallback) requestIdleCallback(prepare);
})(document.currentScript.parentElement);</script>"""


def _json_for_script(data) -> str:
    # "</" would end the <script> element early; JSON allows the escaped form.
    return json.dumps(data, separators=(",", ":")).replace("</", "<\\/")


@dataclass
class InteractiveFigure:
    """What :func:`interactive` returns; displays as a live widget or static HTML."""

    names: list
    captions: list
    labels: list
    start: list
    frames: list
    index: list
    title: str
    alts: list

    def frame_at(self, positions) -> str:
        """The frame shown when slider i stands at grid position positions[i]
        (0 <= positions[i] < number of values of slider i)."""
        return self.frames[self.index[self._flat(positions)]]

    def html(self) -> str:
        """The self-contained static rendering (sliders, frames, script).

        Each slider announces its value, not its grid position, to screen readers
        (``aria-valuetext``, set from the first paint and on every move); the value shown
        beside it is an ``<output>``, a live region of its own that is silenced, since the
        slider already announces it. The title is the figure's visible caption and its
        accessible name."""
        controls = []
        for caption, labels, j in zip(self.captions, self.labels, self.start):
            controls.append(
                f'<label style="{_LABEL}">{html.escape(caption)} <input type="range" min="0" '
                f'max="{len(labels) - 1}" step="1" value="{j}" aria-label="{html.escape(caption)}" '
                f'aria-valuetext="{html.escape(labels[j])}"> '
                f'<output aria-live="off" style="{_OUTPUT}">{html.escape(labels[j])}</output></label>'
            )
        start_frame = self.index[self._flat(self.start)]
        data = {"shape": [len(l) for l in self.labels], "labels": self.labels,
                "index": self.index, "alts": self.alts, "frames": self.frames}
        return (
            f'<figure class="mmir-widget" style="{_BOX}">'
            f'<div class="mmir-widget-controls" style="{_CONTROLS}">{" ".join(controls)}</div>'
            f'<div class="mmir-widget-frame"><div data-frame="{start_frame}">{self.frames[start_frame]}</div></div>'
            f'<p class="mmir-widget-status" aria-live="polite" style="{_HIDDEN}"></p>'
            f'<figcaption style="{_CAPTION}">{html.escape(self.title)}</figcaption>'
            f'<script type="application/json" class="mmir-widget-data">{_json_for_script(data)}</script>'
            f"{_SCRIPT}</figure>"
        )

    def _flat(self, positions) -> int:
        """The row-major index of a grid point, after checking its positions."""
        if isinstance(positions, (str, bytes, Mapping)) or not isinstance(positions, Iterable):
            raise TypeError(f"positions must be a list of {len(self.labels)} slider positions, "
                            f"got {describe(positions)}")
        positions = list(positions)
        if len(positions) != len(self.labels):
            raise ValueError(f"positions must hold one position per slider ({', '.join(self.names)}): "
                             f"{len(self.labels)}, got {len(positions)}")
        flat = 0
        for name, labels, j in zip(self.names, self.labels, positions):
            j = check_count(f"positions[{name}]", j, high=len(labels) - 1)
            flat = flat * len(labels) + j
        return flat

    def live_widget(self):
        """The ipywidgets rendering: one drop-down list per parameter, an HTML view and the
        title as its caption, as in the static rendering.

        A drop-down (an HTML ``<select>``), not an ipywidgets slider: ipywidgets 8's
        sliders give their handle no accessible name and announce the grid position
        ("2") rather than the value; a ``<select>`` is named by its label and announces
        the chosen value ("0.3"). Keyboard: Up and Down step through the values, Home and End
        jump to the ends, Alt+Down opens the list (in JupyterLab the book's setup keeps
        the notebook's command-mode keys off a focused control: tools/lab_setup.py)."""
        import ipywidgets as widgets

        view = widgets.HTML(value=self.frame_at(self.start))
        controls = [
            widgets.Dropdown(
                options=[(label, j) for j, label in enumerate(labels)], value=j0,
                description=caption, style={"description_width": "initial"},
                layout={"width": "auto", "max_width": "100%"},
            )
            for caption, labels, j0 in zip(self.captions, self.labels, self.start)
        ]

        def update(_change=None):
            view.value = self.frame_at([c.value for c in controls])

        for c in controls:
            c.observe(update, names="value")
        caption = widgets.HTML(value=f'<figcaption style="{_CAPTION}">{html.escape(self.title)}</figcaption>')
        return widgets.VBox([widgets.HBox(controls, layout={"flex_flow": "row wrap"}), view, caption])

    def __repr__(self) -> str:
        grid = " × ".join(f"{n} ∈ {{{l[0]} … {l[-1]}}} ({len(l)})" for n, l in zip(self.names, self.labels))
        return f"<interactive figure '{self.title}': {grid} = {len(self.index)} frames, {len(self.frames)} distinct>"

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"text/plain": repr(self), "text/html": self.html()}
        try:
            live = self.live_widget()._repr_mimebundle_()
        except ImportError:  # no ipywidgets: the static rendering alone
            return bundle
        bundle["application/vnd.jupyter.widget-view+json"] = live["application/vnd.jupyter.widget-view+json"]
        return bundle


def interactive(plot_fn, *, title: str | None = None, alt: str | None = None, **sliders) -> InteractiveFigure:
    """An interactive figure: ``plot_fn(**values)`` at every point of the sliders' grid.

    Parameters
    ----------
    plot_fn : callable
        Called with one keyword argument per slider; returns a matplotlib Figure,
        an HTML string, an object with ``_repr_html_``, or a tuple of these.
    title : str, optional
        The figure's caption, shown under it and naming it for screen readers;
        defaults to the function's name.
    alt : str, optional
        Alt text for figure frames, formatted with the slider values, e.g.
        ``"BM25 weight curves for k1 = {k1}, b = {b}"``. Defaults to the title
        followed by the sliders' labels and values. Screen readers also hear it after
        each move.
    **sliders : Slider
        ``name=slider(min, max, step)`` or ``name=choice([...])``; names must be
        parameters of ``plot_fn``. (A bad bound, step or list of values is refused by
        :func:`slider` or :func:`choice` themselves.)

    Returns
    -------
    InteractiveFigure
        Display it (last expression of a cell) to get the live widget in Jupyter and
        the static version in the book.

    Raises
    ------
    ValueError
        A name that is not a parameter of ``plot_fn``; a grid of more than
        :data:`MAX_FRAMES` points; frames heavier than :data:`MAX_BYTES` in all.
    RuntimeError
        ``plot_fn`` raised (or returned nothing to show) at some grid point; the
        message names the point and the original error is chained to it.
    """
    _check_sliders(plot_fn, sliders)
    title = check_optional(check_str, "title", title, allow_empty=True)
    alt = check_optional(check_str, "alt", alt, allow_empty=True)
    title = title or getattr(plot_fn, "__name__", "figure").replace("_", " ")
    names = list(sliders)
    specs = [sliders[n] for n in names]
    start = [_start_index(n, s) for n, s in zip(names, specs)]
    if alt:
        try:
            alt.format(**{n: "" for n in names})
        except (KeyError, IndexError) as error:
            raise ValueError(f"alt {alt!r} names {error}, which is not a slider") from None
    captions = [s.label or n for n, s in zip(names, specs)]
    frames, index, alts, seen = [], [], [], {}
    for point in itertools.product(*(s.values for s in specs)):
        params = dict(zip(names, point))
        labels = {n: s.fmt.format(v) for n, s, v in zip(names, specs, point)}
        text = alt.format(**labels) if alt else f"{title}: " + ", ".join(
            f"{c} = {v}" for c, v in zip(captions, labels.values()))
        frame = _render(plot_fn, params, text)
        alts.append(text)
        if frame not in seen:
            seen[frame] = len(frames)
            frames.append(frame)
        index.append(seen[frame])
    size = sum(len(f) for f in frames)
    if size > MAX_BYTES:
        raise ValueError(
            f"the {len(frames)} distinct frames weigh {size / 1e6:.1f} MB, over the budget of "
            f"{MAX_BYTES / 1e6:.1f} MB: use fewer slider values or a smaller figure"
        )
    return InteractiveFigure(names, captions, [s.labels() for s in specs], start, frames, index, title, alts)
