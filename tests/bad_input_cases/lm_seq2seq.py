"""Bad-input cases for chapter V.5: the number-word and date tasks, the encoder-decoder, decoding
and BLEU (mmir_lib.lm.number_words, dates, seq2seq, decoding, bleu)."""

import datetime
import tempfile
from pathlib import Path

import numpy as np

from mmir_lib.lm import bleu, dates, decoding, number_words, seq2seq
from mmir_lib.training import save_atomically
from tests.api_fuzz import Case

MODEL = seq2seq.Seq2Seq(9, 8, embedding_dim=4, hidden=5, attention_dim=3)
SOURCES = [np.array([4, 5, 6]), np.array([7, 8])]
BATCH = next(iter(seq2seq.translation_batches(SOURCES, [np.array([4, 5]), np.array([6])], 2)(1)))
_SCALE = {"huge_int", "huge_float"}
_SAVED = Path(tempfile.mkdtemp()) / "models.pt"
save_atomically({"models": {"a": MODEL.state_dict()}, "log": {}, "settings": {}}, _SAVED)

CASES = [
    Case(number_words.tokenize_number_words, dict(text="ninety-nine"), accepts={"text": {"str"}}),
    Case(number_words.join_number_words, dict(tokens=["quatre", "-", "vingts"]),
         accepts={"tokens": {"empty_list"}}),
    Case(number_words.number_pairs, dict(split="test")),
    Case(number_words.number_vocabularies, {}),
    Case(dates.write_date, dict(date=datetime.date(2021, 3, 3), style="month day-th, year")),
    Case(dates.join_date_tokens, dict(tokens=["March", "3", "rd", ",", "2", "0", "2", "1"]),
         accepts={"tokens": {"empty_list"}}),
    Case(dates.date_references, dict(date=datetime.date(2021, 3, 3))),
    Case(dates.date_examples, dict(split="test")),
    Case(dates.date_vocabularies, {}),
    Case(dates.expected_exact_match, dict(outputs=[["3", "March", "2", "0", "2", "1"]],
                                          dates=[datetime.date(2021, 3, 3)])),
    Case(seq2seq.Seq2Seq, dict(source_vocab_size=9, target_vocab_size=8, embedding_dim=4, hidden=5, attention_dim=3,
                               pad=1, bos=2, eos=3, attention=False, seed=0),
         accepts={"seed": {"zero"}, "pad": {"zero"}, "bos": {"zero"}, "eos": {"zero"}, "attention": {"bool"}}),
    Case(MODEL.start, dict(source=SOURCES), accepts={"source": {"ragged"}}),  # [[1], [1, 2]]: two sentences
    Case(seq2seq.pad_batch, dict(sequences=SOURCES, pad=1), accepts={"pad": {"zero"}, "sequences": {"ragged"}}),
    Case(seq2seq.seq2seq_loss, dict(model=MODEL, batch=BATCH)),
    Case(seq2seq.sequence_log_probs, dict(model=MODEL, sources=SOURCES, targets=[np.array([4, 5]), np.array([6])]),
         accepts={"sources": {"ragged"}, "targets": {"ragged"}}),
    Case(seq2seq.translation_batches, dict(sources=SOURCES, targets=[np.array([4, 5]), np.array([6])], batch_size=2,
                                           pad=1, bos=2, eos=3, seed=0),
         accepts={"pad": {"zero"}, "bos": {"zero"}, "eos": {"zero"}, "seed": {"zero"}, "sources": {"ragged"},
                  "targets": {"ragged"}}),
    Case(seq2seq.load_models, dict(path=_SAVED, build=lambda name: seq2seq.Seq2Seq(9, 8, embedding_dim=4, hidden=5,
                                                                                  attention_dim=3)),
         skip={"build": "tested by name in tests/lm/test_seq2seq.py (a callable that "
                                                  "returns another kind of model)"}),
    Case(decoding.length_normalised, dict(log_prob=-2.0, length=3, alpha=0.7),
         accepts={"log_prob": {"zero", "negative", "negative_float", "huge_int"}, "alpha": {"zero"}}),
    Case(decoding.greedy_search, dict(model=MODEL, state=MODEL.start(SOURCES), max_length=5)),
    Case(decoding.beam_search, dict(model=MODEL, state=MODEL.start(SOURCES[0]), beam_width=3, max_length=5,
                                    alpha=0.7), accepts={"alpha": {"zero"}}),
    Case(decoding.exhaustive_search, dict(model=MODEL, state=MODEL.start(SOURCES[0]), max_length=2, alpha=0.7),
         accepts={"alpha": {"zero"}}),
    Case(decoding.sample_search, dict(model=MODEL, state=MODEL.start(SOURCES[0]), max_length=5,
                                      rng=np.random.default_rng(0), temperature=0.8, top_k=3, top_p=0.9),
         accepts={"temperature": _SCALE, "top_k": {"none"}, "top_p": {"none"}}),
    Case(bleu.ngram_counts, dict(tokens=["un", "deux", "un"], max_order=2), accepts={"tokens": {"empty_list"}}),
    Case(bleu.bleu_statistics, dict(hypotheses=["un deux"], references=["un trois"], max_order=4)),
    Case(bleu.corpus_bleu, dict(hypotheses=["un deux trois"], references=[["un deux", "deux trois"]], max_order=4,
                                smooth="exp")),
]

EXEMPT = {
    "mmir_lib.lm.number_words.NumberPair": "a record of a number and its two token tuples",
    "mmir_lib.lm.dates.DateExample": "a record of a date, its source and reference tokens and their style",
    "mmir_lib.lm.decoding.Hypothesis": "a record of a decoded sequence, its log-probability and score",
    "mmir_lib.lm.bleu.BleuScore": "a record of a BLEU score and its parts",
}
