import json
import re

import numpy as np

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from mmir_lib import widgets  # noqa: E402
from mmir_lib.widgets import choice, interactive, slider  # noqa: E402


def table(k1, b):
    return f"<p>k1={k1} b={b}</p>"


def static_data(figure):
    html = figure.html()
    payload = re.search(r'<script type="application/json" class="mmir-widget-data">(.*?)</script>', html, re.S)
    return json.loads(payload.group(1).replace("<\\/", "</"))


def test_slider_grid_snaps_to_step():
    assert slider(0, 1, 0.25).values == (0, 0.25, 0.5, 0.75, 1.0)
    assert slider(0, 1, 0.3).values == (0, 0.3, 0.6, 0.9)  # max not on the grid: the last point below it
    assert slider(0.1, 0.3, 0.1).values == (0.1, 0.2, 0.3)  # no 0.30000000000000004
    assert choice([1, 5, 10]).values == (1, 5, 10)


def test_every_grid_point_has_its_frame_in_row_major_order():
    figure = interactive(table, k1=slider(0, 2, 1), b=choice([0.0, 0.5]))
    data = static_data(figure)
    assert data["shape"] == [3, 2] and data["labels"] == [["0", "1", "2"], ["0.0", "0.5"]]
    shown = [data["frames"][i] for i in data["index"]]
    assert shown == [f"<p>k1={k} b={b}</p>" for k in (0, 1, 2) for b in (0.0, 0.5)]


def test_start_value_snaps_to_nearest_point_and_is_shown_first():
    figure = interactive(table, k1=slider(0, 3, 1, value=1.2), b=slider(0, 1, 0.5, value=1))
    assert figure.start == [1, 2]
    assert '<div class="mmir-widget-frame"><div data-frame="5"><p>k1=1 b=1.0</p></div></div>' in figure.html()


def test_sliders_are_labelled_and_keyboard_operable():
    html = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1)).html()
    assert html.count('<input type="range"') == 2
    assert 'aria-label="k1"' in html and re.search(r"<output[^>]*>0</output>", html)


def test_a_slider_label_names_it_on_screen_and_for_screen_readers():
    html = interactive(table, k1=slider(0, 2, 1, label="saturation k1"), b=choice([0, 1])).html()
    assert 'aria-label="saturation k1"' in html and ">saturation k1 <input" in html
    assert 'aria-label="b"' in html  # no label: the parameter's name
    with pytest.raises(TypeError, match="label"):
        slider(0, 1, 0.5, label=3)


def test_sliders_announce_their_value_from_the_first_paint():
    # Screen readers read aria-valuetext (the value), not the grid position.
    html = interactive(table, k1=slider(0.5, 2, 0.25, value=1.25), b=choice(["none", "full"], value="full")).html()
    k1, b = re.findall(r"<input [^>]*>", html)
    assert 'value="3"' in k1 and 'aria-valuetext="1.25"' in k1
    assert 'value="1"' in b and 'aria-valuetext="full"' in b


def test_static_copy_reads_right_without_a_style_element():
    # JupyterLab drops <style> from an untrusted notebook; every style here is inline,
    # and a space separates each label's name, slider and value even with no style at all.
    html = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1)).html()
    assert "<style" not in html
    without_tags = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    without_tags = re.sub(r"<[^>]+>", "", without_tags)
    assert without_tags.startswith("k1  0 b  0")  # not "k1 0b 0"
    assert re.search(r'<label style="[^"]*margin-right', html)


def test_static_script_parses_each_frame_once():
    # Frames are parsed into hidden elements once and then only shown or hidden.
    html = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1)).html()
    script = html[html.index("<script>"):]
    assert script.count("innerHTML") == 1 and "nodes[f]" in script and ".hidden" in script


def test_identical_frames_are_stored_once():
    figure = interactive(lambda k1, b: f"<p>{k1}</p>", k1=slider(0, 1, 1), b=slider(0, 1, 0.25))
    assert len(figure.index) == 10 and len(figure.frames) == 2


def test_figures_become_images_with_alt_text_and_are_deterministic():
    def curve(k1):
        fig, ax = plt.subplots(figsize=(3.5, 3), dpi=50)  # small, but each panel at least MIN_PANEL_PX
        ax.plot([0, 1], [0, k1])
        return fig

    first = interactive(curve, k1=slider(0, 1, 1), alt="a line of slope {k1}")
    second = interactive(curve, k1=slider(0, 1, 1), alt="a line of slope {k1}")
    assert first.html() == second.html()  # no timestamps, no random ids
    assert 'alt="a line of slope 1"' in first.frames[1] and first.frames[0].startswith("<img src=\"data:image/png;base64,")
    assert plt.get_fignums() == []  # every frame's figure was closed


def test_a_failing_grid_point_fails_the_figure_naming_the_point():
    # An error frame would reach the book; the cell must fail instead (make execute, nbval).
    def fragile(k1, b):
        if k1 == 2 and b == "full":
            raise ZeroDivisionError("k1 = 2 is cursed")
        return f"<p>{k1}</p>"

    with pytest.raises(RuntimeError, match=re.escape(
            "fragile() failed at the grid point k1 = 2, b = 'full': ZeroDivisionError: k1 = 2 is cursed")) as caught:
        interactive(fragile, k1=slider(1, 3, 1), b=choice(["none", "full"]))
    assert isinstance(caught.value.__cause__, ZeroDivisionError)  # the original error, chained


def test_a_failing_grid_point_leaves_no_figure_open():
    def half_drawn(k1):
        fig, ax = plt.subplots()
        if k1:
            raise ValueError("no data")
        return fig

    with pytest.raises(RuntimeError, match=r"half_drawn\(\) failed at the grid point k1 = 1: ValueError: no data"):
        interactive(half_drawn, k1=slider(0, 1, 1))
    assert plt.get_fignums() == []


@pytest.mark.parametrize("result, message", [(None, "returned None and drew no figure"),
                                             (3, "returned int; expected a matplotlib Figure")])
def test_a_grid_point_with_nothing_to_show_fails_the_figure(result, message):
    with pytest.raises(RuntimeError, match=message):
        interactive(lambda k1: result, k1=slider(0, 1, 1))


def test_closing_script_tag_in_a_frame_cannot_end_the_data_block():
    figure = interactive(lambda k1: "<b></script></b>", k1=slider(0, 1, 1))
    block = re.search(r'class="mmir-widget-data">(.*?)</script>', figure.html(), re.S).group(1)
    assert "</" not in block  # escaped as "<\\/", which JSON reads back as "</"
    assert static_data(figure)["frames"] == ["<b></script></b>"]


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: slider(2, 1, 0.5), ValueError, "min must be <= max, got min = 2 and max = 1"),
        (lambda: slider(0, 1, 0), ValueError, "step must be > 0"),
        (lambda: slider(0, 1, -1), ValueError, "step must be > 0"),
        (lambda: slider("a", 1, 0.1), TypeError, "min must be a real number"),
        (lambda: slider(0, float("nan"), 0.1), ValueError, "max must be finite"),
        (lambda: slider(True, 1, 0.1), TypeError, "min must be a real number"),
        (lambda: slider(0, 1, 0.5, value="x"), TypeError, "value must be a real number"),
        (lambda: slider(0, 1, 0.5, fmt="{:d}"), ValueError, "fmt '{:d}' cannot format the value 0.5"),
        (lambda: slider(0, 1, 0.5, fmt="k1"), ValueError, "fmt must hold a replacement field"),
        (lambda: choice([]), ValueError, "values must not be empty"),
        (lambda: choice(3), TypeError, "values must be a list"),
        (lambda: choice("abc"), TypeError, "values must be a list"),
        (lambda: choice(["x", "y"], value="z"), ValueError, "value str 'z' is not one of the values"),
        (lambda: choice([0, 1], value=True), ValueError, "value bool True is not one of the values"),
        (lambda: choice(range(300)), ValueError, "values holds 300 values, over the frame budget of 256"),
    ],
)
def test_bad_sliders_are_refused_where_they_are_made(make, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make()


@pytest.mark.parametrize("maximum, step", [(1e300, 1), (1, 1e-9), (3e300, 1e-300)])
def test_a_slider_over_the_frame_budget_is_refused_before_its_values_are_made(maximum, step):
    # slider(0, 1e300, 1) once never returned; slider(0, 1, 1e-9) built 10⁹ values first
    with pytest.raises(ValueError, match=r"step = .* into more than 256 values"):
        slider(-maximum, maximum, step)


def test_slider_values_and_numpy_scalars():
    assert slider(0, 1, 0.25).values == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert slider(np.int64(0), np.float32(1.0), np.float64(0.5), value=np.float32(0.5)).values == (0.0, 0.5, 1.0)
    assert len(slider(0, 255, 1).values) == 256  # exactly the budget
    figure = interactive(table, k1=slider(0, 1, 1, value=5), b=choice([0, 1], value=np.int64(1)))
    assert figure.start == [1, 1]  # a number outside the grid snaps to the nearest value


def test_a_slider_argument_that_is_no_slider_is_named():
    with pytest.raises(TypeError, match=r"k1 must be a slider\(...\) or choice\(...\), got float 0.5"):
        interactive(table, k1=0.5, b=slider(0, 1, 1))
    with pytest.raises(TypeError, match="title must be a str"):
        interactive(table, k1=slider(0, 1, 1), b=slider(0, 1, 1), title=3)
    with pytest.raises(TypeError, match="plot_fn must be a function whose parameters can be read"):
        interactive(max, k1=slider(0, 1, 1))


def test_unknown_and_missing_parameters():
    with pytest.raises(ValueError, match="unknown parameter 'k2': table\\(\\) takes k1, b"):
        interactive(table, k1=slider(0, 1, 1), k2=slider(0, 1, 1))
    with pytest.raises(ValueError, match="needs a slider .* for 'b'"):
        interactive(table, k1=slider(0, 1, 1))
    with pytest.raises(ValueError, match="at least one slider"):
        interactive(table)
    with pytest.raises(TypeError, match="callable"):
        interactive("not a function", k1=slider(0, 1, 1))
    with pytest.raises(ValueError, match="alt .* names 'x'"):
        interactive(table, k1=slider(0, 1, 1), b=slider(0, 1, 1), alt="{x}")


def test_frame_budget():
    with pytest.raises(ValueError, match=r"k1 \(101\) × b \(11\) = 1111 frames, over the budget of 256"):
        interactive(table, k1=slider(0, 100, 1), b=slider(0, 1, 0.1))
    heavy = lambda k1: str(k1) * (widgets.MAX_BYTES // 2)  # noqa: E731
    with pytest.raises(ValueError, match="MB, over the budget"):
        interactive(heavy, k1=choice([1, 2, 3]))


def test_display_bundle_has_live_and_static_renderings():
    bundle = interactive(table, k1=slider(0, 1, 1), b=slider(0, 1, 1))._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"}
    assert bundle["text/plain"] == "<interactive figure 'table': k1 ∈ {0 … 1} (2) × b ∈ {0 … 1} (2) = 4 frames, 4 distinct>"


def test_live_widget_swaps_frames_like_the_static_one():
    figure = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1))
    box = figure.live_widget()
    (controls, view, caption) = box.children
    k1, b = controls.children
    assert view.value == "<p>k1=0 b=0</p>"
    assert re.fullmatch(r"<figcaption[^>]*>table</figcaption>", caption.value)  # the title, as in the static one
    k1.value, b.value = 2, 1
    assert view.value == "<p>k1=2 b=1</p>" == figure.frame_at([2, 1])


def test_the_title_is_the_figures_visible_caption_and_its_name():
    html = interactive(table, k1=slider(0, 1, 1), b=slider(0, 1, 1), title="BM25 <saturation>").html()
    assert html.startswith('<figure class="mmir-widget"') and html.endswith("</figure>")
    assert re.search(r"<figcaption[^>]*>BM25 &lt;saturation&gt;</figcaption>", html)
    assert "role=" not in html.split(">", 1)[0]  # a <figure> is named by its <figcaption>


def test_a_move_announces_the_new_frames_alt_text_not_the_whole_frame():
    figure = interactive(table, k1=slider(0, 1, 1, label="saturation k1"), b=choice([0, 1]), title="curves")
    html = figure.html()
    assert html.count('aria-live="polite"') == 1 and html.count('<output aria-live="off"') == 2
    status = re.search(r'<p class="mmir-widget-status" aria-live="polite" style="([^"]*)"></p>', html)
    assert status and "position:absolute" in status.group(1)  # read, not shown
    assert 'class="mmir-widget-frame">' in html  # the frame itself is no live region
    assert static_data(figure)["alts"] == [f"curves: saturation k1 = {k}, b = {b}" for k in (0, 1) for b in (0, 1)]
    script = html[html.index("<script>"):]
    assert "status.textContent = data.alts[flat]" in script


def test_alt_template_gives_each_grid_points_announcement():
    figure = interactive(table, k1=slider(0, 1, 1), b=choice([0, 1]), alt="k1 is {k1}, b is {b}")
    assert figure.alts == ["k1 is 0, b is 0", "k1 is 0, b is 1", "k1 is 1, b is 0", "k1 is 1, b is 1"]


@pytest.mark.parametrize("positions, error, message", [
    ([0], ValueError, "positions must hold one position per slider (k1, b): 2, got 1"),
    ([0, 0, 0], ValueError, "positions must hold one position per slider (k1, b): 2, got 3"),
    ([3, 0], ValueError, "positions[k1] must be <= 2, got 3"),
    ([0, -1], ValueError, "positions[b] must be >= 0, got -1"),
    ([0, 0.5], TypeError, "positions[b] must be an int, got float 0.5"),
    ([True, 0], TypeError, "positions[k1] must be an int, got bool True"),
    (3, TypeError, "positions must be a list of 2 slider positions, got int 3"),
    ("01", TypeError, "positions must be a list of 2 slider positions"),
])
def test_frame_at_names_bad_positions(positions, error, message):
    figure = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1))
    with pytest.raises(error, match=re.escape(message)):
        figure.frame_at(positions)


def test_frame_at_takes_numpy_positions():
    figure = interactive(table, k1=slider(0, 2, 1), b=slider(0, 1, 1))
    assert figure.frame_at(np.array([2, 1])) == "<p>k1=2 b=1</p>"


def test_figure_frames_fit_the_column_with_readable_text():
    from mmir_lib.plotting import COLUMN_PX

    def wide(k1):
        fig, ax = plt.subplots(figsize=(11, 4), dpi=96)
        ax.plot([0, 1], [0, k1])
        ax.set_title("slope", fontsize=6)
        return fig

    frame = interactive(wide, k1=slider(0, 1, 1)).frames[0]
    width = int(re.search(r'width="(\d+)"', frame).group(1))
    assert width == COLUMN_PX  # 1 image px = 1 CSS px in the book's column: no scaling down


def test_a_frame_that_does_not_read_at_the_column_fails_the_figure():
    def strip(k1):
        fig, axes = plt.subplots(1, 8, figsize=(16, 2.4), dpi=96)
        for ax in axes:
            ax.imshow(np.full((64, 64), k1))
        return fig

    with pytest.raises(RuntimeError, match="strip\\(\\) failed at the grid point k1 = 0: ValueError: the figure does not "
                                           "read at the column's width"):
        interactive(strip, k1=slider(0, 1, 1))
    assert plt.get_fignums() == []


def test_live_controls_are_named_and_announce_values():
    # ipywidgets 8's sliders have no accessible name and announce the grid position;
    # a Dropdown is a <select> named by its <label> that announces the option's text.
    import ipywidgets

    figure = interactive(table, k1=slider(0.5, 1.5, 0.5, value=1, label="saturation k1"), b=choice([0, 1]))
    (controls, _view, _caption) = figure.live_widget().children
    k1, b = controls.children
    assert isinstance(k1, ipywidgets.Dropdown) and k1.description == "saturation k1" and b.description == "b"
    assert k1.label == "1" and [label for label, _ in k1.options] == ["0.5", "1", "1.5"]
