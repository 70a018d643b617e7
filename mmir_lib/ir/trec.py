"""TREC file formats: topics, relevance judgements (qrels) and runs.

Three plain-text formats carry an evaluation campaign from one group to another:

* **topics**, one ``<top> … </top>`` block per information need::

      <top>
      <num> Number: 1
      <title> ghost of a murdered king
      <desc> Description:
      Speeches in which a ghost or spirit appears or is spoken to.
      <narr> Narrative:
      A relevant speech is spoken by or to a ghost; ...
      </top>

* **qrels**, one judgement a line: ``qid iteration docno relevance``. The
  iteration field is historical (usually ``0``) and ignored; relevance is an
  integer grade (0 = not relevant, 1 = relevant, 2 = highly relevant in this
  book's collection);
* **runs**, one retrieved document a line: ``qid Q0 docno rank score tag``.
  ``Q0`` is a historical constant, ``tag`` names the system.

In memory (the shapes pytrec_eval takes): qrels are ``dict[qid, dict[docno, grade]]``,
a run is ``dict[qid, dict[docno, score]]`` and topics a list of :class:`Topic`.

A run's rank field is **not** what trec_eval evaluates: it re-sorts every query's
documents by score, highest first, comparing scores as single-precision floats (C
``float``), and breaks ties by docno in *descending* string order.
:func:`trec_ranking` applies exactly that rule, :func:`write_run` writes ranks that
agree with it, and the evaluation module places the judged documents by it
(without ranking the rest: see ``_trec_ranks``).
"""

from __future__ import annotations

import math
import os
import re
import sys
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from ..validation import check_list, check_str, describe

__all__ = [
    "Qrels",
    "Run",
    "Topic",
    "check_docnos",
    "check_judgements",
    "check_qrels",
    "check_queries",
    "check_run",
    "read_qrels",
    "read_run",
    "read_topics",
    "run_rankings",
    "run_scores",
    "trec_ranking",
    "write_qrels",
    "write_run",
    "write_topics",
]

Qrels = dict[str, dict[str, int]]
Run = dict[str, dict[str, float]]
Source = str | os.PathLike | Iterable[str]
Destination = str | os.PathLike | TextIO


@dataclass(frozen=True)
class Topic:
    """One information need: its id, a short title (the usual query), a one-sentence
    description and a narrative telling assessors what counts as relevant."""

    qid: str
    title: str
    description: str = ""
    narrative: str = ""

    def __post_init__(self) -> None:
        _check_id("qid", self.qid)
        check_str("title", self.title)
        check_str("description", self.description, allow_empty=True)
        check_str("narrative", self.narrative, allow_empty=True)


# ---- helpers shared by the readers and writers ----------------------------------------

def _check_source(source: object) -> None:
    """A path to an existing file, or an iterable of lines (not a mapping, not bytes)."""
    if isinstance(source, (str, os.PathLike)):
        if not os.path.isfile(source):
            raise ValueError(f"source must be a path to an existing file (or a list of lines), "
                             f"got {describe(source)}")
    elif isinstance(source, (bytes, bytearray, Mapping)) or not isinstance(source, Iterable):
        raise TypeError(f"source must be a path or an iterable of str lines, got {describe(source)}")


def _lines(source: Source) -> Iterator[tuple[int, str]]:
    """(line number from 1, line) pairs from a path or from an iterable of lines
    (checked first by :func:`_check_source`)."""
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as file:
            yield from enumerate(file, start=1)
        return
    for number, line in enumerate(source, start=1):
        if not isinstance(line, str):
            raise TypeError(f"source line {number}: expected str, got {type(line).__name__} "
                            "(open the file in text mode)")
        yield number, line


def _check_destination(destination: object) -> None:
    if not isinstance(destination, (str, os.PathLike)) and not hasattr(destination, "write"):
        raise TypeError(f"destination must be a path or a writable text file, got {describe(destination)}")
    if isinstance(destination, str):
        check_str("destination", destination)


def _write(destination: Destination, text: str) -> None:
    if isinstance(destination, (str, os.PathLike)):
        with open(destination, "w", encoding="utf-8") as file:
            file.write(text)
    else:
        destination.write(text)


def _parse_int(token: str) -> int | None:
    """The int written in ``token``, or None (Python's int() also takes '1_000')."""
    if "_" in token:
        return None
    try:
        return int(token)
    except ValueError:
        return None


def _parse_score(token: str) -> float | None:
    """The finite float written in ``token``, or None."""
    if "_" in token:
        return None
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _check_id(name: str, value: object) -> str:
    """qids, docnos and tags are written as single whitespace-free fields."""
    check_str(name, value)
    if len(value.split()) != 1 or value.strip() != value:
        raise ValueError(f"{name} must be a non-empty string without whitespace, got {value!r}")
    return value


def _is_grade_type(kind: type) -> bool:
    return issubclass(kind, (int, np.integer)) and not issubclass(kind, (bool, np.bool_))


def _is_score_type(kind: type) -> bool:
    return issubclass(kind, (int, float, np.integer, np.floating)) and not issubclass(kind, (bool, np.bool_))


def check_docnos(docnos: Iterable[object], where: str) -> None:
    """Raise TypeError, naming ``where``, unless ``docnos`` is a collection of str (a
    mapping's keys count: its docnos).

    >>> check_docnos(["d1", 2], "ranking")
    Traceback (most recent call last):
    ...
    TypeError: ranking: docnos must be str, got int 2
    """
    check_str("where", where)
    if isinstance(docnos, (str, bytes)) or not isinstance(docnos, Iterable):
        raise TypeError(f"{where}: docnos must be a collection of str, got {describe(docnos)}")
    # the set of types is tiny, so this costs one pass in C rather than one isinstance per docno
    if not all(issubclass(kind, str) for kind in set(map(type, docnos))):
        bad = next(d for d in docnos if not isinstance(d, str))
        raise TypeError(f"{where}: docnos must be str, got {type(bad).__name__} {bad!r}")


def check_judgements(judgements: Mapping[str, int], qid: str | None = None) -> None:
    """Raise TypeError unless ``judgements`` maps str docnos to int grades (not bool)."""
    if qid is not None:
        _check_id("qid", qid)
    where = "judgements" if qid is None else f"judgements of query {qid!r}"
    if not isinstance(judgements, Mapping):
        raise TypeError(f"{where} must be a mapping {{docno: grade}}, got {describe(judgements)}")
    check_docnos(judgements, where)
    if not all(_is_grade_type(kind) for kind in set(map(type, judgements.values()))):
        docno = next(d for d, g in judgements.items() if not _is_grade_type(type(g)))
        raise TypeError(f"{where}: the grade of {docno!r} must be an int, "
                        f"got {type(judgements[docno]).__name__}")


def check_qrels(name: str, qrels: object) -> None:
    """Raise TypeError, naming ``name``, unless ``qrels`` is ``{qid: {docno: grade}}``
    with str qids and docnos and int grades.

    >>> check_qrels("qrels", {"q1": {"d1": 1.5}})
    Traceback (most recent call last):
    ...
    TypeError: qrels: judgements of query 'q1': the grade of 'd1' must be an int, got float
    """
    check_str("name", name)
    if not isinstance(qrels, Mapping):
        raise TypeError(f"{name} must be a mapping {{qid: {{docno: grade}}}}, got {describe(qrels)}")
    for qid, judgements in qrels.items():
        try:
            check_judgements(judgements, qid)
        except (TypeError, ValueError) as error:
            raise type(error)(f"{name}: {error}") from None


def check_queries(name: str, queries: object) -> None:
    """Raise TypeError/ValueError, naming ``name``, unless ``queries`` is
    ``{qid: query}`` with str qids and each query a non-blank str (or a list of str
    terms, already analysed).

    >>> check_queries("queries", {"q1": "ghost", "q2": 7})
    Traceback (most recent call last):
    ...
    TypeError: queries['q2'] must be a str or a list of str terms, got int 7
    """
    check_str("name", name)
    if not isinstance(queries, Mapping):
        raise TypeError(f"{name} must be a mapping {{qid: query text}}, got {describe(queries)}")
    for qid, query in queries.items():
        _check_id(f"{name}: qid", qid)
        if isinstance(query, str):
            check_str(f"{name}[{qid!r}]", query)
        elif not isinstance(query, Sequence) or not all(isinstance(term, str) for term in query):
            raise TypeError(f"{name}[{qid!r}] must be a str or a list of str terms, got {describe(query)}")


def check_run(name: str, run: object) -> None:
    """Raise TypeError/ValueError, naming ``name``, unless ``run`` is
    ``{qid: {docno: score}}`` with str qids and docnos and finite real scores.

    >>> check_run("run", {"q1": {"d1": float("nan")}})
    Traceback (most recent call last):
    ...
    ValueError: run, query 'q1': scores must be finite, got nan for 'd1'
    """
    for qid, doc_scores in _checked_run(name, run):
        _checked_query(name, qid, doc_scores)


def run_rankings(name: str, run: object) -> dict[str, list[str]]:
    """``run`` checked as :func:`check_run` does, and each query's docnos in trec_eval's
    order (:func:`trec_ranking`): ``{qid: [docno, ...]}``. Each query is checked once, and
    its checked scores are the ones ranked (a metric over many queries pays for one pass).

    >>> run_rankings("run", {"q1": {"d1": 0.5, "d2": 0.9}})
    {'q1': ['d2', 'd1']}
    """
    return {qid: _ranked(doc_scores, _checked_query(name, qid, doc_scores))
            for qid, doc_scores in _checked_run(name, run)}


def run_scores(name: str, run: object) -> dict[str, np.ndarray]:
    """``run`` checked as :func:`check_run` does: ``{qid: scores}``, each query's scores
    as a float64 array in the order of its mapping.

    >>> run_scores("run", {"q1": {"d1": 1, "d2": 0.5}})
    {'q1': array([1. , 0.5])}
    """
    return {qid: _checked_query(name, qid, doc_scores) for qid, doc_scores in _checked_run(name, run)}


def _checked_run(name: str, run: object):
    check_str("name", name)
    if not isinstance(run, Mapping):
        raise TypeError(f"{name} must be a mapping {{qid: {{docno: score}}}}, got {describe(run)}")
    return run.items()


def _checked_query(name: str, qid: object, doc_scores: object) -> np.ndarray:
    try:
        _check_id("qid", qid)
        return _check_scores(doc_scores)
    except (TypeError, ValueError) as error:
        raise type(error)(f"{name}, query {qid!r}: {error}") from None


# ---- the trec_eval ranking rule ------------------------------------------------------

def _check_scores(doc_scores: object) -> np.ndarray:
    """One query's {docno: score}, checked: its scores as a float64 array, in the
    mapping's order."""
    if not isinstance(doc_scores, Mapping):
        raise TypeError(f"doc_scores must be a mapping {{docno: score}}, got {describe(doc_scores)}")
    check_docnos(doc_scores, "doc_scores")
    values = doc_scores.values()
    if not all(_is_score_type(kind) for kind in set(map(type, values))):
        docno = next(d for d, v in doc_scores.items() if not _is_score_type(type(v)))
        raise TypeError(f"scores must be real numbers, got {type(doc_scores[docno]).__name__} for {docno!r}")
    try:
        scores = np.fromiter(values, np.float64, len(doc_scores))
    except OverflowError:  # a Python int beyond float64's range
        docno = next(d for d, v in doc_scores.items() if abs(v) > sys.float_info.max)
        raise ValueError(f"scores must be finite, got an int beyond float64's range for {docno!r}") from None
    finite = np.isfinite(scores)
    if not finite.all():
        bad = list(doc_scores)[int(np.argmin(finite))]
        raise ValueError(f"scores must be finite, got {doc_scores[bad]!r} for {bad!r}")
    return scores


def _float32(scores: np.ndarray) -> np.ndarray:
    """Scores as trec_eval stores them, C floats (beyond ±3.4e38 they are ±inf there too)."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32)


def trec_ranking(doc_scores: Mapping[str, float]) -> list[str]:
    """The docnos of one query in the order trec_eval evaluates them.

    Parameters
    ----------
    doc_scores : mapping docno -> score
        One query's entry of a run. Scores must be finite real numbers.

    Returns
    -------
    list of str
        Highest score first. Scores are compared as 32-bit floats, as trec_eval stores
        them (two scores that round to the same float32 are a tie); ties are broken
        by docno in descending string (code point) order.

    Examples
    --------
    >>> trec_ranking({"d1": 0.5, "d2": 0.9, "d3": 0.5, "d10": 0.5})
    ['d2', 'd3', 'd10', 'd1']
    >>> trec_ranking({"a": 1.0 + 1e-9, "b": 1.0})  # equal as float32: a tie, so b first
    ['b', 'a']
    """
    return _ranked(doc_scores, _check_scores(doc_scores))


def _ranked(doc_scores: Mapping[str, float], scores: np.ndarray) -> list[str]:
    """A checked query (``scores`` in the mapping's order) ranked by trec_eval's rule."""
    docnos = list(doc_scores)
    by_docno = sorted(range(len(docnos)), key=docnos.__getitem__, reverse=True)  # the tie-break order...
    order = np.argsort(-_float32(scores)[by_docno], kind="stable")  # ...kept among equal scores
    return [docnos[by_docno[i]] for i in order.tolist()]


def _trec_ranks(doc_scores: Mapping[str, float], scores: np.ndarray, docnos: Sequence[str]) -> np.ndarray:
    """The 0-based ranks trec_eval gives ``docnos`` (some keys of a checked query) without
    ranking the rest of the query: (m,) int.

    rank(d) = #{documents scoring higher than d} + #{documents scoring the same with a
    larger docno}. The first term is a binary search in the sorted scores; only the tie
    groups that hold one of ``docnos`` have their docnos sorted, so a query pays for
    sorting strings only where its ties meet the documents asked about (evaluation asks
    about the judged ones, usually a few of the retrieved).
    """
    scores32 = _float32(scores)
    own = _float32(np.array([doc_scores[d] for d in docnos], dtype=np.float64))  # (m,)
    descending = np.sort(-scores32)
    ranks = np.searchsorted(descending, -own, side="left")  # documents scoring higher
    group_sizes = np.searchsorted(descending, -own, side="right") - ranks
    tied: dict[float, list[int]] = {}
    for i in np.flatnonzero(group_sizes > 1).tolist():
        tied.setdefault(float(own[i]), []).append(i)
    if tied:
        keys = list(doc_scores)
        for score, asked in tied.items():
            group = sorted(keys[j] for j in np.flatnonzero(scores32 == score).tolist())
            for i in asked:
                ranks[i] += len(group) - bisect_right(group, docnos[i])  # larger docnos come first
    return ranks


# ---- qrels ------------------------------------------------------------------------

def read_qrels(source: Source) -> Qrels:
    """Read judgements ``qid iteration docno relevance`` into ``{qid: {docno: grade}}``.

    ``source`` is a path or an iterable of lines (an open file, a list of str). Blank
    lines are skipped; the iteration field is ignored. Raises ValueError, naming the
    line, for a line without exactly 4 fields, a non-integer relevance, or a second
    judgement of the same (qid, docno).

    Examples
    --------
    >>> read_qrels(["1 0 d1 2", "1 0 d7 0", "2 0 d1 1"])
    {'1': {'d1': 2, 'd7': 0}, '2': {'d1': 1}}
    """
    _check_source(source)
    qrels: Qrels = {}
    for number, line in _lines(source):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 4:
            raise ValueError(f"qrels line {number}: expected 4 fields 'qid iteration docno relevance', "
                             f"got {len(fields)}: {line.strip()!r}")
        qid, _, docno, grade_text = fields
        grade = _parse_int(grade_text)
        if grade is None:
            raise ValueError(f"qrels line {number}: relevance must be an integer, got {grade_text!r}")
        judgements = qrels.setdefault(qid, {})
        if docno in judgements:
            raise ValueError(f"qrels line {number}: document {docno!r} is judged twice for query {qid!r}")
        judgements[docno] = grade
    return qrels


def write_qrels(qrels: Mapping[str, Mapping[str, int]], destination: Destination) -> None:
    """Write ``qrels`` as ``qid 0 docno relevance`` lines, queries and documents in the
    mappings' order. A query with no judgements writes no line (and is absent when
    read back).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_qrels({"1": {"d1": 2, "d7": 0}}, out)
    >>> print(out.getvalue(), end="")
    1 0 d1 2
    1 0 d7 0
    """
    check_qrels("qrels", qrels)
    _check_destination(destination)
    lines = []
    for qid, judgements in qrels.items():
        for docno, grade in judgements.items():
            _check_id("docno", docno)
            lines.append(f"{qid} 0 {docno} {int(grade)}\n")
    _write(destination, "".join(lines))


# ---- runs -------------------------------------------------------------------------

def read_run(source: Source) -> Run:
    """Read a run ``qid Q0 docno rank score tag`` into ``{qid: {docno: score}}``.

    ``source`` is a path or an iterable of lines. Blank lines are skipped. The Q0,
    rank and tag fields are checked for shape (rank must be an integer) but not kept:
    trec_eval ranks by score (see :func:`trec_ranking`). Raises ValueError, naming the
    line, for a line without exactly 6 fields, a non-integer rank, a score that is not
    a finite number, or a document retrieved twice for the same query.

    Examples
    --------
    >>> read_run(["1 Q0 d3 1 12.5 bm25", "1 Q0 d1 2 9.25 bm25"])
    {'1': {'d3': 12.5, 'd1': 9.25}}
    """
    _check_source(source)
    run: Run = {}
    for number, line in _lines(source):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise ValueError(f"run line {number}: expected 6 fields 'qid Q0 docno rank score tag', "
                             f"got {len(fields)}: {line.strip()!r}")
        qid, _, docno, rank_text, score_text, _ = fields
        if _parse_int(rank_text) is None:
            raise ValueError(f"run line {number}: rank must be an integer, got {rank_text!r}")
        score = _parse_score(score_text)
        if score is None:
            raise ValueError(f"run line {number}: score must be a finite number, got {score_text!r}")
        doc_scores = run.setdefault(qid, {})
        if docno in doc_scores:
            raise ValueError(f"run line {number}: document {docno!r} is retrieved twice for query {qid!r}")
        doc_scores[docno] = score
    return run


def write_run(run: Mapping[str, Mapping[str, float]], destination: Destination, tag: str = "mmir") -> None:
    """Write ``run`` as ``qid Q0 docno rank score tag`` lines.

    Queries come in the mapping's order; within a query, documents come in
    trec_eval's order (:func:`trec_ranking`) with ranks 1, 2, ... . Scores are
    written with ``repr``, which reads back to the identical float. A query with no
    documents writes no line (and is absent when read back).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_run({"1": {"d1": 0.5, "d2": 0.5, "d3": 2}}, out, tag="demo")
    >>> print(out.getvalue(), end="")
    1 Q0 d3 1 2.0 demo
    1 Q0 d2 2 0.5 demo
    1 Q0 d1 3 0.5 demo
    """
    rankings = run_rankings("run", run)
    _check_destination(destination)
    _check_id("tag", tag)
    lines = []
    for qid, doc_scores in run.items():
        for rank, docno in enumerate(rankings[qid], start=1):
            _check_id("docno", docno)
            lines.append(f"{qid} Q0 {docno} {rank} {float(doc_scores[docno])!r} {tag}\n")
    _write(destination, "".join(lines))


# ---- topics -----------------------------------------------------------------------

_TAG = re.compile(r"<(/?)([A-Za-z]+)>")
_FIELDS = {"num": "Number:", "title": None, "desc": "Description:", "narr": "Narrative:"}


def _topic_tokens(source: Source) -> Iterator[tuple[int, str | None, str]]:
    """(line, tag, text) pieces: tag like 'top' or '/top', or None for the text between tags."""
    for number, line in _lines(source):
        start = 0
        for match in _TAG.finditer(line):
            yield number, None, line[start:match.start()]
            yield number, match.group(1) + match.group(2).lower(), ""
            start = match.end()
        yield number, None, line[start:]


def _field_text(name: str, pieces: list[str]) -> str:
    text = " ".join(" ".join(pieces).split())
    prefix = _FIELDS[name]
    if prefix and text.lower().startswith(prefix.lower()):
        text = text[len(prefix):].lstrip()
    return text


def read_topics(source: Source) -> list[Topic]:
    """Read TREC topics (``<top>`` blocks with ``<num>``, ``<title>``, ``<desc>``,
    ``<narr>``) in file order.

    Field texts have their whitespace runs (line breaks included) collapsed to single
    spaces, and the labels ``Number:``, ``Description:`` and ``Narrative:`` removed.
    Closing field tags (``</title>``) are allowed; other fields of older TREC topics
    (``<dom>``, ``<con>``, ``<fac>``, ``<def>``, ``<smry>``) are skipped. Raises
    ValueError, naming the line, for text outside a ``<top>`` block, a nested or
    unclosed ``<top>``, a repeated field, a topic without number or title, a
    number with spaces in it, or two topics with the same number.

    Examples
    --------
    >>> text = '''<top>
    ... <num> Number: 1
    ... <title> ghost of a murdered king
    ... <desc> Description:
    ... Speeches in which a ghost appears
    ... or is spoken to.
    ... <narr> Narrative:
    ... Relevant: spoken by or to a ghost.
    ... </top>'''
    >>> read_topics(text.splitlines())
    [Topic(qid='1', title='ghost of a murdered king', description='Speeches in which a ghost appears or is spoken to.', narrative='Relevant: spoken by or to a ghost.')]
    """
    _check_source(source)
    topics: list[Topic] = []
    seen: dict[str, int] = {}
    fields: dict[str, list[str]] | None = None  # None: outside a <top> block
    field: str | None = None  # the open field; "" for a skipped one
    top_line = 0
    for number, tag, text in _topic_tokens(source):
        if tag is None:
            if fields is not None and field is not None:
                if field:
                    fields[field].append(text)
            elif text.strip():
                place = "outside any <top> block" if fields is None else "outside any field"
                raise ValueError(f"topics line {number}: text {text.strip()!r} {place}")
        elif tag == "top":
            if fields is not None:
                raise ValueError(f"topics line {number}: <top> inside the topic opened on line {top_line} "
                                 "(missing </top>?)")
            fields, field, top_line = {}, None, number
        elif fields is None:
            raise ValueError(f"topics line {number}: <{tag}> outside any <top> block")
        elif tag == "/top":
            if "num" not in fields or "title" not in fields:
                missing = "<num>" if "num" not in fields else "<title>"
                raise ValueError(f"topics line {number}: the topic opened on line {top_line} has no {missing}")
            values = {name: _field_text(name, pieces) for name, pieces in fields.items()}
            qid = values["num"]
            if len(qid.split()) != 1:
                raise ValueError(f"topics line {number}: expected one topic number in <num>, got {qid!r}")
            if not values["title"]:
                raise ValueError(f"topics line {number}: topic {qid} has an empty <title>")
            if qid in seen:
                raise ValueError(f"topics line {number}: topic number {qid} already used on line {seen[qid]}")
            seen[qid] = top_line
            topics.append(Topic(qid, values["title"], values.get("desc", ""), values.get("narr", "")))
            fields, field = None, None
        elif tag.startswith("/"):
            if tag[1:] != field and not (field == "" and tag[1:] not in _FIELDS):
                raise ValueError(f"topics line {number}: <{tag}> does not close the open field")
            field = None
        elif tag in _FIELDS:
            if tag in fields:
                raise ValueError(f"topics line {number}: second <{tag}> in the topic opened on line {top_line}")
            fields[tag], field = [], tag
        else:
            field = ""  # a field this reader does not keep
    if fields is not None:
        raise ValueError(f"topics: the topic opened on line {top_line} has no </top>")
    return topics


def write_topics(topics: Sequence[Topic], destination: Destination) -> None:
    """Write topics in the classic TREC layout, a blank line between topics.

    Texts must not contain anything that reads as a tag (``<word>`` or
    ``</word>``). Whitespace inside a text is not preserved (see
    :func:`read_topics`), so a text written as one line with single spaces reads
    back identical.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> write_topics([Topic("7", "poison cup", "A drink is poisoned.", "")], out)
    >>> print(out.getvalue(), end="")
    <top>
    <num> Number: 7
    <title> poison cup
    <desc> Description:
    A drink is poisoned.
    <narr> Narrative:
    <BLANKLINE>
    </top>
    """
    topics = check_list("topics", topics, Topic)
    _check_destination(destination)
    blocks = []
    for topic in topics:
        for name in ("qid", "title", "description", "narrative"):
            text = getattr(topic, name)
            if _TAG.search(text):
                raise ValueError(f"topic {topic.qid}: {name} contains a tag-like {_TAG.search(text).group()!r}")
        if not topic.title.strip():
            raise ValueError(f"topic {topic.qid}: the title must not be empty")
        blocks.append(f"<top>\n<num> Number: {topic.qid}\n<title> {topic.title}\n"
                      f"<desc> Description:\n{topic.description}\n"
                      f"<narr> Narrative:\n{topic.narrative}\n</top>\n")
    _write(destination, "\n".join(blocks))
