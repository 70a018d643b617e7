"""Hybrid retrieval: fusing a lexical and a dense run.

**Weighted reciprocal rank fusion** (Cormack, Clarke and Büttcher 2009): a document's
fused score is

    RRF(d) = Σ_r w_r / (k + rank_r(d)) ,

rank_r(d) = 1, 2, ... its rank in run r (a run that does not return d adds nothing), k = 60
as in the paper. Only ranks enter, so RRF needs no score normalisation and is unchanged by
any strictly increasing transform of a run's scores. With two runs, weights (1 − λ, λ):
λ = 0 gives the first run's order, λ = 1 the second's (on the documents each returns).

**Score interpolation**: (1 − λ) · z_1(d) + λ · z_2(d), each run's scores standardised per
query (z-scores over the documents it returns), a document missing from a run taking
that run's lowest z-score on the query.

Runs are ranked as trec_eval ranks them (:func:`mmir_lib.ir.trec.trec_ranking`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ..validation import check_count, check_list, check_mapping, check_number, check_probability
from .trec import Run, run_rankings, run_scores

__all__ = ["RRF_K", "reciprocal_rank_fusion", "interpolate"]

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
    weights = [check_number(f"weights[{i}]", w, low=0) for i, w in enumerate(weights)]
    k = check_number("k", k, low=0)
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


def interpolate(first: Run, second: Run, weight: float, depth: int = 1000) -> Run:
    """(1 − weight) · z_first + weight · z_second per query (module docstring)."""
    check_mapping("first", first)
    check_mapping("second", second)
    weight = check_probability("weight", weight)
    depth = check_count("depth", depth, low=1)
    standard = [_z_scores(run_scores(name, run), run) for name, run in (("first", first), ("second", second))]
    fused: Run = {}
    for qid in dict.fromkeys([*first, *second]):
        (z1, low1), (z2, low2) = (s.get(qid, ({}, 0.0)) for s in standard)
        fused[qid] = _best({d: (1 - weight) * z1.get(d, low1) + weight * z2.get(d, low2)
                            for d in dict.fromkeys([*z1, *z2])}, depth)
    return fused


def _z_scores(scores: Mapping[str, np.ndarray], run: Run) -> dict[str, tuple[dict[str, float], float]]:
    """{qid: ({docno: z-score}, lowest z-score)}; a query with one document or equal scores gets 0s."""
    out = {}
    for qid, values in scores.items():
        spread = values.std()
        z = (values - values.mean()) / spread if spread > 0 else np.zeros_like(values)
        out[qid] = (dict(zip(run[qid], z.tolist())), float(z.min()) if len(z) else 0.0)
    return out


def _best(scores: Mapping[str, float], depth: int) -> dict[str, float]:
    """The ``depth`` best of {docno: score}, best first (ties: docno descending, as trec_eval)."""
    ranked = sorted(scores.items(), key=lambda item: (-item[1], _reverse(item[0])))[:depth]
    return dict(ranked)


def _reverse(docno: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in docno) + (1,)
