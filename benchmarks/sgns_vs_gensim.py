"""word2vec: mmir_lib's skip-gram with negative sampling against gensim's (`make bench`).

Both train on the same text with the same settings (:data:`SETTINGS`): the training
split of Part III's corpus (:mod:`mmir_lib.lm.corpus`), lower-cased words only, one
sequence per speech, words seen fewer than ``min_count`` times dropped; dimension,
window, negatives, epochs and subsampling threshold alike; one thread each. They
differ where the implementations do: gensim takes one SGD step per pair with a
learning rate falling from 0.025 to 0.0001 (the word2vec tool's schedule, in
Cython); mmir_lib takes Adam steps on batches of pairs (torch).

Reported:

* time per epoch of each, as processor time (what the process computed, which other
  programs on a shared machine do not inflate; the ratio is taken from it) and as wall
  time (mmir_lib: its history's median epoch; gensim: ``train``'s time over the epochs);
* quality, for both and for two references, PPMI-SVD on the same text and the
  pretrained GloVe 6B 50-d vectors: Spearman's ρ on WordSim-353 and SimLex-999 (with
  the pairs covered), and 3CosAdd analogy accuracy on the questions covered
  (GloVe searches its 30,000 most frequent words, as Mikolov et al. did);
* neighbour overlap@10 for the 200 most frequent words, between mmir_lib and gensim
  and, as the yardstick, between two seeds of each.
"""

from __future__ import annotations

import re
import statistics
import time
from dataclasses import asdict, dataclass

import numpy as np
from gensim.models import Word2Vec
from threadpoolctl import threadpool_limits

from mmir_lib.data import glove_6b_50d, word_analogies, word_similarity_pairs
from mmir_lib.lm.corpus import split_tokens
from mmir_lib.lm.vectors import (analogy_accuracy, neighbour_overlap, ppmi, similarity_benchmark, term_term_matrix,
                                 truncated_svd, word_ids)
from mmir_lib.lm.word2vec import train_word2vec


@dataclass(frozen=True)
class Settings:
    dim: int = 50
    window: int = 5
    negatives: int = 5
    epochs: int = 5
    min_count: int = 5
    sample: float = 1e-3
    lr: float = 0.005  # mmir_lib's Adam; gensim keeps its own schedule (0.025 -> 0.0001)
    batch_size: int = 4096
    overlap_words: int = 200
    glove_analogy_words: int = 30_000


SETTINGS = Settings()
TARGET = 1.5  # at most this many times gensim's processor time per epoch
_WORD = re.compile(r"[a-z]")


def speeches() -> list[list[str]]:
    """The training split's speeches as lists of lower-cased words (punctuation dropped)."""
    text, current = [], []
    for token in split_tokens("train", "word"):
        if token == "\n":
            text.append(current)
            current = []
        elif _WORD.search(token.lower()):
            current.append(token.lower())
    return [s for s in text if s]


def describe() -> str:
    return ", ".join(f"{k}={v}" for k, v in asdict(SETTINGS).items())


def ours(ids: list[np.ndarray], vocab: list[str], seed: int) -> tuple[np.ndarray, float, float]:
    """mmir_lib's skip-gram: (vectors, processor seconds per epoch, wall seconds per epoch)."""
    s = SETTINGS
    start = time.process_time()
    model, history = train_word2vec(ids, len(vocab), architecture="skipgram", dim=s.dim, window=s.window,
                                    negatives=s.negatives, epochs=s.epochs, sample=s.sample, lr=s.lr,
                                    batch_size=s.batch_size, seed=seed)
    cpu = (time.process_time() - start) / s.epochs
    return model.word_vectors(), cpu, statistics.median(history.epoch_seconds)


def gensims(sentences: list[list[str]], vocab: list[str], seed: int, epochs: int) -> tuple[np.ndarray, float, float]:
    """gensim's skip-gram on the same words: (vectors in mmir_lib's vocabulary order, processor
    and wall seconds per epoch)."""
    s = SETTINGS
    model = Word2Vec(vector_size=s.dim, window=s.window, negative=s.negatives, sample=s.sample, min_count=1, sg=1,
                     hs=0, workers=1, seed=seed)
    model.build_vocab(sentences)
    cpu, wall = time.process_time(), time.perf_counter()
    model.train(sentences, total_examples=len(sentences), epochs=epochs)
    cpu, wall = (time.process_time() - cpu) / epochs, (time.perf_counter() - wall) / epochs
    return np.stack([model.wv[w] for w in vocab]), cpu, wall


def quality(name: str, vectors: np.ndarray, vocab: list[str], analogy_vectors=None, analogy_vocab=None) -> dict:
    row = {"vectors": name}
    for benchmark, label in (("wordsim353", "WordSim-353"), ("simlex999", "SimLex-999")):
        score = similarity_benchmark(vectors, vocab, word_similarity_pairs(benchmark))
        row[f"{label} ρ"] = round(score.rho, 3)
        row[f"{label} pairs"] = f"{score.covered}/{score.total}"
    score = analogy_accuracy(vectors if analogy_vectors is None else analogy_vectors,
                             vocab if analogy_vocab is None else analogy_vocab, word_analogies())
    row["analogies (3CosAdd)"] = round(score.accuracy, 3)
    row["questions"] = f"{score.covered}/{score.total}"
    return row


def main() -> dict[str, list[dict]]:
    s = SETTINGS
    with threadpool_limits(limits=1):
        sentences = speeches()
        ids, vocab = word_ids(sentences, min_count=s.min_count)
        kept = [[vocab[i] for i in seq] for seq in ids if len(seq)]
        ids = [seq for seq in ids if len(seq)]
        ours_vectors, ours_cpu, ours_wall = ours(ids, vocab, seed=0)
        ours_again, _, _ = ours(ids, vocab, seed=1)
        gensim_vectors, gensim_cpu, gensim_wall = gensims(kept, vocab, seed=0, epochs=s.epochs)
        gensim_again, _, _ = gensims(kept, vocab, seed=1, epochs=s.epochs)
        gensim_longer, _, _ = gensims(kept, vocab, seed=0, epochs=4 * s.epochs)
        svd_cpu, svd_wall = time.process_time(), time.perf_counter()
        svd = truncated_svd(ppmi(term_term_matrix(ids, len(vocab), window=s.window), alpha=0.75), s.dim, power=0.5)
        svd_cpu, svd_wall = time.process_time() - svd_cpu, time.perf_counter() - svd_wall
        glove_words, glove = glove_6b_50d()
        tokens = sum(map(len, ids))
        speed = [
            {"implementation": "mmir_lib (torch, Adam, batches of 4,096 pairs)", "CPU s per epoch": round(ours_cpu, 2),
             "wall s per epoch": round(ours_wall, 2), "× gensim (CPU)": round(ours_cpu / gensim_cpu, 1),
             "CPU s, whole run": round(ours_cpu * s.epochs, 1)},
            {"implementation": "gensim 4.4.0 (Cython, SGD per pair)", "CPU s per epoch": round(gensim_cpu, 2),
             "wall s per epoch": round(gensim_wall, 2), "× gensim (CPU)": 1.0,
             "CPU s, whole run": round(gensim_cpu * s.epochs, 1)},
            {"implementation": "PPMI-SVD (counts, PPMI α = 0.75, ARPACK, p = 0.5)", "CPU s per epoch": "",
             "wall s per epoch": "", "× gensim (CPU)": "", "CPU s, whole run": round(svd_cpu, 1)},
        ]
        rows = [
            quality(f"mmir_lib SGNS, {s.epochs} epochs", ours_vectors, vocab),
            quality(f"gensim SGNS, {s.epochs} epochs", gensim_vectors, vocab),
            quality(f"gensim SGNS, {4 * s.epochs} epochs", gensim_longer, vocab),
            quality(f"PPMI-SVD, {s.dim}-d", svd, vocab),
            quality("GloVe 6B 50-d (pretrained, 6 billion tokens)", glove, glove_words,
                    glove[:s.glove_analogy_words], glove_words[:s.glove_analogy_words]),
        ]
        frequent = vocab[:s.overlap_words]
        overlap = [
            {"pair": "mmir_lib vs gensim", "overlap@10": round(neighbour_overlap(ours_vectors, gensim_vectors, vocab,
                                                                                 frequent), 3)},
            {"pair": "mmir_lib seed 0 vs seed 1", "overlap@10": round(neighbour_overlap(ours_vectors, ours_again,
                                                                                        vocab, frequent), 3)},
            {"pair": "gensim seed 0 vs seed 1", "overlap@10": round(neighbour_overlap(gensim_vectors, gensim_again,
                                                                                      vocab, frequent), 3)},
            {"pair": "mmir_lib vs PPMI-SVD", "overlap@10": round(neighbour_overlap(ours_vectors, svd, vocab,
                                                                                   frequent), 3)},
        ]
    corpus = {"measurement": "training text", "value": f"{len(ids):,} speeches, {tokens:,} words, "
                                                       f"vocabulary {len(vocab):,} (min_count {s.min_count})"}
    return {"speed": speed, "quality": rows, "overlap": overlap, "corpus": [corpus]}


if __name__ == "__main__":
    from report import markdown_table

    for name, table in main().items():
        print(f"\n{name}\n\n{markdown_table(table)}")
