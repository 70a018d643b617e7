"""Learning to rank, part 2: ranking losses, small torch rankers, LambdaMART, cross-validation.

A ranker is a function s(x) of a (query, document) feature vector x
(:mod:`mmir_lib.ir.ltr_features`); documents are sorted by s. What differs between
the approaches is the loss that training minimises, over the candidates of the
training queries with grades y (0, 1, 2):

* **pointwise**: regression of the grade, (1/n) Σ_i (s_i − y_i)²;
* **pairwise**, RankNet (Burges et al. 2005): for every pair (i, j) of the same
  query with y_i > y_j, the cross-entropy of P_ij = 1 / (1 + exp(−σ (s_i − s_j)))
  against the target 1, which is log(1 + exp(−σ (s_i − s_j))), with a scale σ > 0;
* **listwise**, ListNet (Cao et al. 2007): per query, the cross-entropy between the
  top-one distributions softmax(y) of the labels and softmax(s) of the scores;
* **LambdaRank** (Burges et al. 2006; Burges 2010): RankNet's pairs, each weighted
  by |ΔnDCG_ij|, the change of the query's nDCG if i and j swapped places in the
  current ranking, so that training spends its effort where the measure changes.

Every torch model here is trained full-batch, in float64, with a fixed seed, one
thread and deterministic algorithms, so that the same call gives the same numbers.
LightGBM's LambdaMART (:func:`train_lambdamart`) is the industrial reference.
Queries are kept apart everywhere: pairs and lists never mix two queries, and
:func:`topic_folds` puts every query in exactly one test fold.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import lightgbm as lgb
import numpy as np
import torch
from torch import nn

from ..chapter import use_deterministic_torch
from ..validation import (check_array, check_bool, check_callable, check_choice, check_count, check_instance,
                          check_number, check_optional, check_same_length, check_str_list, check_tensor,
                          describe)
from .index import InvertedIndex
from .ltr_features import RankingData, Standardizer, extract_features, first_stage, normalize_per_query
from .trec import Run

__all__ = ["MODEL_KINDS", "Scorer", "pointwise_loss", "ranknet_loss", "listnet_loss", "delta_ndcg",
           "lambdarank_loss", "TrainedRanker", "train_ranker", "LambdaMART", "train_lambdamart",
           "topic_folds", "CrossValidation", "cross_validate", "rerank", "cascade"]


# ---- queries as rows of a padded matrix ------------------------------------------------

def _check_labels(name: str, labels: object, *, n: int) -> torch.Tensor:
    """Grades: a 1-D tensor of n finite numbers >= 0 (float or int)."""
    if isinstance(labels, torch.Tensor) and labels.dtype != torch.bool and not labels.is_floating_point():
        labels = labels.double()  # integer grades
    labels = check_tensor(name, labels, ndim=1, length=n)
    if bool((labels < 0).any()):
        raise ValueError(f"{name} must be grades >= 0, found {float(labels.min())}")
    return labels


class _Layout(NamedTuple):
    """Where each query's rows are: ``rows[q, slot]`` is a row number (−1 past the
    query's end, K = the largest query's size); ``mask`` marks the real entries."""

    rows: torch.Tensor  # (Q, K) int64
    mask: torch.Tensor  # (Q, K) bool

    def pad(self, values: torch.Tensor, fill: float) -> torch.Tensor:
        """(n,) per-row values -> (Q, K), ``fill`` in the padding (differentiable)."""
        return values[self.rows.clamp(min=0)].masked_fill(~self.mask, fill)


def _layout(query_ids: torch.Tensor) -> _Layout:
    _, query, counts = torch.unique(query_ids, return_inverse=True, return_counts=True)  # query: (n,)
    order = torch.argsort(query, stable=True)  # rows grouped by query, in their order within it
    slot = torch.arange(len(query)) - (torch.cumsum(counts, 0) - counts)[query[order]]
    rows = torch.full((len(counts), int(counts.max())), -1, dtype=torch.int64)
    rows[query[order], slot] = order
    return _Layout(rows, rows >= 0)


def _preference_pairs(labels: torch.Tensor, layout: _Layout) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(query, i, j) for every pair of rows of one query with y_i > y_j; each of shape (P,)."""
    Y = layout.pad(labels, 0.0)
    mask = layout.mask
    q, a, b = ((Y[:, :, None] > Y[:, None, :]) & mask[:, :, None] & mask[:, None, :]).nonzero(as_tuple=True)
    if len(q) == 0:
        raise ValueError("no pair of documents with different grades in the same query")
    return q, layout.rows[q, a], layout.rows[q, b]


# ---- losses ---------------------------------------------------------------------------

def pointwise_loss(scores: torch.Tensor, labels: torch.Tensor, query_ids: torch.Tensor | None = None) -> torch.Tensor:
    """Mean squared error (1/n) Σ_i (s_i − y_i)²: the grade as a regression target.

    ``query_ids`` is accepted for a uniform signature and ignored: a pointwise loss
    looks at one document at a time.

    >>> float(pointwise_loss(torch.tensor([1.0, 0.0]), torch.tensor([2.0, 0.0])))
    0.5
    """
    check_tensor("scores", scores, ndim=1)
    _check_labels("labels", labels, n=len(scores))
    check_optional(check_tensor, "query_ids", query_ids, kind="int", ndim=1, length=len(scores))
    return torch.mean((scores - labels.to(scores.dtype)) ** 2)


def ranknet_loss(scores: torch.Tensor, labels: torch.Tensor, query_ids: torch.Tensor,
                 sigma: float = 1.0) -> torch.Tensor:
    """RankNet: mean over pairs (i, j) of one query with y_i > y_j of log(1 + e^{−σ (s_i − s_j)}).

    This is the cross-entropy −log P_ij of the model's probability
    P_ij = 1 / (1 + e^{−σ (s_i − s_j)}) that i should rank above j, against the
    target P̄_ij = 1 (Burges et al. 2005). Pairs with equal grades, and pairs from
    different queries, are not used.

    Parameters
    ----------
    scores : (n,) float tensor, the model's s
    labels : (n,) tensor of grades y
    query_ids : (n,) int tensor, the query of each row
    sigma : float > 0, the slope of the sigmoid

    Examples
    --------
    >>> s, y, q = torch.tensor([0.0, 1.0, 3.0]), torch.tensor([1, 0, 0]), torch.tensor([7, 7, 8])
    >>> round(float(ranknet_loss(s, y, q)), 6)  # one pair (0, 1): log(1 + e^{1})
    1.313262
    """
    check_tensor("scores", scores, ndim=1)
    _check_labels("labels", labels, n=len(scores))
    check_tensor("query_ids", query_ids, kind="int", ndim=1, length=len(scores))
    sigma = check_number("sigma", sigma, low=0.0, low_open=True)
    _, i, j = _preference_pairs(labels.to(scores.dtype), _layout(query_ids))
    return nn.functional.softplus(-sigma * (scores[i] - scores[j])).mean()


def listnet_loss(scores: torch.Tensor, labels: torch.Tensor, query_ids: torch.Tensor) -> torch.Tensor:
    """ListNet: mean over queries of −Σ_j P_y(j) log P_s(j), with top-one probabilities
    P_y = softmax(y) and P_s = softmax(s) over the query's documents (Cao et al. 2007).

    A query whose documents all have the same grade carries no information about
    order and is left out.

    Examples
    --------
    >>> s, y, q = torch.tensor([0.0, 0.0]), torch.tensor([1.0, 0.0]), torch.tensor([0, 0])
    >>> round(float(listnet_loss(s, y, q)), 6)  # P_s = (1/2, 1/2): the loss is log 2
    0.693147
    """
    check_tensor("scores", scores, ndim=1)
    _check_labels("labels", labels, n=len(scores))
    check_tensor("query_ids", query_ids, kind="int", ndim=1, length=len(scores))
    layout = _layout(query_ids)
    Y = layout.pad(labels.to(scores.dtype), -math.inf)  # (Q, K)
    informative = Y.max(dim=1).values > Y.masked_fill(~layout.mask, math.inf).min(dim=1).values
    if not informative.any():
        raise ValueError("every query has documents of one grade only: nothing to learn about order")
    target = torch.softmax(Y[informative], dim=1)
    log_p = torch.log_softmax(layout.pad(scores, -math.inf)[informative], dim=1)
    return -(target * log_p.masked_fill(~layout.mask[informative], 0.0)).sum(dim=1).mean()


def _discounts(scores: torch.Tensor, gains: torch.Tensor, layout: _Layout,
               k: int | None) -> tuple[torch.Tensor, torch.Tensor]:
    """D(rank) of every row in its query's ranking by ``scores`` (ties: earlier row
    first), D(r) = 1 / log2(1 + r) for r <= k and 0 beyond; and each query's ideal DCG@k."""
    S = layout.pad(scores.detach(), -math.inf)  # (Q, K); padding sorts last
    Q, K = S.shape
    order = torch.argsort(S, dim=1, descending=True, stable=True)
    ranks = torch.empty_like(order).scatter_(1, order, torch.arange(1, K + 1).expand(Q, K))  # 1 = best
    discount = 1.0 / torch.log2(1.0 + ranks.to(scores.dtype))
    ideal_discount = 1.0 / torch.log2(2.0 + torch.arange(K, dtype=scores.dtype))
    if k is not None:
        discount = discount.masked_fill(ranks > k, 0.0)
        ideal_discount[k:] = 0.0
    per_row = torch.empty_like(scores)
    per_row[layout.rows[layout.mask]] = discount[layout.mask]
    ideal = (torch.sort(layout.pad(gains, 0.0), dim=1, descending=True).values * ideal_discount).sum(dim=1)
    return per_row, ideal


def delta_ndcg(scores: torch.Tensor, labels: torch.Tensor, k: int | None = None) -> torch.Tensor:
    """(m, m) matrix |ΔnDCG@k_ij| for the m documents of one query.

    With documents ranked by ``scores`` (ties: earlier row first), swapping the
    documents i and j (ranks r_i and r_j) changes DCG@k by
    (g_i − g_j)(D(r_j) − D(r_i)), where g is the grade (the gain, as in trec_eval)
    and D(r) = 1 / log2(1 + r) for r <= k, 0 beyond. Dividing by the ideal DCG@k of
    these m documents gives the nDCG change; its absolute value is returned (0 for
    a query with no positive grade).

    Examples
    --------
    >>> d = delta_ndcg(torch.tensor([2.0, 1.0]), torch.tensor([0, 1]))  # ranked 0, 1: swap -> perfect
    >>> round(float(d[0, 1]), 6), round(1 - 1 / math.log2(3), 6)
    (0.36907, 0.36907)
    """
    check_tensor("scores", scores, ndim=1)
    _check_labels("labels", labels, n=len(scores))
    k = check_optional(check_count, "k", k, low=1)
    gains = labels.to(scores.dtype)
    discount, ideal = _discounts(scores, gains, _layout(torch.zeros(len(scores), dtype=torch.int64)), k)
    if ideal[0] == 0:
        return torch.zeros(len(scores), len(scores), dtype=scores.dtype)
    return (gains[:, None] - gains[None, :]).abs() * (discount[:, None] - discount[None, :]).abs() / ideal[0]


def lambdarank_loss(scores: torch.Tensor, labels: torch.Tensor, query_ids: torch.Tensor,
                    sigma: float = 1.0, k: int | None = None) -> torch.Tensor:
    """LambdaRank: Σ over RankNet pairs of |ΔnDCG@k_ij| · log(1 + e^{−σ (s_i − s_j)}), per query.

    |ΔnDCG| (:func:`delta_ndcg`) is read off the current ranking and treated as a
    constant, so the gradient with respect to s_i is Burges's lambda,
    λ_i = Σ_j −σ |ΔnDCG_ij| / (1 + e^{σ (s_i − s_j)}) over the pairs where i is the
    better document (and the opposite sign where it is the worse). The sum is
    divided by the number of queries that have at least one pair.

    Examples
    --------
    >>> s, y, q = torch.tensor([1.0, 1.0]), torch.tensor([0, 1]), torch.tensor([0, 0])
    >>> round(float(lambdarank_loss(s, y, q)), 6)  # one pair, ΔnDCG = 1 − 1/log2 3, times log 2
    0.25582
    """
    check_tensor("scores", scores, ndim=1)
    _check_labels("labels", labels, n=len(scores))
    check_tensor("query_ids", query_ids, kind="int", ndim=1, length=len(scores))
    sigma = check_number("sigma", sigma, low=0.0, low_open=True)
    k = check_optional(check_count, "k", k, low=1)
    gains = labels.to(scores.dtype)
    layout = _layout(query_ids)
    q, i, j = _preference_pairs(gains, layout)
    discount, ideal = _discounts(scores, gains, layout, k)
    weights = (gains[i] - gains[j]) * (discount[i] - discount[j]).abs() / ideal[q]  # |ΔnDCG_ij|, y_i > y_j
    num_queries = int(torch.count_nonzero(torch.bincount(q)))  # queries with at least one pair
    return (weights * nn.functional.softplus(-sigma * (scores[i] - scores[j]))).sum() / num_queries


#: model_kind -> loss, all with the signature (scores, labels, query_ids) -> scalar tensor.
MODEL_KINDS: dict[str, Callable[..., torch.Tensor]] = {
    "pointwise": pointwise_loss,
    "ranknet": ranknet_loss,
    "listnet": listnet_loss,
    "lambdarank": lambdarank_loss,
}


# ---- models and training ----------------------------------------------------------------

#: The most features, and hidden units, of a :class:`Scorer` (its weights stay below 1 GB).
MAX_WIDTH = 10_000
#: The most training epochs and boosting rounds (each is a pass over the training rows).
MAX_ROUNDS = 100_000
#: The largest learning rate :func:`train_ranker` takes (Adam's steps are about lr in size).
MAX_LR = 10.0


class Scorer(nn.Module):
    """s(x) = w · x + b (``hidden=0``), or w₂ · relu(W₁ x + b₁) + b₂ with ``hidden`` units.

    forward: (n, F) features -> (n,) scores.
    """

    def __init__(self, n_features: int, hidden: int = 0):
        n_features = check_count("n_features", n_features, low=1, high=MAX_WIDTH)
        hidden = check_count("hidden", hidden, high=MAX_WIDTH)
        super().__init__()
        self.net = (nn.Linear(n_features, 1) if hidden == 0 else
                    nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, 1)))

    def forward(self, X: torch.Tensor) -> torch.Tensor:
        return self.net(X).squeeze(-1)  # (n, 1) -> (n,)


@contextlib.contextmanager
def _reproducible(seed: int) -> Iterator[None]:
    """Seeded, single-threaded, deterministic torch; the caller's settings and RNG restored after."""
    deterministic, threads = torch.are_deterministic_algorithms_enabled(), torch.get_num_threads()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        use_deterministic_torch(True)
        torch.set_num_threads(1)
        try:
            yield
        finally:
            use_deterministic_torch(deterministic)
            torch.set_num_threads(threads)


class Predictor(Protocol):
    def predict(self, X: np.ndarray) -> np.ndarray: ...


@dataclass(eq=False)
class TrainedRanker:
    """A torch ranker with the feature scaling of its training rows.

    ``predict(X)`` standardises X with the training rows' means and sds, then scores.
    ``losses[e]`` is the training loss computed in epoch e, for the model as it was
    before that epoch's update.
    """

    kind: str
    model: Scorer
    standardizer: Standardizer
    losses: list[float] = field(default_factory=list)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """(n,) float64 scores of the (n, F) raw feature rows."""
        X = check_array("X", X, ndim=2)
        if len(X) == 0:
            return np.zeros(0)
        with torch.no_grad():
            return self.model(torch.from_numpy(self.standardizer.transform(X))).numpy().copy()


def _check_training_set(X: object, y: object, qids: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """X (n, F) finite, y (n,) int grades >= 0, and each row's query as a number 0, 1, ..."""
    X = check_array("X", X, ndim=2, nonempty=True)
    y = check_array("y", y, kind="int", ndim=1, low=0)
    check_same_length(X=X, y=y)
    if isinstance(qids, (str, bytes)) or qids is None:
        raise TypeError(f"qids must be a sequence with one query id per row, got {describe(qids)}")
    qids = np.asarray(check_str_list("qids", qids.tolist() if isinstance(qids, np.ndarray) else qids))
    if qids.shape != (len(X),):
        raise ValueError(f"qids must have one entry per row ({len(X)}), got {len(qids)}")
    return X, y, np.unique(qids, return_inverse=True)[1]


def train_ranker(
    model_kind: str,
    X: np.ndarray,
    y: np.ndarray,
    qids: Sequence[str] | np.ndarray,
    epochs: int = 100,
    lr: float = 0.05,
    seed: int = 0,
    *,
    hidden: int = 0,
    weight_decay: float = 0.0,
) -> TrainedRanker:
    """Train a :class:`Scorer` with the loss of ``model_kind``, full batch, with Adam.

    Parameters
    ----------
    model_kind : one of :data:`MODEL_KINDS` ("pointwise", "ranknet", "listnet", "lambdarank")
    X : (n, F) raw features of the training rows (standardised here, with their own
        means and sds, which the returned ranker keeps)
    y : (n,) int grades
    qids : (n,) the query of each row
    epochs : number of full-batch gradient steps
    lr : Adam's learning rate
    seed : seeds the initial weights
    hidden : 0 for a linear model, else the width of one ReLU hidden layer
    weight_decay : L2 penalty passed to Adam

    Returns
    -------
    TrainedRanker; the same arguments always give the same ranker.
    """
    check_choice("model_kind", model_kind, MODEL_KINDS)
    X, y, query = _check_training_set(X, y, qids)
    epochs = check_count("epochs", epochs, low=1, high=MAX_ROUNDS)
    lr = check_number("lr", lr, low=0.0, low_open=True, high=MAX_LR)
    seed = check_count("seed", seed)
    hidden = check_count("hidden", hidden, high=MAX_WIDTH)
    weight_decay = check_number("weight_decay", weight_decay, low=0.0)
    standardizer = Standardizer().fit(X)
    features = torch.from_numpy(standardizer.transform(X))  # (n, F) float64
    labels = torch.from_numpy(y.astype(np.float64))
    query_ids = torch.from_numpy(query)
    loss_fn = MODEL_KINDS[model_kind]
    with _reproducible(seed):
        model = Scorer(X.shape[1], hidden).double()
        optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=weight_decay)
        losses = []
        for _ in range(epochs):
            optimizer.zero_grad()
            loss = loss_fn(model(features), labels, query_ids)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"{model_kind} loss became {loss.item()}; lower lr (now {lr})")
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return TrainedRanker(model_kind, model.eval(), standardizer, losses)


@dataclass(eq=False)
class LambdaMART:
    """A LightGBM booster trained with the ``lambdarank`` objective."""

    booster: lgb.Booster

    def predict(self, X: np.ndarray) -> np.ndarray:
        """(n,) float64 scores of the (n, F) feature rows."""
        X = check_array("X", X, ndim=2)
        if X.shape[1] != self.booster.num_feature():
            raise ValueError(f"X has {X.shape[1]} features, the model was trained on {self.booster.num_feature()}")
        return self.booster.predict(X, num_threads=1) if len(X) else np.zeros(0)

    def importance(self, kind: str = "gain") -> np.ndarray:
        """(F,) total gain of the splits on each feature (``kind="split"``: their number)."""
        check_choice("kind", kind, ("gain", "split"))
        return self.booster.feature_importance(importance_type=kind).astype(np.float64)


def train_lambdamart(
    X: np.ndarray,
    y: np.ndarray,
    qids: Sequence[str] | np.ndarray,
    num_boost_round: int = 100,
    seed: int = 0,
    **params,
) -> LambdaMART:
    """LambdaMART (Burges 2010) with LightGBM (Ke et al. 2017): boosted trees fitted to
    LambdaRank's gradients.

    Defaults (any can be overridden through ``params``): ``learning_rate=0.05``,
    ``num_leaves=7``, ``min_data_in_leaf=20``, and ``label_gain`` = the grade
    itself (0, 1, 2, ...), the gain of trec_eval's nDCG (LightGBM's own default is
    2^y − 1). Always ``deterministic=True``, one thread, and ``seed``.

    Rows need not be sorted by query; they are grouped here (LightGBM wants each
    query's rows contiguous).
    """
    X, y, query = _check_training_set(X, y, qids)
    num_boost_round = check_count("num_boost_round", num_boost_round, low=1, high=MAX_ROUNDS)
    seed = check_count("seed", seed)
    order = np.argsort(query, kind="stable")
    settings = {"objective": "lambdarank", "learning_rate": 0.05, "num_leaves": 7, "min_data_in_leaf": 20,
                "label_gain": list(range(int(y.max()) + 1)), **params,
                "deterministic": True, "force_row_wise": True, "num_threads": 1, "seed": seed, "verbose": -1}
    train_set = lgb.Dataset(X[order], label=y[order], group=np.bincount(query), free_raw_data=False)
    return LambdaMART(lgb.train(settings, train_set, num_boost_round=num_boost_round))


# ---- evaluation protocol and the cascade -------------------------------------------------

def topic_folds(qids: Sequence[str], n_folds: int = 5, seed: int = 0) -> list[tuple[str, ...]]:
    """Split the queries into ``n_folds`` disjoint folds of (nearly) equal size, at random
    with ``seed`` (a fixed assignment). Each fold keeps the queries' given order.

    >>> topic_folds([str(i) for i in range(1, 11)], n_folds=3, seed=0)
    [('3', '5', '7', '8'), ('4', '6', '10'), ('1', '2', '9')]
    """
    qids = check_str_list("qids", qids)
    n_folds = check_count("n_folds", n_folds, low=2)
    seed = check_count("seed", seed)
    if len(set(qids)) < n_folds:
        raise ValueError(f"qids must hold at least n_folds = {n_folds} distinct queries, got {len(set(qids))}")
    unique = list(dict.fromkeys(qids))
    permutation = np.random.default_rng(seed).permutation(len(unique))
    return [tuple(unique[i] for i in sorted(part)) for part in np.array_split(permutation, n_folds)]


def rerank(data: RankingData, scores: np.ndarray) -> Run:
    """The run {qid: {docno: score}} that orders each query's rows by ``scores``.

    Documents are listed best first (ties: first-stage order). Only the rows of
    ``data`` appear: re-ranking never adds a document.
    """
    check_instance("data", data, RankingData)
    scores = check_array("scores", scores, shape=(len(data),))
    run: Run = {}
    for qid in dict.fromkeys(data.qids.tolist()):
        rows = np.flatnonzero(data.qids == qid)
        best_first = rows[np.lexsort((rows, -scores[rows]))]
        run[qid] = {str(data.docnos[r]): float(scores[r]) for r in best_first}
    return run


class CrossValidation(NamedTuple):
    """Result of :func:`cross_validate`."""

    run: Run  #: every query re-ranked by the model that did not see it in training
    models: list  #: the model trained for each fold (fold i tested on folds[i])


def _check_folds(folds: object, data: RankingData) -> list[list[str]]:
    """Disjoint lists of qids that cover exactly the queries of ``data``."""
    if isinstance(folds, (str, bytes, Mapping)) or not isinstance(folds, Sequence):
        raise TypeError(f"folds must be a list of lists of qids, got {describe(folds)}")
    folds = [check_str_list(f"folds[{i}]", fold) for i, fold in enumerate(folds)]
    assigned = [q for fold in folds for q in fold]
    if len(assigned) != len(set(assigned)):
        raise ValueError("folds must be disjoint: a query is in two folds")
    if set(assigned) != set(data.qids.tolist()):
        raise ValueError("folds must cover exactly the queries of data")
    return folds


def _check_ranker(name: str, ranker: object) -> object:
    """Anything with a ``predict(X)`` method."""
    if not callable(getattr(ranker, "predict", None)):
        raise TypeError(f"{name} must have a predict(X) method, got {describe(ranker)}")
    return ranker


def cross_validate(
    data: RankingData,
    labels: np.ndarray,
    folds: Sequence[Sequence[str]],
    train: Callable[[np.ndarray, np.ndarray, np.ndarray], Predictor],
) -> CrossValidation:
    """Train on all folds but one, re-rank the held-out fold; once per fold.

    ``train(X, y, qids)`` returns an object with ``predict(X)`` (e.g.
    ``lambda X, y, q: train_ranker("ranknet", X, y, q)`` or :func:`train_lambdamart`).
    It only ever sees the training queries' rows, so any scaling it fits is fitted
    on them alone. The folds must be disjoint and cover the queries of ``data``.
    """
    check_instance("data", data, RankingData)
    labels = check_array("labels", labels, kind="int", shape=(len(data),), low=0)
    folds = _check_folds(folds, data)
    check_callable("train", train)
    scores = np.zeros(len(data))
    models = []
    for fold in folds:
        test = np.isin(data.qids, list(fold))
        model = _check_ranker("train's model", train(data.X[~test], labels[~test], data.qids[~test]))
        scores[test] = model.predict(data.X[test])
        models.append(model)
    return CrossValidation(rerank(data, scores), models)


def cascade(
    index: InvertedIndex,
    docnos: Sequence[str],
    texts: Sequence[str],
    queries: Mapping[str, str],
    ranker: Predictor,
    k: int = 100,
    *,
    descriptions: Mapping[str, str] | None = None,
    exclude: Mapping[str, str] | None = None,
    per_query: bool = True,
) -> Run:
    """Answer queries with the whole cascade: BM25 top ``k`` -> features -> ``ranker``.

    Arguments as in :func:`~mmir_lib.ir.ltr_features.first_stage` and
    :func:`~mmir_lib.ir.ltr_features.extract_features`. ``ranker`` must have been
    trained on features computed the same way: with descriptions if they are given
    here, and passed through :func:`~mmir_lib.ir.ltr_features.normalize_per_query`
    if ``per_query`` (the default). Returns the re-ranked run: for each query, the
    first stage's documents only.
    """
    _check_ranker("ranker", ranker)
    k = check_count("k", k, low=1)
    check_bool("per_query", per_query)
    run = first_stage(index, docnos, queries, k, exclude)
    data = extract_features(index, docnos, texts, queries, run, descriptions)
    if per_query:
        data = normalize_per_query(data)
    reranked = rerank(data, ranker.predict(data.X))
    return {qid: reranked.get(qid, {}) for qid in queries}
