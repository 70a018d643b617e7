"""Spans of words as tags: BIO encoding, decoding, and span-level precision, recall and F1.

A span labelling task (names of people and places, for instance) marks stretches of a
sentence, not single words. Written as one tag per word it becomes a sequence
labelling task like part-of-speech tagging, with the **BIO** encoding (Ramshaw and
Marcus 1995): the first word of a span of type L is tagged ``B-L``, its other words
``I-L``, and every word outside all spans ``O``. A span is a triple
``(start, end, label)`` of word positions, ``end`` exclusive: words ``start … end − 1``.

A tagger is scored on whole spans, not words: a predicted span counts only if a gold
span has exactly its start, end and label (the CoNLL convention),

    P = |gold ∩ predicted| / |predicted|,   R = |gold ∩ predicted| / |gold|,
    F1 = 2 P R / (P + R),

over the spans of all sentences together (each 0 when its denominator is 0).

Chapter III.6 derives its spans from the treebank's own annotation
(:func:`name_spans`): the English Web Treebank has no entity layer, but its annotators
tagged every proper noun (PROPN) and joined the parts of a multi-word name by the
relations ``flat`` ("Shaikh Abdullah al-Ani") and ``compound`` ("New York City").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from ..validation import check_count, check_list, check_str, check_str_list, describe

__all__ = ["bio_encode", "bio_decode", "name_spans", "ewt_names", "SpanScores", "span_scores"]

#: The relations that join the words of one name in Universal Dependencies.
NAME_RELATIONS = ("flat", "compound")


def _check_label(name: str, label: object) -> str:
    """A span label: a non-empty str without white space (a tag is one field of CoNLL's files)."""
    label = check_str(name, label)
    if any(ch.isspace() for ch in label):
        raise ValueError(f"{name} must not hold white space, got {label!r}")
    return label


def _check_spans(name: str, spans: object, length: int | None = None) -> list[tuple[int, int, str]]:
    """Sorted, non-overlapping (start, end, label) triples, each inside 0 … length."""
    items = check_list(name, spans, Sequence)
    out = []
    for k, item in enumerate(items):
        if isinstance(item, str) or len(item) != 3:
            raise TypeError(f"{name}[{k}] must be a (start, end, label) triple, got {describe(item)}")
        start = check_count(f"{name}[{k}] start", item[0])
        end = check_count(f"{name}[{k}] end", item[1], low=start + 1)
        label = _check_label(f"{name}[{k}] label", item[2])
        if length is not None and end > length:
            raise ValueError(f"{name}[{k}] ends at {end}, past the sentence's length = {length} words")
        if out and start < out[-1][1]:
            raise ValueError(f"{name} must be sorted and must not overlap: {name}[{k}] starts at {start}, "
                             f"before the previous span ends at {out[-1][1]}")
        out.append((start, end, label))
    return out


def bio_encode(spans: Sequence[tuple[int, int, str]], length: int) -> list[str]:
    """The BIO tags of a sentence of ``length`` words with the given spans.

    ``spans``: sorted, non-overlapping ``(start, end, label)`` triples, ``end`` exclusive,
    each non-empty and inside the sentence. Returns ``length`` tags.

    >>> bio_encode([(0, 2, "NAME"), (3, 4, "NAME")], 5)
    ['B-NAME', 'I-NAME', 'O', 'B-NAME', 'O']
    """
    length = check_count("length", length)
    spans = _check_spans("spans", spans, length)
    tags = ["O"] * length
    for start, end, label in spans:
        tags[start:end] = [f"B-{label}"] + [f"I-{label}"] * (end - start - 1)
    return tags


def _tag_parts(name: str, tags: Sequence[str]) -> list[tuple[str, str]]:
    """Each BIO tag split into its prefix (B, I or O) and its label ("" for O)."""
    parts = []
    for i, tag in enumerate(tags):
        if tag == "O":
            parts.append(("O", ""))
        elif tag[:2] in ("B-", "I-") and len(tag) > 2:
            parts.append((tag[0], tag[2:]))
        else:
            raise ValueError(f"{name}[{i}] must be 'O', 'B-label' or 'I-label', got {tag!r}")
    return parts


def bio_decode(tags: Sequence[str]) -> list[tuple[int, int, str]]:
    """The spans of a sequence of BIO tags, in order: ``(start, end, label)``, ``end`` exclusive.

    A span starts at every ``B-L``, and also at an ``I-L`` that does not continue a span
    of label L (after ``O``, at the start, or after a span of another label): a tagger's
    output need not be well formed, and this reading (CoNLL's ``conlleval``, nltk's
    ``conlltags2tree``) keeps every word it marked. A span ends before the next tag
    that is not ``I-L``.

    >>> bio_decode(["B-NAME", "I-NAME", "O", "I-NAME", "B-NAME"])
    [(0, 2, 'NAME'), (3, 4, 'NAME'), (4, 5, 'NAME')]
    """
    return _decode(_tag_parts("tags", check_str_list("tags", tags)))


def _decode(parts: list[tuple[str, str]]) -> list[tuple[int, int, str]]:
    """:func:`bio_decode` of checked (prefix, label) pairs."""
    spans, start, label = [], None, ""
    for i, (prefix, this) in enumerate(parts):
        if start is not None and (prefix != "I" or this != label):  # the open span ends here
            spans.append((start, i, label))
            start = None
        if prefix != "O" and start is None:
            start, label = i, this
    if start is not None:
        spans.append((start, len(parts), label))
    return spans


def name_spans(upos: Sequence[str], heads: Sequence[int], deprels: Sequence[str],
               label: str = "NAME") -> list[tuple[int, int, str]]:
    """The proper-name spans of a treebank sentence, from its gold tags and dependency tree.

    Every word tagged ``PROPN`` belongs to a name. A PROPN word attached to a PROPN head
    by ``flat`` or ``compound`` (:data:`NAME_RELATIONS`; subtypes such as ``flat:foreign``
    included) is part of the same name as its head; a name's span runs from its first
    word to its last, so that a hyphen inside a name ("Al - Zaman") belongs to it; spans
    that overlap are joined. ``heads`` are 0-based positions, −1 for the root (as in
    :class:`mmir_lib.data.TaggedSentence`). Returns sorted, non-overlapping spans with
    the given label.

    >>> name_spans(["PROPN", "PROPN", "VERB", "PROPN"], [1, 2, -1, 2], ["flat", "nsubj", "root", "obj"])
    [(0, 2, 'NAME'), (3, 4, 'NAME')]
    """
    upos = check_str_list("upos", upos)
    heads = [check_count(f"heads[{i}]", h, low=-1) for i, h in enumerate(check_list("heads", heads, object))]
    deprels = check_str_list("deprels", deprels)
    label = _check_label("label", label)
    n = len(upos)
    if len(heads) != n or len(deprels) != n:
        raise ValueError(f"upos, heads and deprels must hold one entry per word, got {n}, {len(heads)} "
                         f"and {len(deprels)}")
    for i, h in enumerate(heads):
        if not -1 <= h < n or h == i:
            raise ValueError(f"heads[{i}] must be another word's position in 0 … {n - 1} or −1, got {h}")
    group = list(range(n))                                   # union-find over the PROPN words

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i in range(n):
        h = heads[i]
        if upos[i] == "PROPN" and h >= 0 and upos[h] == "PROPN" and deprels[i].split(":")[0] in NAME_RELATIONS:
            group[root(i)] = root(h)
    ranges: dict[int, list[int]] = {}
    for i in range(n):
        if upos[i] == "PROPN":
            r = ranges.setdefault(root(i), [i, i + 1])
            r[0], r[1] = min(r[0], i), max(r[1], i + 1)
    spans: list[list[int]] = []
    for start, end in sorted(ranges.values()):
        if spans and start < spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    return [(start, end, label) for start, end in spans]


def ewt_names(split: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(words, BIO tags) of every sentence of a split of the UD English Web Treebank
    (:func:`mmir_lib.data.ud_english_ewt`), with the proper-name spans of :func:`name_spans`
    labelled ``NAME``: the tags B-NAME, I-NAME and O."""
    from ..data import ud_english_ewt

    return [(s.words, tuple(bio_encode(name_spans(s.upos, s.heads, s.deprels), len(s.words))))
            for s in ud_english_ewt(split)]


class SpanScores(NamedTuple):
    """Span-level scores: precision, recall, F1, and the counts they come from."""

    precision: float
    recall: float
    f1: float
    correct: int
    gold: int
    predicted: int


def span_scores(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> SpanScores:
    """Exact-match span precision, recall and F1 of predicted BIO tags against gold ones.

    ``gold`` and ``predicted``: lists of sentences, each a list of BIO tags, one per word.
    Both are decoded by :func:`bio_decode`; a predicted span is correct if a gold span
    of the same sentence has the same start, end and label. With c correct spans, g gold
    and p predicted ones over all sentences, P = c / p, R = c / g, F1 = 2PR / (P + R),
    each 0 when its denominator is 0.

    >>> span_scores([["B-NAME", "I-NAME", "O"]], [["B-NAME", "O", "O"]])
    SpanScores(precision=0.0, recall=0.0, f1=0.0, correct=0, gold=1, predicted=1)
    """
    gold = check_list("gold", gold, Sequence, nonempty=True)
    predicted = check_list("predicted", predicted, Sequence)
    if len(gold) != len(predicted):
        raise ValueError(f"gold and predicted must hold the same number of sentences, got {len(gold)} "
                         f"and {len(predicted)}")
    correct = n_gold = n_predicted = 0
    for i, (g, p) in enumerate(zip(gold, predicted)):
        g, p = check_str_list(f"gold[{i}]", g), check_str_list(f"predicted[{i}]", p)
        if len(g) != len(p):
            raise ValueError(f"gold[{i}] and predicted[{i}] must hold one tag per word, got {len(g)} and {len(p)}")
        g_spans = set(_decode(_tag_parts(f"gold[{i}]", g)))
        p_spans = set(_decode(_tag_parts(f"predicted[{i}]", p)))
        correct += len(g_spans & p_spans)
        n_gold += len(g_spans)
        n_predicted += len(p_spans)
    precision = correct / n_predicted if n_predicted else 0.0
    recall = correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return SpanScores(precision, recall, f1, correct, n_gold, n_predicted)
