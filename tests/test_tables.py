import re

import pytest

from mmir_lib.tables import table


def test_html_is_a_real_table_with_caption_and_numbers_right_aligned():
    t = table([("uniform", 6.2671), ("7-gram", 2.0512)], headers=["model", "bits/char"],
              formats=["{}", "{:.3f}"], caption="held-out <test>")
    html = t._repr_html_()
    assert html.count("<tr>") == 3 and html.count("<th ") == 2 and "<caption" in html
    assert "held-out &lt;test&gt;" in html and "6.267" in html and "2.051" in html
    assert re.search(r'text-align:right"\s*>6\.267<', html) and re.search(r'text-align:left"\s*>uniform<', html)
    assert "overflow-x:auto" in html  # scrolls inside the column, never spills out of it


def test_text_form_is_the_same_table_aligned():
    t = table([("a", 1), ("bbb", 100)], headers=["name", "count"], formats=["{}", "{:,}"])
    assert repr(t).splitlines() == ["name  count", "----  -----", "a         1", "bbb     100"]


def test_a_column_with_a_bool_or_text_is_not_numeric():
    assert table([(True, 1.0), (1, "x")], headers=["a", "b"]).numeric == (False, False)


def test_bad_rows_and_formats_are_refused_naming_the_argument():
    with pytest.raises(ValueError, match=r"rows\[0\]"):
        table([("only one",)], headers=["a", "b"])
    with pytest.raises(ValueError, match="formats"):
        table([("a", 1)], headers=["a", "b"], formats=["{}"])
    with pytest.raises(ValueError, match="formats"):
        table([("a", "text")], headers=["a", "b"], formats=["{}", "{:.3f}"])
