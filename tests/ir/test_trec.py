import io

import numpy as np
import pytest
import pytrec_eval
from hypothesis import given, settings, strategies as st

from mmir_lib.ir.trec import (
    Topic, _trec_ranks, read_qrels, read_run, read_topics, run_scores, trec_ranking, write_qrels, write_run,
    write_topics,
)

# ---- strategies ---------------------------------------------------------------------

ids = st.text(st.characters(codec="utf-8", categories=["L", "N", "P", "S"]), min_size=1, max_size=8)
grades = st.integers(-2, 3)
finite = st.floats(allow_nan=False, allow_infinity=False)
qrels_strategy = st.dictionaries(ids, st.dictionaries(ids, grades, min_size=1, max_size=6), max_size=5)
run_strategy = st.dictionaries(
    ids, st.dictionaries(ids, st.one_of(finite, st.sampled_from([0.0, 1.0, 2.5])), min_size=1, max_size=8),
    max_size=5)
words = st.text(st.characters(codec="utf-8", categories=["L", "N", "P"]), min_size=1, max_size=8)
texts = st.lists(words, max_size=6).map(" ".join)


def _written(writer, value, **kwargs) -> str:
    out = io.StringIO()
    writer(value, out, **kwargs)
    return out.getvalue()


# ---- trec_ranking: trec_eval's order --------------------------------------------------

def test_ranking_by_score_then_docno_descending():
    # 0.5 is shared by d1, d3 and d10; as strings "d3" > "d10" > "d1"
    assert trec_ranking({"d1": 0.5, "d2": 0.9, "d3": 0.5, "d10": 0.5, "d4": -1}) == ["d2", "d3", "d10", "d1", "d4"]


def test_scores_compared_as_float32():
    # 1 + 1e-9 and 1 are the same float32, so the docno decides; 1 + 1e-6 is a larger float32
    assert trec_ranking({"a": 1.0 + 1e-9, "b": 1.0}) == ["b", "a"]
    assert trec_ranking({"a": 1.0 + 1e-6, "b": 1.0}) == ["a", "b"]


def test_ranking_equals_pytrec_eval_on_near_ties():
    # the document ranked first is the only relevant one: P_1 = 1 iff trec_eval puts it first too
    rng = np.random.default_rng(3)
    for _ in range(100):
        base = rng.uniform(-100, 100)
        scores = {f"d{i}": float(base + rng.choice([0.0, 1e-12, 1e-7, 1e-5, 1.0])) for i in range(6)}
        first = trec_ranking(scores)[0]
        evaluator = pytrec_eval.RelevanceEvaluator({"q": {first: 1}}, {"P.1"})
        assert evaluator.evaluate({"q": scores})["q"]["P_1"] == 1.0


# scores from a few values (many ties), some equal only as float32, and docnos that
# differ in case, length and script, so that the docno order decides often
tied_scores = st.sampled_from([0.0, -0.0, 1.0, 1.0 + 1e-9, 2.5, -3.0, 3e38, 4e38, -4e38, 7])
query_strategy = st.dictionaries(ids, st.one_of(tied_scores, finite), min_size=1, max_size=30)


@given(query_strategy, st.data())
@settings(max_examples=300, deadline=None)
def test_ranks_of_some_docnos_equal_their_places_in_the_full_ranking(doc_scores, data):
    # the ranks evaluation takes for the judged documents only, against the whole ranking
    asked = data.draw(st.lists(st.sampled_from(sorted(doc_scores)), unique=True, max_size=len(doc_scores)))
    ranking = trec_ranking(doc_scores)
    scores = run_scores("run", {"q": doc_scores})["q"]
    assert _trec_ranks(doc_scores, scores, asked).tolist() == [ranking.index(d) for d in asked]


def test_ranks_when_every_score_ties():
    # one tie group of 500 documents: ranks are the docnos' descending order
    doc_scores = {f"d{i}": 1.0 for i in range(500)}
    asked = ["d0", "d499", "d99", "d1"]
    expected = sorted(doc_scores, reverse=True)
    ranks = _trec_ranks(doc_scores, run_scores("run", {"q": doc_scores})["q"], asked)
    assert ranks.tolist() == [expected.index(d) for d in asked] == [499, 55, 0, 498]


@pytest.mark.parametrize("scores, error, match", [
    ({"d1": float("nan")}, ValueError, "finite"),
    ({"d1": float("inf")}, ValueError, "finite"),
    ({"d1": "1.5"}, TypeError, "real numbers"),
    ({"d1": True}, TypeError, "real numbers"),
    ({1: 1.0}, TypeError, "docnos must be str"),
    ([("d1", 1.0)], TypeError, "mapping"),
    ({"d1": 10**400}, ValueError, "beyond float64's range for 'd1'"),
])
def test_ranking_bad_input(scores, error, match):
    with pytest.raises(error, match=match):
        trec_ranking(scores)


# ---- qrels ---------------------------------------------------------------------------

def test_read_qrels_from_lines_and_path(tmp_path):
    lines = ["301 0 FT-1 2\n", "\n", "301 0 FT-2 0\n", "302 Q0 FT-1 1\n"]
    expected = {"301": {"FT-1": 2, "FT-2": 0}, "302": {"FT-1": 1}}
    assert read_qrels(lines) == expected
    path = tmp_path / "qrels.txt"
    path.write_text("".join(lines))
    assert read_qrels(path) == expected
    assert read_qrels(str(path)) == expected
    with open(path) as file:
        assert read_qrels(file) == expected


@pytest.mark.parametrize("line, match", [
    ("1 0 d1", r"line 2: expected 4 fields 'qid iteration docno relevance', got 3"),
    ("1 0 d1 1 x", r"line 2: expected 4 fields .* got 5"),
    ("1 0 d2 1.0", r"line 2: relevance must be an integer, got '1.0'"),
    ("1 0 d2 yes", r"line 2: relevance must be an integer"),
    ("1 0 d2 1_0", r"line 2: relevance must be an integer"),
    ("1 0 d1 0", r"line 2: document 'd1' is judged twice for query '1'"),
])
def test_read_qrels_malformed(line, match):
    with pytest.raises(ValueError, match=match):
        read_qrels(["1 0 d1 1", line])


def test_read_qrels_wants_text_lines():
    with pytest.raises(TypeError, match="text mode"):
        read_qrels([b"1 0 d1 1"])
    with pytest.raises(TypeError, match="path or an iterable"):
        read_qrels(42)


def test_write_qrels_layout():
    assert _written(write_qrels, {"2": {"b": 1, "a": 0}}) == "2 0 b 1\n2 0 a 0\n"


@pytest.mark.parametrize("qrels, error, match", [
    ({"1": {"d 1": 1}}, ValueError, "without whitespace"),
    ({"": {"d1": 1}}, ValueError, "qid must not be empty"),
    ({"1": {"d1": 1.0}}, TypeError, "must be an int"),
    ({"1": {"d1": True}}, TypeError, "must be an int"),
    ({1: {"d1": 1}}, TypeError, "qid must be a str"),
    ({"1": [("d1", 1)]}, TypeError, "mapping"),
])
def test_write_qrels_bad_input(qrels, error, match):
    with pytest.raises(error, match=match):
        write_qrels(qrels, io.StringIO())


@settings(max_examples=60, deadline=None)
@given(qrels_strategy)
def test_qrels_round_trip(qrels):
    text = _written(write_qrels, qrels)
    assert read_qrels(text.splitlines()) == qrels
    assert dict(pytrec_eval.parse_qrel(text.splitlines())) == qrels


# ---- runs ----------------------------------------------------------------------------

def test_read_run():
    lines = ["q1 Q0 d3 1 12.5 bm25", "q1 Q0 d1 2 9.25 bm25", "q2 Q0 d1 1 -3e2 other"]
    assert read_run(lines) == {"q1": {"d3": 12.5, "d1": 9.25}, "q2": {"d1": -300.0}}


@pytest.mark.parametrize("line, match", [
    ("q1 Q0 d2 2 1.0", r"line 2: expected 6 fields 'qid Q0 docno rank score tag', got 5"),
    ("q1 Q0 d2 two 1.0 t", r"line 2: rank must be an integer, got 'two'"),
    ("q1 Q0 d2 2 high t", r"line 2: score must be a finite number, got 'high'"),
    ("q1 Q0 d2 2 nan t", r"line 2: score must be a finite number, got 'nan'"),
    ("q1 Q0 d2 2 -inf t", r"line 2: score must be a finite number"),
    ("q1 Q0 d1 2 0.5 t", r"line 2: document 'd1' is retrieved twice for query 'q1'"),
])
def test_read_run_malformed(line, match):
    with pytest.raises(ValueError, match=match):
        read_run(["q1 Q0 d1 1 1.0 t", line])


def test_write_run_ranks_as_trec_eval_sorts():
    run = {"q2": {"d1": 0.5, "d10": 0.5, "d2": 3}, "q1": {"x": 1.0}}
    assert _written(write_run, run, tag="sys") == (
        "q2 Q0 d2 1 3.0 sys\nq2 Q0 d10 2 0.5 sys\nq2 Q0 d1 3 0.5 sys\nq1 Q0 x 1 1.0 sys\n")


@pytest.mark.parametrize("run, tag, error, match", [
    ({"q": {"d": float("nan")}}, "t", ValueError, "finite"),
    ({"q": {"d": 1.0}}, "two words", ValueError, "tag must be a non-empty string without whitespace"),
    ({"q": {"d\t1": 1.0}}, "t", ValueError, "docno"),
    ({"q": {"d": "1"}}, "t", TypeError, "real numbers"),
])
def test_write_run_bad_input(run, tag, error, match):
    with pytest.raises(error, match=match):
        write_run(run, io.StringIO(), tag=tag)


def test_write_run_to_a_path(tmp_path):
    path = tmp_path / "run.txt"
    write_run({"q": {"a": 1.0, "b": 2.0}}, path)
    assert path.read_text() == "q Q0 b 1 2.0 mmir\nq Q0 a 2 1.0 mmir\n"


@settings(max_examples=60, deadline=None)
@given(run_strategy)
def test_run_round_trip(run):
    text = _written(write_run, run)
    assert read_run(text.splitlines()) == run  # repr gives the identical float back
    assert dict(pytrec_eval.parse_run(text.splitlines())) == run
    for qid, doc_scores in run.items():  # ranks 1..n, in trec_eval's order
        lines = [line.split() for line in text.splitlines() if line.split()[0] == qid]
        assert [fields[2] for fields in lines] == trec_ranking(doc_scores)
        assert [int(fields[3]) for fields in lines] == list(range(1, len(doc_scores) + 1))


def test_written_files_evaluate_like_the_dicts():
    rng = np.random.default_rng(0)
    run = {f"q{q}": {f"d{d}": float(rng.integers(0, 4)) for d in range(20)} for q in range(5)}
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(0, 30, 2)} for q in range(5)}
    run_text, qrels_text = _written(write_run, run), _written(write_qrels, qrels)
    measures = {"map", "ndcg", "P.5"}
    from_dicts = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
    parsed_qrels = pytrec_eval.parse_qrel(qrels_text.splitlines())
    from_files = pytrec_eval.RelevanceEvaluator(parsed_qrels, measures).evaluate(
        pytrec_eval.parse_run(run_text.splitlines()))
    assert from_files == from_dicts


# ---- topics --------------------------------------------------------------------------

CLASSIC = """
<top>
<num> Number: 1
<title> ghost of a murdered king

<desc> Description:
Speeches in which a ghost
appears.
<narr> Narrative:
A relevant speech is spoken by or to a ghost.
</top>

<top>
<num> Number: 2 </num>
<title> poison </title>
<dom> Domain: crime
<con> Concept(s): venom, vial
<desc> Description:
Someone is poisoned.
</top>
"""


def test_read_classic_topics():
    assert read_topics(CLASSIC.splitlines(keepends=True)) == [
        Topic("1", "ghost of a murdered king", "Speeches in which a ghost appears.",
              "A relevant speech is spoken by or to a ghost."),
        Topic("2", "poison", "Someone is poisoned.", ""),  # <dom>, <con> skipped; no <narr>
    ]


def test_topic_is_frozen():
    with pytest.raises(AttributeError):
        Topic("1", "x").title = "y"


@pytest.mark.parametrize("text, match", [
    ("stray\n<top>\n<num> 1\n<title> a\n</top>", r"line 1: text 'stray' outside any <top> block"),
    ("<top>\n<num> 1\n<title> a\n<top>", r"line 4: <top> inside the topic opened on line 1"),
    ("<top>\n<num> 1\n<title> a\n", r"the topic opened on line 1 has no </top>"),
    ("<top>\n<title> a\n</top>", r"line 3: the topic opened on line 1 has no <num>"),
    ("<top>\n<num> 1\n</top>", r"line 3: the topic opened on line 1 has no <title>"),
    ("<top>\n<num> 1\n<title>\n</top>", r"line 4: topic 1 has an empty <title>"),
    ("<top>\n<num> Number: 1 2\n<title> a\n</top>", r"line 4: expected one topic number"),
    ("<top>\n<num> 1\n<title> a\n<title> b\n</top>", r"line 4: second <title>"),
    ("<top>\n<num> 1\n<title> a\n</top>\n<top>\n<num> 1\n<title> b\n</top>",
     r"line 8: topic number 1 already used on line 1"),
    ("<top>\n<num> 1\n<title> a </desc>\n</top>", r"line 3: </desc> does not close the open field"),
    ("<top>\n<num> 1 </num> x\n<title> a\n</top>", r"line 2: text 'x' outside any field"),
    ("</top>", r"line 1: </top> outside any <top> block"),
])
def test_read_topics_malformed(text, match):
    with pytest.raises(ValueError, match=match):
        read_topics(text.splitlines())


@pytest.mark.parametrize("topic, error, match", [
    (Topic("1", "a <b> c"), ValueError, "tag-like '<b>'"),
    (Topic("<x>", "a"), ValueError, "qid contains a tag-like '<x>'"),
    ("1 a", TypeError, r"topics\[0\] must be a Topic"),
])
def test_write_topics_bad_input(topic, error, match):
    with pytest.raises(error, match=match):
        write_topics([topic], io.StringIO())


@pytest.mark.parametrize("fields, error, match", [
    (("1", " "), ValueError, "title must not be empty"),
    (("1 2", "a"), ValueError, "qid must be a non-empty string without whitespace"),
    (("1", "a", 3), TypeError, "description must be a str"),
    ((1, "a"), TypeError, "qid must be a str"),
])
def test_topic_checks_its_fields(fields, error, match):
    with pytest.raises(error, match=match):
        Topic(*fields)


@pytest.mark.parametrize("writer, value", [(write_qrels, {"1": {"d1": 1}}), (write_run, {"1": {"d1": 1.0}}),
                                           (write_topics, [Topic("1", "a")])])
@pytest.mark.parametrize("destination, error", [(None, TypeError), (3, TypeError), (" ", ValueError)])
def test_writers_refuse_a_bad_destination(writer, value, destination, error):
    with pytest.raises(error, match="destination"):
        writer(value, destination)


@pytest.mark.parametrize("reader", [read_qrels, read_run, read_topics])
def test_readers_refuse_a_missing_file_or_a_mapping(reader, tmp_path):
    with pytest.raises(ValueError, match="source must be a path to an existing file"):
        reader(tmp_path / "absent.txt")
    with pytest.raises(TypeError, match="source must be a path or an iterable"):
        reader({"1 0 d1 1": 1})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.builds(Topic, ids, words.flatmap(lambda w: texts.map(lambda t: (w + " " + t).strip())),
                          texts, texts), max_size=4, unique_by=lambda t: t.qid))
def test_topics_round_trip(topics):
    assert read_topics(_written(write_topics, topics).splitlines()) == topics


def test_label_words_inside_the_text_survive():
    topic = Topic("9", "Number: nine", "Description: of a storm", "Narrative: none")
    assert read_topics(_written(write_topics, [topic]).splitlines()) == [topic]
