"""Sequence labelling with hidden Markov models: estimates, the forward algorithm, Viterbi.

A tagger reads a sentence w_1 … w_n and gives every word a tag t_i (NOUN, VERB, ...).
A first-order **hidden Markov model** (HMM) is a story of how tagged text is made: the
tags form a Markov chain, each word is drawn given its own tag only,

    P(w_1 … w_n, t_1 … t_n) = Π_{i=1}^{n} P(t_i | t_{i−1}) · P(w_i | t_i) · P(</s> | t_n),

with t_0 = <s>, the start of the sentence, and </s> its end. Tagging picks the most
probable tags for the given words, argmax_t P(t | w) = argmax_t P(w, t). A
**second-order** HMM conditions each tag on the two before it, P(t_i | t_{i−2} t_{i−1})
(Brants's TnT tagger, 2000).

**Transitions** from counts C(·) of tag n-grams in the training sentences, with the
boundary symbol at both ends: first order, add-k, P(t | t′) = (C(t′ t) + k) /
(C(t′) + k·(N + 1)) over the N tags and </s>, and P(t | <s>) = (C(<s> t) + k) /
(C(<s>) + k·N); second order, interpolated with weights λ found by *deleted
interpolation* (each trigram votes, once removed from the counts, for the order that
predicts it best), P(t | t″ t′) = λ_3·P̂(t | t″ t′) + λ_2·P̂(t | t′) + λ_1·P̂(t).

**Emissions.** Bayes' rule turns the tag of a word into its emission,
P(w | t) = P(t | w)·P(w) / P(t). The factor P(w) is the same for every tag, so it
changes neither the best tags nor their posterior probabilities, and the tagger scores

    b_t(w) = log P(t | w) − log P(t),

that is, log P(w | t) less log P(w) (so :func:`forward` returns log P(w_1 … w_n)
less Σ_i log P(w_i)). P(t | w) comes from:

* a word seen in training: (C(w, t) + μ·P(t | suffix of w)) / (C(w) + μ), the counts
  smoothed a little (μ = 0.1) towards the suffix model, so that a rare word's unseen
  tags keep a small probability;
* a new word (also after lower-casing): P(t | suffix of w) alone. Words seen at most
  ten times in training stand in for new ones; TnT's estimate combines the suffixes of
  length 0 … 3 (the last m letters), separately for words with and without a capital
  first letter, from the shortest up:
  P_m(t) = (P̂(t | last m letters) + θ·P_{m−1}(t)) / (1 + θ), θ the standard deviation
  of the tag distribution of those words.

**Decoding** works in log space. Each word multiplies a path's probability by a
transition and an emission probability, so it shrinks geometrically with the length,
and somewhere past a hundred words (a long sentence, or a paragraph tagged as one
sequence) it falls below float64's smallest positive number, about 10^−308; in logs
every score is an ordinary number whatever the length, and products become sums, the
form a CRF's scores take anyway. With log a_{ij} = log P(j | i) and e_j(w) = b_j(w):

* forward algorithm: α_1(j) = log π_j + e_j(w_1), α_t(j) = logsumexp_i (α_{t−1}(i) +
  log a_ij) + e_j(w_t); log P = logsumexp_j (α_n(j) + log P(</s> | j));
* Viterbi: the same recursion with max for logsumexp, and a back-pointer argmax per
  cell to read the best path backwards.

Both cost O(n·N²) (second order: O(n·N³), its states are tag pairs): every step is one
array operation, so the Python loop runs over the n words only. :func:`brute_force`
enumerates all N^n tag sequences, the definition the recursions must agree with.
The same :func:`viterbi` and :func:`forward` decode a linear-chain CRF
(:mod:`mmir_lib.lm.crf`), whose scores are not log-probabilities.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_count, check_list, check_number, check_str_list, describe

__all__ = [
    "BRUTE_FORCE_MAX_PATHS",
    "Lexicon",
    "fit_lexicon",
    "HiddenMarkovModel",
    "fit_hmm",
    "viterbi",
    "viterbi_many",
    "forward",
    "brute_force",
    "most_frequent_tagger",
    "tag_accuracy",
    "sentence_accuracy",
    "confusion_matrix",
]

#: Most tag sequences :func:`brute_force` enumerates (17^6 = 24 million).
BRUTE_FORCE_MAX_PATHS = 30_000_000
#: Longest suffix the new-word model reads, and the most training occurrences of a word
#: that still counts as "rare" for it (TnT's settings, suffixes shortened to 3: measured
#: best on the development split).
SUFFIX_LENGTH, RARE_COUNT = 3, 10


def _check_tagged(name: str, sentences: object) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """A non-empty list of (words, tags) pairs of equal, non-zero length."""
    items = check_list(name, sentences, object, nonempty=True)
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 2:
            raise TypeError(f"{name}[{i}] must be a (words, tags) pair, got {describe(item)}")
        words, tags = check_str_list(f"{name}[{i}] words", item[0]), check_str_list(f"{name}[{i}] tags", item[1])
        if len(words) != len(tags) or not words or not all(words):
            raise ValueError(f"{name}[{i}] must have one tag per word and at least one word (no empty word), "
                             f"got {len(words)} words and {len(tags)} tags")
        out.append((tuple(words), tuple(tags)))
    return out


# ---- emissions ------------------------------------------------------------------------

@dataclass(frozen=True)
class Lexicon:
    """The emission scores b_t(w) = log P(t | w) − log P(t) (module docstring).

    ``tags``      (N,) the tag set
    ``word_tags`` dict word → (N,) P(t | w) of a training word, smoothed
    ``suffixes``  {capitalised: dict suffix → (N,) P(t | suffix)}, suffixes of length 1 … 3
    ``prior``     {capitalised: (N,) P(t) of rare words}, the suffix model's start
    ``theta``     {capitalised: θ}, the weight of the shorter suffix
    ``log_tag``   (N,) log P(t) over all training tokens
    """

    tags: tuple[str, ...]
    word_tags: dict
    suffixes: dict
    prior: dict
    theta: dict
    log_tag: np.ndarray

    def new_word(self, word: str) -> np.ndarray:
        """(N,) P(t | w) of a word not seen in training, from its suffixes."""
        capital = word[:1].isupper()
        p = self.prior[capital]
        for m in range(1, min(SUFFIX_LENGTH, len(word)) + 1):
            seen = self.suffixes[capital].get(word[-m:])
            if seen is None:
                break
            p = (seen + self.theta[capital] * p) / (1 + self.theta[capital])
        return p

    def scores(self, words: Sequence[str]) -> np.ndarray:
        """(n, N) b_t(w_i) for the words of a sentence (a new capitalised word that is
        known in lower case is scored as that word)."""
        rows = np.empty((len(words), len(self.tags)))
        for i, w in enumerate(words):
            p = self.word_tags.get(w)
            if p is None:
                p = self.word_tags.get(w.lower())
            rows[i] = self.new_word(w) if p is None else p
        with np.errstate(divide="ignore"):
            return np.log(rows) - self.log_tag

    def is_known(self, word: str) -> bool:
        """Whether ``word`` (or its lower-case form) was seen in training."""
        return word in self.word_tags or word.lower() in self.word_tags


def fit_lexicon(sentences, *, mu: float = 0.1) -> Lexicon:
    """Estimate the emission model from tagged sentences (module docstring).

    Parameters
    ----------
    sentences : list of (words, tags) pairs, each a sequence of str of the same length
    mu : weight μ of the suffix model in a training word's P(t | w) (≥ 0)
    """
    sentences = _check_tagged("sentences", sentences)
    mu = check_number("mu", mu, low=0)
    tags = tuple(sorted({t for _, ts in sentences for t in ts}))
    index = {t: j for j, t in enumerate(tags)}
    n = len(tags)
    counts = defaultdict(lambda: np.zeros(n))
    for words, ts in sentences:
        for w, t in zip(words, ts):
            counts[w][index[t]] += 1
    tag_totals = sum(counts.values())
    suffix_counts = {True: defaultdict(lambda: np.zeros(n)), False: defaultdict(lambda: np.zeros(n))}
    prior = {True: np.zeros(n), False: np.zeros(n)}
    for w, c in counts.items():
        if c.sum() <= RARE_COUNT:
            capital = w[:1].isupper()
            prior[capital] += c
            for m in range(1, min(SUFFIX_LENGTH, len(w)) + 1):
                suffix_counts[capital][w[-m:]] += c
    for capital in prior:  # a tag set without rare words of one kind: fall back to all tags
        prior[capital] = (prior[capital] + 1) / (prior[capital].sum() + n)
    theta = {capital: float(np.std(p)) for capital, p in prior.items()}
    suffixes = {capital: {s: c / c.sum() for s, c in table.items()} for capital, table in suffix_counts.items()}
    lexicon = Lexicon(tags, {}, suffixes, prior, theta, np.log(tag_totals / tag_totals.sum()))
    for w, c in counts.items():
        lexicon.word_tags[w] = (c + mu * lexicon.new_word(w)) / (c.sum() + mu)
    return lexicon


# ---- the HMM tagger ---------------------------------------------------------------------

@dataclass(frozen=True)
class HiddenMarkovModel:
    """An HMM tagger of order 1 or 2; logs are natural.

    ``lexicon``     the emission scores (:class:`Lexicon`)
    ``order``       1: P(t | t′); 2: P(t | t″ t′)
    ``log_start``   order 1: (N,) log P(t | <s>)
    ``log_transition``  order 1: (N, N), row i, column j: log P(t_j | t_i);
                    order 2: (N + 1, N + 1, N + 1), [a, b, c] = log P(c | a b), index N
                    the boundary (<s> before the sentence, </s> after it)
    ``log_end``     order 1: (N,) log P(</s> | t)
    ``lambdas``     order 2: (λ_1, λ_2, λ_3) of the interpolation
    """

    lexicon: Lexicon
    order: int
    log_transition: np.ndarray
    log_start: np.ndarray | None = None
    log_end: np.ndarray | None = None
    lambdas: tuple | None = None

    @property
    def tags(self) -> tuple[str, ...]:
        return self.lexicon.tags

    def tag(self, words: Sequence[str]) -> list[str]:
        """The Viterbi tags of one sentence (a list of words)."""
        words = check_str_list("words", words)
        if not words:
            return []
        emissions = self.lexicon.scores(words)
        if self.order == 1:
            path, _ = _viterbi(self.log_start, self.log_transition, emissions, self.log_end)
        else:
            path = _viterbi_second_order(self.log_transition, emissions)
        return [self.tags[j] for j in path]


def _first_order(tag_ids: list[list[int]], n: int, k: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    start, transition, end = np.zeros(n), np.zeros((n, n)), np.zeros(n)
    for ids in tag_ids:
        start[ids[0]] += 1
        np.add.at(transition, (ids[:-1], ids[1:]), 1)
        end[ids[-1]] += 1
    outgoing = transition.sum(axis=1) + end
    return (np.log((start + k) / (start.sum() + k * n)),
            np.log((transition + k) / (outgoing[:, None] + k * (n + 1))),
            np.log((end + k) / (outgoing + k * (n + 1))))


def _second_order(tag_ids: list[list[int]], n: int) -> tuple[np.ndarray, tuple]:
    """Interpolated trigram transitions with deleted-interpolation weights (Brants 2000)."""
    m = n + 1  # index n: the boundary
    tri = np.zeros((m, m, m))
    for ids in tag_ids:
        padded = [n, n, *ids, n]
        np.add.at(tri, (padded[:-2], padded[1:-1], padded[2:]), 1)
    bi = tri.sum(axis=0)            # C(b c), each tag pair once per trigram that ends in it
    uni = bi.sum(axis=0)            # C(c)
    history = tri.sum(axis=2)       # C(a b) as a history
    total = uni.sum()
    a, b, c = np.nonzero(tri)
    with np.errstate(divide="ignore", invalid="ignore"):
        votes = np.stack([(uni[c] - 1) / (total - 1),
                          np.where(uni[b] > 1, (bi[b, c] - 1) / (uni[b] - 1), 0),
                          np.where(history[a, b] > 1, (tri[a, b, c] - 1) / (history[a, b] - 1), 0)])
    lambdas = np.bincount(votes.argmax(axis=0), weights=tri[a, b, c], minlength=3)
    lambdas = lambdas / lambdas.sum()
    with np.errstate(divide="ignore", invalid="ignore"):
        p1 = uni / total
        p2 = np.nan_to_num(bi / bi.sum(axis=1, keepdims=True))
        p3 = np.nan_to_num(tri / tri.sum(axis=2, keepdims=True))
        log_p = np.log(lambdas[0] * p1 + lambdas[1] * p2[None] + lambdas[2] * p3)
    return log_p, tuple(float(x) for x in lambdas)


def fit_hmm(sentences, *, order: int = 1, k: float = 0.1, mu: float = 0.1) -> HiddenMarkovModel:
    """Estimate an HMM tagger from tagged sentences (formulas in the module docstring).

    Parameters
    ----------
    sentences : list of (words, tags) pairs, each a sequence of str of the same length
    order : 1 (tag bigrams) or 2 (tag trigrams, TnT)
    k : add-k constant of the first-order transitions (> 0)
    mu : weight of the suffix model in a training word's P(t | w) (≥ 0)
    """
    sentences = _check_tagged("sentences", sentences)
    order = check_count("order", order, low=1, high=2)
    k = check_number("k", k, low=0, low_open=True)
    lexicon = fit_lexicon(sentences, mu=mu)
    index = {t: j for j, t in enumerate(lexicon.tags)}
    tag_ids = [[index[t] for t in ts] for _, ts in sentences]
    if order == 1:
        log_start, log_transition, log_end = _first_order(tag_ids, len(index), k)
        return HiddenMarkovModel(lexicon, 1, log_transition, log_start, log_end)
    log_transition, lambdas = _second_order(tag_ids, len(index))
    return HiddenMarkovModel(lexicon, 2, log_transition, lambdas=lambdas)


# ---- decoding ---------------------------------------------------------------------------

def _check_scores(name: str, value: object, ndim: int) -> np.ndarray:
    """Log-probabilities or scores: finite, or −inf for an impossible event."""
    array = check_array(name, value, ndim=ndim, finite=False)
    if np.isnan(array).any() or (array == np.inf).any():
        raise ValueError(f"{name} must hold log-probabilities or scores: no NaN, no +inf")
    return array


def _check_lattice(log_start, log_transition, emissions, log_end) -> tuple[np.ndarray, ...]:
    emissions = _check_scores("emissions", emissions, 2)
    n_tags = emissions.shape[1]
    if emissions.shape[0] == 0 or n_tags == 0:
        raise ValueError(f"emissions must have at least one word and one tag, got shape {emissions.shape}")
    log_start = _check_scores("log_start", log_start, 1)
    log_transition = _check_scores("log_transition", log_transition, 2)
    if log_start.shape != (n_tags,) or log_transition.shape != (n_tags, n_tags):
        raise ValueError(f"log_start must have shape ({n_tags},) and log_transition ({n_tags}, {n_tags}) for "
                         f"emissions of {n_tags} tags, got {log_start.shape} and {log_transition.shape}")
    log_end = np.zeros(n_tags) if log_end is None else _check_scores("log_end", log_end, 1)
    if log_end.shape != (n_tags,):
        raise ValueError(f"log_end must have shape ({n_tags},), got {log_end.shape}")
    return log_start, log_transition, emissions, log_end


def viterbi(log_start, log_transition, emissions, log_end=None) -> tuple[list[int], float]:
    """The best tag sequence of a first-order model and its total log score.

    Parameters
    ----------
    log_start : (N,) log P(t | <s>), or any start scores
    log_transition : (N, N) log P(t_j | t_i), or transition scores
    emissions : (n, N) per-word scores e_t(w_i)
    log_end : (N,) log P(</s> | t); omitted: 0 (no end term)

    Returns
    -------
    path : list of n tag indices, the argmax of the total score (ties: lowest index)
    score : the path's total log score
    """
    return _viterbi(*_check_lattice(log_start, log_transition, emissions, log_end))


def _viterbi(log_start, log_transition, emissions, log_end) -> tuple[list[int], float]:
    """:func:`viterbi` on checked arrays (the taggers call it once per sentence)."""
    n, n_tags = emissions.shape
    back = np.zeros((n, n_tags), dtype=np.int64)
    best = log_start + emissions[0]
    for i in range(1, n):
        candidates = best[:, None] + log_transition   # (previous tag, tag)
        back[i] = candidates.argmax(axis=0)
        best = candidates[back[i], np.arange(n_tags)] + emissions[i]
    best = best + log_end
    path = [int(best.argmax())]
    for i in range(n - 1, 0, -1):
        path.append(int(back[i, path[-1]]))
    return path[::-1], float(best.max())


def viterbi_many(log_start, log_transition, emissions, log_end=None) -> list[list[int]]:
    """The best tag sequences of many sentences at once, as :func:`viterbi` finds them one
    by one (same paths, same ties). ``emissions`` is a list of (n_i, N) arrays.

    The sentences are grouped by length, and each group runs the recursion together:
    one (B, N, N) array step per word position instead of B small ones, which is what
    makes decoding a whole test set fast in numpy.
    """
    emissions = check_list("emissions", emissions, object, nonempty=True)
    log_start, log_transition, first, log_end = _check_lattice(log_start, log_transition, emissions[0], log_end)
    checked = [first]
    for k, e in enumerate(emissions[1:], 1):  # the shared tables are checked once, above
        e = _check_scores(f"emissions[{k}]", e, 2)
        if e.shape[0] == 0 or e.shape[1] != len(log_start):
            raise ValueError(f"emissions[{k}] must have at least one word and {len(log_start)} tags, got shape {e.shape}")
        checked.append(e)
    by_length: dict[int, list[int]] = {}
    for k, e in enumerate(checked):
        by_length.setdefault(len(e), []).append(k)
    paths: list[list[int]] = [[] for _ in emissions]
    for n, members in by_length.items():
        scores = np.stack([checked[k] for k in members])             # (B, n, N)
        back = np.zeros(scores.shape, dtype=np.int64)
        best = log_start + scores[:, 0]
        for i in range(1, n):
            candidates = best[:, :, None] + log_transition            # (B, previous tag, tag)
            back[:, i] = candidates.argmax(axis=1)
            best = candidates.max(axis=1) + scores[:, i]
        last = (best + log_end).argmax(axis=1)
        columns = [last]
        for i in range(n - 1, 0, -1):
            last = back[np.arange(len(members)), i, last]
            columns.append(last)
        for row, k in enumerate(members):
            paths[k] = [int(c[row]) for c in reversed(columns)]
    return paths


def _viterbi_second_order(log_transition: np.ndarray, emissions: np.ndarray) -> list[int]:
    """Viterbi over tag pairs: best[a, b] is the best score of a prefix ending in tags a, b
    (a = N: the start boundary); log_transition[a, b, c] = log P(c | a b)."""
    n, n_tags = emissions.shape
    boundary = n_tags
    best = np.full((n_tags + 1, n_tags), -np.inf)
    best[boundary] = log_transition[boundary, boundary, :n_tags] + emissions[0]
    backs = []
    for i in range(1, n):
        candidates = best[:, :, None] + log_transition[:, :n_tags, :n_tags]   # (a, b, c)
        back = candidates.argmax(axis=0)                                     # (b, c): best a
        best = np.full((n_tags + 1, n_tags), -np.inf)
        best[:n_tags] = np.take_along_axis(candidates, back[None], axis=0)[0] + emissions[i]
        backs.append(back)
    final = best + log_transition[:, :n_tags, boundary]
    a, b = np.unravel_index(int(final.argmax()), final.shape)
    path = [int(b)]
    if n > 1:
        path.append(int(a))
        for back in reversed(backs[1:]):
            path.append(int(back[path[-1], path[-2]]))
    return path[::-1]


def _logsumexp(a: np.ndarray, axis: int) -> np.ndarray:
    top = a.max(axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)  # all −inf stays −inf, never nan
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - top).sum(axis=axis)) + top.squeeze(axis)


def forward(log_start, log_transition, emissions, log_end=None) -> float:
    """log of the sum over all tag sequences of exp(total score): log P(w_1 … w_n) for an
    HMM (less Σ log P(w_i) with :class:`Lexicon` scores), log Z(x) for a CRF. Same
    arguments as :func:`viterbi`."""
    log_start, log_transition, emissions, log_end = _check_lattice(log_start, log_transition, emissions, log_end)
    alpha = log_start + emissions[0]
    for i in range(1, len(emissions)):
        alpha = _logsumexp(alpha[:, None] + log_transition, axis=0) + emissions[i]
    return float(_logsumexp(alpha + log_end, axis=0))


def brute_force(log_start, log_transition, emissions, log_end=None) -> tuple[list[int], float, float]:
    """Every one of the N^n tag sequences scored by the definition: (best path, its score,
    log of the sum of exp(score) over all sequences). Short sentences only (at most
    :data:`BRUTE_FORCE_MAX_PATHS` sequences); same arguments as :func:`viterbi`."""
    log_start, log_transition, emissions, log_end = _check_lattice(log_start, log_transition, emissions, log_end)
    n, n_tags = emissions.shape
    if float(n_tags) ** n > BRUTE_FORCE_MAX_PATHS:
        raise ValueError(f"emissions of {n} words and {n_tags} tags make {n_tags}^{n} sequences, more than the "
                         f"{BRUTE_FORCE_MAX_PATHS:,} brute_force enumerates: use a shorter sentence")
    # scores[t_1, ..., t_n], an array with one axis per word, built term by term by broadcasting
    scores = (log_start + emissions[0]).reshape((n_tags,) + (1,) * (n - 1))
    for i in range(1, n):
        step = log_transition + emissions[i]                                   # (t_i, t_{i+1})
        scores = scores + step.reshape((1,) * (i - 1) + (n_tags, n_tags) + (1,) * (n - 1 - i))
    scores = (scores + log_end.reshape((1,) * (n - 1) + (n_tags,))).ravel()    # (N^n,), lexicographic
    best = int(scores.argmax())
    path = [int(j) for j in np.unravel_index(best, (n_tags,) * n)]
    return path, float(scores[best]), float(_logsumexp(scores, axis=0))


# ---- baseline and evaluation ------------------------------------------------------------

def most_frequent_tagger(sentences):
    """The baseline every tagger must beat: each word's most frequent training tag (ties:
    the first alphabetically); a new word gets the most frequent tag of the words seen
    once. Returns ``tag(words) -> list of tags``."""
    sentences = _check_tagged("sentences", sentences)
    counts = Counter((w, t) for words, tags in sentences for w, t in zip(words, tags))
    best = {}
    for (w, t), _ in sorted(counts.items(), key=lambda item: (item[0][0], -item[1], item[0][1])):
        best.setdefault(w, t)
    word_totals = Counter(w for words, _ in sentences for w in words)
    rare = Counter(t for (w, t), c in counts.items() if word_totals[w] == 1)
    fallback = min(rare, key=lambda t: (-rare[t], t)) if rare else min(best.values())

    def tag(words: Sequence[str]) -> list[str]:
        return [best.get(w, fallback) for w in check_str_list("words", words)]

    return tag


def _check_sentence_pairs(gold: object, predicted: object) -> list[list[tuple[str, str]]]:
    """Per sentence, its (gold tag, predicted tag) pairs; at least one tag in all."""
    gold, predicted = check_list("gold", gold, Sequence, nonempty=True), check_list("predicted", predicted, Sequence)
    if len(gold) != len(predicted):
        raise ValueError(f"gold and predicted must hold the same number of sentences, got {len(gold)} "
                         f"and {len(predicted)}")
    sentences = []
    for i, (g, p) in enumerate(zip(gold, predicted)):
        g, p = check_str_list(f"gold[{i}]", g), check_str_list(f"predicted[{i}]", p)
        if len(g) != len(p):
            raise ValueError(f"gold[{i}] and predicted[{i}] must hold one tag per word, got {len(g)} and {len(p)}")
        sentences.append(list(zip(g, p)))
    if not any(sentences):
        raise ValueError("gold must hold at least one tag")
    return sentences


def _check_pairs(gold: object, predicted: object) -> list[tuple[str, str]]:
    return [pair for sentence in _check_sentence_pairs(gold, predicted) for pair in sentence]


def tag_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of words whose predicted tag is the gold one, over all sentences."""
    pairs = _check_pairs(gold, predicted)
    return sum(g == p for g, p in pairs) / len(pairs)


def sentence_accuracy(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]]) -> float:
    """Share of sentences whose predicted tags are all the gold ones.

    With per-word accuracy a and errors independent of each other, a sentence of n words
    is all right with probability a^n, so this share is far below ``tag_accuracy``
    (a = 0.95, n = 20: about 0.36); errors that cluster in a few sentences raise it.
    ``gold`` and ``predicted`` as for :func:`tag_accuracy`: lists of sentences, each a list
    of tags, one per word; empty sentences are left out of the count.
    """
    sentences = [s for s in _check_sentence_pairs(gold, predicted) if s]
    return sum(all(g == p for g, p in s) for s in sentences) / len(sentences)


def confusion_matrix(gold: Sequence[Sequence[str]], predicted: Sequence[Sequence[str]],
                     tags: Sequence[str]) -> np.ndarray:
    """(N, N) counts: row = gold tag, column = predicted tag, in the order of ``tags``."""
    pairs = _check_pairs(gold, predicted)
    tags = check_str_list("tags", tags, nonempty=True)
    index = {t: j for j, t in enumerate(tags)}
    unknown = {t for pair in pairs for t in pair} - set(index)
    if unknown:
        raise ValueError(f"tags must list every gold and predicted tag; missing {sorted(unknown)}")
    matrix = np.zeros((len(tags), len(tags)), dtype=np.int64)
    np.add.at(matrix, ([index[g] for g, _ in pairs], [index[p] for _, p in pairs]), 1)
    return matrix
