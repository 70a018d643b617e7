"""The book's own runs, evaluated by mmir_lib and by trec_eval (pytrec_eval), must agree.

`test_evaluation_reference.py` checks the measures on random runs built to hit every
corner case; this file checks them on the runs the chapters actually report: tf-idf
(lnc.ltc cosine), BM25 (k1 = 1.2, b = 0.75) and query likelihood (Dirichlet, mu = 100),
1,000 deep, on the 40 Shakespeare topics and on the Lee collection (each article a
query against the other 49). Every measure both tools compute, for every query, must
agree to 1e-12, and so must the means over queries.
"""

import numpy as np
import pytest
import pytrec_eval

from mmir_lib.ir import bm25_scores, collection
from mmir_lib.ir.evaluation import aggregate, evaluate
from mmir_lib.ir.query_likelihood import query_likelihood_scores
from mmir_lib.ir.scoring import document_norms, tfidf_scores

TOLERANCE = 1e-12
DEPTH = 1000
SYSTEMS = ("tf-idf", "BM25", "QL")
# every trec_eval measure evaluate() implements; bare family names give trec_eval's
# default cutoffs (5 ... 1000) and the 11 recall levels
MEASURES = {"map", "Rprec", "recip_rank", "ndcg", "set_P", "set_recall", "set_F", "num_ret", "num_rel",
            "num_rel_ret", "P", "recall", "map_cut", "ndcg_cut", "iprec_at_recall"}
MEASURES_PER_QUERY = 10 + 4 * 9 + 11


def _runs(index, docnos, queries, exclude=None):
    norms = document_norms(index)
    scorers = {
        "tf-idf": lambda ix, q: tfidf_scores(ix, q, norms=norms),
        "BM25": bm25_scores,
        "QL": lambda ix, q: query_likelihood_scores(ix, q, mu=100.0),
    }
    return {name: collection.make_run(index, docnos, queries, scorer, DEPTH, exclude) for name, scorer in scorers.items()}


@pytest.fixture(scope="module")
def shakespeare():
    docnos, index = collection.shakespeare_index()
    titles = {t.qid: t.title for t in collection.topics()}
    return collection.qrels(), _runs(index, docnos, titles)


@pytest.fixture(scope="module")
def lee():
    docnos, index, queries, qrels = collection.lee_collection()
    return qrels, _runs(index, docnos, queries, exclude={q: q for q in queries})


@pytest.fixture(scope="module")
def collections(shakespeare, lee):
    return {"shakespeare": shakespeare, "lee": lee}


def test_the_runs_are_the_ones_the_book_reports(shakespeare, lee):
    qrels, runs = shakespeare
    for run in runs.values():
        assert set(run) == set(qrels) and len(run) == 40
        assert max(map(len, run.values())) == DEPTH  # some topics are cut at 1,000 ...
        assert min(map(len, run.values())) < 100  # ... others match only a few speeches
    lee_qrels, lee_runs = lee
    for run in lee_runs.values():
        assert set(run) == set(lee_qrels) and len(run) == 48
        assert all(qid not in docs and len(docs) <= 49 for qid, docs in run.items())


def test_the_runs_exercise_the_tie_rule(shakespeare):
    """Ties in float32 are where an evaluator that sorts differently from trec_eval goes
    wrong; the real runs have plenty of them, so the cross-check below covers the rule."""
    _, runs = shakespeare
    for name, run in runs.items():
        tied = sum(len(set(np.float32(list(docs.values())))) < len(docs) for docs in run.values())
        assert tied >= 30, name


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("name", ["shakespeare", "lee"])
def test_every_measure_equals_trec_eval(collections, name, system):
    qrels, runs = collections[name]
    run = runs[system]
    theirs = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    ours = evaluate(run, qrels, MEASURES)
    assert list(ours) == list(qrels) and set(ours) == set(theirs)
    for qid, values in theirs.items():
        assert set(ours[qid]) == set(values) and len(values) == MEASURES_PER_QUERY, qid
        for measure, value in values.items():
            assert abs(ours[qid][measure] - value) <= TOLERANCE, (qid, measure, ours[qid][measure], value)


@pytest.mark.parametrize("name", ["shakespeare", "lee"])
def test_means_over_queries_equal_trec_eval(collections, name):
    qrels, runs = collections[name]
    for system, run in runs.items():
        theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map", "gm_map", "P_10", "ndcg_cut_10", "recip_rank"}).evaluate(run)
        ours = evaluate(run, qrels, ["map", "P_10", "ndcg_cut_10", "recip_rank"])
        means = aggregate(ours)
        for measure, value in means.items():
            expected = pytrec_eval.compute_aggregated_measure(measure, [row[measure] for row in theirs.values()])
            assert value == pytest.approx(expected, rel=TOLERANCE, abs=TOLERANCE), (system, measure)
        gmap = pytrec_eval.compute_aggregated_measure("gm_map", [row["gm_map"] for row in theirs.values()])
        assert aggregate(ours, mean="geometric")["map"] == pytest.approx(gmap, rel=TOLERANCE), system
