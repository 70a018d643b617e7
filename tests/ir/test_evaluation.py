import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import assume, given, settings, strategies as st

from mmir_lib.ir.evaluation import (
    held_out_scores,
    CUTOFFS, MEASURES, RECALL_LEVELS, aggregate, arithmetic_mean, average_precision, dcg, evaluate, f1,
    geometric_mean, interpolated_precision, ndcg, paired_t_test, precision, precision_at_k,
    precision_recall_curve, r_precision, rank_biased_precision, recall, recall_at_k, reciprocal_rank,
    wilcoxon_test,
)
from mmir_lib.ir.trec import trec_ranking

# ---- a worked example ---------------------------------------------------------------
# Ten retrieved documents d1..d10. Judged: d1 (2), d3 (1), d4 (0), d6 (2), d9 (1), and d12 (1),
# which is not retrieved. Relevant ranks: 1, 3, 6, 9; R = 5 (d1, d3, d6, d9, d12).
RANKING = [f"d{i}" for i in range(1, 11)]
JUDGEMENTS = {"d1": 2, "d3": 1, "d4": 0, "d6": 2, "d9": 1, "d12": 1}


def test_set_measures_by_hand():
    assert precision(RANKING, JUDGEMENTS) == 4 / 10
    assert recall(RANKING, JUDGEMENTS) == 4 / 5
    assert f1(RANKING, JUDGEMENTS) == pytest.approx(2 * 0.4 * 0.8 / (0.4 + 0.8), rel=1e-15)  # 0.5333


def test_cutoff_measures_by_hand():
    assert precision_at_k(RANKING, JUDGEMENTS, 5) == 2 / 5  # ranks 1 and 3
    assert precision_at_k(RANKING, JUDGEMENTS, 10) == 4 / 10
    assert precision_at_k(RANKING, JUDGEMENTS, 20) == 4 / 20  # divided by k, not by 10
    assert recall_at_k(RANKING, JUDGEMENTS, 5) == 2 / 5
    assert recall_at_k(RANKING, JUDGEMENTS, 10) == 4 / 5
    assert r_precision(RANKING, JUDGEMENTS) == 2 / 5  # P@R with R = 5
    assert reciprocal_rank(RANKING, JUDGEMENTS) == 1.0
    assert reciprocal_rank(RANKING[1:], JUDGEMENTS) == 1 / 2  # d3 now at rank 2


def test_average_precision_by_hand():
    # (1/1 + 2/3 + 3/6 + 4/9) / 5 = (36 + 24 + 18 + 16) / 180 = 47/90
    assert average_precision(RANKING, JUDGEMENTS) == pytest.approx(47 / 90, rel=1e-15)
    assert average_precision(RANKING, JUDGEMENTS, k=5) == pytest.approx((1 + 2 / 3) / 5, rel=1e-15)


def test_interpolated_precision_by_hand():
    # precision at the relevant ranks: 1, 2/3, 3/6, 4/9 (recall 0.2, 0.4, 0.6, 0.8). Best
    # precision at recall >= r: 1 up to r = 0.2; 2/3 up to 0.4; 1/2 up to 0.6; 4/9 up to 0.8;
    # recall 0.9 and 1.0 are never reached.
    expected = [1, 1, 1, 2 / 3, 2 / 3, 1 / 2, 1 / 2, 4 / 9, 4 / 9, 0, 0]
    assert interpolated_precision(RANKING, JUDGEMENTS).tolist() == pytest.approx(expected, rel=1e-15)


def test_interpolated_precision_follows_trec_eval_rounding():
    # R = 3: in floating point 0.7 * 3 + 0.9 = 2.9999999999999996, so two relevant documents
    # (recall 2/3) "reach" 0.7, while 0.8 needs all three
    ranking, judgements = ["a", "x", "b", "y", "z", "c"], {"a": 1, "b": 1, "c": 1}
    values = interpolated_precision(ranking, judgements, [0.6, 0.7, 0.8])
    assert values.tolist() == pytest.approx([2 / 3, 2 / 3, 1 / 2], rel=1e-15)


def test_precision_recall_curve_by_hand():
    # relevant at ranks 2 and 4 of 5, R = 2
    curve = precision_recall_curve(["a", "b", "c", "d", "e"], {"b": 1, "d": 1})
    assert curve.recall.tolist() == [0, 0.5, 0.5, 1, 1]
    assert curve.precision.tolist() == pytest.approx([0, 1 / 2, 1 / 3, 2 / 4, 2 / 5])
    assert curve.interpolated.tolist() == pytest.approx([1 / 2, 1 / 2, 1 / 2, 1 / 2, 1 / 2])


def test_dcg_by_hand():
    # gains 2, 1, 2, 1 at ranks 1, 3, 6, 9
    trec = 2 / math.log2(2) + 1 / math.log2(4) + 2 / math.log2(7) + 1 / math.log2(10)  # 3.5134
    assert dcg(RANKING, JUDGEMENTS) == pytest.approx(trec, rel=1e-14)
    assert dcg(RANKING, JUDGEMENTS, k=5) == pytest.approx(2.5, rel=1e-15)
    seed = 2 / 1 + 1 / math.log2(3) + 2 / math.log2(6) + 1 / math.log2(9)  # 3.7201
    assert dcg(RANKING, JUDGEMENTS, discount="seed") == pytest.approx(seed, rel=1e-14)
    assert dcg(RANKING, JUDGEMENTS, discount="seed", base=10) == pytest.approx(6.0)  # log10 i <= 1


def test_ndcg_by_hand():
    # ideal order of the positive grades 2, 2, 1, 1, 1 (d12 included although never retrieved)
    ideal = 2 / 1 + 2 / math.log2(3) + 1 / 2 + 1 / math.log2(5) + 1 / math.log2(6)  # 4.5794
    actual = 2 + 1 / 2 + 2 / math.log2(7) + 1 / math.log2(10)
    assert ndcg(RANKING, JUDGEMENTS) == pytest.approx(actual / ideal, rel=1e-14)  # 0.7672
    assert ndcg(RANKING, JUDGEMENTS, k=5) == pytest.approx(2.5 / ideal, rel=1e-14)
    assert ndcg(RANKING, JUDGEMENTS, k=1) == 1.0  # a grade-2 document first is ideal at k = 1
    seed_ideal = 2 + 2 + 1 / math.log2(3) + 1 / 2 + 1 / math.log2(5)
    seed_actual = 2 + 1 / math.log2(3) + 2 / math.log2(6) + 1 / math.log2(9)
    assert ndcg(RANKING, JUDGEMENTS, discount="seed") == pytest.approx(seed_actual / seed_ideal, rel=1e-14)


def test_seed_and_trec_eval_discounts_can_disagree_on_the_order():
    # A: grade 2 at rank 2. B: grade 1 at ranks 1 and 5.
    # trec_eval: A = 2/log2 3 = 1.262 < B = 1 + 1/log2 6 = 1.387
    # seed (b = 2): A = 2/max(1, log2 2) = 2 > B = 1 + 1/log2 5 = 1.431
    judgements = {"g": 2, "h": 1, "i": 1}
    a, b = ["x", "g", "y"], ["h", "x", "y", "z", "i"]
    trec = dcg(a, judgements), dcg(b, judgements)
    seed = dcg(a, judgements, discount="seed"), dcg(b, judgements, discount="seed")
    assert trec[0] < trec[1] and seed[0] > seed[1]


def test_rbp_by_hand():
    # relevant at ranks 1, 3, 6, 9; unjudged at ranks 2, 5, 7, 8, 10; p = 0.5
    score, residual = rank_biased_precision(RANKING, JUDGEMENTS, p=0.5)
    assert score == 0.5 * (1 + 0.5**2 + 0.5**5 + 0.5**8)  # 0.642578125, exact in binary
    assert residual == 0.5 * (0.5 + 0.5**4 + 0.5**6 + 0.5**7 + 0.5**9) + 0.5**10  # 0.294921875
    score3, residual3 = rank_biased_precision(RANKING, JUDGEMENTS, p=0.5, k=3)
    assert (score3, residual3) == (0.5 * (1 + 0.25), 0.5 * 0.5 + 0.5**3)


def test_negative_grades_are_neither_relevant_nor_judged():
    judgements = {"a": -1, "b": 2, "c": 1}
    assert precision(["a", "b", "c"], judgements) == 2 / 3
    assert ndcg(["a", "b", "c"], judgements) == pytest.approx(
        (2 / math.log2(3) + 1 / 2) / (2 + 1 / math.log2(3)), rel=1e-14)
    assert rank_biased_precision(["a"], judgements, p=0.5) == (0.0, 0.5 + 0.5)  # unjudged + tail


def test_queries_without_relevant_documents_score_zero():
    ranking, judgements = ["a", "b"], {"a": 0, "z": 0}
    for fn in (precision, recall, f1, r_precision, reciprocal_rank, average_precision, dcg, ndcg):
        assert fn(ranking, judgements) == 0.0
    assert interpolated_precision(ranking, judgements).tolist() == [0.0] * 11
    assert interpolated_precision([], {"a": 1}).tolist() == [0.0] * 11  # trec_eval: NaN


def test_empty_ranking():
    assert precision([], {"a": 1}) == 0.0 and recall([], {"a": 1}) == 0.0
    assert precision_at_k([], {"a": 1}, 5) == 0.0 and ndcg([], {"a": 1}) == 0.0
    assert rank_biased_precision([], {"a": 1}) == (0.0, 1.0)
    assert precision_recall_curve([], {"a": 1}).recall.shape == (0,)


# ---- bad input ----------------------------------------------------------------------

@pytest.mark.parametrize("k, error", [(0, ValueError), (-3, ValueError), (2.5, TypeError), (True, TypeError),
                                      ("5", TypeError)])
def test_bad_k(k, error):
    for fn in (precision_at_k, recall_at_k):
        with pytest.raises(error, match="k must"):
            fn(RANKING, JUDGEMENTS, k)
    for fn in (average_precision, dcg, ndcg):
        with pytest.raises(error, match="k must"):
            fn(RANKING, JUDGEMENTS, k=k)


@pytest.mark.parametrize("p, error, match", [(0, ValueError, "p must be > 0"), (1, ValueError, "p must be < 1"),
                                             (1.5, ValueError, "p must be < 1"), (float("nan"), ValueError, "finite"),
                                             ("0.5", TypeError, "real number"), (True, TypeError, "real number")])
def test_bad_persistence(p, error, match):
    with pytest.raises(error, match=match):
        rank_biased_precision(RANKING, JUDGEMENTS, p=p)


@pytest.mark.parametrize("ranking, judgements, error, match", [
    ("d1 d2", JUDGEMENTS, TypeError, "sequence of docnos"),
    ({"d1": 1.0}, JUDGEMENTS, TypeError, "sequence of docnos"),
    (["d1", 2], JUDGEMENTS, TypeError, "docnos must be str"),
    (["d1", "d2", "d1"], JUDGEMENTS, ValueError, "'d1' twice"),
    (["d1"], {"d1": 1.0}, TypeError, "grade of 'd1' must be an int"),
    (["d1"], {"d1": True}, TypeError, "grade of 'd1' must be an int"),
    (["d1"], [("d1", 1)], TypeError, "mapping"),
])
def test_bad_ranking_or_judgements(ranking, judgements, error, match):
    with pytest.raises(error, match=match):
        average_precision(ranking, judgements)


def test_bad_discount_and_levels():
    with pytest.raises(ValueError, match="discount must be one of"):
        dcg(RANKING, JUDGEMENTS, discount="log10")
    with pytest.raises(ValueError, match="base applies to the seed discount only"):
        ndcg(RANKING, JUDGEMENTS, base=10)
    with pytest.raises(ValueError, match="base must be > 1"):
        ndcg(RANKING, JUDGEMENTS, discount="seed", base=1)
    with pytest.raises(ValueError, match="recall_levels must hold values <= 1"):
        interpolated_precision(RANKING, JUDGEMENTS, [0.5, 1.5])


# ---- evaluate -----------------------------------------------------------------------

RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}, "q2": {"a": 1.0, "b": 1.0}, "q9": {"d1": 1.0}}
QRELS = {"q1": {"d2": 1, "d4": 2, "d7": 1}, "q2": {"a": 0}, "q3": {"d1": 1}, "q4": {}}


def test_evaluate_by_hand():
    # q1 ranks d1, d3, d2, d4 (tie 2.0: "d3" > "d2"): relevant at ranks 3 and 4, R = 3
    results = evaluate(RUN, QRELS, ["map", "P_2", "P.4", "recip_rank", "num_rel", "num_rel_ret"])
    assert list(results) == ["q1", "q2"]  # q3 not in the run, q4 has no judgement, q9 not judged
    assert results["q1"] == pytest.approx(
        {"map": (1 / 3 + 2 / 4) / 3, "P_2": 0.0, "P_4": 0.5, "recip_rank": 1 / 3, "num_rel": 3, "num_rel_ret": 2},
        rel=1e-15)
    assert results["q2"] == {"map": 0.0, "P_2": 0.0, "P_4": 0.0, "recip_rank": 0.0, "num_rel": 0.0,
                             "num_rel_ret": 0.0}


def test_evaluate_missing_zero_charges_skipped_queries():
    results = evaluate(RUN, QRELS, ["map", "num_rel", "num_ret"], missing="zero")
    assert list(results) == ["q1", "q2", "q3"]
    assert results["q3"] == {"map": 0.0, "num_rel": 1.0, "num_ret": 0.0}


def test_evaluate_family_names_expand_to_trec_eval_defaults():
    results = evaluate(RUN, QRELS, ["P", "ndcg_cut", "iprec_at_recall", "map_cut", "recall"])
    keys = list(results["q1"])
    assert keys[:9] == [f"P_{k}" for k in CUTOFFS]
    assert [k for k in keys if k.startswith("iprec")] == [f"iprec_at_recall_{r:.2f}" for r in RECALL_LEVELS]
    assert len(keys) == 4 * 9 + 11


def test_evaluate_agrees_with_the_per_query_functions():
    ranking = trec_ranking(RUN["q1"])
    judgements = QRELS["q1"]
    results = evaluate(RUN, QRELS, ["map", "ndcg_cut_3", "Rprec", "set_F", "iprec_at_recall_0.30"])["q1"]
    assert results == {
        "map": average_precision(ranking, judgements), "ndcg_cut_3": ndcg(ranking, judgements, 3),
        "Rprec": r_precision(ranking, judgements), "set_F": f1(ranking, judgements),
        "iprec_at_recall_0.30": interpolated_precision(ranking, judgements, [0.3])[0]}


@pytest.mark.parametrize("measures, error, match", [
    (["map", "infAP"], ValueError, "unknown measure 'infAP'"),
    (["P_0"], ValueError, "P needs a cutoff k >= 1, got '0'"),
    (["P_x"], ValueError, "P needs a cutoff"),
    (["ndcg_cut_2.5"], ValueError, "ndcg_cut needs a cutoff"),
    (["recall_²"], ValueError, "recall needs a cutoff"),
    (["iprec_at_recall_1.5"], ValueError, r"recall level in \[0, 1\]"),
    ([], ValueError, "no measure"),
    ([10], TypeError, "measures must be str names"),
    (None, TypeError, "measures must be a measure name or a list"),
])
def test_evaluate_bad_measures(measures, error, match):
    with pytest.raises(error, match=match):
        evaluate(RUN, QRELS, measures)


@pytest.mark.parametrize("run, qrels, kwargs, error, match", [
    (RUN, QRELS, {"missing": "drop"}, ValueError, "missing must be"),
    ([("q1", {})], QRELS, {}, TypeError, "run must be a mapping"),
    ({1: {"d1": 1.0}}, QRELS, {}, TypeError, "run, query 1: qid must be a str"),
    (RUN, [("q1", {})], {}, TypeError, "qrels must be a mapping"),
    ({"q1": {"d1": float("nan")}}, QRELS, {}, ValueError, "run, query 'q1': scores must be finite"),
    ({"q1": {"d1": "high"}}, QRELS, {}, TypeError, "run, query 'q1': scores must be real numbers"),
    (RUN, {"q1": {"d1": 0.5}}, {}, TypeError, "judgements of query 'q1'"),
])
def test_evaluate_bad_input(run, qrels, kwargs, error, match):
    with pytest.raises(error, match=match):
        evaluate(run, qrels, ["map"], **kwargs)


def test_measures_lists_the_names():
    assert {"map", "P", "ndcg_cut", "iprec_at_recall", "set_F", "Rprec", "recip_rank"} <= set(MEASURES)


# ---- properties ---------------------------------------------------------------------

POOL = [f"d{i}" for i in range(15)]


@st.composite
def queries(draw, max_grade=2):
    """A ranking (unique docnos from a small pool) and judgements of part of the pool."""
    ranking = draw(st.permutations(POOL))[:draw(st.integers(0, len(POOL)))]
    judged = draw(st.lists(st.sampled_from(POOL), unique=True, max_size=len(POOL)))
    judgements = {d: draw(st.integers(-1, max_grade)) for d in judged}
    return list(ranking), judgements


ALL = ["map", "map_cut", "P", "recall", "Rprec", "recip_rank", "ndcg", "ndcg_cut", "iprec_at_recall",
       "set_P", "set_recall", "set_F", "P_1", "P_3", "ndcg_cut_3"]


@settings(max_examples=80, deadline=None)
@given(queries())
def test_every_measure_lies_in_zero_one(query):
    ranking, judgements = query
    assume(judgements)
    run = {"q": {d: float(len(ranking) - i) for i, d in enumerate(ranking)}}
    for name, value in evaluate(run, {"q": judgements}, ALL)["q"].items():
        assert 0.0 <= value <= 1.0, name
    assert 0.0 <= dcg(ranking, judgements) <= dcg(sorted(judgements, key=judgements.get, reverse=True), judgements)


@settings(max_examples=80, deadline=None)
@given(queries(), st.integers(1, 20))
def test_precision_at_k_counts_relevant_documents(query, k):
    ranking, judgements = query
    relevant_in_top_k = sum(judgements.get(d, 0) >= 1 for d in ranking[:k])
    assert round(precision_at_k(ranking, judgements, k) * k) == relevant_in_top_k
    assert recall_at_k(ranking, judgements, k) <= recall_at_k(ranking, judgements, k + 1)


@settings(max_examples=80, deadline=None)
@given(queries())
def test_perfect_and_ideal_rankings(query):
    _, judgements = query
    relevant = [d for d, g in judgements.items() if g >= 1]
    assume(relevant)
    others = [d for d in POOL if d not in relevant]
    perfect = relevant + others  # every relevant document first, in any order
    assert average_precision(perfect, judgements) == 1.0
    assert r_precision(perfect, judgements) == 1.0 and reciprocal_rank(perfect, judgements) == 1.0
    assert interpolated_precision(perfect, judgements).tolist() == [1.0] * 11
    ideal = sorted(judgements, key=lambda d: -judgements[d])  # highest grade first
    for k in (None, 1, 3, 10):
        assert ndcg(ideal, judgements, k) == pytest.approx(1.0, rel=1e-14)
        assert ndcg(ideal, judgements, k, discount="seed", base=3) == pytest.approx(1.0, rel=1e-14)


@settings(max_examples=80, deadline=None)
@given(queries())
def test_average_precision_is_the_area_under_the_pr_curve(query):
    ranking, judgements = query
    curve = precision_recall_curve(ranking, judgements)
    area = np.sum(curve.precision * np.diff(curve.recall, prepend=0.0))
    assert average_precision(ranking, judgements) == pytest.approx(area, abs=1e-14)
    assert np.all(np.diff(curve.interpolated) <= 0) and np.all(curve.interpolated >= curve.precision)
    assert np.all(np.diff(interpolated_precision(ranking, judgements)) <= 0)


@settings(max_examples=60, deadline=None)
@given(queries(), st.lists(st.integers(0, 3), min_size=len(POOL), max_size=len(POOL)), st.randoms())
def test_equal_scores_are_ordered_by_docno_only(query, scores, rnd):
    ranking, judgements = query
    assume(judgements)
    doc_scores = {d: scores[i] / 2 for i, d in enumerate(ranking)}  # many ties
    shuffled = list(doc_scores.items())
    rnd.shuffle(shuffled)
    # what trec_eval does, written independently: score descending, then docno descending
    expected_order = [d for d, _ in sorted(doc_scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]
    strict = {d: float(len(expected_order) - i) for i, d in enumerate(expected_order)}  # no ties at all
    qrels = {"q": judgements}
    reference = evaluate({"q": strict}, qrels, ALL)
    assert evaluate({"q": doc_scores}, qrels, ALL) == reference
    assert evaluate({"q": dict(shuffled)}, qrels, ALL) == reference  # insertion order is irrelevant


@settings(max_examples=80, deadline=None)
@given(queries(), st.sampled_from([0.5, 0.8, 0.95]), st.one_of(st.none(), st.integers(1, 20)), st.randoms())
def test_rbp_residual_bounds_every_completion(query, p, k, rnd):
    ranking, judgements = query
    score, residual = rank_biased_precision(ranking, judgements, p, k)
    assert 0.0 <= score <= score + residual <= 1.0 + 1e-15
    # judge the unjudged documents at random and read on below the evaluated depth:
    depth = len(ranking) if k is None else min(k, len(ranking))
    completed = dict(judgements)
    for d in ranking[:depth]:
        if completed.get(d, -1) < 0:
            completed[d] = rnd.choice([0, 1])
    extension = [f"x{i}" for i in range(rnd.randint(0, 30))]
    completed.update({d: rnd.choice([0, 1]) for d in extension})
    full_score, full_residual = rank_biased_precision(ranking[:depth] + extension, completed, p)
    assert score - 1e-15 <= full_score <= score + residual + 1e-15
    assert full_residual == pytest.approx(p ** (depth + len(extension)), rel=1e-12)  # all judged now


# ---- means --------------------------------------------------------------------------

def test_means_by_hand():
    assert arithmetic_mean([0.2, 0.4]) == pytest.approx(0.3)
    assert geometric_mean([0.2, 0.8]) == pytest.approx(0.4)  # sqrt(0.16)
    assert geometric_mean([0.0, 0.1]) == pytest.approx(math.sqrt(1e-5 * 0.1))  # 0 floored to 1e-5
    assert geometric_mean([0.0, 0.1], floor=1e-3) == pytest.approx(0.01)


def test_aggregate():
    results = {"q1": {"map": 0.2, "num_rel": 2.0}, "q2": {"map": 0.8, "num_rel": 5.0}}
    assert aggregate(results) == pytest.approx({"map": 0.5, "num_rel": 7.0})
    assert aggregate(results, mean="geometric") == pytest.approx({"map": 0.4, "num_rel": 7.0})


@pytest.mark.parametrize("call, error, match", [
    (lambda: arithmetic_mean([]), ValueError, "values must not be empty"),
    (lambda: arithmetic_mean([0.1, float("nan")]), ValueError, "finite"),
    (lambda: arithmetic_mean(["0.1"]), TypeError, "values must hold float values"),
    (lambda: arithmetic_mean(b"x"), TypeError, "values must be an array"),
    (lambda: geometric_mean([0.1, -0.1]), ValueError, "values must be >= 0"),
    (lambda: geometric_mean([0.1], floor=0), ValueError, "floor must be > 0"),
    (lambda: geometric_mean([0.1], floor=1e300), ValueError, "floor must be <= 1"),
    (lambda: aggregate({}), ValueError, "results is empty"),
    (lambda: aggregate({"q1": 0.5}), TypeError, r"results\['q1'\] must be a mapping"),
    (lambda: aggregate({"q1": {"map": float("nan")}}), ValueError, r"results\['q1'\]\['map'\] must be finite"),
    (lambda: aggregate({"q1": {"map": 0.1}, "q2": {"P_5": 0.2}}), ValueError, "query 'q2' has measures"),
    (lambda: aggregate({"q1": {"map": 0.1}}, mean="harmonic"), ValueError, "mean must be"),
])
def test_means_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---- significance -------------------------------------------------------------------

A = {"q1": 0.50, "q2": 0.40, "q3": 0.90, "q4": 0.20, "q5": 0.70}
B = {"q1": 0.30, "q2": 0.30, "q3": 0.60, "q4": 0.25, "q5": 0.40}


def test_t_test_by_hand():
    # differences 0.2, 0.1, 0.3, -0.05, 0.3: mean 0.17, t = mean / (sd / sqrt(5))
    d = np.array([0.2, 0.1, 0.3, -0.05, 0.3])
    t = d.mean() / (d.std(ddof=1) / math.sqrt(5))
    result = paired_t_test(A, B)
    assert result.statistic == pytest.approx(t, rel=1e-12)
    assert result.pvalue == pytest.approx(2 * scipy.stats.t.sf(t, df=4), rel=1e-10)
    assert result.mean_difference == pytest.approx(0.17) and result.num_queries == 5
    assert paired_t_test(A, B, alternative="greater").pvalue == pytest.approx(result.pvalue / 2)


def test_tests_align_mappings_by_query():
    reordered = {q: B[q] for q in reversed(B)}
    assert paired_t_test(A, reordered) == paired_t_test(list(A.values()), list(B.values()))
    assert wilcoxon_test(A, reordered) == wilcoxon_test(list(A.values()), list(B.values()))


def test_wilcoxon_by_hand():
    # |differences| ranked: 0.05 (1, negative), 0.1 (2), 0.2 (3), 0.3 and 0.3 (4.5 each):
    # W- = 1, W+ = 14; two-sided statistic min(W+, W-) = 1
    result = wilcoxon_test(A, B)
    assert result.statistic == 1.0
    assert result.pvalue == pytest.approx(scipy.stats.wilcoxon(list(A.values()), list(B.values())).pvalue)
    assert 0.05 < result.pvalue < 0.2


@pytest.mark.parametrize("a, b, error, match", [
    (A, {**B, "q6": 0.1}, ValueError, r"same queries; only in A: \[\], only in B: \['q6'\]"),
    ([0.1, 0.2, 0.3], [0.1, 0.2], ValueError, "got 3 and 2 scores"),
    (A, list(B.values()), TypeError, "or both sequences; only scores_a is a mapping"),
    ([0.1], [0.2], ValueError, "at least 2 queries"),
    ([0.1, float("nan")], [0.2, 0.3], ValueError, "finite"),
    ([0.1, 0.2], [0.3, 0.4], ValueError, "same difference"),
])
def test_t_test_bad_input(a, b, error, match):
    with pytest.raises(error, match=match):
        paired_t_test(a, b)


def test_wilcoxon_bad_input():
    with pytest.raises(ValueError, match="nothing to test"):
        wilcoxon_test([0.1, 0.2], [0.1, 0.2])
    with pytest.raises(ValueError, match="alternative must be"):
        wilcoxon_test(A, B, alternative="bigger")


# ---- cross-validation of a setting over topics (I.3) ------------------------------------

def test_held_out_scores_never_choose_with_the_scored_topic():
    # setting "x" is best on topic a alone and worst elsewhere: a's own fold must not pick it
    grid = {"x": {"a": 1.0, "b": 0.0, "c": 0.0, "d": 0.0}, "y": {"a": 0.2, "b": 0.5, "c": 0.5, "d": 0.5}}
    held_out, chosen = held_out_scores(grid, [("a", "b"), ("c", "d")])
    # fold (a, b) is scored by y, chosen on c and d, although x is better on a and b themselves
    # (0.5 against 0.35); fold (c, d) by x, chosen on a and b, although x scores 0 on c and d
    assert chosen == ["y", "x"] and held_out == {"a": 0.2, "b": 0.5, "c": 0.0, "d": 0.0}


def test_held_out_scores_break_ties_by_grid_order_after_rounding():
    grid = {1: {"a": 0.3, "b": 0.1 + 0.2}, 2: {"a": 0.1 + 0.2, "b": 0.3}}  # equal up to rounding
    assert held_out_scores(grid, [("a",), ("b",)])[1] == [1, 1]
    assert held_out_scores(dict(reversed(grid.items())), [("a",), ("b",)])[1] == [2, 2]


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_held_out_scores_match_a_direct_loop(n_folds, n_settings, seed):
    rng = np.random.default_rng(seed)
    topics = [f"q{i}" for i in range(n_folds * 3)]
    grid = {s: {q: float(rng.integers(0, 4)) / 4 for q in topics} for s in range(n_settings)}
    folds = [tuple(topics[i::n_folds]) for i in range(n_folds)]
    held_out, chosen = held_out_scores(grid, folds)
    assert sorted(held_out) == sorted(topics)
    for fold, setting in zip(folds, chosen):
        others = [q for q in topics if q not in fold]
        means = [np.mean([grid[s][q] for q in others]) for s in grid]
        assert setting == int(np.flatnonzero(np.isclose(means, max(means)))[0])  # the first best
        assert all(held_out[q] == grid[setting][q] for q in fold)
    if n_settings == 1:
        assert held_out == grid[0]


@pytest.mark.parametrize("grid, folds, error, words", [
    ({}, [("a",), ("b",)], TypeError, "topic_scores must be a non-empty"),
    ({1: {"a": 0.1, "b": 0.2}}, [("a", "b")], ValueError, "at least two folds"),
    ({1: {"a": 0.1, "b": 0.2}}, [("a",), ("a", "b")], ValueError, "disjoint"),
    ({1: {"a": 0.1}}, [("a",), ("b",)], ValueError, r"topic_scores\[1\] must score every topic"),
    ({1: {"a": 0.1, "b": float("nan")}}, [("a",), ("b",)], ValueError, "NaN"),
])
def test_held_out_scores_bad_input(grid, folds, error, words):
    with pytest.raises(error, match=words):
        held_out_scores(grid, folds)
