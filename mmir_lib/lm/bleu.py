"""BLEU (Papineni et al. 2002), corpus level, written out; equal to sacrebleu's.

A translation is good when it shares many n-grams with a human reference. For
n = 1 … N (N = 4), over a corpus of hypotheses ŷ, each with one or more references:

* **clipped n-gram precision.** Count each n-gram of a hypothesis at most as often as
  it appears in its reference (the most often in any one reference), so that
  "the the the the" earns one "the" against "the cat":

      p_n = Σ_ŷ Σ_{g ∈ n-grams(ŷ)} min(count_ŷ(g), max_ref count_ref(g))
            / Σ_ŷ Σ_{g ∈ n-grams(ŷ)} count_ŷ(g);

  numerator and denominator are summed over the whole corpus before dividing
  (corpus BLEU is not the mean of sentence BLEUs).
* **brevity penalty.** Precision alone rewards saying little. With c the total length
  of the hypotheses and r the total length of the references (for each hypothesis
  the reference closest in length, the shorter on a tie),

      BP = 1 if c > r,   exp(1 − r/c) if 0 < c ≤ r,   0 if c = 0.

* **score** = BP · exp((1/N) Σ_n log p_n), reported ×100 as sacrebleu does.

**Smoothing** (sacrebleu's default, ``smooth_method="exp"``, the NIST mteval-v13a
method 3 of Chen and Cherry 2014): an order with no match at all would make log p_n =
−∞ and the score 0; instead, the k-th such order (k = 1, 2, … counted from n = 1)
gets p_n = 1 / (2^k · total_n). An order with no n-gram at all (every hypothesis
shorter than n) stops the sum with log 0 floored to −9,999,999,999, so the score is 0,
and a corpus with no matching n-gram of any order scores 0, both as sacrebleu does.

**Tokens.** Sentences are split on whitespace: pass text already cut into tokens
(this equals ``sacrebleu.corpus_bleu(hyps, [refs], tokenize="none")``; sacrebleu's
default tokeniser, "13a", also splits punctuation off words). Nothing is lowercased.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from ..validation import check_choice, check_count, check_list, describe

__all__ = ["BleuScore", "ngram_counts", "bleu_statistics", "corpus_bleu"]

_FLOOR = -9_999_999_999  # sacrebleu's log 0


@dataclass(frozen=True)
class BleuScore:
    """Corpus BLEU (``score``, 0–100) and its parts: the precisions p_n (in %), the
    brevity penalty, the hypothesis and reference lengths c and r, and the clipped
    matches and totals per order."""

    score: float
    precisions: tuple[float, ...]
    brevity_penalty: float
    hypothesis_length: int
    reference_length: int
    matches: tuple[int, ...]
    totals: tuple[int, ...]


def ngram_counts(tokens, max_order: int = 4) -> Counter:
    """Every n-gram of ``tokens`` for n = 1 … max_order, as tuples, with its count."""
    tokens = check_list("tokens", tokens, str)
    max_order = check_count("max_order", max_order, low=1, high=100)
    return _ngrams(tokens, max_order)


def _ngrams(tokens: list[str], max_order: int) -> Counter:
    counts = Counter()
    for n in range(1, max_order + 1):
        counts.update(zip(*(tokens[i:] for i in range(n))))   # the n-grams, as tuples
    return counts


def _closest(hyp_len: int, ref_lens: list[int]) -> int:
    """The reference length closest to the hypothesis's; the shorter on a tie."""
    return min(ref_lens, key=lambda r: (abs(r - hyp_len), r))


def _statistics(hypotheses: list[str], references: list[list[str]], max_order: int) -> tuple:
    matches, totals = [0] * max_order, [0] * max_order
    c = r = 0
    for hypothesis, refs in zip(hypotheses, references):
        hyp = hypothesis.split()
        hyp_counts = _ngrams(hyp, max_order)
        ref_tokens = [ref.split() for ref in refs]
        ref_counts = _ngrams(ref_tokens[0], max_order)
        for other in ref_tokens[1:]:                   # the most often in any one reference
            for g, k in _ngrams(other, max_order).items():
                ref_counts[g] = max(ref_counts[g], k)
        c += len(hyp)
        r += _closest(len(hyp), [len(t) for t in ref_tokens])
        for g, k in hyp_counts.items():
            n = len(g) - 1
            totals[n] += k
            if g in ref_counts:
                matches[n] += min(k, ref_counts[g])     # clipped count
    return c, r, matches, totals


def _check_corpus(hypotheses: object, references: object) -> tuple[list[str], list[list[str]]]:
    hypotheses = check_list("hypotheses", hypotheses, str, nonempty=True)
    references = check_list("references", references, object)
    if len(references) != len(hypotheses):
        raise ValueError(f"references must hold one entry per hypothesis ({len(hypotheses)}), got {len(references)}")
    refs = []
    for i, ref in enumerate(references):
        ref = [ref] if isinstance(ref, str) else ref
        if isinstance(ref, (bytes, dict)) or not isinstance(ref, (list, tuple)) or not ref \
                or not all(isinstance(x, str) for x in ref):
            raise TypeError(f"references[{i}] must be a str or a non-empty list of str, got {describe(ref)}")
        refs.append(list(ref))
    return hypotheses, refs


def bleu_statistics(hypotheses, references, max_order: int = 4) -> tuple[int, int, list[int], list[int]]:
    """The sufficient statistics of corpus BLEU: (c, r, clipped matches per order,
    n-gram totals per order). ``references[i]`` is the reference of ``hypotheses[i]``
    (a str) or a list of its references."""
    hypotheses, references = _check_corpus(hypotheses, references)
    max_order = check_count("max_order", max_order, low=1, high=100)
    return _statistics(hypotheses, references, max_order)


def corpus_bleu(hypotheses, references, max_order: int = 4, smooth: str = "exp") -> BleuScore:
    """Corpus BLEU of whitespace-tokenised ``hypotheses`` against ``references``
    (``references[i]``: a str or a list of str), with N = ``max_order`` and smoothing
    ``"exp"`` (sacrebleu's default) or ``"none"``."""
    hypotheses, references = _check_corpus(hypotheses, references)
    max_order = check_count("max_order", max_order, low=1, high=100)
    smooth = check_choice("smooth", smooth, ("exp", "none"))
    c, r, matches, totals = _statistics(hypotheses, references, max_order)
    brevity = 1.0 if c >= r else (math.exp(1 - r / c) if c > 0 else 0.0)
    precisions = [0.0] * max_order
    if any(matches):
        k = 1.0
        for n in range(max_order):
            if totals[n] == 0:
                break
            if matches[n] == 0:
                if smooth == "exp":
                    k *= 2
                    precisions[n] = 100.0 / (k * totals[n])
            else:
                precisions[n] = 100.0 * matches[n] / totals[n]
        log_sum = sum(math.log(p) if p > 0 else _FLOOR for p in precisions)
        score = brevity * math.exp(log_sum / max_order)
    else:
        score = 0.0
    return BleuScore(score, tuple(precisions), brevity, c, r, tuple(matches), tuple(totals))
