import pytest
from hypothesis import given, strategies as st

from mmir_lib.ir.text import ENGLISH_STOP_WORDS, Analyzer, tokenize


def test_tokenize_lowercases_and_splits_on_punctuation():
    assert tokenize("Now is the winter of our discontent, Made glorious summer!") == [
        "now", "is", "the", "winter", "of", "our", "discontent", "made", "glorious", "summer"]


def test_tokenize_apostrophes():
    assert tokenize("'Tis o'er; Hamlet's ne'er-do-well") == ["tis", "o'er", "hamlet", "ne'er", "do", "well"]
    assert tokenize("the king\u2019s men") == ["the", "king", "men"]  # curly apostrophe too


def test_tokenize_is_unicode_aware():
    assert tokenize("Café NAÏVE Ｈamlet ΑΘΗΝΑ") == ["café", "naïve", "hamlet", "αθηνα"]
    assert tokenize("snake_case 42nd") == ["snake", "case", "42nd"]


def test_tokenize_rejects_non_strings():
    with pytest.raises(TypeError, match="str"):
        tokenize(["a", "list"])


def test_analyzer_stop_words_then_stemming():
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    assert analyzer("The kings hath horses") == ["king", "hors"]
    assert Analyzer()("The kings") == ["the", "kings"]  # default: no stop words, no stemming
    assert Analyzer(stem=True)("running runs") == ["run", "run"]


def test_stop_list_has_no_content_words():
    assert not {"love", "king", "death", "sleep", "murder"} & ENGLISH_STOP_WORDS


@given(st.text())
def test_tokens_are_nonempty_lowercase_without_spaces(text):
    for token in tokenize(text):
        assert token and token == token.casefold() and not any(c.isspace() for c in token)


@given(st.text())
def test_tokenize_is_idempotent_on_its_output(text):
    tokens = tokenize(text)
    assert tokenize(" ".join(tokens)) == tokens
