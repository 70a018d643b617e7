"""Hybrid retrieval: fusing a lexical and a dense run.

**Weighted reciprocal rank fusion** (Cormack, Clarke and Büttcher 2009): a document's
fused score is

    RRF(d) = Σ_r w_r / (k + rank_r(d)) ,

rank_r(d) = 1, 2, ... its rank in run r (a run that does not return d adds nothing), k = 60
as in the paper. Only ranks enter, so RRF needs no score normalisation and is unchanged by
any strictly increasing transform of a run's scores. With two runs, weights (1 − λ, λ):
λ = 0 gives the first run's order, λ = 1 the second's (on the documents each returns).

Runs are ranked as trec_eval ranks them (:func:`mmir_lib.ir.trec.trec_ranking`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..validation import check_count, check_list, check_number
from .trec import Run, run_rankings

__all__ = ["RRF_K", "reciprocal_rank_fusion"]

#: Cormack et al.'s k: it damps the weight of the very first ranks.
RRF_K = 60


def reciprocal_rank_fusion(runs: Sequence[Run], weights: Sequence[float] | None = None, k: float = RRF_K,
                           depth: int = 1000) -> Run:
    """Σ_r w_r / (k + rank_r(d)) over ``runs`` (module docstring); ``weights`` default to 1
    each. Returns a run of the ``depth`` best fused documents per query (every query of any run)."""
    runs = check_list("runs", runs, Mapping, nonempty=True)
    weights = [1.0] * len(runs) if weights is None else check_list("weights", weights, object)
    if len(weights) != len(runs):
        raise ValueError(f"weights must have one entry per run ({len(runs)}), got {len(weights)}")
    weights = [check_number(f"weights[{i}]", w, low=0, high=1e300) for i, w in enumerate(weights)]
    k = check_number("k", k, low=0, high=1e300)
    depth = check_count("depth", depth, low=1)
    rankings = [run_rankings(f"runs[{i}]", run) for i, run in enumerate(runs)]
    fused: Run = {}
    for qid in dict.fromkeys(q for ranked in rankings for q in ranked):
        scores: dict[str, float] = {}
        for ranked, w in zip(rankings, weights):
            for rank, docno in enumerate(ranked.get(qid, ()), start=1):
                scores[docno] = scores.get(docno, 0.0) + w / (k + rank)
        fused[qid] = _best(scores, depth)
    return fused


def _best(scores: Mapping[str, float], depth: int) -> dict[str, float]:
    """The ``depth`` best of {docno: score}, best first (ties: docno descending, as trec_eval)."""
    return dict(sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)[:depth])
