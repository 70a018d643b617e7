"""Boolean retrieval: merging sorted postings lists, a query language, phrase queries.

The merges are the textbook two-pointer walks over two lists of document ids sorted in
increasing order: look at the current id of each list, and advance the pointer of the
smaller one (or both when they are equal). Each step costs one **comparison** of two
document ids, and that is what the functions count: at most ``len(a) + len(b) - 1``
steps, and for an intersection often far fewer, because the walk stops as soon as
either list runs out. Intersecting many lists shortest first keeps every intermediate
result as small as possible (:func:`intersect_many`).

The query language (:func:`parse_query`, :func:`boolean_search`)::

    query    := or_expr END
    or_expr  := and_expr ("OR" and_expr)*
    and_expr := not_expr ("AND"? not_expr)*      two operands side by side mean AND
    not_expr := "NOT" not_expr | primary
    primary  := WORD | "a quoted phrase" | "(" or_expr ")"

so NOT binds tighter than AND, and AND tighter than OR: ``a OR b AND NOT c`` means
``a OR (b AND (NOT c))``. Operators are written in capitals; a lower-case "and", "or"
or "not" is an ordinary word. Other punctuation separates words, as in
:func:`~mmir_lib.ir.text.tokenize`. Words go through the index's analyzer, so
``Kings`` finds the term ``king`` in a stemmed index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_bool, check_count, check_instance, check_str, describe
from .index import InvertedIndex
from .positional import PositionalIndex, analyze_with_positions
from .text import TOKEN

__all__ = [
    "MergeResult", "intersect", "union", "and_not", "intersect_many",
    "Term", "Phrase", "Not", "And", "Or", "parse_query", "evaluate", "boolean_search",
    "phrase_query",
]


@dataclass(frozen=True)
class MergeResult:
    """Sorted document ids that a merge or a query produced, and the number of
    document-id comparisons it took."""

    doc_ids: np.ndarray
    comparisons: int


def _check_postings(name: str, ids) -> list[int]:
    """A postings list: a strictly increasing 1-D array of integers (document ids; or
    positions minus an offset, which may be negative, in a phrase query); returned as a list."""
    array = check_array(name, ids, kind="int", ndim=1)
    if np.any(np.diff(array) <= 0):
        raise ValueError(f"{name} must be sorted in strictly increasing order (a postings list)")
    return array.tolist()  # Python ints: a loop over a list is much faster than over an array


def _result(ids: list[int], comparisons: int) -> MergeResult:
    return MergeResult(np.array(ids, dtype=np.int64), comparisons)


def intersect(a, b) -> MergeResult:
    """a ∩ b by walking both sorted lists once: O(len(a) + len(b)) comparisons at most.

    >>> r = intersect([1, 2, 4, 11, 31, 45, 173, 174], [2, 31, 54, 101])
    >>> r.doc_ids.tolist(), r.comparisons
    ([2, 31], 8)
    """
    x, y = _check_postings("a", a), _check_postings("b", b)
    out, i, j, comparisons = [], 0, 0, 0
    while i < len(x) and j < len(y):
        comparisons += 1
        if x[i] == y[j]:
            out.append(x[i])
            i += 1
            j += 1
        elif x[i] < y[j]:
            i += 1
        else:
            j += 1
    return _result(out, comparisons)


def union(a, b) -> MergeResult:
    """a ∪ b: the same walk, emitting the smaller id; the tail of the longer list is
    copied without comparisons.

    >>> r = union([1, 3, 5], [2, 3])
    >>> r.doc_ids.tolist(), r.comparisons
    ([1, 2, 3, 5], 3)
    """
    x, y = _check_postings("a", a), _check_postings("b", b)
    out, i, j, comparisons = [], 0, 0, 0
    while i < len(x) and j < len(y):
        comparisons += 1
        if x[i] == y[j]:
            out.append(x[i])
            i += 1
            j += 1
        elif x[i] < y[j]:
            out.append(x[i])
            i += 1
        else:
            out.append(y[j])
            j += 1
    return _result(out + x[i:] + y[j:], comparisons)


def and_not(a, b) -> MergeResult:
    """a AND NOT b = a \\ b, without ever forming the complement of b.

    >>> r = and_not([1, 3, 5, 7], [3, 4, 5])
    >>> r.doc_ids.tolist(), r.comparisons
    ([1, 7], 4)
    """
    x, y = _check_postings("a", a), _check_postings("b", b)
    out, i, j, comparisons = [], 0, 0, 0
    while i < len(x) and j < len(y):
        comparisons += 1
        if x[i] == y[j]:
            i += 1
            j += 1
        elif x[i] < y[j]:
            out.append(x[i])
            i += 1
        else:
            j += 1
    return _result(out + x[i:], comparisons)


def intersect_many(lists: Sequence, *, by_df: bool = True) -> MergeResult:
    """t1 AND t2 AND ... : intersect the lists one after another.

    With ``by_df`` (the default) the lists are taken shortest first (increasing
    document frequency): the running result can only shrink, so starting from the
    shortest list keeps every merge small, and the walk stops as soon as the result
    is empty. ``by_df=False`` keeps the given order (to measure the difference).

    >>> lists = [[1, 2, 3, 4, 5, 6, 7, 8], [2, 4, 6, 8], [1]]
    >>> intersect_many(lists).comparisons, intersect_many(lists, by_df=False).comparisons
    (1, 9)
    """
    if isinstance(lists, (str, bytes)) or not isinstance(lists, Sequence):
        raise TypeError(f"lists must be a non-empty sequence of postings lists, got {describe(lists)}")
    if len(lists) == 0:
        raise ValueError("lists must be a non-empty sequence of postings lists, got an empty one")
    by_df = check_bool("by_df", by_df)
    checked = [_check_postings(f"lists[{k}]", ids) for k, ids in enumerate(lists)]
    if by_df:
        checked.sort(key=len)  # stable: equal lengths keep their given order
    result, comparisons = checked[0], 0
    for ids in checked[1:]:
        if not result:
            break
        step = intersect(result, ids)
        comparisons += step.comparisons
        result = step.doc_ids.tolist()
    return _result(result, comparisons)


# ---- phrase queries ---------------------------------------------------------------------

def phrase_query(index: PositionalIndex, phrase: str | Sequence[str | None]) -> MergeResult:
    """Documents in which the terms of ``phrase`` occur one after another.

    ``phrase`` is a string (analysed with the index's analyzer, keeping stop-word
    gaps as :func:`~mmir_lib.ir.positional.analyze_with_positions` does) or a list
    of slots (terms, ``None`` for a gap). Each indexed term of the phrase has an
    offset: its slot minus the first term's slot. A document matches if some
    position p has every term at p + its offset.

    First the documents that contain every term are found by :func:`intersect_many`;
    then, in each, the start candidates p = position(t0) - 0 are intersected with
    position(t) - offset(t) for each further term (the same two-pointer walk, on
    positions). The comparisons of both levels are counted.

    Stop words in the phrase are not checked (the index does not hold them): each
    one matches any single token, and leading or trailing ones are ignored.

    >>> from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer
    >>> index = PositionalIndex.from_texts(["Murder most foul, as in the best it is",
    ...     "O most foul, murder foul", "Foul murder"], Analyzer(stopwords=ENGLISH_STOP_WORDS))
    >>> phrase_query(index, "murder most foul").doc_ids.tolist()
    [0]
    """
    check_instance("index", index, PositionalIndex)  # phrase queries need term positions
    if isinstance(phrase, str):
        check_str("phrase", phrase)
        if index.analyzer is None:
            raise ValueError("this index was built without an analyzer: pass the phrase as a list of terms")
        slots = analyze_with_positions(index.analyzer, phrase)
    elif isinstance(phrase, Sequence) and all(s is None or isinstance(s, str) for s in phrase):
        slots = list(phrase)
    else:
        raise TypeError(f"phrase must be a str or a sequence of terms (str) and gaps (None), got {describe(phrase)}")
    kept = [(slot, term) for slot, term in enumerate(slots) if term is not None]
    if not kept:
        raise ValueError(f"the phrase {phrase!r} has no indexed term (only stop words, or nothing)")
    first = kept[0][0]
    kept = [(slot - first, term) for slot, term in kept]

    candidates = intersect_many([index.postings_list(t)[0] for t in dict.fromkeys(t for _, t in kept)])
    comparisons, matches = candidates.comparisons, []
    for d in candidates.doc_ids.tolist():
        starts = index.positions(kept[0][1], d).astype(np.int64)
        for offset, term in kept[1:]:
            step = intersect(starts, index.positions(term, d).astype(np.int64) - offset)
            comparisons += step.comparisons
            starts = step.doc_ids
            if len(starts) == 0:
                break
        if len(starts):
            matches.append(d)
    return _result(matches, comparisons)


# ---- the query language ---------------------------------------------------------------

@dataclass(frozen=True)
class Term:
    """A word of the query (analysed when the query is evaluated); ``position`` is
    where it starts in the query string."""

    word: str
    position: int = 0

    def __post_init__(self) -> None:
        check_str("word", self.word)
        object.__setattr__(self, "position", check_count("position", self.position))

    def __str__(self) -> str:
        return self.word


@dataclass(frozen=True)
class Phrase:
    """A quoted phrase; ``text`` is what stood between the quotes."""

    text: str
    position: int = 0

    def __post_init__(self) -> None:
        check_str("text", self.text)
        object.__setattr__(self, "position", check_count("position", self.position))

    def __str__(self) -> str:
        return f'"{self.text}"'


@dataclass(frozen=True)
class Not:
    """NOT operand: the documents that do not match ``operand``."""

    operand: "Node"

    def __post_init__(self) -> None:
        check_instance("operand", self.operand, _NODES)

    def __str__(self) -> str:
        return f"(NOT {self.operand})"


def _check_operands(operands: object) -> tuple:
    """Two or more query nodes, as a tuple."""
    if isinstance(operands, (str, bytes)) or not isinstance(operands, Sequence) or len(operands) < 2:
        raise TypeError(f"operands must be a sequence of two or more query nodes, got {describe(operands)}")
    for i, operand in enumerate(operands):
        check_instance(f"operands[{i}]", operand, _NODES)
    return tuple(operands)


@dataclass(frozen=True)
class And:
    """operand AND operand AND ...: the documents that match every operand."""

    operands: tuple["Node", ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "operands", _check_operands(self.operands))

    def __str__(self) -> str:
        return "(" + " AND ".join(map(str, self.operands)) + ")"


@dataclass(frozen=True)
class Or:
    """operand OR operand OR ...: the documents that match some operand."""

    operands: tuple["Node", ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "operands", _check_operands(self.operands))

    def __str__(self) -> str:
        return "(" + " OR ".join(map(str, self.operands)) + ")"


Node = Term | Phrase | Not | And | Or
_NODES = (Term, Phrase, Not, And, Or)

_OPERATORS = ("AND", "OR", "NOT")


@dataclass(frozen=True)
class _Token:
    kind: str  # "WORD", "PHRASE", "AND", "OR", "NOT", "(", ")" or "END"
    text: str
    position: int


def _lex(query: str) -> list[_Token]:
    tokens, pos = [], 0
    while pos < len(query):
        char = query[pos]
        if char in "()":
            tokens.append(_Token(char, char, pos))
            pos += 1
        elif char == '"':
            end = query.find('"', pos + 1)
            if end < 0:
                raise ValueError(f'unterminated phrase: the quote at position {pos} is never closed')
            if not query[pos + 1 : end].strip():
                raise ValueError(f"empty phrase at position {pos}")
            tokens.append(_Token("PHRASE", query[pos + 1 : end], pos))
            pos = end + 1
        elif match := TOKEN.match(query, pos):
            word = match.group()
            tokens.append(_Token(word if word in _OPERATORS else "WORD", word, pos))
            pos = match.end()
        else:
            pos += 1  # white space and punctuation separate words
    tokens.append(_Token("END", "", len(query)))
    return tokens


#: Deepest nesting of parentheses and NOTs a query may have (each level is a recursive call).
MAX_NESTING = 100


class _Parser:
    """Recursive descent: one method per rule of the grammar in the module docstring."""

    def __init__(self, query: str):
        self.tokens = _lex(query)
        self.i = 0
        self.depth = 0

    def nest(self, token: _Token) -> None:
        """One level deeper (a NOT or a '('), refused beyond :data:`MAX_NESTING`."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise ValueError(f"query nests parentheses and NOTs more than {MAX_NESTING} deep "
                             f"(at position {token.position})")

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def query(self) -> Node:
        if self.peek().kind == "END":
            raise ValueError("empty query: expected a word, a quoted phrase, NOT or '(' at position 0")
        node = self.or_expr()
        token = self.peek()
        if token.kind != "END":  # and_expr stops only at OR, ')' or END
            raise ValueError(f"unbalanced parentheses: ')' at position {token.position} has no matching '('")
        return node

    def or_expr(self) -> Node:
        operands = [self.and_expr()]
        while self.peek().kind == "OR":
            self.take()
            operands.append(self.and_expr())
        return operands[0] if len(operands) == 1 else Or(tuple(operands))

    def and_expr(self) -> Node:
        operands = [self.not_expr()]
        while self.peek().kind in ("AND", "NOT", "WORD", "PHRASE", "("):
            if self.peek().kind == "AND":
                self.take()
            operands.append(self.not_expr())
        return operands[0] if len(operands) == 1 else And(tuple(operands))

    def not_expr(self) -> Node:
        if self.peek().kind == "NOT":
            self.nest(self.take())
            node = Not(self.not_expr())
            self.depth -= 1
            return node
        return self.primary()

    def primary(self) -> Node:
        token = self.take()
        if token.kind == "WORD":
            return Term(token.text, token.position)
        if token.kind == "PHRASE":
            return Phrase(token.text, token.position)
        if token.kind == "(":
            self.nest(token)
            node = self.or_expr()
            close = self.take()
            if close.kind != ")":
                raise ValueError(f"unbalanced parentheses: '(' at position {token.position} is never closed")
            self.depth -= 1
            return node
        previous = self.tokens[self.i - 2] if self.i >= 2 else None
        if token.kind in ("END", ")") and previous is not None and previous.kind in _OPERATORS:
            raise ValueError(f"dangling operator: {previous.kind} at position {previous.position} "
                             "has nothing after it")
        if token.kind in ("AND", "OR"):
            raise ValueError(f"dangling operator: {token.kind} at position {token.position} "
                             "has no operand before it")
        # Only '(' is left as the previous token: primary() follows an operator or '('
        if token.kind == "END":
            raise ValueError(f"unbalanced parentheses: '(' at position {previous.position} is never closed")
        raise ValueError(f"empty parentheses at position {previous.position}")


def parse_query(query: str) -> Node:
    """Parse a Boolean query into a tree of :class:`Term`, :class:`Phrase`,
    :class:`Not`, :class:`And` and :class:`Or` nodes (grammar in the module docstring).

    Raises ValueError, naming the position in the query, for an empty query,
    unbalanced parentheses, an operator with a missing operand, an unclosed quote, or
    parentheses and NOTs nested more than :data:`MAX_NESTING` deep.

    >>> print(parse_query('brutus OR caesar AND NOT calpurnia'))
    (brutus OR (caesar AND (NOT calpurnia)))
    >>> print(parse_query('(brutus OR caesar) "noble romans"'))
    ((brutus OR caesar) AND "noble romans")
    """
    check_str("query", query, allow_empty=True)  # an empty query gets the parser's own message
    return _Parser(query).query()


def _all_docs(index: InvertedIndex) -> np.ndarray:
    return np.arange(index.num_docs, dtype=np.int64)


def evaluate(node: Node, index: InvertedIndex) -> MergeResult:
    """The documents matching a parsed query, by merging postings lists.

    An AND evaluates its positive operands first and intersects them shortest first
    (:func:`intersect_many`), then removes each NOT operand with :func:`and_not`, so
    a complement is formed only for a NOT with nothing to subtract it from
    (``NOT caesar`` alone is all documents minus caesar's). An OR unions its
    operands shortest first. A word that the analyzer turns into several terms (rare,
    since punctuation already separates words: NFKC turns "½" into "1⁄2") is treated
    as a phrase; a stop word (no terms) is an error, since the index holds no
    postings for it.
    """
    _check_tree("node", node)
    check_instance("index", index, InvertedIndex)
    return _evaluate(node, index)


def _check_tree(name: str, node: object) -> None:
    """A query node whose tree is at most 3 · :data:`MAX_NESTING` levels deep (a
    parsed query always is: each nesting level adds at most an Or, an And and a Not),
    so that evaluating it, one call per level, cannot exhaust the stack."""
    check_instance(name, node, _NODES)
    level, depth = [node], 0
    while level:
        depth += 1
        if depth > 3 * MAX_NESTING:
            raise ValueError(f"{name} is a query tree more than {3 * MAX_NESTING} levels deep")
        level = [child for n in level for child in ((n.operand,) if isinstance(n, Not)
                                                   else n.operands if isinstance(n, (And, Or)) else ())]


def _evaluate(node: Node, index: InvertedIndex) -> MergeResult:
    """:func:`evaluate` for a checked tree."""
    if isinstance(node, Term):
        terms = index.analyze(node.word)
        if not terms:
            raise ValueError(f"{node.word!r} at position {node.position} of the query is removed by the analyzer "
                             "(a stop word), so it has no postings list; drop it or quote a phrase")
        if len(terms) > 1:
            return phrase_query(index, terms)
        return MergeResult(index.postings_list(terms[0])[0].astype(np.int64), 0)
    if isinstance(node, Phrase):
        return phrase_query(index, node.text)
    if isinstance(node, Not):
        inner = _evaluate(node.operand, index)
        result = and_not(_all_docs(index), inner.doc_ids)
        return MergeResult(result.doc_ids, inner.comparisons + result.comparisons)
    if isinstance(node, And):
        positive = [_evaluate(op, index) for op in node.operands if not isinstance(op, Not)]
        negative = [_evaluate(op.operand, index) for op in node.operands if isinstance(op, Not)]
        comparisons = sum(r.comparisons for r in positive + negative)
        if positive:
            result = intersect_many([r.doc_ids for r in positive])
        else:
            result = MergeResult(_all_docs(index), 0)
        comparisons += result.comparisons
        for r in negative:
            result = and_not(result.doc_ids, r.doc_ids)
            comparisons += result.comparisons
        return MergeResult(result.doc_ids, comparisons)
    if isinstance(node, Or):
        parts = sorted((_evaluate(op, index) for op in node.operands), key=lambda r: len(r.doc_ids))
        comparisons = sum(r.comparisons for r in parts)
        result = parts[0].doc_ids
        for r in parts[1:]:
            step = union(result, r.doc_ids)
            comparisons += step.comparisons
            result = step.doc_ids
        return MergeResult(result, comparisons)
    raise TypeError(f"not a query node: {node!r}")


def boolean_search(index: InvertedIndex, query: str) -> MergeResult:
    """Parse ``query`` (:func:`parse_query`) and evaluate it on ``index`` (:func:`evaluate`).

    >>> from mmir_lib.ir import Analyzer
    >>> index = PositionalIndex.from_texts(["Brutus killed Caesar", "Caesar's wife Calpurnia",
    ...                                     "noble Brutus", "the noble Romans"], Analyzer())
    >>> boolean_search(index, "brutus OR caesar AND NOT calpurnia").doc_ids.tolist()
    [0, 2]
    >>> boolean_search(index, '"noble romans" OR (caesar calpurnia)').doc_ids.tolist()
    [1, 3]
    """
    check_instance("index", index, InvertedIndex)
    return evaluate(parse_query(query), index)
