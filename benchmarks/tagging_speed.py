"""Viterbi decoding of mmir_lib against nltk's HMM tagger, on the same tables (`make bench`).

nltk's ``HiddenMarkovModelTagger`` is trained on the training sentences of UD
English-EWT (UPOS tags, Lidstone estimates with γ = 0.1, nltk's own choice of model),
and its probability tables are built once (``_create_cache``, extended with every word
of the test sentences). Then every test sentence is decoded twice from the same float32
log-probability tables: by nltk's ``_best_path`` (a Python loop over the tags at each
word) and by :func:`mmir_lib.lm.tagging.viterbi_many` (the sentences grouped by length, one
(B, N, N) array step per word position of a group), and the paths are compared. Both times include picking the sentence's emission column
from the table; both are the best of ``repeat`` passes over the whole test split.
Run with ``python benchmarks/tagging_speed.py``; ``main()`` returns the table rows.
"""

import time

import numpy as np
from nltk.probability import LidstoneProbDist
from nltk.tag.hmm import HiddenMarkovModelTrainer

from mmir_lib.data import ud_english_ewt
from mmir_lib.lm.tagging import viterbi_many


def main(repeat: int = 3) -> list[dict[str, str]]:
    train = [list(zip(s.words, s.upos)) for s in ud_english_ewt("train")]
    test = [list(s.words) for s in ud_english_ewt("test")]
    tagger = HiddenMarkovModelTrainer().train_supervised(train,
                                                         estimator=lambda fd, bins: LidstoneProbDist(fd, 0.1, bins))
    tagger._update_cache([w for words in test for w in words])  # every table built before the clocks start
    prior, outputs, transitions, symbols = tagger._cache
    prior64, transitions64 = prior.astype(np.float64), transitions.astype(np.float64)

    def theirs():
        return [tagger._best_path(words) for words in test]

    def ours():
        emissions = [outputs[:, [symbols[w] for w in words]].T.astype(np.float64) for words in test]
        return viterbi_many(prior64, transitions64, emissions)

    timings = {}
    for name, run in (("nltk", theirs), ("mmir_lib", ours)):
        best = float("inf")
        for _ in range(repeat):
            start = time.perf_counter()
            paths = run()
            best = min(best, time.perf_counter() - start)
        timings[name] = (best, paths)
    states = tagger._states
    same = sum([states[j] for j in p] == list(q) for p, q in zip(timings["mmir_lib"][1], timings["nltk"][1]))
    words = sum(map(len, test))
    nltk_time, ours_time = timings["nltk"][0], timings["mmir_lib"][0]
    return [{"decoder": "Viterbi, first-order HMM, 17 UPOS tags (nltk's tables)",
             "text": f"{len(test):,} test sentences, {words:,} words",
             "nltk": f"{nltk_time:.2f} s", "mmir_lib": f"{1e3 * ours_time:.0f} ms",
             "speed-up": f"{nltk_time / ours_time:.0f}×",
             "identical paths": f"{same:,} of {len(test):,}"}]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
