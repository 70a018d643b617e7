"""Dense retrieval: a small bi-encoder trained by the inverse cloze task with InfoNCE.

A **bi-encoder** maps a query and a document, separately, to vectors in the same space
and scores the pair by their dot product, s(q, d) = E(q) · E(d). Documents are encoded
once; a query costs one encoding and one matrix-vector product (Karpukhin et al. 2020).

The encoder here is deliberately small, so that three seeds train in seconds on a CPU:

    E(text) = normalise( W · Σ_t a_t e_t / Σ_t a_t ) ,

a weighted mean of word vectors e_t (d0 = 50, initialised from GloVe 6B) with one learnt
weight a_t = softplus(w_t) per word (initialised to the word's idf), followed by a linear
map W (d0 × d0, initialised to the identity) and L2 normalisation, shared by queries and
documents. Before training it is an idf-weighted mean of GloVe vectors.

**Training pairs without labelled queries** (the inverse cloze task, Lee et al. 2019):
a sentence of a speech is the pseudo-query, the rest of the speech its positive. In a
batch of B pairs, every other pair's context is a negative ("in-batch negatives"), and
each pair may add one **hard negative**: the speech BM25 ranks first for the pseudo-query
among those that are not its own. The loss is InfoNCE (van den Oord et al. 2018),

    L = −(1/B) Σ_i log( exp(q_i · d_i / τ) / Σ_j exp(q_i · d_j / τ) ) ,

j over the B positives and the hard negatives; τ is the temperature. It is the
cross-entropy of a B-way (or 2B-way) classification whose correct class is i
(:func:`mmir_lib.contrastive.info_nce`, shared with VI.3's image-text encoder).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from ..ann.exact import exact_search
from ..contrastive import info_nce
from ..ranking import top_k
from ..training import evaluating, train
from ..validation import (check_array, check_bool, check_count, check_instance, check_list, check_number,
                          check_optional, check_probability, check_str, check_str_list)
from .bm25 import bm25_scores
from .index import InvertedIndex
from .text import ENGLISH_STOP_WORDS, tokenize

__all__ = ["sentences", "ClozePair", "inverse_cloze_pairs", "Vocabulary", "bag_batch", "glove_init", "BagEncoder",
           "hard_negatives", "encode", "TrainingSetup", "train_bi_encoder", "dense_run"]

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def sentences(text: str) -> list[str]:
    """Split a speech into sentences at ``.``, ``!``, ``?`` or ``;`` followed by a space."""
    text = check_str("text", text, allow_empty=True)
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


@dataclass(frozen=True)
class ClozePair:
    """One inverse-cloze pair: ``query`` (a sentence of text number ``source``) and
    ``context`` (that text without the sentence, or whole; :func:`inverse_cloze_pairs`)."""

    query: str
    context: str
    source: int


def inverse_cloze_pairs(texts: Sequence[str], seed: int = 0, min_words: int = 4,
                        keep: float = 0.0) -> list[ClozePair]:
    """One inverse-cloze pair per text that has at least two sentences, one of them of
    ``min_words`` words or more: a sentence drawn at random among those is the query, the
    other sentences, joined, the context; with probability ``keep`` the context is the
    whole text, query sentence included (Lee et al. keep it in 10 % of the pairs, so that
    the encoder still learns that shared words matter).

    Parameters
    ----------
    texts : sequence of str (N,)
    seed : int, for the draws (the sentence, and whether it is kept)
    min_words : int >= 1, the shortest sentence that may be a query
    keep : probability that the context keeps the query sentence

    Returns
    -------
    list of ClozePair, in the order of ``texts`` (texts with too few sentences skipped)
    """
    texts = check_str_list("texts", texts)
    seed = check_count("seed", seed)
    min_words = check_count("min_words", min_words, low=1)
    keep = check_probability("keep", keep)
    rng = np.random.default_rng(seed)
    pairs = []
    for i, text in enumerate(texts):
        parts = sentences(text)
        long_enough = [k for k, s in enumerate(parts) if len(s.split()) >= min_words]
        if len(parts) < 2 or not long_enough:
            continue
        k = long_enough[int(rng.integers(len(long_enough)))]
        context = text if rng.random() < keep else " ".join(parts[:k] + parts[k + 1:])
        pairs.append(ClozePair(parts[k], context, i))
    return pairs


class Vocabulary:
    """The words the encoder knows: every token (lower-cased, stop words removed, not
    stemmed, so that GloVe has them) of the texts it is built from, with its idf.

    ``words`` (V,) list; ``idf`` (V,) float32, log(N / n_t); ``ids(text)`` the ids of a
    text's known words (unknown words are dropped).
    """

    def __init__(self, texts: Sequence[str]):
        texts = check_str_list("texts", texts, nonempty=True)
        df: dict[str, int] = {}
        for text in texts:
            for word in set(self.tokens(text)):
                df[word] = df.get(word, 0) + 1
        self.words = sorted(df)
        self.index = {w: i for i, w in enumerate(self.words)}
        self.idf = np.log(len(texts) / np.array([df[w] for w in self.words], dtype=np.float64)).astype(np.float32)

    @staticmethod
    def tokens(text: str) -> list[str]:
        """:func:`~mmir_lib.ir.text.tokenize` without the stop words."""
        return [t for t in tokenize(text) if t not in ENGLISH_STOP_WORDS]

    def __len__(self) -> int:
        return len(self.words)

    def ids(self, text: str) -> list[int]:
        """The ids of the known words of ``text``, in order (repeats kept)."""
        return [self.index[t] for t in self.tokens(check_str("text", text, allow_empty=True)) if t in self.index]

    def bags(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Each text's known word ids, an int64 array each (the form :func:`bag_batch` packs)."""
        return [np.array(self.ids(t), dtype=np.int64) for t in check_str_list("texts", texts)]


def _check_bags(name: str, bags: object, size: int | None = None) -> list[np.ndarray]:
    """A list of 1-d integer arrays of word ids (each in [0, size) when size is given)."""
    bags = check_list(name, bags, object)
    high = None if size is None else size - 1
    return [check_array(f"{name}[{i}]", b, ndim=1, kind="int", low=0, high=high) for i, b in enumerate(bags)]


def bag_batch(bags: Sequence[np.ndarray]) -> tuple[torch.Tensor, torch.Tensor]:
    """(flat ids, offsets) int64 tensors of B texts given as id arrays, :class:`BagEncoder`'s input:
    ``flat`` all ids one text after another, ``offsets`` (B,) where each text starts."""
    bags = _check_bags("bags", bags)
    offsets = np.cumsum([0] + [len(b) for b in bags[:-1]]) if bags else np.zeros(0, dtype=np.int64)
    flat = np.concatenate(bags) if len(bags) else np.zeros(0, dtype=np.int64)
    return torch.from_numpy(flat.astype(np.int64)), torch.from_numpy(offsets.astype(np.int64))


def glove_init(vocabulary: Vocabulary, words: Sequence[str], vectors: np.ndarray, seed: int = 0) -> np.ndarray:
    """(V, d) float32 initial word vectors: GloVe's vector where ``words`` (the rows of
    ``vectors``, (n, d)) has the word, else a random normal vector (generator seeded with
    ``seed``) with the per-dimension standard deviation of ``vectors``."""
    check_instance("vocabulary", vocabulary, Vocabulary)
    words = check_str_list("words", words, nonempty=True)
    vectors = check_array("vectors", vectors, ndim=2).astype(np.float32)  # GloVe's dtype: the spread in float32
    if len(words) != len(vectors):
        raise ValueError(f"words has {len(words)} entries, vectors {len(vectors)} rows")
    seed = check_count("seed", seed, high=2**63 - 1)
    position = {w: i for i, w in enumerate(words)}
    rng = np.random.default_rng(seed)
    init = rng.normal(0.0, vectors.std(axis=0), size=(len(vocabulary), vectors.shape[1])).astype(np.float32)
    known = [(i, position[w]) for i, w in enumerate(vocabulary.words) if w in position]
    if known:
        rows, glove_rows = np.array(known).T
        init[rows] = vectors[glove_rows]
    return init


class BagEncoder(nn.Module):
    """E(text) = normalise(W · Σ a_t e_t / Σ a_t), a_t = softplus(w_t) (module docstring).

    vectors : (V, d) initial word vectors; idf : (V,) initial word weights (> 0).
    ``forward(ids, offsets)`` -> (B, d) unit vectors of B texts given as the flat word ids
    of all of them and the offset of each text's first id (EmbeddingBag's layout; an
    empty text gives the zero vector).
    """

    def __init__(self, vectors: np.ndarray, idf: np.ndarray):
        super().__init__()
        vectors = check_array("vectors", vectors, ndim=2)
        idf = check_array("idf", idf, ndim=1, low=0)
        if len(idf) != len(vectors) or not len(idf):
            raise ValueError(f"idf must have one entry per row of vectors ({len(vectors)}, at least 1), got {len(idf)}")
        self.vectors = nn.EmbeddingBag.from_pretrained(torch.tensor(vectors, dtype=torch.float32), freeze=False,
                                                       mode="sum")
        raw = np.log(np.expm1(np.maximum(idf, 1e-3)))  # softplus⁻¹(idf)
        self.raw_weights = nn.Parameter(torch.tensor(raw, dtype=torch.float32))
        self.linear = nn.Linear(vectors.shape[1], vectors.shape[1])
        with torch.no_grad():
            self.linear.weight.copy_(torch.eye(vectors.shape[1]))
            self.linear.bias.zero_()

    def forward(self, ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """(B, d) unit vectors (zero for an empty text) of the B texts packed by :func:`bag_batch`."""
        weights = nn.functional.softplus(self.raw_weights)[ids]
        total = self.vectors(ids, offsets, per_sample_weights=weights)
        lengths = torch.diff(offsets, append=torch.tensor([len(ids)]))
        mass = torch.zeros(len(offsets)).index_add_(0, torch.repeat_interleave(torch.arange(len(offsets)), lengths),
                                                    weights)
        return nn.functional.normalize(self.linear(total / mass.clamp_min(1e-6)[:, None]), dim=1)


def hard_negatives(index, queries: Sequence[str], sources: Sequence[int], allowed: np.ndarray | None = None) -> np.ndarray:
    """For each pseudo-query, the document BM25 (k1 = 1.2, b = 0.75) ranks first among the
    ``allowed`` documents other than its own ``source``: a negative that shares the query's
    words, harder than a random one. (N,) bool ``allowed`` defaults to every document.

    Returns (len(queries),) int64 document numbers; -1 where no allowed document shares a word.
    """

    check_instance("index", index, InvertedIndex)
    queries = check_str_list("queries", queries)
    sources = check_array("sources", sources, ndim=1, kind="int", low=0, high=index.num_docs - 1)
    if len(sources) != len(queries):
        raise ValueError(f"sources has {len(sources)} entries, queries {len(queries)}")
    allowed = check_optional(check_array, "allowed", allowed, ndim=1, kind="bool")
    if allowed is None:
        allowed = np.ones(index.num_docs, dtype=bool)
    if len(allowed) != index.num_docs:
        raise ValueError(f"allowed must have one entry per document ({index.num_docs}), got {len(allowed)}")
    found = np.full(len(queries), -1, dtype=np.int64)
    for i, (query, source) in enumerate(zip(queries, sources)):
        scores, matched = bm25_scores(index, query)
        candidates = matched & allowed
        candidates[source] = False
        if candidates.any():
            found[i] = top_k(scores, 1, candidates)[0][0]
    return found


def encode(model: BagEncoder, bags: Sequence[np.ndarray], batch_size: int = 4096) -> np.ndarray:
    """(n, d) float32 unit vectors of n texts (id arrays from :meth:`Vocabulary.bags`), in eval
    mode, ``batch_size`` texts at a time."""
    check_instance("model", model, BagEncoder)
    bags = _check_bags("bags", bags, model.vectors.num_embeddings)
    batch_size = check_count("batch_size", batch_size, low=1)
    with evaluating(model):
        parts = [model(*bag_batch(bags[i:i + batch_size])) for i in range(0, len(bags), batch_size)]
    return torch.cat(parts).numpy() if parts else np.zeros((0, model.linear.out_features), dtype=np.float32)


@dataclass(frozen=True)
class TrainingSetup:
    """How :func:`train_bi_encoder` trains: ``temperature`` τ, ``epochs`` passes over the
    pairs, ``batch_size`` B pairs per step (B − 1 in-batch negatives each), Adam's
    learning rate ``lr``, and ``hard`` (one BM25 hard negative per pair, shared by the batch)."""

    temperature: float = 0.1
    epochs: int = 4
    batch_size: int = 256
    lr: float = 0.003
    hard: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "temperature", check_number("temperature", self.temperature, low=0, low_open=True,
                                                             high=1e6))
        object.__setattr__(self, "epochs", check_count("epochs", self.epochs, low=1, high=10_000))
        object.__setattr__(self, "batch_size", check_count("batch_size", self.batch_size, low=2, high=1_000_000))
        object.__setattr__(self, "lr", check_number("lr", self.lr, low=0, low_open=True, high=1e3))
        object.__setattr__(self, "hard", check_bool("hard", self.hard))


def train_bi_encoder(model: BagEncoder, queries: Sequence[np.ndarray], contexts: Sequence[np.ndarray],
                     negatives: Sequence[np.ndarray] | None, setup: TrainingSetup, seed: int = 0):
    """Train ``model`` on pairs (queries[i], contexts[i]) with :func:`info_nce`, in-batch
    negatives plus ``negatives[i]`` when ``setup.hard``; batches are drawn by a generator
    seeded with ``seed``. Returns :class:`mmir_lib.training.History`."""
    check_instance("model", model, BagEncoder)
    size = model.vectors.num_embeddings
    queries, contexts = _check_bags("queries", queries, size), _check_bags("contexts", contexts, size)
    negatives = check_optional(_check_bags, "negatives", negatives, size=size)
    check_instance("setup", setup, TrainingSetup)
    seed = check_count("seed", seed, high=2**63 - 1)
    if negatives is not None and not setup.hard:
        raise ValueError("negatives are used only when setup.hard is True; pass negatives=None")
    if len(queries) != len(contexts) or (setup.hard and (negatives is None or len(negatives) != len(queries))):
        raise ValueError("queries, contexts (and negatives, when setup.hard) must have one entry per pair")
    if len(queries) < setup.batch_size:
        raise ValueError(f"need at least batch_size = {setup.batch_size} pairs, got {len(queries)}")
    rng = np.random.default_rng(seed)

    def batches(epoch):
        order = rng.permutation(len(queries))
        for start in range(0, len(order) - setup.batch_size + 1, setup.batch_size):
            picked = order[start:start + setup.batch_size]
            documents = [contexts[i] for i in picked] + ([negatives[i] for i in picked] if setup.hard else [])
            yield bag_batch([queries[i] for i in picked]), bag_batch(documents)

    def loss(model, batch):
        return info_nce(model(*batch[0]), model(*batch[1]), setup.temperature)

    optimizer = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=setup.lr)
    return train(model, loss, batches, optimizer, setup.epochs, seed=seed)


def dense_run(document_vectors: np.ndarray, query_vectors: np.ndarray, docnos: Sequence[str],
              qids: Sequence[str], depth: int = 1000) -> dict[str, dict[str, float]]:
    """A TREC run {qid: {docno: q · d}} of the ``depth`` best documents by dot product
    (exact search, :func:`mmir_lib.ann.exact.exact_search`; ties to the smaller document number)."""
    document_vectors = check_array("document_vectors", document_vectors, ndim=2)
    query_vectors = check_array("query_vectors", query_vectors, ndim=2)
    docnos, qids = check_str_list("docnos", docnos, nonempty=True), check_str_list("qids", qids)
    depth = check_count("depth", depth, low=1)
    if len(docnos) != len(document_vectors) or len(qids) != len(query_vectors):
        raise ValueError(f"docnos and qids must name the rows of document_vectors ({len(document_vectors)}) and "
                         f"query_vectors ({len(query_vectors)}), got {len(docnos)} and {len(qids)}")
    scores, ids = exact_search(document_vectors, query_vectors, min(depth, len(docnos)), "ip")
    return {qid: {docnos[i]: float(s) for i, s in zip(row_ids, row)} for qid, row_ids, row in zip(qids, ids, scores)}
