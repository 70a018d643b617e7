"""Speed of mmir_lib's n-gram models against nltk.lm, on the same text (`make bench`).

Word bigram models of the corpus of Part III, in nltk's convention: every speech is a
sentence (the corpus's word tokens, words seen fewer than twice in training as
``<unk>``), padded with ``<s>`` and ``</s>``; both libraries get the same padded
sentences and the same vocabulary. Timed, for each library: counting the n-grams of
the training sentences (nltk: ``fit``; mmir_lib: ``count_ngrams`` and building the
model) plus scoring every bigram of the held-out sentences (nltk: ``perplexity``;
mmir_lib: one vectorised ``prob``). Tokenising and padding are done once, outside the
timings. The perplexities must agree to 1e-9 (relative).

* Laplace (add-one) on the whole training split, scored on the whole test split;
* Kneser–Ney (D = 0.75, the "nltk" variant, which is nltk's formula) on the first
  ``KN_TRAIN_SPEECHES`` training speeches and the first ``KN_TEST_SPEECHES`` test
  speeches: nltk's Kneser–Ney scans every bigram context for each probability it
  gives, so the whole corpus would take it hours.

nltk is timed once (it takes seconds); mmir_lib's time is the best of ``repeat`` runs.
Run with ``python benchmarks/ngram_vs_nltk.py``; ``main()`` also returns the table rows.
"""

from collections import Counter

import numpy as np
from nltk.lm import KneserNeyInterpolated, Laplace
from nltk.lm import Vocabulary as NltkVocabulary
from nltk.lm.preprocessing import pad_both_ends
from nltk.util import everygrams, ngrams

from eval_speed import best_time
from mmir_lib.data import shakespeare_speeches
from mmir_lib.lm.corpus import SPLITS, UNK, WORD_MIN_COUNT, Vocabulary, tokenize
from mmir_lib.lm.ngram import AddK, KneserNey, count_ngrams

KN_TRAIN_SPEECHES, KN_TEST_SPEECHES = 1200, 120


def sentences(split: str) -> list[list[str]]:
    return [tokenize(s.text) for s in shakespeare_speeches(list(SPLITS[split]))]


def prepared(train: list[list[str]], test: list[list[str]]):
    """The vocabulary (as mmir_lib and as nltk see it), the padded training sentences (as
    tokens and as ids) and the test bigrams (as tuples and as an (m, 2) id array)."""
    counts = Counter(w for s in train for w in s)
    vocab = Vocabulary((UNK, "<s>", "</s>", *sorted(w for w, n in counts.items() if n >= WORD_MIN_COUNT)))
    nltk_vocab = NltkVocabulary([t for t in vocab.tokens if t != UNK], unk_label=UNK)
    pad = lambda s: list(pad_both_ends([w if w in vocab.index else UNK for w in s], n=2))  # noqa: E731
    padded_train = [pad(s) for s in train]
    bigrams = [g for s in test for g in ngrams(pad(s), 2)]
    return (vocab, nltk_vocab, padded_train, [vocab.encode(s) for s in padded_train], bigrams,
            np.array([vocab.encode(list(g)) for g in bigrams]))


def compare(name: str, nltk_model, ours, train, test, repeat: int) -> dict[str, str]:
    """Time both libraries on the same sentences; their perplexities must agree."""
    vocab, nltk_vocab, padded_train, train_ids, bigrams, bigram_ids = prepared(train, test)

    def theirs_run():
        model = nltk_model(nltk_vocab)
        model.fit([everygrams(s, max_len=2) for s in padded_train])
        return model.perplexity(bigrams)

    def ours_run():
        model = ours(count_ngrams(train_ids, 2, len(vocab)))
        return 2.0 ** np.mean(-np.log2(model.prob(bigram_ids[:, :-1], bigram_ids[:, -1])))

    theirs_time, theirs = best_time(theirs_run, 1)
    ours_time, perplexity = best_time(ours_run, repeat)
    assert abs(perplexity - theirs) <= 1e-9 * theirs, (name, perplexity, theirs)
    return {"model": name,
            "text": f"{sum(map(len, padded_train)):,} training tokens, {len(bigrams):,} test bigrams, V = {len(vocab):,}",
            "nltk.lm": f"{theirs_time:.2f} s", "mmir_lib": f"{1e3 * ours_time:.1f} ms",
            "speed-up": f"{theirs_time / ours_time:,.0f}×", "perplexity": f"{perplexity:.4f}",
            "difference": f"{abs(perplexity - theirs):.1e}"}


def main(repeat: int = 3) -> list[dict[str, str]]:
    train, test = sentences("train"), sentences("test")
    return [
        compare("word bigram, Laplace", lambda v: Laplace(2, vocabulary=v), lambda c: AddK(c, 1.0), train, test,
                repeat),
        compare("word bigram, Kneser-Ney (D = 0.75)", lambda v: KneserNeyInterpolated(2, discount=0.75, vocabulary=v),
                lambda c: KneserNey(c, 0.75, variant="nltk"), train[:KN_TRAIN_SPEECHES], test[:KN_TEST_SPEECHES],
                repeat),
    ]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
