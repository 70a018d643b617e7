"""The English -> French number-word task (mmir_lib.lm.number_words)."""

from mmir_lib.lm.corpus import UNK
from mmir_lib.lm.number_words import (MAX_NUMBER, SPLIT_SIZES, join_number_words, number_pairs, number_vocabularies,
                                      tokenize_number_words)


def test_splits_are_disjoint_by_number_and_sized():
    numbers = {split: {p.number for p in number_pairs(split)} for split in SPLIT_SIZES}
    for split, size in SPLIT_SIZES.items():
        assert len(numbers[split]) == size and all(0 <= n <= MAX_NUMBER for n in numbers[split])
    assert not numbers["train"] & numbers["test"] and not numbers["train"] & numbers["validation"]
    assert not numbers["test"] & numbers["validation"]


def test_known_translations_and_round_trip():
    from num2words import num2words

    for n, fr in [(371, "trois cent soixante et onze"), (99, "quatre-vingt-dix-neuf"), (80, "quatre-vingts"),
                  (200, "deux cents"), (201, "deux cent un"), (80_000, "quatre-vingt mille")]:
        assert num2words(n, lang="fr") == fr
        assert join_number_words(tokenize_number_words(fr)) == fr
    for pair in number_pairs("test")[:50]:
        assert join_number_words(pair.english) == num2words(pair.number, lang="en")
        assert join_number_words(pair.french) == num2words(pair.number, lang="fr")


def test_vocabularies_cover_every_split():
    english, french = number_vocabularies()
    assert english.tokens[:4] == (UNK, "<pad>", "<s>", "</s>") and french.tokens[:4] == english.tokens[:4]
    for split in ("validation", "test"):
        for pair in number_pairs(split):
            assert (english.encode(list(pair.english)) != english.unk).all()
            assert (french.encode(list(pair.french)) != french.unk).all()
