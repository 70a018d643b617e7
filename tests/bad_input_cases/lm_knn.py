"""Bad-input cases for VI.4's retrieval-augmented language models: the kNN-LM
(mmir_lib.lm.knn_lm) and retrieve-then-read and copying measures (mmir_lib.lm.retrieval)."""

import numpy as np

from mmir_lib.ann.ivfpq import IVFPQ
from mmir_lib.ann.pq import ProductQuantizer
from mmir_lib.lm import knn_lm, retrieval, transformer
from tests.api_fuzz import Case

CONFIG = transformer.TransformerConfig(vocab_size=7, context=8, width=4, layers=1, heads=2, dropout=0.0)
MODEL = transformer.CharTransformer(CONFIG)
_RNG = np.random.default_rng(0)
KEYS = _RNG.normal(size=(12, 4)).astype(np.float32)
VALUES = np.arange(12) % 7
INDEX = IVFPQ(KEYS[:3], ProductQuantizer(_RNG.normal(size=(2, 4, 2)))).add(KEYS)
EXACT = knn_lm.Datastore(KEYS, VALUES, CONFIG.as_dict())
APPROXIMATE = knn_lm.Datastore(INDEX, VALUES, CONFIG.as_dict())
_HUGE = {"huge_int", "huge_float"}
IDS = np.array([1, 2, 3, 4, 5, 6, 0, 1, 2])

CASES = [
    Case(knn_lm.check_model, dict(model=MODEL, config=CONFIG.as_dict())),
    Case(knn_lm.hidden_states, dict(model=MODEL, ids=IDS, start=1, stride=3, batch_size=2, layer="ffn_input"),
         accepts={"stride": {"none"}, "start": {"zero"}}),
    Case(knn_lm.knn_log_prob, dict(distances=[[1.0, 2.0, 4.0]], values=[[1, 2, 1]], targets=[1], temperature=2.0),
         accepts={"temperature": _HUGE}),  # a huge τ weights the neighbours alike: legal
    Case(knn_lm.knn_distribution, dict(distances=[[1.0, 2.0, 4.0]], values=[[1, 2, 1]], vocab_size=7,
                                       temperature=2.0), accepts={"temperature": _HUGE}),
    Case(knn_lm.mix_log_probs, dict(log_probs=[[-1.0, -2.0], [-0.5, -np.inf]], weights=[0.25, 0.75])),
    Case(knn_lm.Datastore, dict(keys=KEYS, values=VALUES, config=CONFIG.as_dict())),
    Case(EXACT.search, dict(queries=KEYS[:2], k=3, nprobe=None), accepts={"nprobe": {"none"}}),
    Case(APPROXIMATE.search, dict(queries=KEYS[:2], k=3, nprobe=2)),
    Case(EXACT.check_model, dict(model=MODEL)),
    Case(retrieval.read_after_passages, dict(model=MODEL, ids=IDS, start=1, block=2, passages=np.ones((5, 4), int),
                                             passage_length=4, batch_size=2),
         accepts={"passages": {"none"}, "start": {"zero"}}),
    Case(retrieval.longest_copied_span, dict(sample="to be or not", source="not to be"),
         accepts={"sample": {"str"}, "source": {"str"}}),  # any text, even empty, is a text
    Case(retrieval.word_ngrams, dict(words=["to", "be", "or"], n=2), accepts={"words": {"empty_list"}}),
    Case(retrieval.ngram_overlap, dict(words=["to", "be", "or"], source_ngrams={("to", "be")}, n=2)),
]
