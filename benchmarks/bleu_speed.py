"""Corpus BLEU of mmir_lib.lm.bleu against sacrebleu on 10,000 sentence pairs (`make bench`).

The pairs are V.5's own task: the French number words of the 10,000 training numbers
(:func:`mmir_lib.lm.number_words.number_pairs`) as references, and as hypotheses the
same words with noise (a word dropped from half of them, a word inserted in a third,
two neighbours swapped in a quarter; ``random.Random(0)``), tokens separated by spaces.
sacrebleu is called as ``corpus_bleu(hyps, [refs], tokenize="none")`` (the texts are
already tokenised); both must give the same score to 1e-9. Timed: the best of
``repeat`` runs of each, taking turns. Run with ``python benchmarks/bleu_speed.py``;
``main()`` returns the table rows.
"""

import random
import time

import sacrebleu

from mmir_lib.lm.bleu import corpus_bleu
from mmir_lib.lm.number_words import number_pairs

#: mmir_lib must take at most this times sacrebleu's time.
TARGET = 1.0


def noisy_corpus(seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    hyps, refs = [], []
    for pair in number_pairs("train"):
        words = list(pair.french)
        refs.append(" ".join(words))
        if rng.random() < 0.5 and len(words) > 1:
            words.pop(rng.randrange(len(words)))
        if rng.random() < 0.33:
            words.insert(rng.randrange(len(words) + 1), rng.choice(["un", "deux", "cent", "mille", "et", "-"]))
        if rng.random() < 0.25 and len(words) > 1:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        hyps.append(" ".join(words))
    return hyps, refs


def main(repeat: int = 5) -> list[dict[str, str]]:
    hyps, refs = noisy_corpus()
    runs = {"mmir_lib": lambda: corpus_bleu(hyps, refs).score,
            "sacrebleu": lambda: sacrebleu.corpus_bleu(hyps, [refs], tokenize="none").score}
    best, scores = dict.fromkeys(runs, float("inf")), {}
    for _ in range(repeat):
        for name, run in runs.items():
            began = time.perf_counter()
            scores[name] = run()
            best[name] = min(best[name], time.perf_counter() - began)
    gap = abs(scores["mmir_lib"] - scores["sacrebleu"])
    assert gap <= 1e-9, scores
    ratio = best["mmir_lib"] / best["sacrebleu"]
    return [{"pairs": f"{len(hyps):,}", "BLEU (both)": f"{scores['sacrebleu']:.4f}",
             "mmir_lib (ms)": f"{1e3 * best['mmir_lib']:.0f}", "sacrebleu (ms)": f"{1e3 * best['sacrebleu']:.0f}",
             "ratio": f"{ratio:.2f}×", "target": f"≤ {TARGET:g}×", "difference": f"{gap:.0e}"}]


if __name__ == "__main__":
    from report import markdown_table

    print(markdown_table(main()))
