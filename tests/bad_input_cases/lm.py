"""Bad-input cases for Part III's corpus, information measures, n-gram models, sampling
and held-out table (mmir_lib.lm.corpus, information, ngram, sampling, heldout)."""

import numpy as np

from mmir_lib import softmax
from mmir_lib.lm import corpus, heldout, information, ngram, sampling
from tests.api_fuzz import Case

WORDS = corpus.Vocabulary(("<unk>", "\n", "the", "king", ","))
TEXT = np.array([1, 2, 3, 4, 2, 3, 1, 2, 4, 3, 1])
COUNTS = ngram.count_ngrams(TEXT, 3, 5)
MODELS = [ngram.Uniform(5), ngram.MLE(COUNTS), ngram.AddK(COUNTS, 0.5), ngram.Interpolated(COUNTS, [0.3, 0.5, 0.7]),
          ngram.KneserNey(COUNTS)]
P, Q = [0.5, 0.25, 0.25], [0.2, 0.3, 0.5]
_SCALE = {"huge_int", "huge_float"}  # a huge k, base, tolerance or temperature is legal, if useless
_ID = {"zero"}  # 0 is a valid id (the <unk> symbol)

CASES = [  # corpus
    Case(corpus.Vocabulary, dict(tokens=("<unk>", "\n", "the"))),
    Case(WORDS.encode, dict(tokens=["the", "queen", ","])),
    Case(WORDS.decode, dict(ids=[2, 3, 0]), accepts={"ids": {"empty_list"}}),
    Case(corpus.build_vocabulary, dict(tokens=["the", "king", "the"], min_count=1)),
    Case(corpus.tokenize, dict(text="'Tis bitter cold,--"), accepts={"text": {"str"}}),
    Case(corpus.split_text, dict(split="test")),
    Case(corpus.split_tokens, dict(split="test", level="word")),
    Case(corpus.vocabulary, dict(level="character")),
    Case(corpus.corpus_ids, dict(split="validation", level="word")),
    Case(corpus.num_characters, dict(split="test")),
    Case(corpus.corpus_statistics, {}),
]
CASES += [  # information
    Case(information.information, dict(p=[0.5, 0.25], base=2.0),
         accepts={"p": {"zero", "matrix"}, "base": _SCALE}),
    Case(information.entropy, dict(p=P, base=2.0), accepts={"base": _SCALE}),
    Case(information.cross_entropy, dict(p=P, q=Q, base=2.0), accepts={"base": _SCALE}),
    Case(information.kl_divergence, dict(p=P, q=Q, base=2.0), accepts={"base": _SCALE}),
    Case(information.perplexity, dict(mean_loss=1.5, base=2.0),
         accepts={"mean_loss": {"zero", "inf", "matrix"} | _SCALE, "base": _SCALE}),
]
CASES += [  # n-grams
    Case(ngram.count_ngrams, dict(sequences=[TEXT, TEXT[:4]], order=2, vocab_size=5),
         accepts={"sequences": {"ragged"}}),  # [[1], [1, 2]]: two sequences of ids
    Case(ngram.ngram_windows, dict(ids=TEXT, order=2, pad=1), accepts={"pad": {"none"} | _ID}),
    Case(COUNTS.count, dict(grams=[[2, 3], [3, 4]])),
    Case(COUNTS.context_count, dict(context=[[2], [3]])),
    Case(ngram.Uniform, dict(vocab_size=5)),
    Case(ngram.MLE, dict(counts=COUNTS, order=2), accepts={"order": {"none"}}),
    Case(ngram.AddK, dict(counts=COUNTS, k=0.5, order=2), accepts={"k": _SCALE, "order": {"none"}}),
    Case(ngram.Interpolated, dict(counts=COUNTS, lambdas=[0.3, 0.5], order=2), accepts={"order": {"none"}}),
    Case(ngram.KneserNey, dict(counts=COUNTS, discount=0.75, order=2, variant="nltk"), accepts={"order": {"none"}}),
    Case(ngram.interpolation_weights, dict(counts=COUNTS, ids=TEXT, pad=1, order=2, max_iter=20, tol=1e-6),
         accepts={"pad": {"none"} | _ID, "order": {"none"}, "tol": _SCALE}),
    Case(ngram.add_k_losses, dict(counts=COUNTS, ids=TEXT, ks=[0.1, 1.0], pad=1, order=2),
         accepts={"pad": {"none"} | _ID, "order": {"none"}}),
    Case(ngram.kneser_ney_losses, dict(counts=COUNTS, ids=TEXT, discounts=[0.5, 1.0], pad=1, order=2),
         accepts={"pad": {"none"} | _ID, "order": {"none"}}),
]
for _model in MODELS:
    CASES += [
        Case(_model.prob, dict(context=np.array([[1, 2], [2, 3]])[:, 3 - _model.order:], word=[3, 4]),
             accepts={"context": {"empty_list"}}),
        Case(_model.log_loss, dict(ids=TEXT, pad=1), accepts={"pad": {"none"} | _ID}),
        Case(_model.next_distribution, dict(context=[1, 2][3 - _model.order:]), accepts={"context": {"empty_list"}}),
    ]

_RNG = np.random.default_rng(0)
CASES += [  # sampling
    Case(softmax.softmax, dict(logits=[1.0, 2.0, -1.0], temperature=0.5),
         accepts={"logits": {"matrix"}, "temperature": _SCALE}),
    Case(softmax.log_softmax, dict(logits=[1.0, 2.0, -1.0], temperature=0.5),
         accepts={"logits": {"matrix"}, "temperature": _SCALE}),
    Case(sampling.sample, dict(probs=P, rng=_RNG)),
    Case(sampling.greedy_decode, dict(model=MODELS[-1], context=[1, 2], length=4, stop=1, exclude=[0],
                                      carry_state=False),
         accepts={"context": {"empty_list"}, "stop": {"none"} | _ID, "exclude": {"none", "empty_list"} | _ID}),
    Case(sampling.truncate, dict(logits=[1.0, 2.0, -np.inf, 0.5], top_k=2, top_p=0.9, temperature=0.8),
         accepts={"logits": {"matrix"}, "top_k": {"none"}, "top_p": {"none"}, "temperature": _SCALE}),
    Case(sampling.generate, dict(model=MODELS[-1], context=[1, 2], length=4, rng=_RNG, temperature=0.8, stop=1,
                                      exclude=[0], top_k=2, top_p=0.9, carry_state=False),
         accepts={"context": {"empty_list"}, "stop": {"none"} | _ID, "temperature": _SCALE,
                  "exclude": {"none", "empty_list"} | _ID, "top_k": {"none"}, "top_p": {"none"}}),
]

_CHARACTERS = len(corpus.vocabulary("character"))
CASES += [  # the held-out table
    Case(heldout.held_out_result, dict(model="one bit a character", level="character",
                                       losses=np.full(len(corpus.corpus_ids("test", "character")), np.log(2)),
                                       split="test"),
         accepts={"model": {"str"}}),
    Case(heldout.evaluate, dict(model=ngram.Uniform(_CHARACTERS), name="uniform", level="character", split="test"),
         accepts={"name": {"str"}}),
    Case(heldout.ngram_results, dict(split="test")),
    Case(heldout.best_ngram, dict(level="character")),
    Case(heldout.unk_spelling_bits, dict(split="test")),
    Case(heldout.format_table, dict(results=[heldout.HeldOutResult("uniform", "word", "bits/word", 1.0, 0.2, 2.0,
                                                                   10, 0.0)], caption="a table"),
         accepts={"caption": {"none", "str"}}),
]

EXEMPT = {
    "mmir_lib.lm.sampling.check_generated_length": "a validator, like mmir_lib.validation's: its message names the "
                                                   "argument it is given (test_generation_lengths_are_capped...)",
    "mmir_lib.lm.heldout.HeldOutResult": "a plain record of results that held_out_result() builds after its checks",
}
