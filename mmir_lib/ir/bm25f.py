"""BM25F: BM25 for documents made of fields (a title, a body, a speaker's name, ...).

Many documents have structure: a web page has a title, a body and the anchor text of
links pointing to it; a speech in a play has its words, its speaker and the play it
belongs to. A match in a short, telling field (the title) is worth more than one in
a long body, so each field f gets a weight w_f.

The obvious way, a weighted sum of one BM25 score per field, saturates every field
separately: a term that occurs once in the title and once in the body earns almost
two full saturated weights, more (for k1 = 1.2) than a term repeated ten times in
the body alone, and the result depends on each field's own idf. BM25F (Robertson,
Zaragoza and Taylor 2004; Robertson and Zaragoza 2009, §3.6) instead merges the
fields into one *pseudo* term frequency first, normalising each field for its own
length, and then saturates once, with a single k1:

    B_f(d)    = (1 − b_f) + b_f · dl_f(d) / avdl_f
    tf~_t(d)  = Σ_f  w_f · tf_{t,f}(d) / B_f(d)
    RSV(q, d) = Σ_{t ∈ q}  tf~_t(d) / (k1 + tf~_t(d)) · idf_t

tf_{t,f}(d) is the frequency of t in field f of d, dl_f(d) the length of that field
and avdl_f its average over the collection; b_f ∈ [0, 1] is the field's own length
normalisation. idf_t is computed, with the same choice of variant as in
:mod:`mmir_lib.ir.bm25`, from n_t = the number of documents that contain t in *any*
field: the document frequency of the combined document.

In words: an occurrence in field f counts as w_f occurrences, measured against that
field's usual length. With one field of weight 1 this is BM25 (the same formula, equal
up to rounding, since the operations come in another order); with b_f = 0,
doubling w_f is the same as writing the field's text out twice. The field weights are
the hard part: nothing in the model says what they should be, and they are usually
tuned on judged queries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from ..validation import (check_choice, check_count, check_instance, check_mapping, check_number, check_optional,
                          check_probability, check_str_list, describe)
from .bm25 import VARIANTS
from .index import InvertedIndex
from ..ranking import top_k
from .text import Analyzer

__all__ = ["FieldedIndex", "bm25f_scores", "bm25f_search"]


@dataclass(frozen=True, eq=False)
class FieldedIndex:
    """One :class:`~mmir_lib.ir.index.InvertedIndex` per field, over the same documents.

    Document d of every field's index is the same document: the fields share one
    numbering. A field may be empty in some documents (dl_f(d) = 0).

    Parameters
    ----------
    fields : mapping {field name: InvertedIndex}
        At least one field; every index must hold the same number of documents and
        (if it has one) the same analyzer, since a query is analysed once for all
        fields.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer
    >>> index = FieldedIndex.from_texts(
    ...     {"text": ["Out, damned spot!", "To be, or not to be"], "speaker": ["Lady Macbeth", "Hamlet"]},
    ...     Analyzer())
    >>> index
    FieldedIndex(N=2 documents, fields: text (V=7, avdl=4.5), speaker (V=3, avdl=1.5))
    >>> index.df("macbeth"), index.df("spot"), index.df("ophelia")
    (1, 1, 0)
    """

    fields: Mapping[str, InvertedIndex]

    def __post_init__(self) -> None:
        _check_field_names(self.fields)
        for name, field in self.fields.items():
            check_instance(f"fields[{name!r}]", field, InvertedIndex)
        counts = {name: field.num_docs for name, field in self.fields.items()}
        if len(set(counts.values())) > 1:
            listed = ", ".join(f"{name!r} {n:,}" for name, n in counts.items())
            raise ValueError(f"every field of fields must index the same documents, but the document counts "
                             f"differ: {listed}")
        analyzers = [f.analyzer for f in self.fields.values() if f.analyzer is not None]
        if any(a != analyzers[0] for a in analyzers):
            raise ValueError("every field of fields must use the same analyzer (a query is analysed once "
                             f"for all fields), got {analyzers}")
        object.__setattr__(self, "fields", MappingProxyType(dict(self.fields)))  # read-only

    # ---- construction -------------------------------------------------------------
    @classmethod
    def from_tokens(
        cls, fields: Mapping[str, Sequence[Sequence[str]]], analyzer: Analyzer | None = None
    ) -> "FieldedIndex":
        """Index already-analysed documents: ``{field: [terms of document 0, ...]}``."""
        _check_field_names(fields)
        check_optional(check_instance, "analyzer", analyzer, kind=Analyzer)
        for name, documents in fields.items():
            if isinstance(documents, (str, bytes, Mapping)) or not isinstance(documents, Sequence):
                raise TypeError(f"fields[{name!r}] must be a list of documents (lists of terms), "
                                f"got {describe(documents)}")
        return cls({name: InvertedIndex.from_tokens(docs, analyzer) for name, docs in fields.items()})

    @classmethod
    def from_texts(cls, fields: Mapping[str, Sequence[str]], analyzer: Analyzer) -> "FieldedIndex":
        """Analyse and index raw texts: ``{field: [text of document 0, ...]}``, one
        analyzer for every field."""
        _check_field_names(fields)
        check_instance("analyzer", analyzer, Analyzer)
        for name, texts in fields.items():
            check_str_list(f"fields[{name!r}]", texts)
        return cls({name: InvertedIndex.from_texts(texts, analyzer) for name, texts in fields.items()})

    # ---- statistics and lookup ------------------------------------------------------
    @property
    def num_docs(self) -> int:
        """N, the number of documents (the same in every field)."""
        return next(iter(self.fields.values())).num_docs

    def df(self, term: str) -> int:
        """n_t of the combined document: documents that contain ``term`` in any field."""
        return len(np.unique(np.concatenate([f.postings_list(term)[0] for f in self.fields.values()])))

    def query_terms(self, query: str | Sequence[str]) -> list[str]:
        """The terms of a query, analysed once with the fields' shared analyzer
        (see :meth:`InvertedIndex.query_terms`)."""
        with_analyzer = [f for f in self.fields.values() if f.analyzer is not None]
        return (with_analyzer or list(self.fields.values()))[0].query_terms(query)

    def __repr__(self) -> str:
        described = ", ".join(f"{name} (V={f.num_terms:,}, avdl={f.avdl:.1f})" for name, f in self.fields.items())
        return f"FieldedIndex(N={self.num_docs:,} documents, fields: {described})"


def _check_field_names(fields: object) -> None:
    """A non-empty mapping whose keys, the field names, are non-empty str."""
    check_mapping("fields", fields)
    if not fields:
        raise ValueError("fields must hold at least one field")
    for name in fields:
        if not isinstance(name, str) or not name.strip():
            raise TypeError(f"fields must be keyed by field names (non-empty str), got key {describe(name)}")


def _check_field_weights(index: FieldedIndex, weights: Mapping[str, float] | None) -> dict[str, float]:
    """w_f >= 0 for every field of ``index`` (1 for all when ``weights`` is None; 0 for a
    field left out), at least one of them > 0."""
    if weights is None:
        return {name: 1.0 for name in index.fields}
    check_mapping("weights", weights)
    unknown = [name for name in weights if name not in index.fields]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} in weights; the index has fields {list(index.fields)}")
    checked = {name: check_number(f"weights[{name!r}]", w, low=0) for name, w in weights.items()}
    if not any(w > 0 for w in checked.values()):
        raise ValueError("weights must give at least one field a weight > 0")
    return {name: checked.get(name, 0.0) for name in index.fields}


def _check_field_bs(index: FieldedIndex, b: float | Mapping[str, float], weights: dict[str, float]) -> dict[str, float]:
    """b_f in [0, 1] for every field: one number for all, or one per weighted field."""
    if not isinstance(b, Mapping):
        b = check_probability("b", b)
        return {name: b for name in index.fields}
    unknown = [name for name in b if name not in index.fields]
    if unknown:
        raise ValueError(f"unknown field {unknown[0]!r} in b; the index has fields {list(index.fields)}")
    missing = [name for name, w in weights.items() if w > 0 and name not in b]
    if missing:
        raise ValueError(f"b gives no value for field {missing[0]!r}, which weights weigh > 0 (weights=None "
                         "weighs every field); give one for every weighted field")
    checked = {name: check_probability(f"b[{name!r}]", value) for name, value in b.items()}
    return {name: checked.get(name, 0.0) for name in index.fields}


def bm25f_scores(
    index: FieldedIndex,
    query: str | Sequence[str],
    *,
    weights: Mapping[str, float] | None = None,
    k1: float = 1.2,
    b: float | Mapping[str, float] = 0.75,
    variant: str = "seed",
) -> tuple[np.ndarray, np.ndarray]:
    """RSV(q, d) = Σ_{t ∈ q} tf~/(k1 + tf~) · idf_t for every document (see the module).

    Parameters
    ----------
    index : FieldedIndex
    query : str or sequence of str
        A string is analysed with the fields' analyzer; a sequence is taken as the
        query's terms. A term repeated in the query counts once per occurrence.
    weights : {field: w_f >= 0}, optional
        Field weights; a field left out gets weight 0 (it is not searched, but still
        counts for n_t). Default: weight 1 for every field.
    k1 : float
        k1 >= 0, one value for the combined pseudo term frequency.
    b : float or {field: b_f}
        Length normalisation in [0, 1], one value for every field or one per field
        (then every field with a positive weight needs one).
    variant : {"seed", "robertson", "lucene"}
        The idf, as in :func:`~mmir_lib.ir.bm25.bm25_scores`.

    Returns
    -------
    scores : (N,) float64
        0 for documents with no query term in a weighted field.
    matched : (N,) bool
        True for documents that contain a query term in a field of positive weight.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer
    >>> index = FieldedIndex.from_texts(
    ...     {"text": ["my kingdom for a horse", "a horse a horse"], "speaker": ["king richard", "catesby"]},
    ...     Analyzer())
    >>> scores, matched = bm25f_scores(index, "richard horse", weights={"text": 1, "speaker": 3}, b=0)
    >>> scores.round(3).tolist(), matched.tolist()
    ([0.495, 0.0], [True, True])

    "richard" is in the speaker field of document 0 only: tf~ = 3 · 1, weight
    3 / (1.2 + 3) · ln(2 / 1) ≈ 0.495; "horse" is in both documents, so idf = ln 1 = 0.
    """
    check_instance("index", index, FieldedIndex)
    field_weights = _check_field_weights(index, weights)
    field_bs = _check_field_bs(index, b, field_weights)
    k1 = check_number("k1", k1, low=0)
    check_choice("variant", variant, VARIANTS)
    terms = index.query_terms(query)
    scores = np.zeros(index.num_docs, dtype=np.float64)
    matched = np.zeros(index.num_docs, dtype=bool)
    seen: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for term in terms:
        if term not in seen:
            seen[term] = _term_weights(index, term, field_weights, field_bs, k1, variant)
        doc_ids, term_weights = seen[term]
        scores[doc_ids] += term_weights
        matched[doc_ids] = True
    return scores, matched


def _term_weights(index: FieldedIndex, term: str, weights: dict[str, float], bs: dict[str, float],
                  k1: float, variant: str) -> tuple[np.ndarray, np.ndarray]:
    """(documents, weight of ``term`` in each) for the documents that have the term
    in a field of positive weight."""
    doc_parts, tf_parts = [], []
    for name, field in index.fields.items():
        doc_ids, tf = field.postings_list(term)
        if weights[name] == 0 or len(doc_ids) == 0:
            continue
        b = bs[name]
        length_norm = (1.0 - b) + b * field.doc_lengths[doc_ids] / field.avdl  # B_f(d)
        doc_parts.append(doc_ids)
        tf_parts.append(weights[name] * tf / length_norm)  # w_f · tf / B_f(d)
    if not doc_parts:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    doc_ids, position = np.unique(np.concatenate(doc_parts), return_inverse=True)
    pseudo_tf = np.bincount(position, weights=np.concatenate(tf_parts))  # tf~ = Σ_f, per document
    # Lengths are already normalised field by field, so the variant's own
    # normalisation is switched off (b = 0): what is left is tf~/(k1 + tf~) · idf.
    df = index.df(term)
    return doc_ids, VARIANTS[variant](pseudo_tf, 1.0, 1.0, df, index.num_docs, k1, 0.0)


def bm25f_search(
    index: FieldedIndex,
    query: str | Sequence[str],
    k: int = 10,
    **params,
) -> tuple[np.ndarray, np.ndarray]:
    """The top ``k`` documents under BM25F (keyword ``params`` as in
    :func:`bm25f_scores`); ties go to the smaller document number.

    Returns
    -------
    doc_ids : (m,) int64 and scores : (m,) float64, with m <= k.
    """
    k = check_count("k", k, low=1)
    scores, matched = bm25f_scores(index, query, **params)
    return top_k(scores, k, matched)
