"""Vector semantics: words as vectors of counts, weighted, compared by cosine, made dense by SVD.

*You shall know a word by the company it keeps* (Firth, 1957). A word becomes a row
of counts, and words with similar rows have similar meanings:

* **term–document matrix** X (V × D): X[t, d] = count(t, d), how often term t occurs
  in document d (a play, a speech);
* **term–term matrix** X (V × V): X[w, c] = how often the context word c occurs within
  ±L words of w, in the same sequence. It is symmetric. GloVe weights an occurrence at
  distance k by 1/k ("harmonic").

Raw counts favour frequent words ("the", "and" co-occur with everything), so they
are weighted. For term–document counts, **tf-idf** (the seed's two tf variants):

==========  ===========================  ======================================
tf          tf(t, d)                     weight w(t, d) = tf(t, d) · idf(t)
==========  ===========================  ======================================
``raw``     count(t, d)                  idf(t) = log10(N / df(t)),
``log``     log10(count(t, d) + 1)       df(t) = number of documents holding t
==========  ===========================  ======================================

For term–context counts f, **positive pointwise mutual information** (Church and
Hanks 1989), in bits:

    PPMI(w, c) = max(log2 P(w, c) / (P(w) P_α(c)), 0),
    P(w, c) = f(w, c) / N,   P(w) = Σ_c f(w, c) / N,   P_α(c) = f(c)^α / Σ_c' f(c')^α,

with N = Σ f. α = 1 is plain PPMI; α = 0.75 (Levy, Goldberg and Dagan 2015) raises
the probability of rare contexts, which tempers PMI's bias towards them. Only counts
above 0 can have a positive PMI, so PPMI stays as sparse as the counts.

Words are compared by the **cosine** of their vectors, cos(v, w) = v · w / (‖v‖ ‖w‖),
which ignores their lengths (long vectors mean frequent words, not similar ones).
A **truncated SVD** X ≈ U_k Σ_k V_kᵀ turns sparse rows of length V into dense rows
of length k: word vectors U_k Σ_k^p (p = 1 keeps the geometry of X's rows, p = 0.5
often works better; Levy et al. 2015).

Evaluation, against people:

* **word similarity**: Spearman's ρ between the cosines of word pairs and the mean
  human scores (WordSim-353, SimLex-999), over the pairs whose two words are in the
  vocabulary; the **coverage** says how many those are;
* **analogies** a : b :: c : d ("man : king :: woman : queen"), answered by the word x
  (not a, b or c) that maximises, with x, a, b, c unit vectors,

      3CosAdd:  cos(x, b) − cos(x, a) + cos(x, c)                (Mikolov et al. 2013)
      3CosMul:  cos'(x, b) · cos'(x, c) / (cos'(x, a) + ε)       (Levy and Goldberg 2014)

  with cos' = (cos + 1)/2 in [0, 1]. 3CosAdd lets one large term dominate the sum;
  3CosMul balances the three.

A vocabulary is a sequence of words, the position of a word being its id: row i of
a matrix of word vectors belongs to ``vocab[i]``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import svds

from ..ranking import top_k
from ..validation import (check_array, check_choice, check_count, check_list, check_memory, check_number, check_str,
                          describe)

__all__ = [
    "word_ids",
    "term_document_matrix",
    "term_term_matrix",
    "TF_VARIANTS",
    "tf_idf",
    "ppmi",
    "normalize_rows",
    "cosine_similarity",
    "nearest_words",
    "neighbour_overlap",
    "SVD_METHODS",
    "truncated_svd",
    "spearman_rho",
    "SimilarityScore",
    "similarity_benchmark",
    "ANALOGY_METHODS",
    "analogy",
    "AnalogyScore",
    "analogy_accuracy",
]


# --------------------------------------------------------------------------------------
# Argument checks shared by the functions below
# --------------------------------------------------------------------------------------

def _check_sequences(name: str, sequences: object, vocab_size: int) -> list[np.ndarray]:
    """A non-empty list of 1-D arrays of word ids in [0, vocab_size), as int64 arrays."""
    if isinstance(sequences, np.ndarray):
        raise TypeError(f"{name} must be a list of 1-D arrays of word ids (one per sequence), got {describe(sequences)}")
    items = check_list(name, sequences, object, nonempty=True)
    return [check_array(f"{name}[{i}]", s, kind="int", ndim=1, low=0, high=vocab_size - 1) for i, s in enumerate(items)]


def _flatten(sequences: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The sequences end to end, (n,), and the number of the sequence each position
    belongs to, (n,): a window is a slice of the first whose positions agree in the second."""
    ids = np.concatenate(sequences)
    owner = np.repeat(np.arange(len(sequences)), [len(s) for s in sequences])
    return ids, owner


def _check_matrix(name: str, matrix: object, *, nonnegative: bool = False) -> sp.csr_matrix | np.ndarray:
    """A 2-D float matrix: a scipy.sparse matrix (returned as float64 CSR) or an array-like
    (float32 stays float32, other numbers become float64)."""
    if sp.issparse(matrix):
        matrix = sp.csr_matrix(matrix, dtype=np.float64)
        if matrix.ndim != 2:
            raise ValueError(f"{name} must be 2-dimensional, got shape {matrix.shape}")
        data = matrix.data
        if data.size and not np.all(np.isfinite(data)):
            raise ValueError(f"{name} must hold finite numbers, found NaN or infinity")
        if nonnegative and data.size and data.min() < 0:
            raise ValueError(f"{name} must hold values >= 0, found {data.min():g}")
        return matrix
    array = check_array(name, matrix, kind="number", ndim=2, low=0 if nonnegative else None)
    return array if array.dtype in (np.float32, np.float64) else array.astype(np.float64)


def _check_vectors_and_vocab(vectors: object, vocab: object) -> tuple[sp.csr_matrix | np.ndarray, dict[str, int]]:
    """Word vectors (V, d), dense or sparse, and a vocabulary of V distinct words, as
    (vectors, word -> id)."""
    vectors = _check_matrix("vectors", vectors)
    if isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a sequence of words (position = id), got {describe(vocab)}")
    words = check_list("vocab", vocab, str, nonempty=True)
    if len(words) != vectors.shape[0]:
        raise ValueError(f"vocab must have one word per row of vectors: {len(words)} words, "
                         f"{vectors.shape[0]} rows")
    index = {word: i for i, word in enumerate(words)}
    if len(index) != len(words):
        raise ValueError("vocab must not repeat a word")
    return vectors, index


def _word_id(name: str, word: object, index: dict[str, int]) -> int:
    """The id of ``word``; a ValueError naming the argument when it is not in the vocabulary."""
    word = check_str(name, word)
    if word not in index:
        raise ValueError(f"{name} = {word!r} is not in the vocabulary ({len(index):,} words)")
    return index[word]


def _check_pairs(pairs: object) -> list[tuple[str, str, float]]:
    """A non-empty list of (word1, word2, score) triples."""
    items = check_list("pairs", pairs, tuple, nonempty=True)
    for i, item in enumerate(items):
        if (len(item) != 3 or not isinstance(item[0], str) or not isinstance(item[1], str)
                or isinstance(item[2], bool) or not isinstance(item[2], Real) or not np.isfinite(item[2])):
            raise TypeError(f"pairs[{i}] must be a (word1, word2, score) triple with a finite score, "
                            f"got {describe(item)}")
    return items


# --------------------------------------------------------------------------------------
# Count matrices
# --------------------------------------------------------------------------------------

def word_ids(sequences: Sequence[Sequence[str]], min_count: int = 1) -> tuple[list[np.ndarray], list[str]]:
    """Word-id arrays and a vocabulary for sequences of tokens (a list per speech, or
    per play): the vocabulary holds every token seen at least ``min_count`` times, most
    frequent first (ties alphabetically), and rarer tokens are dropped from the
    sequences, as word2vec's ``min_count`` does (they are not replaced by an unknown
    word, so their neighbours close up).

    >>> ids, vocab = word_ids([["to", "be", "or", "not", "to", "be"]], min_count=2)
    >>> vocab, ids[0].tolist()
    (['be', 'to'], [1, 0, 1, 0])
    """
    items = check_list("sequences", sequences, object, nonempty=True)
    items = [check_list(f"sequences[{i}]", s, str) for i, s in enumerate(items)]
    min_count = check_count("min_count", min_count, low=1)
    counts = Counter(token for s in items for token in s)
    vocab = sorted((t for t, n in counts.items() if n >= min_count), key=lambda t: (-counts[t], t))
    if not vocab:
        raise ValueError(f"sequences must hold a token seen at least min_count = {min_count} times")
    index = {t: i for i, t in enumerate(vocab)}
    return [np.array([index[t] for t in s if t in index], dtype=np.int64) for s in items], vocab


def term_document_matrix(documents: Sequence, vocab_size: int) -> sp.csr_matrix:
    """X[t, d] = count(t, d): how often word id t occurs in document d.

    Parameters
    ----------
    documents : list of D 1-D int arrays, the word ids of each document.
    vocab_size : V; ids lie in [0, V).

    Returns
    -------
    (V, D) CSR matrix of float64 counts.
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    check_memory("vocab_size", vocab_size + 1)  # the CSR row pointers
    documents = _check_sequences("documents", documents, vocab_size)
    lengths = np.array([len(d) for d in documents])
    terms = np.concatenate(documents)
    columns = np.repeat(np.arange(len(documents)), lengths)
    counts = sp.coo_matrix((np.ones(len(terms)), (terms, columns)), shape=(vocab_size, len(documents)))
    return counts.tocsr()  # the conversion adds up repeated (t, d) entries


def term_term_matrix(sequences: Sequence, vocab_size: int, window: int = 2, weighting: str = "count") -> sp.csr_matrix:
    """X[w, c] = co-occurrences of context word c within ±``window`` words of w.

    Windows do not cross from one sequence to the next (give one sequence per play, or
    per sentence). Each pair of positions i < j with j − i ≤ L adds to X[s_i, s_j] and
    X[s_j, s_i], so X is symmetric.

    Parameters
    ----------
    sequences : list of 1-D int arrays of word ids in [0, V).
    vocab_size : V.
    window : L >= 1.
    weighting : "count" (each co-occurrence adds 1) or "harmonic" (it adds 1/k at
        distance k, as GloVe counts).

    Returns
    -------
    (V, V) symmetric CSR matrix, float64.
    """
    vocab_size = check_count("vocab_size", vocab_size, low=1)
    check_memory("vocab_size", vocab_size + 1)  # the CSR row pointers
    sequences = _check_sequences("sequences", sequences, vocab_size)
    window = check_count("window", window, low=1)
    check_choice("weighting", weighting, ("count", "harmonic"))
    ids, owner = _flatten(sequences)
    total = sp.csr_matrix((vocab_size, vocab_size))
    for distance in range(1, min(window, len(ids) - 1) + 1):  # all pairs at this distance at once
        same = owner[:-distance] == owner[distance:]  # both ends in one sequence
        left, right = ids[:-distance][same], ids[distance:][same]
        weight = 1.0 if weighting == "count" else 1.0 / distance
        pairs = sp.coo_matrix((np.full(len(left), weight), (left, right)), shape=(vocab_size, vocab_size)).tocsr()
        total = total + pairs + pairs.T
    return total.tocsr()


# --------------------------------------------------------------------------------------
# Weighting: tf-idf and PPMI
# --------------------------------------------------------------------------------------

#: tf variant -> tf(count), applied to the stored (non-zero) counts.
TF_VARIANTS = {"raw": lambda count: count, "log": lambda count: np.log10(count + 1.0)}


def tf_idf(counts: object, tf: str = "log") -> sp.csr_matrix:
    """w(t, d) = tf(t, d) · log10(N / df(t)) for a term–document count matrix.

    Parameters
    ----------
    counts : (V, D) non-negative counts, sparse or dense.
    tf : "raw" or "log" (:data:`TF_VARIANTS`).

    Returns
    -------
    (V, D) CSR float64. A term in every document gets weight 0 (idf = 0); a term in
    none has no entries.
    """
    counts = sp.csr_matrix(_check_matrix("counts", counts, nonnegative=True), dtype=np.float64)
    check_choice("tf", tf, TF_VARIANTS)
    counts.eliminate_zeros()
    n_docs = counts.shape[1]
    df = np.diff(counts.indptr)  # documents per term: stored entries per row
    idf = np.log10(n_docs / np.maximum(df, 1))
    weights = counts.copy()
    weights.data = TF_VARIANTS[tf](counts.data) * np.repeat(idf, df)
    weights.eliminate_zeros()
    return weights


def ppmi(counts: object, alpha: float = 1.0) -> sp.csr_matrix:
    """PPMI(w, c) = max(log2 P(w, c) / (P(w) P_α(c)), 0) of a term–context count matrix.

    Parameters
    ----------
    counts : (W, C) non-negative co-occurrence counts f(w, c), sparse or dense.
    alpha : α in (0, 1], the exponent of the context distribution P_α(c) ∝ f(c)^α
        (1: plain PPMI; 0.75: smoothed, as word2vec's negative sampling).

    Returns
    -------
    (W, C) CSR float64, >= 0, with entries only where f(w, c) > 0.
    """
    counts = sp.csr_matrix(_check_matrix("counts", counts, nonnegative=True), dtype=np.float64)
    alpha = check_number("alpha", alpha, low=0, low_open=True, high=1)
    counts.eliminate_zeros()
    total = counts.sum()
    if total == 0:
        raise ValueError("counts must hold at least one count above 0")
    p_word = np.asarray(counts.sum(axis=1)).ravel() / total  # (W,)
    context = np.asarray(counts.sum(axis=0)).ravel() ** alpha
    p_context = context / context.sum()  # (C,)
    rows = np.repeat(np.arange(counts.shape[0]), np.diff(counts.indptr))
    pmi = np.log2(counts.data / total / (p_word[rows] * p_context[counts.indices]))
    result = counts.copy()
    result.data = np.maximum(pmi, 0.0)
    result.eliminate_zeros()
    return result


# --------------------------------------------------------------------------------------
# Cosine, neighbours, SVD
# --------------------------------------------------------------------------------------

def _unit_rows(vectors: sp.csr_matrix | np.ndarray) -> sp.csr_matrix | np.ndarray:
    """Rows divided by their L2 norms (checked input); zero rows stay zero."""
    if sp.issparse(vectors):
        norms = np.sqrt(np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel())
        return sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ vectors
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1).astype(vectors.dtype)


def normalize_rows(vectors: object) -> sp.csr_matrix | np.ndarray:
    """v / ‖v‖ for every row v of ``vectors`` (n, d), dense or sparse; a zero row stays zero.

    Returns the same kind of matrix: CSR float64 for sparse input, an array (float32
    kept) for dense input.
    """
    return _unit_rows(_check_matrix("vectors", vectors))


def _dense(matrix: sp.csr_matrix | np.ndarray) -> np.ndarray:
    return matrix.toarray() if sp.issparse(matrix) else np.asarray(matrix)


def cosine_similarity(a: object, b: object | None = None) -> np.ndarray:
    """cos(a_i, b_j) = a_i · b_j / (‖a_i‖ ‖b_j‖) for every row of ``a`` (n, d) and of
    ``b`` (m, d) (b = a when omitted); dense or sparse rows.

    Returns
    -------
    (n, m) array in [−1, 1] (float32 for two float32 inputs, else float64); a zero
    vector has cosine 0 with everything.
    """
    a = _check_matrix("a", a)
    b = a if b is None else _check_matrix("b", b)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"a and b must have the same number of columns; a has shape {a.shape}, b has {b.shape}")
    a, b = _rescaled_rows(a), _rescaled_rows(b)  # exact powers of two: no overflow for entries near 1e200
    return np.clip(_dense(_unit_rows(a) @ _unit_rows(b).T), -1.0, 1.0)


def _rescaled_rows(vectors: sp.csr_matrix | np.ndarray) -> sp.csr_matrix | np.ndarray:
    """The rows whose largest |entry| is so large (or so small) that its square overflows
    (or underflows) are divided by the power of two nearest that entry: exact, and the
    cosine does not change, but ‖v‖ = 1e200 no longer becomes inf (nor 1e-200 zero).
    Returns the input itself when no row needs it (one pass over the entries)."""
    if sp.issparse(vectors):
        peak = np.asarray(abs(vectors).max(axis=1).todense()).ravel()
    else:
        peak = np.abs(vectors).max(axis=1) if vectors.shape[1] else np.zeros(len(vectors), vectors.dtype)
    limit = 40 if vectors.dtype == np.float32 else 400  # x² and a sum of d of them stay far from over/underflow
    exponent = np.frexp(peak.astype(np.float64))[1]
    exponent[(np.abs(exponent) <= limit) | (peak == 0)] = 0
    if not exponent.any():
        return vectors
    if sp.issparse(vectors):
        return sp.diags(np.ldexp(1.0, -exponent)) @ vectors
    return np.ldexp(vectors, -exponent[:, None]).astype(vectors.dtype, copy=False)


def nearest_words(vectors: object, vocab: Sequence[str], word: str, k: int = 10) -> list[tuple[str, float]]:
    """The ``k`` words whose vectors have the largest cosine with ``word``'s, the word
    itself left out: [(word, cosine), …], most similar first (ties: smaller id first).
    Raises ValueError naming ``word`` if it is not in ``vocab``."""
    vectors, index = _check_vectors_and_vocab(vectors, vocab)
    i = _word_id("word", word, index)
    if len(index) < 2:
        raise ValueError("vocab must hold at least two words: the word itself is left out of its neighbours")
    k = check_count("k", k, low=1)
    if k > len(index) - 1:
        raise ValueError(f"k must be <= {len(index) - 1}, the number of other words in vocab, got {k}")
    cosines = cosine_similarity(vectors[i:i + 1], vectors)[0].astype(np.float64)
    candidates = np.ones(len(cosines), dtype=bool)
    candidates[i] = False
    ids, scores = top_k(cosines, k, candidates)
    words = list(index)
    return [(words[j], float(s)) for j, s in zip(ids, scores)]


def _neighbour_sets(unit: sp.csr_matrix | np.ndarray, ids: np.ndarray, k: int) -> list[set[int]]:
    """The ids of the k nearest rows (cosine, the row itself left out) of each id in ``ids``."""
    cosines = _dense(unit[ids] @ unit.T).astype(np.float64)  # (n, V)
    cosines[np.arange(len(ids)), ids] = -np.inf
    order = np.argsort(-cosines, axis=1, kind="stable")[:, :k]
    return [set(row) for row in order.tolist()]


def neighbour_overlap(vectors: object, other: object, vocab: Sequence[str], words: Sequence[str],
                      k: int = 10) -> float:
    """Mean over ``words`` of |N_k(w) ∩ N'_k(w)| / k: how many of a word's k nearest
    neighbours two sets of word vectors share (1: the same neighbours, in any order).

    ``vectors`` (V, d) and ``other`` (V, d') must hold the same words in the same rows
    (``vocab``); their dimensions may differ.
    """
    vectors, index = _check_vectors_and_vocab(vectors, vocab)
    other = _check_matrix("other", other)
    if other.shape[0] != vectors.shape[0]:
        raise ValueError(f"other must have one row per word of vocab, {vectors.shape[0]}; got {other.shape[0]}")
    words = check_list("words", words, str, nonempty=True)
    ids = np.array([_word_id(f"words[{n}]", w, index) for n, w in enumerate(words)])
    k = check_count("k", k, low=1, high=vectors.shape[0] - 1)
    mine, theirs = _neighbour_sets(_unit_rows(vectors), ids, k), _neighbour_sets(_unit_rows(other), ids, k)
    return float(np.mean([len(a & b) / k for a, b in zip(mine, theirs)]))


#: SVD method -> how the k largest singular triplets are found.
SVD_METHODS = ("arpack", "randomized")


def _randomized_svd(matrix: sp.csr_matrix | np.ndarray, k: int, iterations: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """U_k (V, k) and σ_1 … σ_k by Halko, Martinsson and Tropp's (2011) randomised SVD.

    Y = X Ω for a Gaussian Ω (C, k + 10) spans nearly the same space as X's top k left
    singular vectors; each power iteration Y ← X (Xᵀ Y) sharpens it (the triplets'
    weights become σ³, σ⁵, …), with a QR step in between to keep it well conditioned.
    The SVD of the small matrix Qᵀ X (k + 10, C) then gives U and σ.
    """
    q, _ = np.linalg.qr(matrix @ rng.standard_normal((matrix.shape[1], k + 10)))  # (V, k + 10)
    for _ in range(iterations):
        q, _ = np.linalg.qr(matrix.T @ q)
        q, _ = np.linalg.qr(matrix @ q)
    u_small, s, _ = np.linalg.svd(np.asarray((matrix.T @ q).T), full_matrices=False)  # Qᵀ X, (k + 10, C)
    return q @ u_small[:, :k], s[:k]


def truncated_svd(matrix: object, dim: int, power: float = 1.0, method: str = "arpack", iterations: int = 10,
                  seed: int = 0) -> np.ndarray:
    """Dense word vectors U_k Σ_k^p from the k = ``dim`` largest singular triplets of
    ``matrix`` (V, C) ≈ U_k Σ_k V_kᵀ.

    ``method="arpack"``: ``scipy.sparse.linalg.svds`` (Lanczos iterations, accurate to
    machine precision); ``"randomized"``: Halko et al.'s randomised SVD with
    ``iterations`` power iterations. Measured on a PPMI matrix of 8,799 Shakespeare
    words (1.7 million entries), k = 100, one thread: ARPACK 3.6 s; randomised with 10
    iterations 2.0 s, every singular value within 2 % (the first ten within 1e-7; a
    PPMI spectrum decays slowly, so fewer iterations lose accuracy fast). Both draw
    their random start from ``seed``. The columns come in order of decreasing
    singular value, and the sign of each (arbitrary in an SVD) is fixed so that its
    largest-magnitude entry is positive: the same vectors on every run.

    Parameters
    ----------
    matrix : (V, C) sparse or dense, e.g. a PPMI matrix.
    dim : k, 1 <= k < min(V, C).
    power : p in [0, 2] (1: U Σ; 0.5: U Σ^½; 0: U).
    method : "arpack" or "randomized" (:data:`SVD_METHODS`).
    iterations : power iterations of the randomised method.

    Returns
    -------
    (V, k) float64. A rank-deficient matrix gives zero columns beyond its rank; an
    all-zero matrix is refused.
    """
    matrix = _check_matrix("matrix", matrix)
    dim = check_count("dim", dim, low=1)
    if dim >= min(matrix.shape):
        raise ValueError(f"dim must be below min(matrix.shape) = {min(matrix.shape)}, got {dim}")
    power = check_number("power", power, low=0, high=2)
    check_choice("method", method, SVD_METHODS)
    iterations = check_count("iterations", iterations, high=100)
    seed = check_count("seed", seed, high=2**32 - 1)
    if not (matrix.count_nonzero() if sp.issparse(matrix) else np.count_nonzero(matrix)):
        raise ValueError(f"matrix must have a nonzero entry: an all-zero matrix {matrix.shape} has no "
                         "singular directions to keep (ARPACK cannot even start on it)")
    matrix = matrix.astype(np.float64)
    rng = np.random.default_rng(seed)
    if method == "randomized":
        u, s = _randomized_svd(matrix, dim, iterations, rng)
    else:
        u, s, _ = svds(matrix, k=dim, v0=rng.uniform(-1.0, 1.0, min(matrix.shape)))
        order = np.argsort(-s, kind="stable")
        u, s = u[:, order], s[order]
    signs = np.sign(u[np.argmax(np.abs(u), axis=0), np.arange(dim)])
    return u * signs * s**power


# --------------------------------------------------------------------------------------
# Word similarity
# --------------------------------------------------------------------------------------

def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1 … n of the values of x, tied values sharing the mean of their ranks."""
    order = np.argsort(x, kind="stable")
    ranks = np.empty(len(x))
    ranks[order] = np.arange(1, len(x) + 1)
    _, group = np.unique(x, return_inverse=True)
    return (np.bincount(group, weights=ranks) / np.bincount(group))[group]


def spearman_rho(x: object, y: object) -> float:
    """Spearman's ρ: the Pearson correlation of the ranks of x and y (ties get their mean rank).

    ρ = 1 when y grows whenever x does, −1 when it always falls. Undefined (a
    ValueError) when x or y holds a single distinct value.
    """
    x = check_array("x", x, ndim=1)
    y = check_array("y", y, ndim=1)
    if len(x) != len(y) or len(x) < 2:
        raise ValueError(f"x and y must have the same length, at least 2; got {len(x)} and {len(y)}")
    for name, values in (("x", x), ("y", y)):
        if np.all(values == values[0]):
            raise ValueError(f"{name} holds a single distinct value: its ranks are constant, so ρ is undefined")
    rx, ry = _average_ranks(x), _average_ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    return float(rx @ ry / np.sqrt((rx @ rx) * (ry @ ry)))


@dataclass(frozen=True)
class SimilarityScore:
    """What :func:`similarity_benchmark` measured.

    ``rho``        Spearman's ρ between model cosines and human scores, over the covered pairs
    ``covered``    pairs whose two words are in the vocabulary
    ``total``      pairs in the benchmark
    ``cosines``    (covered,) the model's cosines, in the benchmark's order
    ``human``      (covered,) the human scores of the same pairs
    """

    rho: float
    covered: int
    total: int
    cosines: np.ndarray
    human: np.ndarray

    @property
    def coverage(self) -> float:
        """covered / total."""
        return self.covered / self.total

    def __repr__(self) -> str:
        return f"SimilarityScore(rho={self.rho:.3f}, {self.covered}/{self.total} pairs covered)"


def similarity_benchmark(vectors: object, vocab: Sequence[str], pairs: Sequence[tuple[str, str, float]]
                         ) -> SimilarityScore:
    """Spearman's ρ between cos(v_w1, v_w2) and the human score, over the (w1, w2, score)
    ``pairs`` whose two words are both in ``vocab``.

    The other pairs are left out, not scored 0; :attr:`SimilarityScore.coverage`
    reports how many were kept, so that a high ρ on a tenth of a benchmark is not
    mistaken for a high ρ on all of it.
    """
    vectors, index = _check_vectors_and_vocab(vectors, vocab)
    pairs = _check_pairs(pairs)
    known = [(index[w1], index[w2], score) for w1, w2, score in pairs if w1 in index and w2 in index]
    if len(known) < 2:
        raise ValueError(f"pairs must have at least 2 pairs whose words are both in vocab; {len(known)} of "
                         f"{len(pairs)} are")
    first, second, human = (np.array(column) for column in zip(*known))
    unit = _unit_rows(vectors)
    cosines = np.asarray(unit[first].multiply(unit[second]).sum(axis=1)).ravel() if sp.issparse(unit) \
        else np.einsum("ij,ij->i", unit[first], unit[second])
    cosines = cosines.astype(np.float64)
    return SimilarityScore(spearman_rho(cosines, human.astype(np.float64)), len(known), len(pairs), cosines,
                           human.astype(np.float64))


# --------------------------------------------------------------------------------------
# Analogies
# --------------------------------------------------------------------------------------

#: Analogy method -> scores of every candidate x (n, V) from the cosines of x with a, b
#: and c ((n, V) each) and ε.
ANALOGY_METHODS = {
    "3cosadd": lambda cos_a, cos_b, cos_c, epsilon: cos_b - cos_a + cos_c,
    "3cosmul": lambda cos_a, cos_b, cos_c, epsilon: (cos_b + 1) / 2 * ((cos_c + 1) / 2) / ((cos_a + 1) / 2 + epsilon),
}


def _analogy_scores(unit: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray, method: str,
                    epsilon: float) -> np.ndarray:
    """Scores (n, V) of every word as the answer to the n questions a : b :: c : ?, the
    question words themselves set to −inf."""
    if method == "3cosadd":  # one product: (b − a + c) · x = cos(x, b) − cos(x, a) + cos(x, c)
        scores = (unit[b] - unit[a] + unit[c]) @ unit.T
    else:
        scores = ANALOGY_METHODS[method](unit[a] @ unit.T, unit[b] @ unit.T, unit[c] @ unit.T, epsilon)
    rows = np.arange(len(a))
    for ids in (a, b, c):
        scores[rows, ids] = -np.inf
    return scores


def _check_analogy_method(method: object, epsilon: object) -> float:
    check_choice("method", method, ANALOGY_METHODS)
    return check_number("epsilon", epsilon, low=0, low_open=True, high=1)


def _dense_vectors(vectors: object, vocab: object) -> tuple[np.ndarray, dict[str, int]]:
    vectors, index = _check_vectors_and_vocab(vectors, vocab)
    if sp.issparse(vectors):
        raise TypeError("vectors must be a dense array for analogies (every word is scored against all V words); "
                        "reduce a sparse matrix with truncated_svd first")
    return vectors, index


def analogy(vectors: object, vocab: Sequence[str], a: str, b: str, c: str, method: str = "3cosadd", k: int = 1,
            epsilon: float = 1e-3) -> list[tuple[str, float]]:
    """Answers to a : b :: c : ?, the k best words other than a, b and c, with their scores.

    Parameters
    ----------
    vectors : (V, d) dense word vectors; vocab : the V words.
    a, b, c : words of the vocabulary (a ValueError names the one that is not).
    method : "3cosadd" or "3cosmul" (:data:`ANALOGY_METHODS`).
    k : how many answers.
    epsilon : ε in (0, 1] of 3CosMul (Levy and Goldberg use 0.001; gensim 1e-6).

    >>> vectors = [[1, 0, 0], [1, 1, 0], [1, 0, 1], [1, 1, 1], [0, 0, 1]]  # (1, female?, royal?)
    >>> vocab = ["man", "woman", "king", "queen", "crown"]
    >>> [(word, round(score, 3)) for word, score in analogy(vectors, vocab, "man", "woman", "king", k=2)]
    [('queen', 1.056), ('crown', 0.707)]
    """
    vectors, index = _dense_vectors(vectors, vocab)
    ids = [_word_id(name, word, index) for name, word in (("a", a), ("b", b), ("c", c))]
    epsilon = _check_analogy_method(method, epsilon)
    k = check_count("k", k, low=1)
    available = len(index) - len(set(ids))
    if k > available:
        raise ValueError(f"k must be <= the number of words other than a, b and c, {available}; got {k}")
    scores = _analogy_scores(_unit_rows(vectors), *(np.array([i]) for i in ids), method, epsilon)[0]
    allowed = np.isfinite(scores)  # not a, b or c
    best, best_scores = top_k(np.where(allowed, scores, 0.0).astype(np.float64), k, allowed)
    words = list(index)
    return [(words[j], float(s)) for j, s in zip(best, best_scores)]


@dataclass(frozen=True)
class AnalogyScore:
    """What :func:`analogy_accuracy` measured.

    ``sections``  section -> (correct, covered, total): questions answered right, questions
                  whose four words are all in the vocabulary, and questions
    ``method``    "3cosadd" or "3cosmul"
    """

    sections: dict[str, tuple[int, int, int]]
    method: str

    @property
    def correct(self) -> int:
        return sum(c for c, _, _ in self.sections.values())

    @property
    def covered(self) -> int:
        return sum(n for _, n, _ in self.sections.values())

    @property
    def total(self) -> int:
        return sum(t for _, _, t in self.sections.values())

    @property
    def accuracy(self) -> float:
        """correct / covered (0 when nothing is covered): the accuracy gensim and the papers report."""
        return self.correct / self.covered if self.covered else 0.0

    @property
    def coverage(self) -> float:
        """covered / total."""
        return self.covered / self.total

    def __repr__(self) -> str:
        return (f"AnalogyScore({self.method}: accuracy {self.accuracy:.3f} = {self.correct}/{self.covered} "
                f"covered questions; coverage {self.covered}/{self.total})")


def _check_questions(questions: object) -> dict[str, list[tuple]]:
    """Questions by section (a mapping section -> list of 4-tuples of words), or one list
    of 4-tuples (section "all")."""
    sections = dict(questions) if isinstance(questions, Mapping) else {"all": questions}
    if not sections:
        raise ValueError("questions must not be empty")
    checked = {}
    for section, items in sections.items():
        items = check_list(f"questions[{section!r}]", items, tuple)
        for i, item in enumerate(items):
            if len(item) != 4 or not all(isinstance(w, str) for w in item):
                raise TypeError(f"questions[{section!r}][{i}] must be a tuple of four words (a, b, c, d), "
                                f"got {describe(item)}")
        checked[str(section)] = items
    if not any(checked.values()):
        raise ValueError("questions must hold at least one question")
    return checked


def analogy_accuracy(vectors: object, vocab: Sequence[str], questions: Mapping | Sequence, method: str = "3cosadd",
                     epsilon: float = 1e-3, batch_size: int = 256) -> AnalogyScore:
    """Accuracy on analogy questions (a, b, c, d): is d the best answer to a : b :: c : ?

    Every word of the vocabulary other than a, b and c is a candidate (restrict the
    search, as benchmarks do, by passing the most frequent rows only). Questions with a
    word outside ``vocab`` are not asked; they count in the coverage, not in the
    accuracy (as gensim's ``evaluate_word_analogies`` and the word2vec tool do).
    Questions are scored ``batch_size`` at a time: one (batch, V) matrix product each.

    Parameters
    ----------
    questions : section -> list of (a, b, c, d) (:func:`mmir_lib.data.word_analogies`),
        or a plain list of (a, b, c, d).
    """
    vectors, index = _dense_vectors(vectors, vocab)
    sections = _check_questions(questions)
    epsilon = _check_analogy_method(method, epsilon)
    batch_size = check_count("batch_size", batch_size, low=1)
    unit = _unit_rows(vectors)
    results = {}
    for section, items in sections.items():
        known = np.array([[index[w] for w in q] for q in items if all(w in index for w in q)], dtype=np.int64)
        correct = 0
        for start in range(0, len(known), batch_size):
            a, b, c, d = known[start:start + batch_size].T
            correct += int((np.argmax(_analogy_scores(unit, a, b, c, method, epsilon), axis=1) == d).sum())
        results[section] = (correct, len(known), len(items))
    return AnalogyScore(results, method)
