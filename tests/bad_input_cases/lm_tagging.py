"""Bad-input cases for chapter III.6: the HMM tagger (mmir_lib.lm.tagging), the CRF (mmir_lib.lm.crf) and spans
(mmir_lib.lm.spans)."""

import numpy as np
import torch

from mmir_lib.lm import crf, spans, tagging
from tests.api_fuzz import Case

TOY = [(("the", "dog", "barks"), ("DET", "NOUN", "VERB")), (("a", "cat"), ("DET", "NOUN"))]
LATTICE = dict(log_start=np.log([0.6, 0.4]), log_transition=np.log([[0.3, 0.7], [0.5, 0.5]]),
               emissions=np.array([[-1.0, -2.0], [-0.5, -0.1], [-3.0, -1.0]]), log_end=np.log([0.5, 0.5]))
INDEX = crf.build_feature_index(TOY)
MODEL = crf.LinearChainCRF(INDEX)
BATCH = [(*INDEX.encode(["the", "dog"]), torch.tensor([0, 1]))]
# an index of the saved part-of-speech CRF's size (load_trained checks the sizes, not the strings)
SAVED_INDEX = crf.FeatureIndex({str(j): j for j in range(crf.training_record()["upos"]["features"])},
                               tuple(f"T{j}" for j in range(17)))

CASES = [
    Case(tagging.fit_lexicon, dict(sentences=TOY, mu=0.1), accepts={"mu": {"zero", "huge_int", "huge_float"}}),
    Case(tagging.fit_hmm, dict(sentences=TOY, order=2, k=0.1, mu=0.1),
         accepts={"k": {"huge_int", "huge_float"}, "mu": {"zero", "huge_int", "huge_float"}}),
    Case(tagging.viterbi, dict(LATTICE), accepts={"log_end": {"none"}}),
    Case(tagging.forward, dict(LATTICE), accepts={"log_end": {"none"}}),
    Case(tagging.viterbi_many, dict(LATTICE, emissions=[LATTICE["emissions"], LATTICE["emissions"][:1]]),
         accepts={"log_end": {"none"}}),
    Case(tagging.brute_force, dict(LATTICE), accepts={"log_end": {"none"}}),
    Case(tagging.most_frequent_tagger, dict(sentences=TOY)),
    Case(tagging.tag_accuracy, dict(gold=[["A", "B"]], predicted=[["A", "A"]])),
    Case(tagging.sentence_accuracy, dict(gold=[["A", "B"]], predicted=[["A", "A"]])),
    Case(tagging.confusion_matrix, dict(gold=[["A", "B"]], predicted=[["A", "A"]], tags=["A", "B"])),
    Case(crf.token_features, dict(words=["Janet", "will", "back"], i=1), accepts={"i": {"zero"}}),
    Case(crf.crfsuite_features, dict(words=["Janet", "will", "back"])),
    Case(crf.training_record, dict()),
    Case(crf.load_crfsuite, dict()),
    Case(crf.load_trained, dict(task="upos", seed=0, index=SAVED_INDEX), accepts={"seed": {"zero"}, "index": {"none"}}),
    Case(crf.build_feature_index, dict(sentences=TOY, min_count=1)),
    Case(crf.LinearChainCRF, dict(index=INDEX)),
    Case(crf.crf_loss, dict(model=MODEL, batch=BATCH)),
    Case(crf.train_crf, dict(model=crf.LinearChainCRF(INDEX), sentences=TOY, epochs=1, batch_size=1, lr=0.1, l2=0.0,
                             seed=0),
         accepts={"batch_size": {"huge_int"}, "l2": {"zero"}, "seed": {"zero"}}),
    Case(spans.bio_encode, dict(spans=[(0, 2, "NAME")], length=3), accepts={"spans": {"empty_list"}}),
    Case(spans.bio_decode, dict(tags=["B-NAME", "I-NAME", "O"]), accepts={"tags": {"empty_list"}}),
    Case(spans.name_spans, dict(upos=["PROPN", "PROPN"], heads=[-1, 0], deprels=["root", "flat"], label="NAME")),
    Case(spans.ewt_names, dict(split="dev")),
    Case(spans.span_scores, dict(gold=[["B-NAME", "O"]], predicted=[["B-NAME", "O"]])),
]

EXEMPT = {
    "mmir_lib.lm.spans.SpanScores": "a record that span_scores() returns",
    "mmir_lib.lm.tagging.Lexicon": "a record that fit_lexicon() builds",
    "mmir_lib.lm.tagging.HiddenMarkovModel": "a record that fit_hmm() builds",
    "mmir_lib.lm.crf.FeatureIndex": "a record that build_feature_index() builds",
}
