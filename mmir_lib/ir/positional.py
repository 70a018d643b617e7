"""A positional inverted index: postings that also record *where* each term occurs.

:class:`PositionalIndex` is an :class:`~mmir_lib.ir.index.InvertedIndex` (so every
scoring function accepts it) that adds, for every (term, document) posting, the
sorted positions of the term in the document. All positions live in one flat array,
in postings order, cut into slices by an offsets array::

    posting j (the j-th entry of postings.indices / postings.data)
    position_data[position_offsets[j] : position_offsets[j + 1]]   # sorted, tf_j of them

Because the postings are stored term by term and, within a term, by document id, the
positions of one term form one contiguous block too. Since a posting's number of
positions is its tf, ``position_offsets`` is the running sum of the tf values.

**Positions count stop words.** A position is the index of a token in the document's
token stream *before* stop words are removed: in "Murder most foul" the terms are
murder@0 and foul@2, and position 1 (the stop word "most") is left empty. A phrase
query analysed the same way asks for murder at p and foul at p + 2, so it still finds
the line although "most" is not indexed. Numbering only the kept terms (murder@0,
foul@1) would make the phrase "murder foul" match it as well, and would let any run
of stop words between two terms vanish. The price of the gaps: the index does not
know *which* stop word filled a gap, so "murder most foul" also matches "murder, the
foul ..." (Lucene's position increments behave the same way).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..validation import check_array, check_count, check_instance, check_optional, check_str, check_str_list, describe
from .index import InvertedIndex
from .text import Analyzer, tokenize

__all__ = ["PositionalIndex", "IndexSizes", "analyze_with_positions", "index_sizes"]


def analyze_with_positions(analyzer: Analyzer, text: str) -> list[str | None]:
    """The analysed token stream of ``text``, one slot per token, ``None`` for a stop word.

    Slot i holds the term of token i, so a term's position is its slot number. The
    non-None slots, in order, are exactly ``analyzer(text)``.

    >>> from mmir_lib.ir import ENGLISH_STOP_WORDS
    >>> analyze_with_positions(Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True), "Murder most foul")
    ['murder', None, 'foul']
    """
    check_instance("analyzer", analyzer, Analyzer)
    check_str("text", text, allow_empty=True)
    # The analyzer tokenises, drops the tokens on its stop list, and maps every other
    # token to exactly one term, in order: so its output fills the non-stop slots.
    stop = analyzer.stopwords or frozenset()
    tokens = tokenize(text)
    slots: list[str | None] = [None] * len(tokens)
    kept = [i for i, token in enumerate(tokens) if token not in stop]
    for i, term in zip(kept, analyzer(text), strict=True):
        slots[i] = term
    return slots


@dataclass(frozen=True, eq=False)
class PositionalIndex(InvertedIndex):
    """An inverted index whose postings also hold term positions.

    Extra attributes, besides those of :class:`InvertedIndex`:

    ``position_data``     (P,) int32, P = Σ tf = number of indexed terms in the
                          collection: every posting's positions, in postings order
    ``position_offsets``  (nnz + 1,) int64; posting j's positions are
                          ``position_data[position_offsets[j]:position_offsets[j + 1]]``

    ``doc_lengths`` still counts *terms* (stop words excluded), as BM25 expects; a
    document's token count including stop words is one more than its largest position.

    Build one with :meth:`from_texts` (positions count stop words, see the module
    docstring) or :meth:`from_tokens`.

    Examples
    --------
    >>> from mmir_lib.ir import ENGLISH_STOP_WORDS
    >>> analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS)
    >>> index = PositionalIndex.from_texts(["Murder most foul, as in the best it is",
    ...                                     "O most foul, murder foul"], analyzer)
    >>> index.positions("foul", 1).tolist()
    [2, 4]
    >>> [(d, p.tolist()) for d, p in index.postings_with_positions("murder")]
    [(0, [0]), (1, [3])]
    """

    position_data: np.ndarray = field(kw_only=True)
    position_offsets: np.ndarray = field(kw_only=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        check_array("position_data", self.position_data, kind="int", ndim=1, low=0)
        offsets = check_array("position_offsets", self.position_offsets, kind="int", ndim=1, low=0)
        if len(offsets) != self.postings.nnz + 1 or offsets[-1] != len(self.position_data):
            raise ValueError(f"position_offsets must hold nnz + 1 = {self.postings.nnz + 1} offsets, the last "
                             f"equal to len(position_data) = {len(self.position_data)}")

    # ---- construction -------------------------------------------------------------
    @classmethod
    def from_tokens(
        cls, documents: Iterable[Sequence[str | None]], analyzer: Analyzer | None = None
    ) -> "PositionalIndex":
        """Index token streams; slot i of a document is position i.

        A slot may be ``None``: a token that was removed (a stop word). It is not
        indexed but still takes up its position. Lists of terms without ``None`` are
        numbered 0, 1, 2, ... .
        """
        if isinstance(documents, (str, bytes, Mapping)) or not isinstance(documents, Iterable):
            raise TypeError(f"documents must be a sequence of documents (lists of terms), got {describe(documents)}")
        check_optional(check_instance, "analyzer", analyzer, kind=Analyzer)
        doc_terms, doc_positions = [], []
        for d, tokens in enumerate(documents):
            if isinstance(tokens, (str, bytes, Mapping)) or not isinstance(tokens, (Sequence, np.ndarray)):
                raise TypeError(f"documents[{d}] must be a sequence of terms (str) and gaps (None), "
                                f"got {describe(tokens)}")
            if not set(map(type, tokens)) <= {str, type(None)}:  # fast check; subclasses of str pass below
                bad = next((p for p, t in enumerate(tokens) if t is not None and not isinstance(t, str)), None)
                if bad is not None:
                    raise TypeError(f"documents[{d}][{bad}] must be a str term or None, "
                                    f"got {describe(tokens[bad])}")
            # a None slot is a removed stop word: not indexed, but it takes up its position
            doc_positions.append([p for p, t in enumerate(tokens) if t is not None])
            doc_terms.append([t for t in tokens if t is not None])
        base = InvertedIndex.from_tokens(doc_terms, analyzer)

        term_id = dict(zip(base.terms.tolist(), range(base.num_terms)))
        count = int(base.doc_lengths.sum())
        term_of = np.fromiter((term_id[t] for terms in doc_terms for t in terms), dtype=np.int64, count=count)
        doc_of = np.repeat(np.arange(base.num_docs, dtype=np.int64), base.doc_lengths)
        pos_of = np.fromiter((p for ps in doc_positions for p in ps), dtype=np.int32, count=count)
        order = np.lexsort((pos_of, doc_of, term_of))  # by term, then document, then position
        offsets = np.zeros(base.postings.nnz + 1, dtype=np.int64)
        np.cumsum(base.postings.data, out=offsets[1:])  # posting j holds tf_j positions
        return cls(base.terms, base.postings, base.doc_lengths, analyzer,
                   position_data=pos_of[order], position_offsets=offsets)

    @classmethod
    def from_texts(cls, texts: Iterable[str], analyzer: Analyzer) -> "PositionalIndex":
        """Analyse each text with ``analyzer``, keeping stop-word gaps
        (:func:`analyze_with_positions`), and index the result."""
        texts = check_str_list("texts", texts, nonempty=True)
        check_instance("analyzer", analyzer, Analyzer)
        return cls.from_tokens([analyze_with_positions(analyzer, t) for t in texts], analyzer)

    # ---- lookup ---------------------------------------------------------------------
    def _posting_range(self, term: str) -> tuple[int, int]:
        t = self.term_id(term)
        if t is None:
            return 0, 0
        return int(self.postings.indptr[t]), int(self.postings.indptr[t + 1])

    def positions(self, term: str, doc_id: int) -> np.ndarray:
        """Sorted positions of ``term`` in document ``doc_id`` (empty if absent)."""
        check_str("term", term, allow_empty=True)
        doc_id = check_count("doc_id", doc_id, high=self.num_docs - 1)
        start, end = self._posting_range(term)
        j = start + int(np.searchsorted(self.postings.indices[start:end], doc_id))
        if j == end or self.postings.indices[j] != doc_id:
            return np.empty(0, dtype=np.int32)
        return self.positions_of_posting(j)

    def positions_of_posting(self, j: int) -> np.ndarray:
        """Positions of the j-th posting (0 <= j < nnz, in postings order)."""
        j = check_count("j", j, high=self.postings.nnz - 1)
        return self.position_data[self.position_offsets[j] : self.position_offsets[j + 1]]

    def postings_with_positions(self, term: str) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(doc_id, positions)`` for each document containing ``term``, by doc id."""
        check_str("term", term, allow_empty=True)  # here, not at the first next(): this is no generator
        return self._postings_with_positions(term)

    def _postings_with_positions(self, term: str) -> Iterator[tuple[int, np.ndarray]]:
        start, end = self._posting_range(term)
        for j in range(start, end):
            yield int(self.postings.indices[j]), self.positions_of_posting(j)

    def __repr__(self) -> str:
        return super().__repr__().replace("InvertedIndex(", "PositionalIndex(", 1)[:-1] + (
            f", {len(self.position_data):,} positions)")


@dataclass(frozen=True)
class IndexSizes:
    """Bytes taken by each part of an index, next to a dense incidence matrix.

    ``incidence_matrix``  N·V bits, packed 8 per byte (the most compact dense form)
    ``dictionary``        the V terms as one concatenated UTF-8 string plus a 4-byte
                          start offset per term (a compact lexicon; a numpy ``<U``
                          array is several times larger)
    ``doc_ids``           postings' document ids, 4 bytes each
    ``tf``                postings' term frequencies, 4 bytes each
    ``postings_offsets``  where each term's postings start, 4 bytes per term + 1
    ``positions``         every position, 4 bytes each, plus 8-byte offsets per
                          posting (0 for an index without positions)
    ``document_index``    one 4-byte length per document
    """

    incidence_matrix: int
    dictionary: int
    doc_ids: int
    tf: int
    postings_offsets: int
    positions: int
    document_index: int

    @property
    def inverted_index(self) -> int:
        """Everything but the incidence matrix."""
        return (self.dictionary + self.doc_ids + self.tf + self.postings_offsets
                + self.positions + self.document_index)


def index_sizes(index: InvertedIndex) -> IndexSizes:
    """Sizes in bytes of ``index``'s parts and of the dense N×V incidence matrix.

    Arrays are counted at 4 bytes per entry (int32, as ``InvertedIndex`` stores doc ids
    and tf) except the per-posting position offsets (int64), uncompressed.

    >>> sizes = index_sizes(PositionalIndex.from_tokens([["a", "b", "a"], ["b"]]))
    >>> sizes.incidence_matrix, sizes.doc_ids, sizes.positions
    (1, 12, 48)
    """
    check_instance("index", index, InvertedIndex)
    nnz, n_terms = index.postings.nnz, index.num_terms
    lexicon = sum(len(t.encode("utf-8")) for t in index.terms.tolist())
    positions = 0
    if isinstance(index, PositionalIndex):
        positions = index.position_data.nbytes + index.position_offsets.nbytes
    return IndexSizes(
        incidence_matrix=-(-index.num_docs * n_terms // 8),
        dictionary=lexicon + 4 * n_terms,
        doc_ids=4 * nnz,
        tf=4 * nnz,
        postings_offsets=4 * (n_terms + 1),
        positions=positions,
        document_index=4 * index.num_docs,
    )
