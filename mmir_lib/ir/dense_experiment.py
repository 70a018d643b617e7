"""Chapter VI.1's experiment on the book's collection, in one place: the chapter, the
tests and the third judging round (``testcollection/README.md``) all compute the same
runs from it.

* **training split**: one speech in :data:`HOLD_OUT` (document number ≡ 0 mod 10) is held out; its
  inverse-cloze pairs (no sentence kept, seed 0) are the validation pseudo-queries, and
  the encoder trains on the pairs of the other speeches (10 % of contexts keep their
  sentence, :data:`KEEP`), drawn anew for each seed;
* **encoder**: :class:`~mmir_lib.ir.dense.BagEncoder` over the collection's vocabulary,
  GloVe 6B 50-d word vectors (a seeded random vector for a word GloVe lacks);
* **runs**: BM25 on the topic titles (the pooled run ``bm25-title``), the dense run of each
  seed, and their weighted reciprocal rank fusion at every weight of :data:`WEIGHTS`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..data import glove_6b_50d, shakespeare_speeches
from ..validation import check_count, check_instance, check_list, check_mapping, check_probability
from . import collection
from .bm25 import bm25_scores
from .dense import (BagEncoder, ClozePair, TrainingSetup, Vocabulary, dense_run, encode, glove_init, hard_negatives,
                    inverse_cloze_pairs, train_bi_encoder)
from .fusion import reciprocal_rank_fusion
from .trec import Run

__all__ = ["HOLD_OUT", "KEEP", "SEEDS", "SETUP", "WEIGHTS", "Experiment", "experiment", "fit", "topic_runs"]

#: One speech in HOLD_OUT (document number ≡ 0 mod HOLD_OUT) is held out of training.
HOLD_OUT = 10
#: Share of training contexts that keep their query sentence (Lee et al. 2019).
KEEP = 0.1
#: The seeds of the chapter's dense model.
SEEDS = (0, 1, 2)
#: The chapter's training setup; its temperature is the one the chapter chooses on the
#: validation pseudo-queries among 0.05, 0.1 and 0.2.
SETUP = TrainingSetup(temperature=0.1, epochs=4, batch_size=256, lr=0.003, hard=False)
#: Hybrid weights λ of the dense run (1 − λ for BM25), the widget's stops.
WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))


@dataclass(frozen=True, eq=False)
class Experiment:
    """Everything the runs are made from (built once, :func:`experiment`)."""

    texts: list[str]
    docnos: list[str]
    vocabulary: Vocabulary
    document_bags: list[np.ndarray]
    held_out: np.ndarray          # (N,) bool, speech held out of training
    validation: list[ClozePair]   # pseudo-queries of the held-out speeches
    glove_words: list[str]
    glove_vectors: np.ndarray


@functools.lru_cache(maxsize=1)
def experiment() -> Experiment:
    """The collection's speeches, vocabulary, split and validation pseudo-queries."""
    texts = [s.text for s in shakespeare_speeches()]
    docnos, _ = collection.shakespeare_index()
    vocabulary = Vocabulary(texts)
    held_out = np.arange(len(texts)) % HOLD_OUT == 0
    validation = inverse_cloze_pairs([t for t, h in zip(texts, held_out) if h], seed=0)
    words, vectors = glove_6b_50d()
    return Experiment(texts, docnos, vocabulary, vocabulary.bags(texts), held_out, validation, words, vectors)


def fit(seed: int, setup: TrainingSetup = SETUP):
    """(model, history): a :class:`BagEncoder` trained with ``setup`` on the inverse-cloze
    pairs (seed ``seed``) of the speeches not held out; BM25 hard negatives drawn among
    them when ``setup.hard``."""
    seed = check_count("seed", seed)
    check_instance("setup", setup, TrainingSetup)
    ex = experiment()
    pairs = [p for p in inverse_cloze_pairs(ex.texts, seed=seed, keep=KEEP) if not ex.held_out[p.source]]
    queries = [p.query for p in pairs]
    negatives = None
    if setup.hard:
        _, index = collection.shakespeare_index()
        found = hard_negatives(index, queries, [p.source for p in pairs], ~ex.held_out)
        negatives = [ex.document_bags[i] if i >= 0 else ex.document_bags[p.source] for i, p in zip(found, pairs)]
    model = BagEncoder(glove_init(ex.vocabulary, ex.glove_words, ex.glove_vectors, seed=seed), ex.vocabulary.idf)
    history = train_bi_encoder(model, ex.vocabulary.bags(queries), ex.vocabulary.bags([p.context for p in pairs]),
                               negatives, setup, seed=seed)
    return model, history


def topic_runs(models: dict[int, BagEncoder], weights=WEIGHTS) -> dict[str, Run]:
    """``bm25`` (the pooled BM25 title run, depth 1000), ``dense-{seed}`` for each model and
    ``hybrid-{seed}-{λ}`` for each weight 0 < λ < 1 of ``weights`` (depth 1000 each)."""
    check_mapping("models", models)
    for seed, model in models.items():
        check_instance(f"models[{seed!r}]", model, BagEncoder)
    weights = [check_probability(f"weights[{i}]", w) for i, w in enumerate(check_list("weights", weights, object))]
    ex = experiment()
    docnos, index = collection.shakespeare_index()
    titles = {t.qid: t.title for t in collection.topics()}
    query_bags = ex.vocabulary.bags(list(titles.values()))
    runs = {"bm25": collection.make_run(index, docnos, titles, bm25_scores, 1000)}
    for seed, model in models.items():
        dense = dense_run(encode(model, ex.document_bags), encode(model, query_bags), docnos, list(titles))
        runs[f"dense-{seed}"] = dense
        for weight in weights:
            if 0 < weight < 1:
                runs[f"hybrid-{seed}-{weight}"] = reciprocal_rank_fusion([runs["bm25"], dense], [1 - weight, weight])
    return runs
