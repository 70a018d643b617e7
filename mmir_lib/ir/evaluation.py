"""Effectiveness measures for ranked retrieval, computed exactly as trec_eval does.

Conventions (the same for every per-query function in this module):

``ranking``
    The docnos retrieved for one query, best first: a list of str. To rank one
    query of a run the way trec_eval does, use :func:`mmir_lib.ir.trec.trec_ranking`.
``judgements``
    That query's relevance judgements, ``{docno: grade}`` (one entry of the qrels).

A document is **relevant** when its grade is at least 1 (trec_eval's default
relevance level); a retrieved document missing from ``judgements`` counts as not
relevant. Negative grades, which some TREC collections use for "in the pool but not
judged", are neither relevant nor judged, as in trec_eval. n is the number of
retrieved documents, rel_i ∈ {0, 1} says whether the document at rank i is
relevant, g_i is its grade (0 when unjudged) and R is the number of relevant
documents in ``judgements``, retrieved or not. Every measure (RBP's residual aside)
is 0 for a query with R = 0, as in trec_eval.

Per-query measures: :func:`precision`, :func:`recall`, :func:`f1` (set based, over
the whole retrieved list), :func:`precision_at_k`, :func:`recall_at_k`,
:func:`average_precision`, :func:`r_precision`, :func:`reciprocal_rank`, :func:`bpref`,
:func:`interpolated_precision`, :func:`precision_recall_curve`, :func:`dcg`,
:func:`ndcg` and :func:`rank_biased_precision`. Over a whole run: :func:`evaluate`
(pytrec_eval's measure names), :func:`condensed` (a run without its unjudged
documents), :func:`aggregate` with :func:`arithmetic_mean` or
:func:`geometric_mean`; two systems compared with :func:`paired_t_test` and
:func:`wilcoxon_test`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cached_property
from itertools import repeat
from typing import NamedTuple

import numpy as np

from ..validation import check_array, check_choice, check_count, check_number, check_optional, describe
from .trec import _trec_ranks, check_docnos, check_judgements, check_qrels, run_scores

__all__ = [
    "CUTOFFS",
    "GM_FLOOR",
    "MEASURES",
    "RECALL_LEVELS",
    "PRCurve",
    "PairedTest",
    "RBP",
    "aggregate",
    "arithmetic_mean",
    "average_precision",
    "bpref",
    "condensed",
    "dcg",
    "evaluate",
    "f1",
    "geometric_mean",
    "held_out_scores",
    "interpolated_precision",
    "ndcg",
    "paired_t_test",
    "precision",
    "precision_at_k",
    "precision_recall_curve",
    "r_precision",
    "rank_biased_precision",
    "recall",
    "recall_at_k",
    "reciprocal_rank",
    "wilcoxon_test",
]

#: trec_eval's default cutoffs for P, recall, map_cut and ndcg_cut.
CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
#: The 11 standard recall levels 0.0, 0.1, ..., 1.0.
RECALL_LEVELS = tuple(i / 10 for i in range(11))
#: trec_eval's floor for the geometric mean (gm_map): a 0 would make it 0 whatever the rest.
GM_FLOOR = 1e-5
RELEVANT = 1  # lowest grade that counts as relevant
UNJUDGED = -1  # grade given to a retrieved document that is not in the judgements


# ---- one query's ranking looked up in its judgements ---------------------------------

class _Judged:
    """What every measure is computed from: the grades of the ranked documents.

    ``grades[i]`` is the grade of the document at rank i + 1 (UNJUDGED when absent from
    the judgements); the rest is derived once, when a measure first asks for it.
    """

    def __init__(self, grades: np.ndarray, judgements: Mapping[str, int]):
        self.grades = grades  # (n,) int
        self.judged = np.fromiter(judgements.values(), np.int64, len(judgements))  # (m,) every grade
        self.num_ret = len(grades)
        self.num_rel = int(np.count_nonzero(self.judged >= RELEVANT))  # R

    @classmethod
    def of_ranking(cls, ranking: Sequence[str], judgements: Mapping[str, int]) -> _Judged:
        """Each ranked docno looked up in the judgements."""
        n = len(ranking)
        return cls(np.fromiter(map(judgements.get, ranking, repeat(UNJUDGED, n)), np.int64, n), judgements)

    @classmethod
    def of_query(cls, doc_scores: Mapping[str, float], scores: np.ndarray,
                 judgements: Mapping[str, int]) -> _Judged:
        """A checked query of a run (``scores`` in its mapping's order): only the judged
        documents it retrieved are ranked, usually far fewer than it retrieved."""
        grades = np.full(len(scores), UNJUDGED, dtype=np.int64)
        found = list(judgements.keys() & doc_scores.keys())
        if found:
            grades[_trec_ranks(doc_scores, scores, found)] = [judgements[docno] for docno in found]
        return cls(grades, judgements)

    @cached_property
    def relevant(self) -> np.ndarray:  # (n,) bool
        return self.grades >= RELEVANT

    @cached_property
    def hits(self) -> np.ndarray:  # (n,) hits[i] = relevant documents in the top i + 1
        return np.cumsum(self.relevant)

    @cached_property
    def num_rel_ret(self) -> int:
        return int(self.hits[-1]) if self.num_ret else 0

    @cached_property
    def relevant_ranks(self) -> np.ndarray:  # (num_rel_ret,) 1-based ranks of the relevant documents
        return np.flatnonzero(self.relevant) + 1

    @cached_property
    def best_precision_from_relevant(self) -> np.ndarray:  # (num_rel_ret,)
        # precision at the m-th relevant document, then the best from there to the end
        at_relevant = np.arange(1, self.num_rel_ret + 1) / self.relevant_ranks
        return np.maximum.accumulate(at_relevant[::-1])[::-1]

    @cached_property
    def gains(self) -> np.ndarray:  # (n,) float: grade, negative ones and unjudged as 0
        return np.maximum(self.grades, 0).astype(np.float64)

    @cached_property
    def ideal_gains(self) -> np.ndarray:  # every positive grade in the judgements, largest first
        return -np.sort(-self.judged[self.judged > 0].astype(np.float64))

    def hits_at(self, k: int) -> int:
        """Relevant documents among the top k."""
        return int(self.hits[min(k, self.num_ret) - 1]) if self.num_ret else 0


def _judge(ranking: Sequence[str], judgements: Mapping[str, int]) -> _Judged:
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, (Sequence, np.ndarray)):
        raise TypeError(f"ranking must be a sequence of docnos (list of str), got {type(ranking).__name__}")
    check_docnos(ranking, "ranking")
    if len(set(ranking)) != len(ranking):
        seen: set[str] = set()
        duplicate = next(d for d in ranking if d in seen or seen.add(d))
        raise ValueError(f"ranking lists {duplicate!r} twice; a document can be retrieved only once")
    check_judgements(judgements)
    return _Judged.of_ranking(ranking, judgements)


# ---- set-based measures --------------------------------------------------------------

def _precision(j: _Judged) -> float:
    return j.num_rel_ret / j.num_ret if j.num_ret else 0.0


def _recall(j: _Judged) -> float:
    return j.num_rel_ret / j.num_rel if j.num_rel else 0.0


def _f1(j: _Judged) -> float:
    if j.num_rel_ret == 0:
        return 0.0
    p, r = _precision(j), _recall(j)
    return 2.0 * p * r / (p + r)


def precision(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """Set precision: the fraction of the retrieved documents that are relevant.

    P = |relevant ∩ retrieved| / |retrieved|, over the whole list (0 when nothing
    is retrieved). trec_eval: ``set_P``.

    Examples
    --------
    >>> precision(["d1", "d2", "d3", "d4"], {"d1": 1, "d3": 2, "d9": 1})
    0.5
    """
    return _precision(_judge(ranking, judgements))


def recall(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """Set recall: the fraction of the relevant documents that are retrieved.

    Rec = |relevant ∩ retrieved| / R (0 when R = 0). trec_eval: ``set_recall``.

    Examples
    --------
    >>> recall(["d1", "d2", "d3", "d4"], {"d1": 1, "d3": 2, "d9": 1})  # 2 of 3
    0.6666666666666666
    """
    return _recall(_judge(ranking, judgements))


def f1(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """F1, the harmonic mean of set precision and set recall.

    F1 = 2 · P · Rec / (P + Rec), and 0 when no relevant document is retrieved.
    trec_eval: ``set_F`` (its default β = 1).

    Examples
    --------
    >>> round(f1(["d1", "d2", "d3", "d4"], {"d1": 1, "d3": 2, "d9": 1}), 12)  # 2·(1/2)(2/3)/(7/6)
    0.571428571429
    """
    return _f1(_judge(ranking, judgements))


# ---- measures at a rank cutoff -----------------------------------------------------

def _precision_at_k(j: _Judged, k: int) -> float:
    return j.hits_at(k) / k


def _recall_at_k(j: _Judged, k: int) -> float:
    return j.hits_at(k) / j.num_rel if j.num_rel else 0.0


def precision_at_k(ranking: Sequence[str], judgements: Mapping[str, int], k: int) -> float:
    """P@k: the fraction of the top k that is relevant.

    P@k = (1/k) · Σ_{i=1..k} rel_i. The divisor is k even when fewer than k
    documents are retrieved (the missing ones count as not relevant), as in
    trec_eval's ``P_k``.

    Examples
    --------
    >>> precision_at_k(["d1", "d2", "d3"], {"d1": 1, "d3": 1}, k=2)
    0.5
    >>> precision_at_k(["d1", "d2", "d3"], {"d1": 1, "d3": 1}, k=10)  # 2 relevant / 10
    0.2
    """
    k = check_count("k", k, low=1)
    return _precision_at_k(_judge(ranking, judgements), k)


def recall_at_k(ranking: Sequence[str], judgements: Mapping[str, int], k: int) -> float:
    """R@k: the fraction of all R relevant documents found in the top k.

    R@k = (1/R) · Σ_{i=1..k} rel_i; 0 when R = 0. trec_eval: ``recall_k``. Unlike
    P@k, it can only grow with k (reading further never loses a relevant document),
    reaching the set recall at k = n.

    Examples
    --------
    >>> recall_at_k(["d1", "d2", "d3"], {"d1": 1, "d3": 1, "d8": 2, "d9": 1}, k=3)  # 2 of 4
    0.5
    """
    k = check_count("k", k, low=1)
    return _recall_at_k(_judge(ranking, judgements), k)


def _r_precision(j: _Judged) -> float:
    return j.hits_at(j.num_rel) / j.num_rel if j.num_rel else 0.0


def r_precision(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """R-precision: P@R, precision after as many documents as there are relevant ones.

    At that rank precision equals recall. 0 when R = 0. trec_eval: ``Rprec``.

    Examples
    --------
    >>> r_precision(["d1", "d2", "d3", "d4"], {"d1": 1, "d3": 1, "d4": 1})  # 2 in the top 3
    0.6666666666666666
    """
    return _r_precision(_judge(ranking, judgements))


def _reciprocal_rank(j: _Judged) -> float:
    return 1.0 / int(j.relevant_ranks[0]) if j.num_rel_ret else 0.0


def reciprocal_rank(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """1 / (rank of the first relevant document); 0 when none is retrieved.

    RR = max_{i : rel_i = 1} 1/i. Its mean over queries is MRR. trec_eval:
    ``recip_rank``.

    Examples
    --------
    >>> reciprocal_rank(["d1", "d2", "d3"], {"d3": 1, "d1": 0})
    0.3333333333333333
    """
    return _reciprocal_rank(_judge(ranking, judgements))


# ---- incomplete judgements: bpref and condensed lists ---------------------------------

def _bpref(j: _Judged) -> float:
    if j.num_rel == 0:
        return 0.0
    nonrelevant = int(np.count_nonzero((j.judged >= 0) & (j.judged < RELEVANT)))  # N judged non-relevant
    judged_nonrelevant = (j.grades >= 0) & ~j.relevant
    above = np.cumsum(judged_nonrelevant)[j.relevant]  # judged non-relevant ranked above each relevant one
    if not len(above):
        return 0.0
    penalty = np.minimum(above, j.num_rel) / min(j.num_rel, nonrelevant) if nonrelevant else np.zeros(len(above))
    return float(np.sum(1.0 - penalty)) / j.num_rel


def bpref(ranking: Sequence[str], judgements: Mapping[str, int]) -> float:
    """Binary preference (Buckley and Voorhees 2004), as trec_eval computes it:

        bpref = (1/R) Σ_{relevant retrieved r} (1 − min(n_r, R) / min(R, N)) ,

    n_r the number of judged non-relevant documents ranked above r, N the number of judged
    non-relevant documents. Unjudged documents are skipped, not counted as non-relevant,
    so a run is not punished for finding documents the pool never showed the assessors.
    trec_eval: ``bpref``.

    Examples
    --------
    >>> bpref(["d1", "x", "d2", "d3"], {"d1": 0, "d2": 1, "d3": 1, "d4": 0})
    0.5
    """
    return _bpref(_judge(ranking, judgements))


def condensed(run: Mapping[str, Mapping[str, float]], qrels: Mapping[str, Mapping[str, int]]
              ) -> dict[str, dict[str, float]]:
    """The run with every unjudged document removed (Sakai's condensed list): any measure
    of the result ignores unjudged documents instead of counting them as non-relevant.
    A query without judgements keeps nothing."""
    run_scores("run", run)
    check_qrels("qrels", qrels)
    return {qid: {d: s for d, s in doc_scores.items() if d in qrels.get(qid, {})} for qid, doc_scores in run.items()}


# ---- average precision and precision-recall curves --------------------------------

def _average_precision(j: _Judged, k: int | None = None) -> float:
    if j.num_rel == 0:
        return 0.0
    ranks = j.relevant_ranks if k is None else j.relevant_ranks[j.relevant_ranks <= k]
    # the m-th relevant document sits at rank ranks[m - 1], where P@rank = m / rank
    return float(np.sum(np.arange(1, len(ranks) + 1) / ranks) / j.num_rel)


def average_precision(ranking: Sequence[str], judgements: Mapping[str, int], k: int | None = None) -> float:
    """AP: the mean of P@i over the ranks i of the relevant documents.

    AP = (1/R) · Σ_{i : rel_i = 1} P@i. A relevant document that is not retrieved
    adds 0, so it counts against the system through the divisor R. With ``k``, only
    ranks i ≤ k count (trec_eval's ``map_cut_k``); without, the whole list
    (``map``). AP is the area under the uninterpolated precision-recall curve: each
    relevant document raises recall by 1/R at a point where precision is P@i.
    Its mean over queries is MAP.

    Examples
    --------
    >>> # relevant at ranks 1 and 3, a third one never retrieved: (1/1 + 2/3) / 3
    >>> round(average_precision(["d1", "d2", "d3"], {"d1": 1, "d3": 1, "d9": 1}), 12)
    0.555555555556
    >>> average_precision(["d1", "d2", "d3"], {"d1": 1, "d3": 1, "d9": 1}, k=2)  # (1/1) / 3
    0.3333333333333333
    """
    k = check_optional(check_count, "k", k, low=1)
    return _average_precision(_judge(ranking, judgements), k)


class PRCurve(NamedTuple):
    """Precision and recall after each rank i = 1..n, all (n,) float arrays."""

    recall: np.ndarray
    precision: np.ndarray
    interpolated: np.ndarray  #: max precision at any rank whose recall is at least this rank's


def precision_recall_curve(ranking: Sequence[str], judgements: Mapping[str, int]) -> PRCurve:
    """Recall and precision after every rank, and the interpolated precision.

    recall_i = (Σ_{j ≤ i} rel_j) / R, precision_i = (Σ_{j ≤ i} rel_j) / i and
    interpolated_i = max { precision_j : recall_j ≥ recall_i }, the step curve drawn
    in precision-recall plots (it never goes up as recall grows). Recall is 0
    throughout when R = 0.

    Examples
    --------
    >>> curve = precision_recall_curve(["d1", "d2", "d3", "d4"], {"d2": 1, "d3": 1})
    >>> curve.recall.tolist(), curve.precision.tolist()
    ([0.0, 0.5, 1.0, 1.0], [0.0, 0.5, 0.6666666666666666, 0.5])
    >>> curve.interpolated.tolist()
    [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 0.6666666666666666]
    """
    j = _judge(ranking, judgements)
    ranks = np.arange(1, j.num_ret + 1)
    precision_i = j.hits / ranks
    recall_i = j.hits / j.num_rel if j.num_rel else np.zeros(j.num_ret)
    best_from_here = np.maximum.accumulate(precision_i[::-1])[::-1]
    first_at_recall = np.searchsorted(recall_i, recall_i, side="left")  # recall_i never decreases
    return PRCurve(recall_i, precision_i, best_from_here[first_at_recall])


def _interpolated_precision(j: _Judged, level: float) -> float:
    # trec_eval turns the level into a number of relevant documents with a +0.9 rule
    needed = max(int(level * j.num_rel + 0.9), 1)
    if needed > j.num_rel_ret:
        return 0.0
    return float(j.best_precision_from_relevant[needed - 1])


def interpolated_precision(
    ranking: Sequence[str],
    judgements: Mapping[str, int],
    recall_levels: Sequence[float] = RECALL_LEVELS,
) -> np.ndarray:
    """Interpolated precision at recall levels, by default the standard 11.

    p_interp(r) = max { P@i : recall after rank i ≥ r }: the best precision
    achievable by reading on until recall reaches r; 0 when recall r is never
    reached. trec_eval: ``iprec_at_recall_0.00`` ... ``iprec_at_recall_1.00``.

    Returns
    -------
    (len(recall_levels),) float array

    Notes
    -----
    trec_eval decides that level r is reached once c = floor(r·R + 0.9) relevant
    documents are found (at least 1), computed in floating point; this function
    does the same. For the 11 standard levels it equals ceil(r·R) except where
    rounding bites: for R = 3 and r = 0.7, 0.7·3 + 0.9 evaluates to
    2.9999999999999996, so two relevant documents (recall 0.67) already "reach"
    0.7. For a query with nothing retrieved, trec_eval computes 0/0 and reports NaN
    at the lowest levels; this function returns 0.

    Examples
    --------
    >>> # relevant at ranks 2 and 3 of 4 (R = 2): P@2 = 1/2, P@3 = 2/3
    >>> interpolated_precision(["d1", "d2", "d3", "d4"], {"d2": 1, "d3": 1}, [0.0, 0.5, 1.0]).round(4).tolist()
    [0.6667, 0.6667, 0.6667]
    >>> interpolated_precision(["d1", "d2", "d3"], {"d1": 1, "d9": 1}, [0.5, 1.0]).tolist()
    [1.0, 0.0]
    """
    levels = check_array("recall_levels", recall_levels, ndim=1, low=0.0, high=1.0)
    j = _judge(ranking, judgements)
    return np.array([_interpolated_precision(j, level) for level in levels.tolist()], dtype=np.float64)


# ---- graded measures: DCG and nDCG --------------------------------------------------

DISCOUNTS = ("trec_eval", "seed")


def _discounts(n: int, discount: str, base: float) -> np.ndarray:
    ranks = np.arange(1, n + 1, dtype=np.float64)
    if discount == "trec_eval":
        return np.log2(ranks + 1.0)
    return np.maximum(1.0, np.log(ranks) / math.log(base))


def _dcg(gains: np.ndarray, k: int | None, discount: str, base: float) -> float:
    gains = gains if k is None else gains[:k]
    return float(np.sum(gains / _discounts(len(gains), discount, base)))


def _ndcg(j: _Judged, k: int | None, discount: str = "trec_eval", base: float = 2.0) -> float:
    ideal = _dcg(j.ideal_gains, k, discount, base)
    return _dcg(j.gains, k, discount, base) / ideal if ideal > 0 else 0.0


def _check_discount(discount: object, base: object) -> float:
    """The logarithm's base of a checked discount (2 for trec_eval's)."""
    check_choice("discount", discount, DISCOUNTS)
    if discount == "trec_eval":
        if base is not None:
            raise ValueError("base applies to the seed discount only; trec_eval's discount is log2(i + 1)")
        return 2.0
    return 2.0 if base is None else check_number("base", base, low=1.0, low_open=True)


def dcg(
    ranking: Sequence[str],
    judgements: Mapping[str, int],
    k: int | None = None,
    *,
    discount: str = "trec_eval",
    base: float | None = None,
) -> float:
    """Discounted cumulative gain of the top k (the whole list when k is None).

    The gain of a document is its grade g_i (0 when unjudged or negative), and a
    document further down counts less:

    * ``discount="trec_eval"`` (default): DCG@k = Σ_{i=1..k} g_i / log2(i + 1), the
      form trec_eval, pytrec_eval and most libraries use;
    * ``discount="seed"``: DCG@k = Σ_{i=1..k} g_i / max(1, log_b i), Järvelin and
      Kekäläinen's original form as written in the lecture notes, with ``base`` b
      (default 2; b = 2 models an impatient user, b = 10 a patient one).

    With b = 2 the two agree at rank 1, but the seed form leaves rank 2 undiscounted
    too: its discount at rank i is trec_eval's at rank i − 1 (for i ≥ 2), so the
    two give different numbers and can order two rankings differently.

    Notes
    -----
    The lecture notes also give the seed form recursively; there the recursive term
    is misprinted as DCG@b(k−1). It should read DCG@k = DCG@(k−1) + r_k / log_b k for
    k ≥ b, and DCG@k = Σ_{i ≤ k} r_i for k < b.

    Examples
    --------
    >>> judgements = {"d1": 2, "d2": 0, "d3": 1}
    >>> round(dcg(["d1", "d2", "d3"], judgements), 12)  # 2/log2(2) + 0 + 1/log2(4)
    2.5
    >>> round(dcg(["d3", "d1"], judgements), 12)  # 1/1 + 2/log2(3)
    2.261859507143
    >>> round(dcg(["d3", "d1"], judgements, discount="seed"), 12)  # 1/max(1, 0) + 2/max(1, 1)
    3.0
    """
    k = check_optional(check_count, "k", k, low=1)
    base = _check_discount(discount, base)
    return _dcg(_judge(ranking, judgements).gains, k, discount, base)


def ndcg(
    ranking: Sequence[str],
    judgements: Mapping[str, int],
    k: int | None = None,
    *,
    discount: str = "trec_eval",
    base: float | None = None,
) -> float:
    """Normalised DCG: DCG@k divided by the ideal DCG@k, so that 1 is the best possible.

    nDCG@k = DCG@k / IDCG@k, where IDCG@k is the DCG@k of the ideal ranking: every
    judged document with a positive grade, highest grade first (whether or not the
    system retrieved it). 0 when the query has no positive grade. ``discount`` and
    ``base`` as in :func:`dcg`. trec_eval: ``ndcg`` (k None) and ``ndcg_cut_k``.

    Examples
    --------
    >>> judgements = {"d1": 2, "d2": 0, "d3": 1}
    >>> round(ndcg(["d3", "d1"], judgements), 12)  # (1 + 2/log2 3) / (2 + 1/log2 3)
    0.859718699852
    >>> ndcg(["d1", "d3"], judgements)
    1.0
    """
    k = check_optional(check_count, "k", k, low=1)
    base = _check_discount(discount, base)
    return _ndcg(_judge(ranking, judgements), k, discount, base)


# ---- rank-biased precision ----------------------------------------------------------

class RBP(NamedTuple):
    """Rank-biased precision and its residual: the true value lies in [score, score + residual]."""

    score: float
    residual: float


def rank_biased_precision(
    ranking: Sequence[str],
    judgements: Mapping[str, int],
    p: float = 0.8,
    k: int | None = None,
) -> RBP:
    """Rank-biased precision (Moffat & Zobel, 2008) with its residual.

    A user reads rank 1, and after each document goes on to the next with
    probability p (the persistence). RBP is the expected rate of relevant documents
    per document read:

        RBP = (1 − p) · Σ_{i=1..d} rel_i · p^(i−1)

    over the top d = min(k, n) documents (all n when k is None). Unjudged documents
    count as not relevant, so RBP is a lower bound; the residual is what they and
    the documents below depth d could still add if they all were relevant:

        residual = (1 − p) · Σ_{i ≤ d, unjudged} p^(i−1) + p^d

    Relevance is binary (grade ≥ 1). Small p (0.5) models an impatient user, who
    reads 1/(1 − p) = 2 documents on average; p = 0.95 a patient one (20).

    Returns
    -------
    RBP(score, residual), two floats with 0 ≤ score ≤ score + residual ≤ 1.

    Examples
    --------
    >>> # relevant at ranks 1 and 3, d2 judged not relevant, d4 unjudged, p = 0.5
    >>> rank_biased_precision(["d1", "d2", "d3", "d4"], {"d1": 1, "d2": 0, "d3": 1}, p=0.5)
    RBP(score=0.625, residual=0.125)
    """
    p = check_number("p", p, low=0.0, high=1.0, low_open=True, high_open=True)  # the persistence
    k = check_optional(check_count, "k", k, low=1)
    j = _judge(ranking, judgements)
    depth = j.num_ret if k is None else min(k, j.num_ret)
    weights = (1.0 - p) * p ** np.arange(depth)  # weight of rank i is (1 − p) p^(i−1)
    score = float(np.sum(weights[j.relevant[:depth]]))
    residual = float(np.sum(weights[j.grades[:depth] < 0])) + p**depth
    return RBP(score, residual)


# ---- a whole run, with trec_eval's measure names --------------------------------------

def _count(name: str) -> Callable[[_Judged], float]:
    return lambda j: float(getattr(j, name))


_SINGLE: dict[str, Callable[[_Judged], float]] = {
    "map": _average_precision,
    "Rprec": _r_precision,
    "recip_rank": _reciprocal_rank,
    "bpref": _bpref,
    "ndcg": lambda j: _ndcg(j, None),
    "set_P": _precision,
    "set_recall": _recall,
    "set_F": _f1,
    "num_ret": _count("num_ret"),
    "num_rel": _count("num_rel"),
    "num_rel_ret": _count("num_rel_ret"),
}
_FAMILIES: dict[str, Callable[..., float]] = {  # (judged, cutoff k or recall level) -> value
    "P": _precision_at_k,
    "recall": _recall_at_k,
    "map_cut": _average_precision,
    "ndcg_cut": _ndcg,
    "iprec_at_recall": _interpolated_precision,
}
#: Every name :func:`evaluate` accepts: single measures, then families with a parameter.
MEASURES = tuple(_SINGLE) + tuple(_FAMILIES)
_PARAMETERISED = re.compile(r"(P|recall|map_cut|ndcg_cut|iprec_at_recall)[._](.+)")


def _family_member(family: str, text: str) -> tuple[str, Callable[[_Judged], float]]:
    """The output key and the function for e.g. ('P', '10') or ('iprec_at_recall', '0.5')."""
    fn = _FAMILIES[family]
    if family == "iprec_at_recall":
        try:
            level = check_number("recall level", float(text), low=0.0, high=1.0)
        except ValueError:
            raise ValueError(f"{family} needs a recall level in [0, 1], got {text!r}") from None
        return f"{family}_{level:.2f}", lambda j: fn(j, level)
    if not re.fullmatch(r"[0-9]+", text) or int(text) < 1:
        raise ValueError(f"{family} needs a cutoff k >= 1, got {text!r}")
    k = int(text)
    return f"{family}_{k}", lambda j: fn(j, k)


def _check_measures(measures: object) -> dict[str, Callable[[_Judged], float]]:
    """Output key -> function of a _Judged, for every requested measure, in request order."""
    if isinstance(measures, str):
        measures = [measures]
    if isinstance(measures, (bytes, Mapping)) or not isinstance(measures, Iterable):
        raise TypeError(f"measures must be a measure name or a list of them, got {describe(measures)}")
    plan: dict[str, Callable[[_Judged], float]] = {}
    for name in measures:
        if not isinstance(name, str):
            raise TypeError(f"measures must be str names, got {describe(name)}")
        try:
            plan.update(_measure(name))
        except ValueError as error:
            raise ValueError(f"measures: {error}") from None
    if not plan:
        raise ValueError("measures is empty: no measure requested")
    return plan


def _measure(name: str) -> dict[str, Callable[[_Judged], float]]:
    """Output key -> function for one measure name (a family's bare name gives several)."""
    plan: dict[str, Callable[[_Judged], float]] = {}
    if name in _SINGLE:
        plan[name] = _SINGLE[name]
    elif name in _FAMILIES:
        defaults = RECALL_LEVELS if name == "iprec_at_recall" else CUTOFFS
        plan.update(_family_member(name, str(parameter)) for parameter in defaults)
    elif match := _PARAMETERISED.fullmatch(name):
        key, fn = _family_member(match.group(1), match.group(2))
        plan[key] = fn
    else:
        raise ValueError(f"unknown measure {name!r}; expected one of {MEASURES}, or a family "
                         "with a parameter such as 'P_10', 'ndcg_cut_10', 'iprec_at_recall_0.50'")
    return plan


def evaluate(
    run: Mapping[str, Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    measures: str | Iterable[str],
    *,
    missing: str = "skip",
) -> dict[str, dict[str, float]]:
    """Evaluate every judged query of a run, as trec_eval (pytrec_eval) does.

    Parameters
    ----------
    run : {qid: {docno: score}}
        Each query's documents are ranked with :func:`~mmir_lib.ir.trec.trec_ranking`
        (score descending as float32, ties by docno descending).
    qrels : {qid: {docno: grade}}
    measures : str or iterable of str
        Names as in pytrec_eval: ``map``, ``Rprec``, ``recip_rank``, ``bpref``, ``ndcg``,
        ``set_P``, ``set_recall``, ``set_F``, ``num_ret``, ``num_rel``,
        ``num_rel_ret``, and the families ``P``, ``recall``, ``map_cut``,
        ``ndcg_cut`` (cutoffs, e.g. ``P_10`` or ``P.10``; the bare name gives
        trec_eval's defaults 5, 10, 15, 20, 30, 100, 200, 500, 1000) and
        ``iprec_at_recall`` (e.g. ``iprec_at_recall_0.50``; bare: the 11 levels).
    missing : {"skip", "zero"}
        What to do with a judged query absent from the run. ``"skip"`` leaves it
        out, as trec_eval and pytrec_eval do by default, so the mean is over the
        queries the system answered. ``"zero"`` evaluates it as an empty ranking,
        every measure 0 (``num_rel`` keeps its count), which is what ``trec_eval
        -c`` averages in: a system is charged for the queries it skipped.

    Returns
    -------
    {qid: {measure: value}}
        One entry per judged query (qrels order), values as float.

    Notes
    -----
    Queries in the run without judgements are ignored, and so is a qrels entry
    with no judgement at all. A query whose judgements hold no relevant document
    is kept, and its measures are all 0, as in trec_eval.

    Examples
    --------
    >>> run = {"q1": {"d1": 0.9, "d2": 0.5, "d3": 0.5}, "q2": {"d4": 1.0}}
    >>> qrels = {"q1": {"d1": 1, "d3": 2}, "q2": {"d5": 1}, "q3": {"d1": 1}}
    >>> evaluate(run, qrels, ["map", "P_2"])  # q1 ranks d1, d3, d2 (tie: d3 > d2)
    {'q1': {'map': 1.0, 'P_2': 1.0}, 'q2': {'map': 0.0, 'P_2': 0.0}}
    >>> evaluate(run, qrels, "recip_rank", missing="zero")
    {'q1': {'recip_rank': 1.0}, 'q2': {'recip_rank': 0.0}, 'q3': {'recip_rank': 0.0}}
    """
    queries = run_scores("run", run)  # each query checked once
    check_qrels("qrels", qrels)
    plan = _check_measures(measures)
    check_choice("missing", missing, ("skip", "zero"))
    results: dict[str, dict[str, float]] = {}
    for qid, judgements in qrels.items():
        if not judgements:
            continue
        if qid in queries:
            judged = _Judged.of_query(run[qid], queries[qid], judgements)
        elif missing == "zero":
            judged = _Judged.of_ranking([], judgements)
        else:
            continue
        results[qid] = {key: fn(judged) for key, fn in plan.items()}
    return results


# ---- means over queries ----------------------------------------------------------

def _check_values(name: str, values: object) -> np.ndarray:
    """One finite number per query (any iterable: a list, a dict's values()), as a float array."""
    if isinstance(values, Iterable) and not isinstance(values, (str, bytes, Mapping, np.ndarray)):
        values = list(values)
    return check_array(name, values, ndim=1, nonempty=True)


def arithmetic_mean(values: Iterable[float]) -> float:
    """(1/|Q|) · Σ_q v_q: MAP when the values are APs, MRR for reciprocal ranks.

    Examples
    --------
    >>> arithmetic_mean([0.5, 0.25, 0.0])
    0.25
    """
    values = _check_values("values", values)
    return float(np.mean(values))


def geometric_mean(values: Iterable[float], floor: float = GM_FLOOR) -> float:
    """exp((1/|Q|) · Σ_q log max(v_q, floor)): GMAP when the values are APs.

    The geometric mean rewards improving a poor query (0.01 → 0.02 doubles its
    factor) as much as a good one (0.4 → 0.8); the floor (trec_eval's 1e-5) keeps a
    single 0 from making the mean 0.

    Examples
    --------
    >>> round(geometric_mean([0.5, 0.1, 0.0]), 6)  # (0.5 · 0.1 · 1e-5) ** (1/3)
    0.007937
    """
    array = _check_values("values", values)
    floor = check_number("floor", floor, low=0.0, low_open=True, high=1.0)
    if (array < 0).any():
        raise ValueError("values must be >= 0 for a geometric mean")
    return float(np.exp(np.mean(np.log(np.maximum(array, floor)))))


def _check_results(results: object) -> None:
    """A non-empty {qid: {measure: finite number}}, every query with the same measures."""
    if not isinstance(results, Mapping):
        raise TypeError(f"results must be a mapping {{qid: {{measure: value}}}}, got {describe(results)}")
    if not results:
        raise ValueError("results is empty: there are no queries to aggregate")
    names = None
    for qid, row in results.items():
        if not isinstance(row, Mapping):
            raise TypeError(f"results[{qid!r}] must be a mapping {{measure: value}}, got {describe(row)}")
        names = set(row) if names is None else names
        if set(row) != names:
            raise ValueError(f"results: query {qid!r} has measures {sorted(row)}, the first query {sorted(names)}")
        for name, value in row.items():
            check_number(f"results[{qid!r}][{name!r}]", value)


def aggregate(
    results: Mapping[str, Mapping[str, float]],
    mean: str = "arithmetic",
    floor: float = GM_FLOOR,
) -> dict[str, float]:
    """One number per measure over the queries of :func:`evaluate`'s result.

    ``mean="arithmetic"`` gives MAP, mean P@10, MRR, ...; ``mean="geometric"``
    gives GMAP and friends (with ``floor``, see :func:`geometric_mean`). The counts
    ``num_ret``, ``num_rel``, ``num_rel_ret`` are summed, as trec_eval reports them.

    Examples
    --------
    >>> aggregate({"q1": {"map": 0.5, "num_rel": 2.0}, "q2": {"map": 0.1, "num_rel": 3.0}})
    {'map': 0.3, 'num_rel': 5.0}
    >>> round(aggregate({"q1": {"map": 0.5}, "q2": {"map": 0.1}}, mean="geometric")["map"], 6)
    0.223607
    """
    _check_results(results)
    check_choice("mean", mean, ("arithmetic", "geometric"))
    floor = check_number("floor", floor, low=0.0, low_open=True, high=1.0)
    rows = list(results.values())
    names = list(rows[0])
    summary = {}
    for name in names:
        column = [row[name] for row in rows]
        if name.startswith("num_"):
            summary[name] = float(np.sum(column))
        elif mean == "arithmetic":
            summary[name] = arithmetic_mean(column)
        else:
            summary[name] = geometric_mean(column, floor)
    return summary


# ---- significance of a difference between two systems ----------------------------------

class PairedTest(NamedTuple):
    """Result of a paired test between systems A and B on the same queries."""

    statistic: float
    pvalue: float
    mean_difference: float  #: mean over queries of score_A − score_B
    num_queries: int


Scores = Mapping[str, float] | Sequence[float]


def _check_paired(scores_a: Scores, scores_b: Scores) -> tuple[np.ndarray, np.ndarray]:
    """Two aligned float arrays from two {qid: score} mappings or two sequences."""
    if isinstance(scores_a, Mapping) and isinstance(scores_b, Mapping):
        if set(scores_a) != set(scores_b):
            only_a = sorted(set(scores_a) - set(scores_b), key=str)[:3]
            only_b = sorted(set(scores_b) - set(scores_a), key=str)[:3]
            raise ValueError(f"scores_a and scores_b must score the same queries; only in A: {only_a}, "
                             f"only in B: {only_b}")
        qids = list(scores_a)
        scores_a, scores_b = [scores_a[q] for q in qids], [scores_b[q] for q in qids]
    elif isinstance(scores_a, Mapping) or isinstance(scores_b, Mapping):
        name = "scores_a" if isinstance(scores_a, Mapping) else "scores_b"
        raise TypeError(f"scores_a and scores_b must both be {{qid: score}} mappings, or both sequences; "
                        f"only {name} is a mapping")
    a, b = _check_values("scores_a", scores_a), _check_values("scores_b", scores_b)
    if len(a) != len(b):
        raise ValueError(f"scores_a and scores_b must score the same queries, got {len(a)} and {len(b)} scores")
    if len(a) < 2:
        raise ValueError(f"scores_a and scores_b: a paired test needs at least 2 queries, got {len(a)}")
    return a, b


ALTERNATIVES = ("two-sided", "greater", "less")


def paired_t_test(scores_a: Scores, scores_b: Scores, alternative: str = "two-sided") -> PairedTest:
    """Paired t-test on per-query scores of systems A and B (scipy.stats.ttest_rel).

    With differences d_q = a_q − b_q over |Q| queries, t = mean(d) / (sd(d) / √|Q|)
    follows Student's t with |Q| − 1 degrees of freedom if the mean difference is
    0 and the d_q are roughly normal. ``scores_a``/``scores_b`` are either two
    {qid: score} mappings over the same queries or two sequences in the same query
    order. ``alternative="greater"`` tests whether A is better.

    Examples
    --------
    >>> result = paired_t_test({"q1": 0.5, "q2": 0.4, "q3": 0.9}, {"q1": 0.3, "q2": 0.3, "q3": 0.6})
    >>> # differences 0.2, 0.1, 0.3: mean 0.2, sd 0.1, t = 0.2 / (0.1 / √3)
    >>> round(result.statistic, 4), round(result.pvalue, 4), round(result.mean_difference, 4)
    (3.4641, 0.0742, 0.2)
    """
    a, b = _check_paired(scores_a, scores_b)
    check_choice("alternative", alternative, ALTERNATIVES)
    d = a - b
    if np.ptp(d) <= 1e-12 * max(1.0, float(np.max(np.abs(d)))):  # sd(d) = 0 up to rounding
        raise ValueError("every query has the same difference between the systems; the t statistic is undefined")
    import scipy.stats  # imported on first use: importing it takes seconds

    result = scipy.stats.ttest_rel(a, b, alternative=alternative)
    return PairedTest(float(result.statistic), float(result.pvalue), float(d.mean()), len(d))


def wilcoxon_test(scores_a: Scores, scores_b: Scores, alternative: str = "two-sided") -> PairedTest:
    """Wilcoxon signed-rank test on per-query scores of A and B (scipy.stats.wilcoxon).

    Ranks the absolute differences |a_q − b_q| and sums the ranks of the positive
    ones (the statistic scipy reports is the smaller of the two rank sums for a
    two-sided test). It assumes no normality, only symmetric differences. Queries
    where the systems tie (difference 0) are dropped (scipy's ``zero_method="wilcox"``).
    Inputs as in :func:`paired_t_test`.

    Examples
    --------
    >>> result = wilcoxon_test([0.5, 0.4, 0.9, 0.2, 0.7], [0.3, 0.3, 0.6, 0.25, 0.4])
    >>> result.statistic, result.pvalue  # one negative difference, the smallest: rank 1
    (1.0, 0.125)
    """
    a, b = _check_paired(scores_a, scores_b)
    check_choice("alternative", alternative, ALTERNATIVES)
    d = a - b
    if np.all(d == 0):
        raise ValueError("the systems score every query the same; there is nothing to test")
    import scipy.stats

    result = scipy.stats.wilcoxon(a, b, alternative=alternative)
    return PairedTest(float(result.statistic), float(result.pvalue), float(d.mean()), len(d))


def held_out_scores(topic_scores: Mapping[object, Mapping[str, float]],
                    folds: Sequence[Sequence[str]]) -> tuple[dict[str, float], list[object]]:
    """Cross-validation of a setting over topics: every topic scored by a setting chosen
    without it.

    For each fold, the setting with the highest mean score over the topics of the *other*
    folds is chosen (means rounded to 1e-9, so that sums in another order cannot change the
    choice; a tie goes to the first setting in the order of ``topic_scores``) and the fold's
    own topics get that setting's scores. Nothing about a topic is used to choose the setting
    it is scored with, so the mean of the result estimates what tuning on unseen topics gives.

    Parameters
    ----------
    topic_scores : {setting: {qid: score}}, every setting scoring every topic of ``folds``
        (for example AP per topic for each point of a parameter grid).
    folds : disjoint sequences of qids (:func:`mmir_lib.ir.ltr.topic_folds`), at least two.

    Returns
    -------
    ({qid: held-out score}, [the setting chosen for each fold]).

    >>> grid = {0.5: {"a": 0.9, "b": 0.1, "c": 0.2}, 1.0: {"a": 0.1, "b": 0.5, "c": 0.6}}
    >>> held_out_scores(grid, [("a",), ("b",), ("c",)])
    ({'a': 0.1, 'b': 0.1, 'c': 0.2}, [1.0, 0.5, 0.5])
    """
    folds, topics = _check_cross_validation(topic_scores, folds)
    held_out, chosen = {}, []
    for fold in folds:
        others = [q for q in topics if q not in fold]
        setting = max(topic_scores, key=lambda s: round(float(np.mean([topic_scores[s][q] for q in others])), 9))
        chosen.append(setting)
        held_out.update({q: topic_scores[setting][q] for q in fold})
    return held_out, chosen


def _check_cross_validation(topic_scores: object, folds: object) -> tuple[list[tuple[str, ...]], list[str]]:
    """The folds as tuples and all their topics, after checking :func:`held_out_scores`' arguments."""
    if not isinstance(topic_scores, Mapping) or not topic_scores:
        raise TypeError(f"topic_scores must be a non-empty {{setting: {{qid: score}}}} mapping, got "
                        f"{describe(topic_scores)}")
    if isinstance(folds, (str, bytes)) or not isinstance(folds, Sequence) or len(folds) < 2:
        raise ValueError(f"folds must be a sequence of at least two folds of qids, got {describe(folds)}")
    folds = [tuple(fold) for fold in folds]
    topics = [q for fold in folds for q in fold]
    if any(not fold for fold in folds) or len(set(topics)) != len(topics):
        raise ValueError("folds must be non-empty and disjoint: each topic in exactly one fold")
    for setting, scores in topic_scores.items():
        if not isinstance(scores, Mapping) or set(topics) - set(scores):
            missing = sorted(set(topics) - set(scores), key=str)[:3] if isinstance(scores, Mapping) else topics[:3]
            raise ValueError(f"topic_scores[{setting!r}] must score every topic of folds; missing {missing}")
        _check_values(f"topic_scores[{setting!r}]", [scores[q] for q in topics])
    return folds, topics
