"""Probabilistic retrieval: the Binary Independence Model and the 2-Poisson eliteness model.

**Binary Independence Model (BIM).** A document is the set of terms it contains;
given relevance, terms occur independently. Ranking by the odds of relevance then
reduces to summing, over the query terms a document contains, the log-odds weight
of Robertson and Spärck Jones (1976). Its ingredients are the counts of the
contingency table of a term t against relevance, over the N documents of the
collection:

=================  ============  ======================  =========
                   relevant      not relevant            all
=================  ============  ======================  =========
contain t          r_t           n_t − r_t               n_t
lack t             R − r_t       N − n_t − R + r_t       N − n_t
all                R             N − R                   N
=================  ============  ======================  =========

p_t = P(t ∈ d | relevant) and u_t = P(t ∈ d | not relevant) are estimated from the
first column and the second with 0.5 added to every cell:
p_t = (r_t + 0.5) / (R + 1) and u_t = (n_t − r_t + 0.5) / (N − R + 1). Without any
relevance information (R = r_t = 0) the weight becomes
log((N − n_t + 0.5) / (n_t + 0.5)), the Robertson idf of :mod:`mmir_lib.ir.bm25`.

**2-Poisson model.** The frequency of a term in a document of fixed length is a
mixture of two Poisson distributions: a rate λ in the documents that are *about*
the term (elite, a fraction π of the collection) and a lower rate μ in the rest.
:func:`fit_two_poisson` fits π, λ, μ by EM; :func:`eliteness_weight` is the term
weight the model implies as a function of tf (Robertson and Walker 1994), whose
shape BM25's tf / (k1 + tf) imitates.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.special
from numpy.typing import ArrayLike

from ..validation import (MAX_INT, check_array, check_count, check_instance, check_number, check_optional,
                          check_probability, describe)
from .bm25 import saturation
from .index import InvertedIndex

__all__ = [
    "rsj_weight",
    "TermWeight",
    "bim_term_weights",
    "bim_scores",
    "bm25_rsj_scores",
    "TwoPoissonFit",
    "two_poisson_log_likelihood",
    "fit_two_poisson",
    "eliteness_weight",
]


# ---- Binary Independence Model -----------------------------------------------------

def _check_counts(name: str, value: ArrayLike, **shape) -> np.ndarray:
    """A count or an array of counts: whole numbers in [0, MAX_INT] (ints, or floats
    that are whole), as float64. ``shape``: ``ndim``/``nonempty`` of :func:`check_array`."""
    array = check_array(name, value, kind="number", low=0, high=MAX_INT, **shape).astype(np.float64)
    if array.size == 0 and not shape:
        raise ValueError(f"{name} must not be empty")
    if np.any(array != np.round(array)):
        raise ValueError(f"{name} must hold whole numbers, got {describe(value)}")
    return array


def rsj_weight(N: int, n_t: ArrayLike, R: ArrayLike = 0, r_t: ArrayLike = 0,
               correction: float = 0.5) -> float | np.ndarray:
    """The Robertson–Spärck Jones weight of a term: the log odds ratio of its contingency table.

    w_t = log( p_t (1 − u_t) / (u_t (1 − p_t)) )
        = log( (r_t + c)(N − n_t − R + r_t + c) / ((n_t − r_t + c)(R − r_t + c)) )

    with p_t = (r_t + c) / (R + 2c), u_t = (n_t − r_t + c) / (N − R + 2c) and the
    correction c (0.5 classically) added to each of the four cells of the table
    (module docstring), so that no cell is 0 and the logarithm is always finite.

    Parameters
    ----------
    N : int
        Number of documents in the collection, N >= 1.
    n_t : int or array of int
        Number of documents containing the term, 0 <= n_t <= N.
    R : int or array of int
        Number of documents known to be relevant, 0 <= R <= N (0: no relevance
        information).
    r_t : int or array of int
        Number of relevant documents containing the term: r_t <= R, r_t <= n_t and
        n_t − r_t <= N − R.
    correction : float
        c > 0, added to every cell.

    Returns
    -------
    float, or an array of the broadcast shape of the counts.
    Positive when the term is relatively more frequent among relevant documents than
    among the others, negative when less; 0 when it says nothing. With R = r_t = 0 it
    is log((N − n_t + c) / (n_t + c)): negative for a term in more than half the
    collection.

    Examples
    --------
    >>> round(rsj_weight(N=1000, n_t=10), 4)                # no relevance information
    4.5468
    >>> round(rsj_weight(N=1000, n_t=10, R=5, r_t=4), 4)     # 4 of 5 relevant contain t
    6.124
    >>> rsj_weight(N=1000, n_t=[10, 500], R=5, r_t=[0, 4]).round(4)
    array([2.1439, 1.1046])
    """
    N = _check_counts("N", N)
    n_t = _check_counts("n_t", n_t)
    R = _check_counts("R", R)
    r_t = _check_counts("r_t", r_t)
    c = check_number("correction", correction, low=0.0, low_open=True)
    try:
        N, n_t, R, r_t = np.broadcast_arrays(N, n_t, R, r_t)
    except ValueError:
        raise ValueError(f"N, n_t, R and r_t must have broadcastable shapes, got "
                         f"{N.shape}, {n_t.shape}, {R.shape}, {r_t.shape}") from None
    for ok, message in (
        (N >= 1, "N must be >= 1"),
        (n_t <= N, "n_t must be <= N (a term cannot be in more documents than there are)"),
        (R <= N, "R must be <= N (more relevant documents than documents)"),
        (r_t <= R, "r_t must be <= R (more relevant documents contain t than there are relevant documents)"),
        (r_t <= n_t, "r_t must be <= n_t (more relevant documents contain t than documents contain t)"),
        (n_t - r_t <= N - R, "n_t − r_t must be <= N − R (more non-relevant documents contain t "
                             "than there are non-relevant documents)"),
    ):
        if not np.all(ok):
            raise ValueError(message)
    weight = (np.log(r_t + c) + np.log(N - n_t - R + r_t + c)
              - np.log(n_t - r_t + c) - np.log(R - r_t + c))
    return float(weight) if weight.ndim == 0 else weight


class TermWeight(NamedTuple):
    """A query term's row of the contingency table and its RSJ weight."""

    n_t: int  #: documents containing the term
    r_t: int  #: known relevant documents containing the term
    weight: float  #: rsj_weight(N, n_t, R, r_t)


def _check_relevant(index: InvertedIndex, relevant: Iterable[int] | None) -> np.ndarray:
    """The distinct ids of the known relevant documents (none when ``relevant`` is None)."""
    if relevant is None:
        return np.empty(0, dtype=np.int64)
    if isinstance(relevant, Iterable) and not isinstance(relevant, (str, bytes, np.ndarray, dict)):
        relevant = list(relevant)  # a set, a range
    ids = check_array("relevant", relevant, kind="int", ndim=1, low=0, high=index.num_docs - 1)
    return np.unique(ids)


def bim_term_weights(
    index: InvertedIndex,
    query: str | Sequence[str],
    relevant: Iterable[int] | None = None,
    *,
    correction: float = 0.5,
) -> dict[str, TermWeight]:
    """{term: (n_t, r_t, RSJ weight)} for the distinct query terms in the dictionary.

    ``relevant`` holds the ids (positions in ``index``) of the documents known to be
    relevant; R is their number and r_t how many of them contain t. Without it
    (``None`` or empty) R = r_t = 0 and each weight is an idf. Query terms missing from
    the dictionary are left out (they occur in no document and change no score).

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer
    >>> index = InvertedIndex.from_texts(["a cat", "a dog", "a cat and a dog", "a bird"], Analyzer())
    >>> {t: round(w.weight, 3) for t, w in bim_term_weights(index, "cat bird").items()}
    {'cat': 0.0, 'bird': 0.847}
    >>> cat = bim_term_weights(index, "cat bird", relevant=[0, 2])["cat"]
    >>> cat.n_t, cat.r_t, round(cat.weight, 3)  # log(2.5 · 2.5 / (0.5 · 0.5)) = log 25
    (2, 2, 3.219)
    """
    check_instance("index", index, InvertedIndex)
    relevant_ids = _check_relevant(index, relevant)
    correction = check_number("correction", correction, low=0.0, low_open=True)
    weights = {}
    for term in dict.fromkeys(index.query_terms(query)):  # the BIM's query is a set: each term once
        doc_ids, _ = index.postings_list(term)
        if len(doc_ids) == 0:
            continue
        n_t = len(doc_ids)
        r_t = int(np.isin(doc_ids, relevant_ids, assume_unique=True).sum())
        weights[term] = TermWeight(n_t, r_t, rsj_weight(index.num_docs, n_t, len(relevant_ids), r_t, correction))
    return weights


def bim_scores(
    index: InvertedIndex,
    query: str | Sequence[str],
    relevant: Iterable[int] | None = None,
    *,
    correction: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    """RSV(q, d) = Σ_{t ∈ q ∩ d} w_t, the Binary Independence Model's retrieval status value.

    The log odds of relevance of d, up to a constant that depends only on the query:
    every query term present in d adds its RSJ weight w_t (:func:`rsj_weight`), absent
    terms add nothing, repetitions count once (in the query and in the document).

    Parameters
    ----------
    index : InvertedIndex
    query : str or sequence of str (analysed as in :func:`~mmir_lib.ir.bm25.bm25_scores`)
    relevant : collection of int, optional
        Ids of documents known to be relevant (relevance information). Without it
        the weights are the Robertson idf log((N − n_t + 0.5) / (n_t + 0.5)).
    correction : float
        Added to each cell of the contingency table (0.5).

    Returns
    -------
    scores : (N,) float64
        0 for documents that contain no query term; can be negative (a term with a
        negative weight).
    matched : (N,) bool
        True for documents containing at least one query term.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer
    >>> index = InvertedIndex.from_texts(["a cat", "a dog", "a cat and a dog", "a bird"], Analyzer())
    >>> scores, matched = bim_scores(index, "cat bird", relevant=[0, 2])
    >>> scores.round(3).tolist(), matched.tolist()
    ([3.219, 0.0, 3.219, -1.609], [True, False, True, True])
    """
    check_instance("index", index, InvertedIndex)
    scores = np.zeros(index.num_docs, dtype=np.float64)
    matched = np.zeros(index.num_docs, dtype=bool)
    for term, tw in bim_term_weights(index, query, relevant, correction=correction).items():
        doc_ids, _ = index.postings_list(term)
        scores[doc_ids] += tw.weight
        matched[doc_ids] = True
    return scores, matched


def bm25_rsj_scores(
    index: InvertedIndex,
    query: str | Sequence[str],
    relevant: Iterable[int] | None = None,
    *,
    k1: float = 1.2,
    b: float = 0.75,
    correction: float = 0.5,
) -> tuple[np.ndarray, np.ndarray]:
    """BM25 with the RSJ weight as its idf factor: Σ_{t ∈ q} S(tf, dl) · w_t.

    This is BM25 as Robertson and Walker (1994) wrote it: the saturation factor
    S = tf / (k1·((1 − b) + b·dl/avdl) + tf) of :func:`~mmir_lib.ir.bm25.saturation`
    times w_t = :func:`rsj_weight` (N, n_t, R, r_t). Without relevance information it
    is the ``"robertson"`` variant of :func:`~mmir_lib.ir.bm25.bm25_scores` except that
    w_t is not floored at 0; with ``relevant`` it uses what is known about relevance.
    A term repeated in the query counts once per occurrence, as in ``bm25_scores``.

    Returns
    -------
    scores : (N,) float64 and matched : (N,) bool, as :func:`bim_scores`.

    Examples
    --------
    >>> from mmir_lib.ir import Analyzer
    >>> index = InvertedIndex.from_texts(["a cat", "a dog", "a cat and a dog", "a bird"], Analyzer())
    >>> scores, matched = bm25_rsj_scores(index, "cat bird", relevant=[0, 2], k1=1.0, b=0.0)
    >>> scores.round(3).tolist()  # S = 1/(1 + 1) = 0.5 for every tf = 1
    [1.609, 0.0, 1.609, -0.805]
    """
    check_instance("index", index, InvertedIndex)
    k1 = check_number("k1", k1, low=0.0)
    b = check_probability("b", b)
    weights = bim_term_weights(index, query, relevant, correction=correction)
    scores = np.zeros(index.num_docs, dtype=np.float64)
    matched = np.zeros(index.num_docs, dtype=bool)
    for term in index.query_terms(query):
        if term not in weights:
            continue
        doc_ids, tf = index.postings_list(term)
        scores[doc_ids] += saturation(tf, index.doc_lengths[doc_ids], index.avdl, k1, b) * weights[term].weight
        matched[doc_ids] = True
    return scores, matched


# ---- 2-Poisson model ---------------------------------------------------------------

@dataclass(frozen=True, eq=False)  # eq would compare the trace arrays element-wise
class TwoPoissonFit:
    """A fitted mixture P(tf = k) = π·Poisson(k; λ) + (1 − π)·Poisson(k; μ), λ >= μ."""

    pi: float  #: π, the fraction of elite documents
    lam: float  #: λ, the mean tf in elite documents
    mu: float  #: μ, the mean tf in the other documents
    log_likelihood: float  #: Σ_d log P(tf_d) at the fitted parameters
    iterations: int  #: EM iterations run
    converged: bool  #: False if max_iter was reached first, or a component emptied
    trace: np.ndarray  #: (iterations + 1,) log-likelihood after each iteration, the start first

    def pmf(self, k: ArrayLike) -> np.ndarray:
        """P(tf = k) under the fitted mixture, element-wise."""
        k = _check_counts("k", k)
        return np.exp(_log_mixture(k, self.pi, self.lam, self.mu))


def _log_poisson(k: np.ndarray, rate: float) -> np.ndarray:
    # log(rate^k e^{-rate} / k!); xlogy makes 0^0 = 1, so rate = 0 puts all mass on k = 0
    return scipy.special.xlogy(k, rate) - rate - scipy.special.gammaln(k + 1)


def _log_mixture(k: np.ndarray, pi: float, lam: float, mu: float) -> np.ndarray:
    with np.errstate(divide="ignore"):  # log 0 = -inf when pi is 0 or 1
        return np.logaddexp(np.log(pi) + _log_poisson(k, lam), np.log1p(-pi) + _log_poisson(k, mu))


def _check_tf_counts(tf_counts: ArrayLike) -> np.ndarray:
    """One term frequency per document (zeros included), as int64."""
    return _check_counts("tf_counts", tf_counts, ndim=1, nonempty=True).astype(np.int64)


def _check_init(name: str, init: object) -> tuple[float, float, float]:
    """A starting point (π, λ, μ) that EM can move from."""
    if isinstance(init, (str, bytes)) or not isinstance(init, Sequence) or len(init) != 3:
        raise TypeError(f"{name} must be a tuple (pi, lam, mu), got {describe(init)}")
    pi, lam, mu = (check_number(f"{name} {part}", value, low=0.0) for part, value in zip(("pi", "lam", "mu"), init))
    if not 0 < pi < 1 or lam == mu or min(lam, mu) == 0:
        raise ValueError(f"{name} must have 0 < pi < 1 and two different rates > 0, or EM cannot move")
    return pi, lam, mu


def two_poisson_log_likelihood(tf_counts: ArrayLike, pi: float, lam: float, mu: float) -> float:
    """Σ_d log(π·Poisson(tf_d; λ) + (1 − π)·Poisson(tf_d; μ)), the mixture's log-likelihood.

    Examples
    --------
    >>> round(two_poisson_log_likelihood([0, 0, 1, 3], pi=0.25, lam=3.0, mu=0.2), 4)
    -5.6346
    """
    tf = _check_tf_counts(tf_counts)
    pi = check_probability("pi", pi)
    lam = check_number("lam", lam, low=0.0)
    mu = check_number("mu", mu, low=0.0)
    values, counts = np.unique(tf, return_counts=True)
    return float(counts @ _log_mixture(values.astype(np.float64), pi, lam, mu))


def _remaining_gain(trace: list[float]) -> float:
    """How much more log-likelihood EM will still gain, by Aitken extrapolation.

    EM converges linearly: successive gains shrink by a roughly constant factor a, so
    what is left after gain g is about g·a/(1 − a). Stopping on g alone stops far too
    early when a is close to 1, as it is for overlapping components (Böhning et al. 1994).
    """
    gain = trace[-1] - trace[-2]
    if len(trace) < 3 or gain <= 0:
        return max(gain, 0.0)
    ratio = gain / (trace[-2] - trace[-3]) if trace[-2] > trace[-3] else 1.0
    return gain * ratio / (1 - ratio) if ratio < 1 else np.inf


def fit_two_poisson(
    tf_counts: ArrayLike,
    *,
    init: tuple[float, float, float] | None = None,
    max_iter: int = 10_000,
    tol: float = 1e-10,
) -> TwoPoissonFit:
    """Fit π, λ, μ of the 2-Poisson mixture to a term's tf in every document, by EM.

    Model: each document is elite for the term with probability π; its tf is then
    Poisson(λ), otherwise Poisson(μ). EM (Dempster, Laird and Rubin 1977) alternates

    * E-step: γ_d = π·Poisson(tf_d; λ) / P(tf_d), the posterior that d is elite;
    * M-step: π = mean(γ), λ = Σ γ_d tf_d / Σ γ_d, μ = Σ (1 − γ_d) tf_d / Σ (1 − γ_d),

    and never decreases the likelihood. Documents are grouped by their tf value, so
    one iteration costs O(number of distinct tf values), not O(N).

    Parameters
    ----------
    tf_counts : (N,) array of int
        The term's frequency in **every** document, zeros included.
    init : (π, λ, μ), optional
        Starting point. Default: π = fraction of documents containing the term,
        λ = mean tf among them, μ = a tenth of the overall mean tf.
    max_iter : int
        Most EM iterations.
    tol : float
        Stop when the gain still to come, estimated by Aitken extrapolation from the
        last two gains, is below tol · |log-likelihood|.

    Returns
    -------
    TwoPoissonFit
        With λ >= μ (the components are swapped at the end if needed, so that the
        elite one is the one with the higher rate).

    Raises
    ------
    ValueError
        For an empty, negative or non-integer tf array, and when the tf values are
        all equal (all zero: the term never occurs; any other constant: the two
        rates cannot be told apart).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> elite = rng.random(20_000) < 0.1
    >>> tf = np.where(elite, rng.poisson(5.0, 20_000), rng.poisson(0.2, 20_000))
    >>> fit = fit_two_poisson(tf)
    >>> round(fit.pi, 2), round(fit.lam, 1), round(fit.mu, 2), fit.converged
    (0.1, 4.9, 0.19, True)
    """
    tf = _check_tf_counts(tf_counts)
    init = check_optional(_check_init, "init", init)
    max_iter = check_count("max_iter", max_iter, low=1)
    tol = check_number("tol", tol, low=0.0, high=1.0)
    values, counts = np.unique(tf, return_counts=True)
    if len(values) == 1:
        if values[0] == 0:
            raise ValueError("every tf is 0: the term occurs in no document, there is nothing to fit")
        raise ValueError(f"every tf equals {values[0]}: a single value cannot separate two Poisson rates")
    k = values.astype(np.float64)
    weights = counts.astype(np.float64)
    if init is None:
        present = k > 0
        pi = weights[present].sum() / weights.sum()
        lam = (weights[present] @ k[present]) / weights[present].sum()
        mu = 0.1 * (weights @ k) / weights.sum()
    else:
        pi, lam, mu = init

    log_lik = float(weights @ _log_mixture(k, pi, lam, mu))
    trace = [log_lik]
    converged = False
    for _ in range(max_iter):
        # E-step: posterior probability of eliteness for each distinct tf value
        with np.errstate(divide="ignore"):
            log_elite = np.log(pi) + _log_poisson(k, lam)
            log_other = np.log1p(-pi) + _log_poisson(k, mu)
        gamma = np.exp(log_elite - np.logaddexp(log_elite, log_other))
        # M-step: weighted means (every document with this tf counts `weights` times)
        elite_mass, other_mass = weights @ gamma, weights @ (1 - gamma)
        if not (elite_mass > 0 and other_mass > 0):
            break  # a component lost every document (underflow): the mixture has collapsed
        pi = elite_mass / weights.sum()
        lam = (weights * gamma) @ k / elite_mass
        mu = (weights * (1 - gamma)) @ k / other_mass
        trace.append(float(weights @ _log_mixture(k, pi, lam, mu)))
        log_lik = trace[-1]
        if _remaining_gain(trace) <= tol * abs(log_lik):
            converged = True
            break
    if lam < mu:
        pi, lam, mu = 1 - pi, mu, lam
    return TwoPoissonFit(float(pi), float(lam), float(mu), log_lik, len(trace) - 1, converged,
                         np.array(trace))


def eliteness_weight(tf: ArrayLike, lam: float, mu: float, p_rel: float, p_nonrel: float) -> float | np.ndarray:
    """The term weight the 2-Poisson model implies for a document with frequency tf.

    Robertson and Walker (1994): with P(tf | rel) = p·Poisson(tf; λ) + (1 − p)·Poisson(tf; μ)
    and P(tf | non-rel) the same with q, where p = P(elite | rel) and q = P(elite | non-rel),

        w(tf) = log( P(tf | rel) · P(0 | non-rel) / (P(tf | non-rel) · P(0 | rel)) ),

    the log odds of relevance of a document with this tf relative to one without the
    term. w(0) = 0; for p > q and λ > μ it rises with tf towards the limit

        w(∞) = log( p · (q e^{−λ} + (1 − q) e^{−μ}) / (q · (p e^{−λ} + (1 − p) e^{−μ})) ),

    which for small μ and large λ is close to the RSJ weight of eliteness,
    log(p (1 − q) / (q (1 − p))). Computed in log space, so large tf is safe.

    Parameters
    ----------
    tf : int or array of int, >= 0
    lam, mu : float
        Poisson rates of elite and non-elite documents, lam > mu >= 0.
    p_rel, p_nonrel : float in [0, 1]
        p = P(elite | relevant) and q = P(elite | not relevant). Fitting the mixture
        to a whole collection gives π, a good estimate of q when few documents are
        relevant; p is not identified by term statistics alone.

    Returns
    -------
    float, or an array shaped like ``tf``.

    Examples
    --------
    >>> eliteness_weight([0, 1, 2, 5, 20], lam=4.0, mu=0.3, p_rel=0.8, p_nonrel=0.1).round(3)
    array([0.   , 0.713, 2.433, 3.491, 3.492])
    """
    tf_array = _check_counts("tf", tf)
    lam = check_number("lam", lam, low=0.0)
    mu = check_number("mu", mu, low=0.0)
    p_rel = check_probability("p_rel", p_rel)
    p_nonrel = check_probability("p_nonrel", p_nonrel)
    if not lam > mu:
        raise ValueError(f"lam and mu must satisfy lam > mu (elite documents use the term more), "
                         f"got lam={lam}, mu={mu}")

    def log_p_tf(tf_values, p_elite):  # log P(tf | class) up to the log tf! shared by both classes
        with np.errstate(divide="ignore"):
            return np.logaddexp(np.log(p_elite) + scipy.special.xlogy(tf_values, lam) - lam,
                                np.log1p(-p_elite) + scipy.special.xlogy(tf_values, mu) - mu)

    zero = np.zeros(1)
    with np.errstate(invalid="ignore"):  # -inf - -inf only when both classes exclude tf, see below
        weight = (log_p_tf(tf_array, p_rel) - log_p_tf(tf_array, p_nonrel)
                  + log_p_tf(zero, p_nonrel)[0] - log_p_tf(zero, p_rel)[0])
    if np.any(~np.isfinite(weight)):
        raise ValueError("the weight is undefined: with these p_rel and p_nonrel some tf has "
                         "probability 0 in one class (e.g. mu = 0 and p_rel or p_nonrel = 0)")
    return float(weight) if weight.ndim == 0 else weight
