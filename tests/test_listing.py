"""show_code: the signature, the docstring's summary and the algorithm, without argument checks."""

import pytest

from mmir_lib.listing import CHECKS_COMMENT, ELISION, show_code
from mmir_lib.validation import check_number


def scaled_sum(values, weight=1.0, shift=0.0):
    """Σ weight · v over the values.

    A longer explanation that the listing leaves out.
    """
    weight, shift = check_number("weight", weight), check_number("shift", shift)
    if not values:
        raise ValueError("values must not be empty")
    total = 0.0
    for v in values:
        total += weight * v
    return total


def weighted_total(
    values: list[float],
    weights: dict[str, tuple[int, int]] | None = None,
    *,
    scale: float = 1.0,
) -> float:
    """The sum of the values, each times its weight, all times the scale: a summary that
    runs over two lines.

    More that the listing leaves out.
    """
    return scale * sum(values)


class Counter:
    """Counts calls."""

    def __init__(self):
        self.calls = 0


def test_listing_keeps_signature_summary_and_algorithm():
    text = show_code(scaled_sum).code
    lines = text.splitlines()
    assert lines[0] == "def scaled_sum(values, weight=1.0, shift=0.0):"
    assert lines[1] == '    """Σ weight · v over the values."""'
    assert lines[2] == "    " + CHECKS_COMMENT
    assert "longer explanation" not in text and "check_number" not in text and "raise" not in text
    assert lines[3:] == ["    total = 0.0", "    for v in values:", "        total += weight * v", "    return total"]


def test_a_signature_over_many_lines_is_set_compactly_and_a_long_summary_whole():
    lines = show_code(weighted_total).code.splitlines()
    signature = "\n".join(lines[:lines.index(next(line for line in lines if '"""' in line))])
    assert signature.count("\n") <= 1 and all(len(line) <= 110 for line in signature.splitlines())
    assert signature.replace("\n", " ").split() == ("def weighted_total(values: list[float], weights: dict[str, "
                                                      "tuple[int, int]] | None = None, *, scale: float = 1.0) -> "
                                                      "float:").split()
    assert lines[-3:] == ['    """The sum of the values, each times its weight, all times the scale: a summary that',
                          '    runs over two lines."""', "    return scale * sum(values)"]


def test_checks_can_be_kept():
    text = show_code(scaled_sum, checks=True).code
    assert "check_number" in text and "raise ValueError" in text and CHECKS_COMMENT not in text


def test_between_shows_a_part_with_elisions():
    lines = show_code(scaled_sum, between=("for v", "total +=")).code.splitlines()
    assert lines[3] == "    " + ELISION
    assert lines[4:6] == ["    for v in values:", "        total += weight * v"]
    assert lines[6] == "    " + ELISION and len(lines) == 7


def test_caption_names_function_and_file():
    listing = show_code(show_code)
    assert listing.caption.startswith("mmir_lib.listing.show_code (mmir_lib/listing.py)")
    assert repr(listing).startswith("# mmir_lib.listing.show_code")
    assert "<figure" in listing._repr_html_() and "style=" in listing._repr_html_()


def test_a_class_is_shown_with_its_methods():
    text = show_code(Counter).code
    assert text.startswith("class Counter:") and "self.calls = 0" in text


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(obj=42), TypeError, "obj"),
    (dict(obj=len), TypeError, "obj"),
    (dict(obj=scaled_sum, between="for"), TypeError, "between"),
    (dict(obj=scaled_sum, between=("for",)), ValueError, "between"),
    (dict(obj=scaled_sum, between=("no such line", "x")), ValueError, "between"),
    (dict(obj=scaled_sum, between=("for v", "no such line")), ValueError, "between"),
])
def test_bad_arguments(kwargs, error, words):
    with pytest.raises(error, match=words):
        show_code(**kwargs)


def test_a_cached_function_is_shown_unwrapped():
    import functools

    cached = functools.lru_cache(maxsize=None)(scaled_sum)
    assert show_code(cached).code == show_code(scaled_sum).code
