"""Bad-input cases for chapter VI.1: dense retrieval (ir.dense), rank fusion (ir.fusion),
the chapter's experiment (ir.dense_experiment), bpref and condensed runs, the unjudged
speeches of a set of runs and the third judging round's loader."""

from __future__ import annotations

import numpy as np

from mmir_lib.ir import collection, dense, dense_experiment, evaluation, fusion
from mmir_lib.ir.index import InvertedIndex
from mmir_lib.ir.text import ENGLISH_STOP_WORDS, Analyzer
from tests.api_fuzz import Case

TEXTS = ["The ghost walks tonight. Speak to it, Horatio! It will not answer.",
         "Poison in the cup; the king drinks. He dies.", "Music, the food of love. Play on.", "Sleep no more."]
VOCAB = dense.Vocabulary(TEXTS)
VECTORS = np.random.default_rng(0).normal(size=(len(VOCAB), 4)).astype(np.float32)
MODEL = dense.BagEncoder(VECTORS, VOCAB.idf)
BAGS = VOCAB.bags(TEXTS)
INDEX = InvertedIndex.from_texts(TEXTS, Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True))
SMALL = dense.TrainingSetup(temperature=0.1, epochs=1, batch_size=2, lr=0.01)
RUN = {"q1": {"d0": 2.0, "d1": 1.0, "d4": 0.5}, "q2": {"d1": 1.5, "d2": 1.0}}
QRELS = {"q1": {"d0": 2, "d1": 0, "d5": 1}, "q2": {"d2": 1, "d4": 1}}

_OPT = {"none"}
_HUGE = {"huge_int", "huge_float"}

CASES = [
    Case(dense.sentences, dict(text="One. Two!"), accepts={"text": {"str"}}),
    Case(dense.inverse_cloze_pairs, dict(texts=TEXTS, seed=0, min_words=2, keep=0.1),
         accepts={"texts": {"empty_list"}, "seed": {"zero"}, "keep": {"zero"}}),
    Case(dense.Vocabulary, dict(texts=TEXTS)),
    # ragged lists of ints are bags of word ids of different lengths: legal
    Case(dense.bag_batch, dict(bags=BAGS), accepts={"bags": {"empty_list", "ragged"}}),
    Case(dense.glove_init, dict(vocabulary=VOCAB, words=["ghost", "king"], vectors=np.ones((2, 3)), seed=0),
         accepts={"seed": {"zero"}, "vectors": {"matrix"}}),
    Case(dense.BagEncoder, dict(vectors=VECTORS, idf=VOCAB.idf)),
    Case(dense.hard_negatives, dict(index=INDEX, queries=["king ghost"], sources=[1], allowed=None),
         accepts={"allowed": _OPT}),
    Case(dense.encode, dict(model=MODEL, bags=BAGS, batch_size=2),
         accepts={"bags": {"empty_list", "ragged"}, "batch_size": {"huge_int"}}),
    Case(dense.TrainingSetup, dict(temperature=0.1, epochs=1, batch_size=2, lr=0.01, hard=False),
         accepts={"hard": {"bool"}}),
    Case(dense.train_bi_encoder, dict(model=MODEL, queries=BAGS, contexts=BAGS, negatives=None, setup=SMALL, seed=0),
         accepts={"negatives": _OPT, "seed": {"zero"}, "queries": {"ragged"}, "contexts": {"ragged"}}),
    Case(dense.dense_run, dict(document_vectors=np.eye(3), query_vectors=np.eye(2, 3), docnos=["a", "b", "c"],
                               qids=["q1", "q2"], depth=2),
         accepts={"depth": {"huge_int"}, "query_vectors": {"matrix"}}),  # two queries of dimension 3: legal
    Case(fusion.reciprocal_rank_fusion, dict(runs=[RUN, RUN], weights=[0.5, 0.5], k=60, depth=3),
         accepts={"weights": _OPT, "k": {"zero"} | _HUGE}),
    Case(dense_experiment.fit, dict(seed=0, setup=dense.TrainingSetup(epochs=1)), accepts={"seed": {"zero"}}),
    Case(dense_experiment.topic_runs, dict(models={}, weights=[0.5]),
         accepts={"models": {"empty_list"}, "weights": {"empty_list"}}),
    Case(dense_experiment.experiment, {}),
    Case(evaluation.bpref, dict(ranking=["d0", "d1", "d4"], judgements={"d0": 2, "d1": 0, "d5": 1}),
         accepts={"ranking": {"empty_list"}, "judgements": {"dict"}}),
    Case(evaluation.condensed, dict(run=RUN, qrels=QRELS), accepts={"run": {"empty_list"}, "qrels": {"empty_list"}}),
    Case(collection.unjudged, dict(runs={"a": RUN}, judged=QRELS, depth=2), accepts={"depth": {"huge_int"}}),
    Case(collection.qrels, dict(rounds=2)),
    Case(collection.judgement_reasons, dict(rounds=2)),
]

EXEMPT = {
    "mmir_lib.ir.dense.ClozePair": "a plain record type, made only by inverse_cloze_pairs",
    "mmir_lib.ir.dense_experiment.Experiment": "a plain record type, made only by experiment()",
}
