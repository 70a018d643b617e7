import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex
from mmir_lib.ir.boolean import (
    And, Not, Or, Phrase, Term, and_not, boolean_search, evaluate, intersect,
    intersect_many, parse_query, phrase_query, union,
)
from mmir_lib.ir.positional import PositionalIndex

# ---- merges -------------------------------------------------------------------------


def test_merges_by_hand():
    # Manning et al. (2008), Figure 1.6: Brutus AND Calpurnia
    brutus, calpurnia = [1, 2, 4, 11, 31, 45, 173, 174], [2, 31, 54, 101]
    r = intersect(brutus, calpurnia)
    assert r.doc_ids.tolist() == [2, 31] and r.comparisons == 8
    assert r.doc_ids.dtype == np.int64
    r = union([1, 3, 5], [2, 3])
    assert r.doc_ids.tolist() == [1, 2, 3, 5] and r.comparisons == 3
    r = and_not([1, 3, 5, 7], [3, 4, 5])
    assert r.doc_ids.tolist() == [1, 7] and r.comparisons == 4
    # one list exhausted at once: no comparisons, the rest copied
    assert intersect([], [1, 2]).comparisons == 0
    assert union([], [1, 2]).doc_ids.tolist() == [1, 2]
    assert and_not([4, 5], []).doc_ids.tolist() == [4, 5]
    # disjoint ranges: the intersection walk stops when the shorter side runs out
    assert intersect([1, 2], [10, 11, 12, 13]).comparisons == 2


def test_intersect_many_shortest_first_costs_less():
    lists = [list(range(1, 9)), [2, 4, 6, 8], [1]]
    best = intersect_many(lists)  # [1] first: empty after one comparison, then stop
    assert best.doc_ids.tolist() == [] and best.comparisons == 1
    assert intersect_many(lists, by_df=False).comparisons == 9  # 8 for the first two, 1 more
    assert intersect_many([[3, 5, 9], [1, 3, 9], [3, 9, 12]]).doc_ids.tolist() == [3, 9]
    assert intersect_many([[7, 8]]).doc_ids.tolist() == [7, 8]


def test_merge_bad_input():
    with pytest.raises(ValueError, match="strictly increasing"):
        intersect([3, 1], [1])
    with pytest.raises(ValueError, match="strictly increasing"):
        union([1, 1], [1])  # duplicates are not a postings list
    with pytest.raises(ValueError, match="a must be 1-dimensional"):
        and_not([[1, 2]], [1])
    with pytest.raises(TypeError, match="a must hold int values"):
        intersect([1.5, 2.5], [1])
    with pytest.raises(TypeError, match="b must hold int values"):
        intersect([1], [2**64])
    with pytest.raises(TypeError, match="by_df must be True or False"):
        intersect_many([[1]], by_df=1)
    with pytest.raises(ValueError, match="non-empty sequence"):
        intersect_many([])
    with pytest.raises(ValueError, match=r"lists\[1\] must be sorted"):
        intersect_many([[1], [2, 1]])


sorted_ids = st.lists(st.integers(0, 60), max_size=40, unique=True).map(sorted)


@settings(max_examples=150, deadline=None)
@given(sorted_ids, sorted_ids)
def test_merges_equal_numpy_set_operations(a, b):
    x, y = np.array(a, dtype=np.int64), np.array(b, dtype=np.int64)
    r = intersect(a, b)
    assert np.array_equal(r.doc_ids, np.intersect1d(x, y))
    assert r.comparisons <= max(len(a) + len(b) - 1, 0)
    assert np.array_equal(union(a, b).doc_ids, np.union1d(x, y))
    assert np.array_equal(and_not(a, b).doc_ids, np.setdiff1d(x, y))
    # every comparison advances at least one pointer
    assert union(a, b).comparisons <= len(a) + len(b)


@settings(max_examples=80, deadline=None)
@given(st.lists(sorted_ids, min_size=1, max_size=5))
def test_intersect_many_equals_numpy_in_any_order(lists):
    expected = lists[0]
    for ids in lists[1:]:
        expected = np.intersect1d(expected, ids)
    for by_df in (True, False):
        assert intersect_many(lists, by_df=by_df).doc_ids.tolist() == list(expected)


# ---- the query language -------------------------------------------------------------


def test_parser_precedence_and_implicit_and():
    assert str(parse_query("brutus OR caesar AND NOT calpurnia")) == "(brutus OR (caesar AND (NOT calpurnia)))"
    assert str(parse_query("(brutus OR caesar) AND NOT calpurnia")) == "((brutus OR caesar) AND (NOT calpurnia))"
    assert str(parse_query("NOT a OR b")) == "((NOT a) OR b)"
    assert str(parse_query("NOT (a OR b)")) == "(NOT (a OR b))"
    assert str(parse_query("a b OR c")) == "((a AND b) OR c)"
    assert str(parse_query("NOT NOT a")) == "(NOT (NOT a))"
    assert parse_query('"murder most foul" AND ghost') == And((Phrase("murder most foul", 0), Term("ghost", 23)))
    # lower-case operators are words; punctuation separates words
    assert parse_query("not and or") == And((Term("not", 0), Term("and", 4), Term("or", 8)))
    assert parse_query("kingdom, horse!") == And((Term("kingdom", 0), Term("horse", 9)))


@pytest.mark.parametrize("query, message", [
    ("", "empty query.*position 0"),
    ("  ,; ", "empty query.*position 0"),
    ("brutus AND", "dangling operator: AND at position 7"),
    ("NOT", "dangling operator: NOT at position 0"),
    ("AND brutus", "dangling operator: AND at position 0 has no operand before it"),
    ("a OR OR b", "dangling operator: OR at position 5"),
    ("(a OR)", "dangling operator: OR at position 3"),
    ("(brutus", r"unbalanced parentheses: '\(' at position 0 is never closed"),
    ("a (b OR (c)", r"'\(' at position 2 is never closed"),
    ("brutus)", r"unbalanced parentheses: '\)' at position 6 has no matching"),
    ("a ()", "empty parentheses at position 2"),
    ('a "murder most', "unterminated phrase: the quote at position 2"),
    ('a "  "', "empty phrase at position 2"),
])
def test_malformed_queries_name_the_position(query, message):
    with pytest.raises(ValueError, match=message):
        parse_query(query)


def test_parse_bad_type():
    with pytest.raises(TypeError, match="query must be a str"):
        parse_query(["brutus"])


TEXTS = ["Brutus killed Caesar", "Caesar's wife Calpurnia", "noble Brutus", "the noble Romans",
         "Murder most foul", "O most foul murder"]


@pytest.fixture(scope="module")
def small():
    return PositionalIndex.from_texts(TEXTS, Analyzer(stopwords=ENGLISH_STOP_WORDS))


def test_boolean_search_by_hand(small):
    def ids(q):
        return boolean_search(small, q).doc_ids.tolist()

    assert ids("brutus AND caesar") == [0]
    assert ids("brutus OR calpurnia") == [0, 1, 2]
    assert ids("caesar AND NOT calpurnia") == [0]
    assert ids("NOT caesar") == [2, 3, 4, 5]
    assert ids("NOT caesar AND NOT noble") == [4, 5]
    assert ids("Caesar") == [0, 1]  # the analyzer folds case
    assert ids('"murder most foul"') == [4]
    assert ids('"most foul murder"') == [5]
    assert ids('"foul most murder"') == []  # foul and murder are never two apart in this order
    assert ids("murder foul") == [4, 5]
    assert ids("unicorn OR romans") == [3]
    r = boolean_search(small, "brutus AND caesar")
    assert r.comparisons == 2  # [0, 2] against [0, 1]: 0 = 0, then 2 > 1


def test_evaluation_errors(small):
    with pytest.raises(ValueError, match="'the' at position 7 of the query is removed by the analyzer"):
        boolean_search(small, "brutus the")
    with pytest.raises(ValueError, match="has no indexed term"):
        boolean_search(small, '"to be or not"')
    plain = InvertedIndex.from_texts(TEXTS, Analyzer())
    with pytest.raises(TypeError, match="index must be a PositionalIndex"):
        boolean_search(plain, '"noble romans"')
    assert boolean_search(plain, "noble AND NOT brutus").doc_ids.tolist() == [3]
    with pytest.raises(TypeError, match="InvertedIndex"):
        boolean_search(TEXTS, "brutus")
    with pytest.raises(TypeError, match="node must be a Term or Phrase or Not or And or Or"):
        evaluate("brutus", small)


def test_a_word_that_analyses_to_several_terms_is_a_phrase():
    # NFKC turns the single character "½" into "1⁄2", which tokenises to "1", "2"
    index = PositionalIndex.from_texts(["1 2 3", "2 1", "1/2"], Analyzer())
    assert boolean_search(index, "½").doc_ids.tolist() == [0, 2]
    # a hyphen separates words, so this is an AND of three words, not a phrase
    index = PositionalIndex.from_texts(["a ne'er do well", "do well ne'er"], Analyzer())
    assert boolean_search(index, "ne'er-do-well").doc_ids.tolist() == [0, 1]
    assert boolean_search(index, '"ne\'er-do-well"').doc_ids.tolist() == [0]


# Random small corpora and random expressions, against sets computed by brute force.
VOCABULARY = ["ant", "bee", "cat", "dog", "eel"]
terms = st.sampled_from(VOCABULARY + ["fox"]).map(Term)  # "fox" is never in a document
expressions = st.recursive(
    terms,
    lambda children: st.one_of(
        children.map(Not),
        st.tuples(children, children).map(And),
        st.tuples(children, children, children).map(And),
        st.tuples(children, children).map(Or),
    ),
    max_leaves=8,
)
corpora = st.lists(st.lists(st.sampled_from(VOCABULARY), max_size=6), min_size=1, max_size=15)

PRECEDENCE = {Or: 1, And: 2, Not: 3, Term: 4}


def render(node, parent=0, draw_bool=lambda: False):
    """The query string of a tree with as few parentheses as precedence allows."""
    if isinstance(node, Term):
        text = node.word
    elif isinstance(node, Not):
        text = "NOT " + render(node.operand, PRECEDENCE[Not], draw_bool)
    else:
        joiner = " OR " if isinstance(node, Or) else (" " if draw_bool() else " AND ")
        # an operand of the same kind needs parentheses only to keep the tree's grouping
        text = joiner.join(render(op, PRECEDENCE[type(node)] + 0.5, draw_bool) for op in node.operands)
    return f"({text})" if PRECEDENCE[type(node)] < parent or (draw_bool() and parent) else text


def brute_force(node, doc_sets):
    everything = set(range(len(doc_sets)))
    if isinstance(node, Term):
        return {d for d, s in enumerate(doc_sets) if node.word in s}
    if isinstance(node, Not):
        return everything - brute_force(node.operand, doc_sets)
    parts = [brute_force(op, doc_sets) for op in node.operands]
    return set.intersection(*parts) if isinstance(node, And) else set.union(*parts)


@settings(max_examples=150, deadline=None)
@given(corpora, expressions, st.randoms(use_true_random=False))
def test_boolean_search_equals_brute_force_sets(docs, tree, rnd):
    index = InvertedIndex.from_texts([" ".join(d) for d in docs], Analyzer())
    query = render(tree, draw_bool=lambda: rnd.random() < 0.3)
    expected = sorted(brute_force(tree, [set(d) for d in docs]))
    assert boolean_search(index, query).doc_ids.tolist() == expected, query
    assert evaluate(tree, index).doc_ids.tolist() == expected


# ---- phrase queries -------------------------------------------------------------------

def brute_force_phrase(docs, slots):
    """Scan each token stream for the phrase; None slots (stop words) match any token."""
    kept = [(i, t) for i, t in enumerate(slots) if t is not None]
    first = kept[0][0]
    kept = [(i - first, t) for i, t in kept]
    return [d for d, doc in enumerate(docs)
            if any(all(p + k < len(doc) and doc[p + k] == t for k, t in kept) for p in range(len(doc)))]


slot = st.one_of(st.none(), st.sampled_from("abc"))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(slot, max_size=14), min_size=1, max_size=10),
       st.lists(slot, min_size=1, max_size=4).filter(lambda s: any(t is not None for t in s)))
def test_phrase_query_equals_a_scan_of_the_token_streams(docs, phrase):
    index = PositionalIndex.from_tokens(docs)
    assert phrase_query(index, phrase).doc_ids.tolist() == brute_force_phrase(docs, phrase)


def test_phrase_query_by_hand(small):
    # Stop words in the phrase are one-token wildcards, and their number matters.
    assert phrase_query(small, "murder the foul").doc_ids.tolist() == [4]
    assert phrase_query(small, "murder foul").doc_ids.tolist() == []
    assert phrase_query(small, "the murder").doc_ids.tolist() == [4, 5]  # leading stop word ignored
    assert phrase_query(small, ["noble", "romans"]).doc_ids.tolist() == [3]
    r = phrase_query(small, "most foul murder")
    assert r.doc_ids.tolist() == [5] and r.comparisons > 0


def test_phrase_query_bad_input(small):
    with pytest.raises(TypeError, match="PositionalIndex"):
        phrase_query(InvertedIndex.from_tokens([["a"]]), "a")
    with pytest.raises(ValueError, match="has no indexed term"):
        phrase_query(small, "to be or not to be")
    with pytest.raises(TypeError, match="sequence of terms"):
        phrase_query(small, [1, 2])
    with pytest.raises(ValueError, match="without an analyzer"):
        phrase_query(PositionalIndex.from_tokens([["a"]]), "a")


@pytest.mark.parametrize("query", ["(" * 5000 + "a" + ")" * 5000, "NOT " * 3000 + "a", "(NOT " * 60 + "a" + ")" * 60])
def test_deep_nesting_is_refused_clearly(query):
    # once a RecursionError from deep inside the parser
    with pytest.raises(ValueError, match="query nests parentheses and NOTs more than 100 deep"):
        parse_query(query)


def test_nesting_up_to_the_limit_parses_and_evaluates(small):
    from mmir_lib.ir.boolean import MAX_NESTING

    assert str(parse_query("(" * MAX_NESTING + "brutus" + ")" * MAX_NESTING)) == "brutus"
    twice_negated = parse_query("NOT " * MAX_NESTING + "brutus")  # an even number of NOTs: brutus again
    assert evaluate(twice_negated, small).doc_ids.tolist() == boolean_search(small, "brutus").doc_ids.tolist()


def test_query_nodes_check_their_fields():
    with pytest.raises(TypeError, match="word must be a str"):
        Term(3)
    with pytest.raises(ValueError, match="position must be >= 0"):
        Phrase("noble romans", -1)
    with pytest.raises(TypeError, match="operand must be a Term or Phrase or Not or And or Or"):
        Not("brutus")
    with pytest.raises(TypeError, match="operands must be a sequence of two or more query nodes"):
        And((Term("brutus"),))
    with pytest.raises(TypeError, match=r"operands\[1\] must be a Term"):
        Or((Term("brutus"), "caesar"))


def test_a_hand_built_tree_too_deep_to_evaluate_is_refused(small):
    node = Term("brutus")
    for _ in range(2000):
        node = Not(node)  # once a RecursionError inside evaluate
    with pytest.raises(ValueError, match="node is a query tree more than 300 levels deep"):
        evaluate(node, small)


def test_the_deepest_parsed_queries_evaluate(small):
    from mmir_lib.ir.boolean import MAX_NESTING

    # every level adds an Or and an And: the deepest tree a query can parse to
    query = "(brutus OR caesar " * (MAX_NESTING - 1) + "(brutus OR caesar calpurnia)" + ")" * (MAX_NESTING - 1)
    query = query.replace("caesar (", "caesar AND (")
    assert evaluate(parse_query(query), small).doc_ids.tolist() == boolean_search(small, "brutus OR caesar").doc_ids.tolist()
