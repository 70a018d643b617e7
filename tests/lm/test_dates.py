"""The ISO-date -> English task with three right answers (mmir_lib.lm.dates)."""

import datetime

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mmir_lib.lm.corpus import UNK
from mmir_lib.lm.dates import (DATE_STYLES, FIRST_DATE, LAST_DATE, SPLIT_SIZES, date_examples, date_references,
                               date_vocabularies, expected_exact_match, join_date_tokens, write_date)

DATES = st.dates(min_value=FIRST_DATE, max_value=LAST_DATE)


def test_splits_are_disjoint_by_date_sized_and_sorted():
    days = {split: [e.date for e in date_examples(split)] for split in SPLIT_SIZES}
    for split, size in SPLIT_SIZES.items():
        assert len(set(days[split])) == size and days[split] == sorted(days[split])
        assert FIRST_DATE <= days[split][0] and days[split][-1] <= LAST_DATE
    assert not set(days["train"]) & set(days["test"]) and not set(days["train"]) & set(days["validation"])
    assert not set(days["test"]) & set(days["validation"])


def test_each_reference_is_its_date_in_its_style_and_the_source_is_iso():
    for e in date_examples("validation"):
        assert "".join(e.source) == e.date.isoformat()
        assert list(e.target) == write_date(e.date, e.style)


def test_styles_are_drawn_with_their_shares():
    # 12,000 independent draws: each style's count within 4 standard deviations of its expectation
    styles = [e.style for split in SPLIT_SIZES for e in date_examples(split)]
    n = len(styles)
    for style, share in DATE_STYLES.items():
        assert abs(styles.count(style) - n * share) < 4 * np.sqrt(n * share * (1 - share))
    assert abs(sum(DATE_STYLES.values()) - 1) < 1e-12


@given(DATES)
def test_every_style_reads_as_python_and_num2words_write_the_date(date):
    from num2words import num2words

    month = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
             "November", "December")[date.month - 1]
    assert date.strftime("%B") == month                        # the C locale's English month names
    ordinal = num2words(date.day, to="ordinal_num")           # "3rd", "11th", "22nd"
    written = {style: join_date_tokens(write_date(date, style)) for style in DATE_STYLES}
    assert written == {"day month year": f"{date.day} {month} {date.year}",
                       "month day, year": f"{month} {date.day}, {date.year}",
                       "month day-th, year": f"{month} {ordinal}, {date.year}"}
    assert datetime.datetime.strptime(written["month day, year"], "%B %d, %Y").date() == date
    assert datetime.datetime.strptime(written["day month year"], "%d %B %Y").date() == date


@given(DATES)
def test_references_are_three_distinct_answers_whose_shares_sum_to_one(date):
    references = date_references(date)
    assert len(references) == len(DATE_STYLES) and abs(sum(references.values()) - 1) < 1e-12


def test_expected_exact_match_by_hand():
    dates = [datetime.date(2021, 3, 3), datetime.date(1999, 12, 31)]
    in_style = {style: [write_date(d, style) for d in dates] for style in DATE_STYLES}
    for style, share in DATE_STYLES.items():
        assert expected_exact_match(in_style[style], dates) == pytest.approx(share)
    mixed = [in_style["day month year"][0], ["3", "March"]]          # the second is no right answer
    assert expected_exact_match(mixed, dates) == pytest.approx(0.4 / 2)
    assert expected_exact_match([[], []], dates) == 0.0


def test_the_corpus_own_references_score_the_sum_of_squared_shares():
    # a reference drawn with the shares matches another such draw with probability sum(share^2) = 0.34
    examples = date_examples("train")
    score = expected_exact_match([e.target for e in examples], [e.date for e in examples])
    assert abs(score - sum(s * s for s in DATE_STYLES.values())) < 0.01


def test_vocabularies_cover_every_style_of_every_split():
    source, target = date_vocabularies()
    assert source.tokens[:4] == (UNK, "<pad>", "<s>", "</s>") and target.tokens[:4] == source.tokens[:4]
    for split in SPLIT_SIZES:
        for e in date_examples(split)[::10]:
            assert (source.encode(list(e.source)) != source.unk).all()
            for answer in date_references(e.date):
                assert (target.encode(list(answer)) != target.unk).all()


def test_bad_input_is_refused_by_name():
    with pytest.raises(ValueError, match="style"):
        write_date(datetime.date(2021, 3, 3), "year month day")
    with pytest.raises(TypeError, match="date"):
        write_date("2021-03-03", "day month year")
    with pytest.raises(ValueError, match="outputs"):
        expected_exact_match([], [])
    with pytest.raises(ValueError):
        expected_exact_match([["3", "March"]], [datetime.date(2021, 3, 3)] * 2)


def test_the_committed_translators_score_what_their_log_and_the_chapter_say():
    # tools/train_date_translators.py saved them; chapter V.5 quotes their greedy and beam scores on the test dates
    from mmir_lib.chapter import load_tool
    from mmir_lib.lm.decoding import beam_search

    script = load_tool("train_date_translators")
    models, log, settings = script.load_date_translators()
    assert sorted(models) == list(script.SEEDS) and settings["epochs"] == script.EPOCHS
    source, target = date_vocabularies()
    validation, test = date_examples("validation"), date_examples("test")[:300]
    for seed, model in models.items():
        assert len(log[str(seed)]["epoch_losses"]) == script.EPOCHS
        greedy = script.greedy_expected_exact(model, source, target, validation)
        assert abs(greedy - log[str(seed)]["validation_exact"][-1]) <= 0.003   # another CPU may flip a near-tie
        beam = [beam_search(model, model.start(source.encode(list(e.source))), 4, script.MAX_LENGTH)[0] for e in test]
        beam = expected_exact_match([target.decode(np.array(h.tokens, dtype=np.int64)) for h in beam],
                                    [e.date for e in test])
        assert beam > script.greedy_expected_exact(model, source, target, test) + 0.03   # the chapter's lesson
