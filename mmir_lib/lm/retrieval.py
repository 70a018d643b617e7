"""Retrieve-then-read, and how much a sample copies: the two other uses of retrieval in
chapter VI.4 (the third, the kNN-LM, is :mod:`.knn_lm`).

**Retrieve-then-read.** Instead of mixing distributions, put retrieved text *into the
context*: cut the stream to score into blocks of B characters; for block b, retrieve a
passage of P characters (the chapter: the BM25-nearest training passage to the text just
before the block) and let the model read

    window_b = [passage_b (P ids)] + [the L = T − P symbols of the stream up to the block's last input],

scoring only the block's B characters, the last B outputs. Each scored character is
predicted from the passage and from L − B + 1 … L characters of its own text. With no
passage (``passages=None``) the same windows without the passage give the control: the
same own context, nothing retrieved.

**Copying.** A sample that repeats the training text verbatim is memorised, not
generated. Two measures of a text s against a source text:

* the **longest copied span**: the longest substring of s that occurs in the source,
  found with two pointers (if s[i:j] occurs, so does s[i+1:j]; each pointer only moves
  forward, so at most 2|s| substring searches);
* the **n-gram overlap**: the share of s's word n-grams that occur in the source.
"""

from __future__ import annotations

import numpy as np
import torch
from torch.nn import functional as F

from ..training import evaluating
from ..validation import check_array, check_count, check_instance, check_str, check_str_list
from .transformer import CharTransformer

__all__ = ["read_after_passages", "longest_copied_span", "word_ngrams", "ngram_overlap"]


def read_after_passages(model: object, ids: object, start: int, block: int, passages: object = None,
                        passage_length: int = 128, batch_size: int = 16) -> np.ndarray:
    """−ln P[x_j | passage, own context] in nats for every symbol of ``ids`` (N,) (module notes).

    The stream is S = [start] + ids, cut into blocks of ``block`` B symbols (the last may
    be shorter). ``passages``: (number of blocks, P) int ids, one passage per block, P =
    ``passage_length`` < T − B + 1; None reads the same own context without a passage.
    Returns (N,) float64.
    """
    model = check_instance("model", model, CharTransformer)
    vocab, context = model.config.vocab_size, model.config.context
    ids = check_array("ids", ids, ndim=1, kind="int", nonempty=True, low=0, high=vocab - 1)
    start = check_count("start", start, high=vocab - 1)
    passage_length = check_count("passage_length", passage_length, low=1, high=context - 1)
    block = check_count("block", block, low=1, high=context - passage_length)
    blocks = -(-len(ids) // block)
    if passages is not None:
        passages = check_array("passages", passages, ndim=2, kind="int", shape=(blocks, passage_length),
                               low=0, high=vocab - 1)
    batch_size = check_count("batch_size", batch_size, low=1, high=100_000)
    own = context - passage_length                         # L symbols of the stream per window
    stream = np.concatenate([[start], ids]).astype(np.int64)
    losses = np.empty(len(ids))
    with evaluating(model), torch.no_grad():
        for first in range(0, blocks, batch_size):
            windows, targets, spans = [], [], []
            for b in range(first, min(first + batch_size, blocks)):
                lo, hi = b * block, min((b + 1) * block, len(ids))  # targets ids[lo:hi] = S[lo + 1 : hi + 1]
                begin = max(0, hi - own)                   # inputs S[begin:hi] predict S[begin + 1 : hi + 1]
                prefix = passages[b] if passages is not None else stream[:0]
                windows.append(np.concatenate([prefix, stream[begin:hi]]))
                targets.append(stream[lo + 1:hi + 1])
                spans.append((lo, hi))
            width = max(map(len, windows))                 # only the first blocks have shorter windows
            full = [row for row, w in enumerate(windows) if len(w) == width]
            logits = dict(zip(full, model(torch.from_numpy(np.stack([windows[row] for row in full])))))
            for row, (lo, hi) in enumerate(spans):         # a shorter window is read alone, without padding
                row_logits = logits[row] if row in logits else model(torch.from_numpy(windows[row][None]))[0]
                nll = F.cross_entropy(row_logits[-(hi - lo):], torch.from_numpy(targets[row]), reduction="none")
                losses[lo:hi] = nll.double().numpy()
    return losses


def longest_copied_span(sample: str, source: str) -> tuple[int, int]:
    """(length, start) of the longest substring of ``sample`` that occurs in ``source``
    (the first such, by start), with two pointers (module notes); (0, 0) if no character
    of the sample occurs."""
    sample = check_str("sample", sample, allow_empty=True)
    source = check_str("source", source, allow_empty=True)
    best, best_start, end = 0, 0, 0
    for i in range(len(sample)):
        end = max(end, i)
        while end < len(sample) and sample[i:end + 1] in source:
            end += 1
        if end - i > best:
            best, best_start = end - i, i
    return best, best_start


def word_ngrams(words: object, n: int) -> set[tuple[str, ...]]:
    """The set of the word n-grams (tuples) of a list of ``words``."""
    return set(_ngrams(check_str_list("words", words), check_count("n", n, low=1)))


def _ngrams(words: list[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(words[i:i + n]) for i in range(len(words) - n + 1)]


def ngram_overlap(words: object, source_ngrams: object, n: int) -> float:
    """The share of the word n-grams of ``words`` (positions, repeats counted) found in
    ``source_ngrams`` (a set from :func:`word_ngrams`). ``words`` must hold at least n
    words: a shorter text has no n-gram, and no share."""
    words = check_str_list("words", words)
    n = check_count("n", n, low=1)
    source_ngrams = check_instance("source_ngrams", source_ngrams, (set, frozenset))
    if len(words) < n:
        raise ValueError(f"words must hold at least n = {n} words to have an n-gram, got {len(words)}")
    return float(np.mean([g in source_ngrams for g in _ngrams(words, n)]))
