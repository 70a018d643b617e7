"""An inverted index with term frequencies, built on a scipy.sparse matrix.

The index stores, for a collection of N documents and a vocabulary of V terms:

* the **dictionary**: the V terms in sorted order, and a map term -> term id;
* the **postings**: for each term, the ids of the documents that contain it (sorted)
  and the term's frequency tf in each. They are the columns of an N×V sparse matrix
  in compressed sparse column (CSC) form: column ``t`` holds ``indices[indptr[t]:
  indptr[t+1]]`` (document ids) and ``data[...]`` (tfs). A CSC matrix *is* an
  inverted index laid out in three flat arrays;
* the **document index**: the length dl(d) of every document, in terms;
* **collection statistics**: N, the average document length avdl, each term's
  document frequency n_t (the length of its postings list) and collection
  frequency cf_t (its total number of occurrences).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ..validation import check_array, check_instance, check_optional, check_str, check_str_list, describe
from .text import Analyzer

__all__ = ["InvertedIndex"]


@dataclass(frozen=True, eq=False)
class InvertedIndex:
    """Dictionary, postings (doc ids + tf), document lengths and statistics.

    Build one with :meth:`from_texts` (analyses raw text) or :meth:`from_tokens`
    (already analysed documents). Attributes are read-only arrays:

    ``terms``          (V,) str, sorted: term id -> term
    ``postings``       scipy.sparse.csc_array of shape (N, V), tf as int32
    ``doc_lengths``    (N,) int64, dl(d) = number of terms in document d
    ``df``             (V,) int64, n_t = number of documents containing t
    ``cf``             (V,) int64, cf_t = occurrences of t in the collection
    """

    terms: np.ndarray
    postings: scipy.sparse.csc_array
    doc_lengths: np.ndarray
    analyzer: Analyzer | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.terms, np.ndarray) or self.terms.ndim != 1 or self.terms.dtype.kind != "U":
            raise TypeError(f"terms must be a 1-D numpy array of str, got {describe(self.terms)}")
        if not scipy.sparse.issparse(self.postings) or self.postings.format != "csc":
            raise TypeError(f"postings must be a scipy.sparse CSC array, got {describe(self.postings)}")
        check_array("doc_lengths", self.doc_lengths, kind="int", ndim=1, low=0)
        check_optional(check_instance, "analyzer", self.analyzer, kind=Analyzer)
        if self.postings.shape != (len(self.doc_lengths), len(self.terms)):
            raise ValueError(f"postings must have shape (N, V) = ({len(self.doc_lengths)}, {len(self.terms)}): "
                             f"one row per entry of doc_lengths, one column per entry of terms; "
                             f"got {self.postings.shape}")

    # ---- construction -------------------------------------------------------------
    @classmethod
    def from_tokens(
        cls, documents: Iterable[Sequence[str]], analyzer: Analyzer | None = None
    ) -> "InvertedIndex":
        """Index documents given as lists of terms (already analysed).

        ``analyzer`` is only remembered, so that :meth:`analyze` can turn a query
        string into terms the same way the documents were.
        """
        if isinstance(documents, (str, bytes, Mapping)) or not isinstance(documents, Iterable):
            raise TypeError(f"documents must be a sequence of documents (lists of terms), got {describe(documents)}")
        check_optional(check_instance, "analyzer", analyzer, kind=Analyzer)
        doc_ids, term_strings = [], []
        doc_lengths = []
        for d, tokens in enumerate(documents):
            if isinstance(tokens, (str, bytes, Mapping)) or not isinstance(tokens, (Sequence, np.ndarray)):
                raise TypeError(f"documents[{d}] must be a sequence of terms (str), got {describe(tokens)}")
            if not set(map(type, tokens)) <= {str}:  # fast check; subclasses of str pass below
                check_str_list(f"documents[{d}]", tokens)
            doc_ids.extend([d] * len(tokens))
            term_strings.extend(tokens)
            doc_lengths.append(len(tokens))
        if not doc_lengths:
            raise ValueError("documents is empty: cannot index an empty collection")
        terms, term_ids = np.unique(np.array(term_strings, dtype=str), return_inverse=True)
        n_docs, n_terms = len(doc_lengths), len(terms)
        tf = scipy.sparse.coo_array(
            (np.ones(len(term_ids), dtype=np.int32), (np.array(doc_ids, dtype=np.int64), term_ids)),
            shape=(n_docs, n_terms),
        ).tocsc()  # duplicates (d, t) are summed: that sum is tf
        tf.sort_indices()
        return cls(terms, tf, np.array(doc_lengths, dtype=np.int64), analyzer)

    @classmethod
    def from_texts(cls, texts: Iterable[str], analyzer: Analyzer) -> "InvertedIndex":
        """Analyse each text with ``analyzer`` and index the resulting terms."""
        texts = check_str_list("texts", texts, nonempty=True)
        check_instance("analyzer", analyzer, Analyzer)
        return cls.from_tokens([analyzer(t) for t in texts], analyzer)

    # ---- statistics -----------------------------------------------------------------
    @property
    def num_docs(self) -> int:
        """N, the number of documents."""
        return len(self.doc_lengths)

    @property
    def num_terms(self) -> int:
        """V, the size of the vocabulary."""
        return len(self.terms)

    @property
    def avdl(self) -> float:
        """avdl = (1/N) Σ_d dl(d), the average document length."""
        return float(self.doc_lengths.mean())

    @property
    def df(self) -> np.ndarray:
        """n_t for every term: the length of its postings list."""
        return np.diff(self.postings.indptr).astype(np.int64)

    @property
    def cf(self) -> np.ndarray:
        """cf_t for every term: Σ_d tf_t(d)."""
        return np.asarray(self.postings.sum(axis=0)).astype(np.int64)

    # ---- lookup ---------------------------------------------------------------------
    def term_id(self, term: str) -> int | None:
        """The id of ``term`` (binary search in the sorted dictionary), or None."""
        check_str("term", term, allow_empty=True)
        i = int(np.searchsorted(self.terms, term))
        return i if i < len(self.terms) and self.terms[i] == term else None

    def postings_list(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """(document ids, term frequencies) of ``term``, sorted by document id.

        Both arrays are empty for a term that is not in the dictionary.
        """
        t = self.term_id(term)
        if t is None:
            return np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32)
        start, end = self.postings.indptr[t], self.postings.indptr[t + 1]
        return self.postings.indices[start:end], self.postings.data[start:end]

    def analyze(self, query: str) -> list[str]:
        """Turn a query string into terms with the analyzer the documents went through.

        Raises TypeError for a non-string and ValueError for an empty or blank query.
        """
        check_str("query", query)
        if self.analyzer is None:
            raise ValueError("this index was built from tokens without an analyzer: "
                             "pass the query as a list of terms instead of a string")
        return self.analyzer(query)

    def query_terms(self, query: str | Sequence[str]) -> list[str]:
        """The terms of a query: a string is analysed (:meth:`analyze`), a sequence of
        strings is taken as already-analysed terms. Anything else raises TypeError."""
        if isinstance(query, str):
            return self.analyze(query)
        if isinstance(query, Sequence) and all(isinstance(t, str) for t in query):
            return list(query)
        raise TypeError(f"query must be a str or a sequence of str terms, got {describe(query)}")

    def __repr__(self) -> str:
        return (f"InvertedIndex(N={self.num_docs:,} documents, V={self.num_terms:,} terms, "
                f"{self.postings.nnz:,} postings, avdl={self.avdl:.1f})")
