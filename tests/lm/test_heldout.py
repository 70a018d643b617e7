"""The held-out table: its arithmetic (bits per symbol, per character, perplexity), the
n-gram rows, and the settings chosen on the validation split."""

import math

import numpy as np
import pytest

from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, num_characters, split_tokens, vocabulary
from mmir_lib.lm.heldout import (KN_BEST_ORDER, KN_DISCOUNT, KN_DISCOUNT_GRID, SPELLING_ORDER, _spelling_bits,
                                 _unk_words, best_ngram, evaluate, format_table, held_out_result, ngram_results, unk_spelling_bits)
from mmir_lib.lm.ngram import KneserNey, Uniform, count_ngrams, kneser_ney_losses
from mmir_lib.tables import Table


@pytest.mark.parametrize("level", ["character", "word"])
def test_uniform_row_by_hand(level):
    size, symbols = len(vocabulary(level)), len(corpus_ids("test", level))
    row = evaluate(Uniform(size), "uniform", level)
    spelling = 0.0 if level == "character" else unk_spelling_bits("test") / num_characters("test")
    assert row.loss == pytest.approx(math.log2(size)) and row.perplexity == pytest.approx(size)
    assert row.spelling_bits_per_char == spelling
    assert row.bits_per_char == pytest.approx(math.log2(size) * symbols / num_characters("test") + spelling)
    assert row.symbols == symbols and row.unit == ("bits/char" if level == "character" else "bits/word")


def test_both_levels_divide_by_the_same_characters():
    """One bit per symbol: a character row has 1 bit/char, a word row (fewer symbols) fewer,
    plus the bits that spell its <unk> words."""
    chars, words = (held_out_result("one bit", level, np.full(len(corpus_ids("test", level)), math.log(2)))
                    for level in ("character", "word"))
    assert chars.bits_per_char == pytest.approx(1.0) and chars.loss == pytest.approx(1.0)
    assert chars.spelling_bits_per_char == 0.0
    assert words.bits_per_char == pytest.approx((len(corpus_ids("test", "word")) + unk_spelling_bits("test"))
                                                / num_characters("test"))


def test_unk_words_are_the_unknown_tokens():
    for split in ("train", "test"):
        words = _unk_words(split)
        assert len(words) == int(np.sum(corpus_ids(split, "word") == vocabulary("word").unk)) > 1000
        assert not set(words) & set(vocabulary("word").tokens)
        assert len(words) < len(split_tokens(split, "word"))


def test_spelling_charge():
    """Some 5% of the test characters are in <unk> words; spelling them costs a few bits each,
    more than a character model's average (rare words are hard to spell), less than uniform."""
    unk_chars = sum(len(w) + 1 for w in _unk_words("test"))  # each spelling ends with a newline
    per_char = unk_spelling_bits("test") / unk_chars
    assert 2.05 < per_char < math.log2(len(vocabulary("character")))
    assert 0.04 < unk_chars / num_characters("test") < 0.07


def test_spelling_order_is_the_best_on_validation():
    orders = [SPELLING_ORDER - 1, SPELLING_ORDER, SPELLING_ORDER + 1]
    losses = [_spelling_bits("validation", n) for n in orders]
    assert orders[int(np.argmin(losses))] == SPELLING_ORDER


@pytest.fixture(scope="module")
def table():
    return {(r.level, r.model.split(" (k =")[0]): r for r in ngram_results()}


def test_ngram_rows(table):
    assert len(table) == 17  # 8 rows a level, and the character 8-gram
    for level in ("character", "word"):
        rows = {model: r for (lev, model), r in table.items() if lev == level}
        assert math.isinf(rows["trigram (MLE)"].loss)  # unseen trigrams get probability 0
        kneser_ney = rows["trigram, Kneser-Ney"]
        for name in ("uniform", "trigram, add-1 (Laplace)", "trigram, add-k", "trigram, interpolated (EM)"):
            assert kneser_ney.loss < rows[name].loss
        assert rows["trigram, add-k"].loss <= rows["trigram, add-1 (Laplace)"].loss
    assert table["character", "8-gram, Kneser-Ney"].bits_per_char < 2.2 < table["character", "trigram, Kneser-Ney"].bits_per_char
    assert 0.02 < table["word", "uniform"].unk_share < 0.05
    shown = format_table(list(table.values()), caption="the n-gram rows")
    assert isinstance(shown, Table) and shown.caption == "the n-gram rows"
    text = repr(shown)
    assert "8-gram, Kneser-Ney" in text and "inf" in text and "<unk> spelling" in shown.headers
    assert "<table" in shown._repr_html_()


def test_best_ngram_is_the_tables_best_row(table):
    for level in ("character", "word"):
        model = best_ngram(level)
        assert isinstance(model, KneserNey) and model.order == KN_BEST_ORDER[level]
        name = f"{KN_BEST_ORDER[level]}-gram, Kneser-Ney" if KN_BEST_ORDER[level] != 3 else "trigram, Kneser-Ney"
        assert evaluate(model, name, level).loss == table[level, name].loss
    with pytest.raises(ValueError, match="level must be one of"):
        best_ngram("sentence")


def test_kn_order_and_discount_are_the_best_on_validation():
    """Chosen jointly on the validation split, never the test split: lower than the
    neighbouring orders (the trigram too; the loss falls steadily up to there) at every
    discount of the grid, and the discount on the grid's interior."""
    for level, orders in (("character", [3, 7, 8, 9]), ("word", [2, 3, 4])):
        vocab = vocabulary(level)
        counts = count_ngrams(corpus_ids("train", level), max(orders), len(vocab))
        validation = corpus_ids("validation", level)
        losses = np.array([kneser_ney_losses(counts, validation, KN_DISCOUNT_GRID, pad=vocab.index[BOUNDARY], order=n)
                           for n in orders])                        # (orders, discounts)
        n, d = np.unravel_index(np.argmin(losses), losses.shape)
        assert (orders[n], KN_DISCOUNT_GRID[d]) == (KN_BEST_ORDER[level], KN_DISCOUNT[level])
        assert 0 < d < len(KN_DISCOUNT_GRID) - 1 and losses[n, d] < losses[n, list(KN_DISCOUNT_GRID).index(0.75)]
        assert n < len(orders) - 1  # the loss has turned up past the chosen order


def test_refusals():
    with pytest.raises(ValueError, match="losses must hold one loss per symbol of the test split"):
        held_out_result("short", "word", np.ones(10))
    with pytest.raises(ValueError, match="losses must not hold NaN"):
        held_out_result("nan", "word", np.full(len(corpus_ids("test", "word")), np.nan))
    with pytest.raises(TypeError, match="model must have log_loss"):
        evaluate(Uniform(10), "wrong vocabulary", "word")
