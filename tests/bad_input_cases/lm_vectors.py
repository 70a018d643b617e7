"""Bad-input cases for Part III's vector semantics, word2vec, GloVe and bias modules."""

import numpy as np
import torch

from mmir_lib.lm import bias, glove, vectors, word2vec
from tests.api_fuzz import Case

VOCAB = ["man", "woman", "king", "queen", "prince", "crown"]
VECTORS = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 1, 0], [1, 0, 1, 0.3], [0, 0, 1, 1.0]])
SEQUENCES = [np.array([0, 1, 2, 3, 1, 0]), np.array([4, 5, 2, 2])]
COUNTS = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0], [1.0, 1.0, 0.0]])
PAIRS = [("man", "woman", 3.0), ("king", "queen", 8.0), ("crown", "prince", 5.5), ("man", "unicorn", 1.0)]
QUESTIONS = {"family": [("man", "woman", "king", "queen"), ("king", "queen", "man", "woman")]}
GENDER = [("woman", "man"), ("queen", "king")]
DIRECTION = np.array([0.0, 1.0, 0.0, 0.0])
UNIT = VECTORS / np.linalg.norm(VECTORS, axis=1, keepdims=True)

# Sequences of ids: a list of 1-D int arrays, so the fuzzer's ragged list [[1], [1, 2]] is two
# valid sequences, and a list of floats or ints is refused (each sequence must be an array of ints).
_SEQUENCES_OK = {"ragged"}

CASES = [
    Case(vectors.word_ids, dict(sequences=[["a", "b", "a"], ["b", "c"]], min_count=1)),
    Case(vectors.term_document_matrix, dict(documents=SEQUENCES, vocab_size=6), accepts={"documents": _SEQUENCES_OK}),
    Case(vectors.term_term_matrix, dict(sequences=SEQUENCES, vocab_size=6, window=2, weighting="harmonic"),
         accepts={"sequences": _SEQUENCES_OK}),
    Case(vectors.tf_idf, dict(counts=COUNTS, tf="log"), accepts={"counts": {"matrix"}}),
    Case(vectors.ppmi, dict(counts=COUNTS, alpha=0.75), accepts={"counts": {"matrix"}}),
    Case(vectors.normalize_rows, dict(vectors=VECTORS), accepts={"vectors": {"matrix"}}),
    Case(vectors.cosine_similarity, dict(a=VECTORS, b=VECTORS[:2]), accepts={"b": {"none"}}),
    Case(vectors.nearest_words, dict(vectors=VECTORS, vocab=VOCAB, word="king", k=3)),
    Case(vectors.neighbour_overlap, dict(vectors=VECTORS, other=VECTORS[:, :3], vocab=VOCAB, words=["king", "man"], k=2)),
    Case(vectors.truncated_svd, dict(matrix=COUNTS, dim=2, power=0.5, method="randomized", iterations=3, seed=0),
         accepts={"power": {"zero"}, "iterations": {"zero"}, "seed": {"zero"}}),
    Case(vectors.spearman_rho, dict(x=[1.0, 2.0, 3.0, 4.0], y=[1.0, 3.0, 2.0, 4.0])),
    Case(vectors.similarity_benchmark, dict(vectors=VECTORS, vocab=VOCAB, pairs=PAIRS)),
    Case(vectors.analogy, dict(vectors=VECTORS, vocab=VOCAB, a="man", b="woman", c="king", method="3cosmul", k=2,
                               epsilon=1e-3)),
    Case(vectors.analogy_accuracy, dict(vectors=VECTORS, vocab=VOCAB, questions=QUESTIONS, method="3cosadd",
                                        epsilon=1e-3, batch_size=1)),
]

RNG = np.random.default_rng(0)
CASES += [  # word2vec
    Case(word2vec.noise_distribution, dict(counts=[5.0, 0.0, 2.0], power=0.75), accepts={"power": {"zero"}}),
    Case(word2vec.keep_probabilities, dict(counts=[500.0, 3.0, 2.0], sample=1e-2, rule="paper"),
         accepts={"sample": {"zero"}}),
    Case(word2vec.subsample, dict(sequences=SEQUENCES, keep=np.full(6, 0.5), rng=RNG),
         accepts={"sequences": _SEQUENCES_OK}),
    Case(word2vec.skipgram_pairs, dict(sequences=SEQUENCES, vocab_size=6, window=2, rng=RNG),
         accepts={"sequences": _SEQUENCES_OK}),
    Case(word2vec.cbow_windows, dict(sequences=SEQUENCES, vocab_size=6, window=2, rng=RNG),
         accepts={"sequences": _SEQUENCES_OK}),
    Case(word2vec.noise_table, dict(noise=[0.5, 0.25, 0.25], size=100)),
    Case(word2vec.draw_negatives, dict(table=[0, 0, 1, 2], shape=(4, 2), rng=RNG)),
    Case(word2vec.sgns_loss, dict(w=torch.ones(2, 3), c_pos=torch.ones(2, 3), c_neg=torch.ones(2, 4, 3))),
    Case(word2vec.SkipGram, dict(vocab_size=6, dim=4, seed=1), accepts={"seed": {"zero"}}),
    Case(word2vec.CBOW, dict(vocab_size=6, dim=4, seed=1), accepts={"seed": {"zero"}}),
    Case(word2vec.train_word2vec, dict(sequences=SEQUENCES, vocab_size=6, architecture="cbow", dim=4, window=2,
                                       negatives=2, epochs=2, sample=0.0, lr=0.05, batch_size=8, seed=0),
         accepts={"sequences": _SEQUENCES_OK, "sample": {"zero"}, "seed": {"zero"}}),
]

_ROWS = torch.tensor([0, 1])
CASES += [  # GloVe
    Case(glove.glove_weight, dict(x=[0.0, 5.0, 200.0], x_max=100.0, alpha=0.75),
         accepts={"x": {"zero", "huge_int", "huge_float", "matrix", "empty_list"}, "x_max": {"huge_int", "huge_float"}}),
    Case(glove.glove_loss, dict(w=torch.ones(2, 3), w_context=torch.ones(2, 3), b=torch.zeros(2), b_context=torch.zeros(2),
                                log_x=torch.ones(2), weight=torch.ones(2))),
    Case(glove.GloVe, dict(vocab_size=6, dim=4, seed=1), accepts={"seed": {"zero"}}),
    Case(glove.train_glove, dict(cooccurrences=COUNTS + COUNTS.T, dim=2, epochs=2, x_max=10.0, alpha=0.75, lr=0.05,
                                 batch_size=4, seed=0),
         accepts={"seed": {"zero"}, "x_max": {"huge_int", "huge_float"}}),
]

CASES += [  # bias
    Case(bias.bias_direction, dict(vectors=VECTORS, vocab=VOCAB, pairs=GENDER, method="mean")),
    Case(bias.pair_spectrum, dict(vectors=VECTORS, vocab=VOCAB, pairs=GENDER)),
    Case(bias.project, dict(vectors=VECTORS, direction=DIRECTION)),
    Case(bias.neutralize, dict(vectors=VECTORS, direction=DIRECTION)),
    Case(bias.equalize, dict(first=UNIT[:2], second=UNIT[2:4], direction=DIRECTION)),
    Case(bias.neighbour_bias, dict(vectors=VECTORS, scores=np.arange(6.0) - 2.5, k=2)),
    Case(bias.cluster_starts, dict(vectors=VECTORS, labels=[0, 1, 0, 1, 0, 0], starts=2, seed=0),
         accepts={"seed": {"zero"}}),
    Case(bias.cluster_agreement, dict(vectors=VECTORS, labels=[0, 1, 0, 1, 0, 0], seed=0, starts=2),
         accepts={"seed": {"zero"}}),
]

EXEMPT = {
    "mmir_lib.lm.vectors.SimilarityScore": "a plain record that similarity_benchmark() builds",
    "mmir_lib.lm.vectors.AnalogyScore": "a plain record that analogy_accuracy() builds",
}
