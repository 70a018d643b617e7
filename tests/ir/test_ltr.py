import itertools
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

from mmir_lib.data import lee_corpus
from mmir_lib.ir import Analyzer, InvertedIndex, bm25_scores, collection
from mmir_lib.ir.evaluation import aggregate, evaluate, ndcg
from mmir_lib.ir.ltr import (MODEL_KINDS, Scorer, cascade, cross_validate, delta_ndcg, lambdarank_loss,
                             listnet_loss, pointwise_loss, ranknet_loss, rerank, topic_folds, train_lambdamart,
                             train_ranker)
from mmir_lib.ir.ltr_features import (DESCRIPTION_FEATURE, FEATURE_NAMES, QUERY_FEATURES, RankingData,
                                      Standardizer, extract_features, first_stage, first_stage_recall, grades,
                                      min_window, normalize_per_query)
from mmir_lib.ir.scoring import jaccard_scores, tfidf_scores

TEXTS = ["the cat sat on the mat", "a dog and a cat", "the dog barked at the cat", "a bird sang",
         "cat and dog and cat and dog", "the mat"]
DOCNOS = [f"d{i}" for i in range(len(TEXTS))]


@pytest.fixture(scope="module")
def toy():
    return InvertedIndex.from_texts(TEXTS, Analyzer(stopwords={"the", "a", "on", "and", "at"}))


@pytest.fixture(scope="module")
def lee():
    docnos, index, queries, qrels = collection.lee_collection()
    run = first_stage(index, docnos, queries, k=100, exclude={q: q for q in queries})
    data = extract_features(index, docnos, lee_corpus().documents, queries, run)
    return docnos, index, queries, qrels, run, data


def t(values, dtype=torch.float64):
    return torch.tensor(values, dtype=dtype)


# ---- losses: hand-computed values ----------------------------------------------------------

def test_ranknet_loss_by_hand():
    # query 0: grades 2, 1, 0 with scores 0.5, 1, −1: pairs (0,1), (0,2), (1,2)
    # query 1: grades 0, 1 with scores 0, 0: pair (1, 0); pairs never cross queries
    scores, labels, queries = t([0.5, 1.0, -1.0, 0.0, 0.0]), t([2, 1, 0, 0, 1]), torch.tensor([0, 0, 0, 1, 1])
    expected = np.mean([math.log1p(math.exp(0.5)), math.log1p(math.exp(-1.5)), math.log1p(math.exp(-2.0)),
                        math.log(2.0)])
    assert float(ranknet_loss(scores, labels, queries)) == pytest.approx(expected, rel=1e-12)
    # σ scales the score differences
    assert float(ranknet_loss(t([0.0, 1.0]), t([1, 0]), torch.tensor([3, 3]), sigma=2.0)) == pytest.approx(
        math.log1p(math.exp(2.0)), rel=1e-12)


def cross_entropy(scores, labels):
    """−Σ softmax(y) log softmax(s), written out with numpy."""
    scores, labels = np.array(scores, dtype=float), np.array(labels, dtype=float)
    p_y = np.exp(labels) / np.exp(labels).sum()
    return -(p_y * (scores - np.log(np.exp(scores).sum()))).sum()


def test_listnet_loss_by_hand():
    # P_y = (e², 1, e) / (e² + 1 + e), log P_s = (1, 0, 0) − ln(e + 2)
    expected = -(np.exp([2, 0, 1]) * (np.array([1, 0, 0]) - math.log(math.e + 2))).sum() / np.exp([2, 0, 1]).sum()
    assert cross_entropy([1.0, 0.0, 0.0], [2, 0, 1]) == pytest.approx(expected, rel=1e-12)
    # a second query with one grade only carries no order information and is left out
    value = listnet_loss(t([1.0, 0.0, 0.0, 5.0, -5.0]), t([2, 0, 1, 1, 1]), torch.tensor([0, 0, 0, 1, 1]))
    assert float(value) == pytest.approx(expected, rel=1e-12)
    # two informative queries are averaged; their rows may be interleaved
    value = listnet_loss(t([0.0, 1.0, 0.0, 0.0, 0.0]), t([0, 1, 2, 0, 0]), torch.tensor([5, 9, 5, 5, 9]))
    # query 5: uniform scores, the loss is ln 3 whatever the labels; query 9: s = (1, 0), y = (1, 0)
    assert cross_entropy([0, 0, 0], [0, 2, 0]) == pytest.approx(math.log(3))
    expected = (math.log(3) + cross_entropy([1, 0], [1, 0])) / 2
    assert float(value) == pytest.approx(expected, rel=1e-12)


def test_listnet_is_shift_invariant_per_query_pointwise_is_not():
    scores, labels, queries = t([0.3, -1.0, 2.0, 0.5]), t([1, 0, 2, 0]), torch.tensor([0, 0, 1, 1])
    shifted = scores + t([10.0, 10.0, -3.0, -3.0])
    assert float(listnet_loss(shifted, labels, queries)) == pytest.approx(float(listnet_loss(scores, labels, queries)))
    assert float(ranknet_loss(shifted, labels, queries)) == pytest.approx(float(ranknet_loss(scores, labels, queries)))
    assert float(pointwise_loss(shifted, labels)) != pytest.approx(float(pointwise_loss(scores, labels)))


def test_pointwise_loss_by_hand():
    assert float(pointwise_loss(t([1.0, 2.0, 0.0]), t([2, 2, 1]))) == pytest.approx(2 / 3)


@pytest.mark.parametrize("loss", [pointwise_loss, ranknet_loss, listnet_loss, lambdarank_loss])
def test_gradcheck(loss):
    generator = torch.Generator().manual_seed(0)
    scores = torch.randn(9, dtype=torch.float64, generator=generator, requires_grad=True)
    labels = t([2, 0, 1, 0, 0, 1, 2, 0, 1])
    queries = torch.tensor([0, 0, 0, 0, 1, 1, 1, 2, 2])
    assert torch.autograd.gradcheck(lambda s: loss(s, labels, queries), (scores,))


# ---- LambdaRank ----------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.floats(-5, 5, allow_nan=False)), min_size=2, max_size=8),
       st.sampled_from([None, 1, 3]))
def test_delta_ndcg_equals_a_brute_force_swap(docs, k):
    labels = [g for g, _ in docs]
    scores = t([s for _, s in docs])
    names = [f"d{i}" for i in range(len(docs))]
    judgements = dict(zip(names, labels))
    order = sorted(range(len(docs)), key=lambda i: (-scores[i].item(), i))  # ties: earlier row first
    ranking = [names[i] for i in order]
    base = ndcg(ranking, judgements, k)
    delta = delta_ndcg(scores, t(labels), k)
    for i, j in itertools.combinations(range(len(docs)), 2):
        swapped = list(ranking)
        a, b = swapped.index(names[i]), swapped.index(names[j])
        swapped[a], swapped[b] = swapped[b], swapped[a]
        assert delta[i, j].item() == pytest.approx(abs(ndcg(swapped, judgements, k) - base), abs=1e-12)
        assert delta[i, j] == delta[j, i]


def test_lambdarank_gradient_is_the_lambda():
    scores = t([0.2, 1.5, -0.3, 0.9]).requires_grad_()
    labels = t([2, 0, 1, 0])
    lambdarank_loss(scores, labels, torch.zeros(4, dtype=torch.int64), sigma=1.5).backward()
    delta = delta_ndcg(scores.detach(), labels)
    expected = np.zeros(4)
    for i, j in itertools.permutations(range(4), 2):
        if labels[i] > labels[j]:  # λ_ij = −σ |ΔnDCG| / (1 + e^{σ(s_i − s_j)}) pushes i up and j down
            lam = -1.5 * delta[i, j].item() / (1 + math.exp(1.5 * (scores[i] - scores[j]).item()))
            expected[i] += lam
            expected[j] -= lam
    assert scores.grad.numpy() == pytest.approx(expected, rel=1e-12)


def test_lambdarank_cutoff_ignores_swaps_below_k():
    delta = delta_ndcg(t([4.0, 3.0, 2.0, 1.0]), t([0, 1, 0, 2]), k=2)
    assert delta[2, 3] == 0 and delta[0, 3] > 0  # ranks 3 and 4 are both below the cutoff


# ---- training ----------------------------------------------------------------------------------

def synthetic(num_queries=24, per_query=30, seed=0):
    """Relevance is a known monotone function of feature 0, grade = floor(x_0), with a gap of
    0.2 between grades (so that a perfect ranking exists and is learnable); features 1-2 are noise."""
    rng = np.random.default_rng(seed)
    n = num_queries * per_query
    y = rng.choice(3, size=n, p=[0.7, 0.2, 0.1])
    X = np.column_stack([y + rng.uniform(0.0, 0.8, n), rng.normal(size=(n, 2))])
    qids = np.repeat([f"q{i}" for i in range(num_queries)], per_query)
    docnos = np.array([f"{q}-{i}" for q, i in zip(qids, itertools.cycle(range(per_query)))])
    data = RankingData(X, qids, docnos, np.arange(len(X)), ("signal", "noise1", "noise2"))
    qrels = {q: {d: int(g) for d, g, qq in zip(docnos, y, qids) if qq == q} for q in dict.fromkeys(qids)}
    return data, y, qrels


@pytest.mark.parametrize("kind", sorted(MODEL_KINDS))
def test_learns_to_rank_by_the_informative_feature(kind):
    data, y, qrels = synthetic()
    folds = topic_folds(list(dict.fromkeys(data.qids)), n_folds=3, seed=1)
    result = cross_validate(data, y, folds, lambda X, yy, q: train_ranker(kind, X, yy, q, epochs=100, lr=0.1))
    assert aggregate(evaluate(result.run, qrels, "ndcg_cut_10"))["ndcg_cut_10"] > 0.99
    weights = result.models[0].model.net.weight.detach().numpy()[0]
    assert abs(weights[0]) > 5 * np.abs(weights[1:]).max() and weights[0] > 0


def test_lambdamart_learns_to_rank_by_the_informative_feature():
    data, y, qrels = synthetic()
    folds = topic_folds(list(dict.fromkeys(data.qids)), n_folds=3, seed=1)
    result = cross_validate(data, y, folds, lambda X, yy, q: train_lambdamart(X, yy, q, num_boost_round=30))
    assert aggregate(evaluate(result.run, qrels, "ndcg_cut_10"))["ndcg_cut_10"] > 0.99
    assert np.argmax(result.models[0].importance()) == 0


def test_lambdamart_does_not_need_rows_grouped_by_query():
    data, y, _ = synthetic(num_queries=6)
    # interleave the queries (round robin), keeping each query's rows in their order: LightGBM's
    # first ranking, with all scores equal, is the row order, so that order is part of the input
    slot = np.concatenate([np.arange(30)] * 6)
    interleaved = np.lexsort((data.qids, slot))
    assert len(set(data.qids[interleaved[:6]])) == 6
    grouped = train_lambdamart(data.X, y, data.qids, num_boost_round=10)
    mixed = train_lambdamart(data.X[interleaved], y[interleaved], data.qids[interleaved], num_boost_round=10)
    assert np.array_equal(mixed.predict(data.X), grouped.predict(data.X))


@pytest.mark.parametrize("hidden", [0, 8])
def test_same_seed_same_scores(hidden):
    data, y, _ = synthetic(num_queries=6)
    first = train_ranker("ranknet", data.X, y, data.qids, epochs=20, seed=7, hidden=hidden)
    torch.manual_seed(123)  # the caller's random state must not matter
    again = train_ranker("ranknet", data.X, y, data.qids, epochs=20, seed=7, hidden=hidden)
    other = train_ranker("ranknet", data.X, y, data.qids, epochs=20, seed=8, hidden=hidden)
    assert np.array_equal(first.predict(data.X), again.predict(data.X))
    assert first.losses == again.losses
    assert not np.array_equal(first.predict(data.X), other.predict(data.X))
    a = train_lambdamart(data.X, y, data.qids, num_boost_round=10, seed=1, bagging_fraction=0.5, bagging_freq=1)
    b = train_lambdamart(data.X, y, data.qids, num_boost_round=10, seed=1, bagging_fraction=0.5, bagging_freq=1)
    assert np.array_equal(a.predict(data.X), b.predict(data.X))


def test_training_restores_torch_settings():
    data, y, _ = synthetic(num_queries=3)
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    state = torch.random.get_rng_state()
    train_ranker("pointwise", data.X, y, data.qids, epochs=2)
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == deterministic
    assert torch.equal(torch.random.get_rng_state(), state)


def test_scorer_shapes():
    X = torch.zeros(5, 4, dtype=torch.float64)
    assert Scorer(4).double()(X).shape == (5,)
    assert Scorer(4, hidden=3).double()(X).shape == (5,)


def test_standardisation_uses_training_rows_only():
    data, y, _ = synthetic(num_queries=6)
    seen = []

    def train(X, yy, q):
        seen.append((X, set(q)))
        return train_ranker("pointwise", X, yy, q, epochs=5)

    folds = topic_folds(list(dict.fromkeys(data.qids)), n_folds=3, seed=0)
    result = cross_validate(data, y, folds, train)
    for (X, train_queries), fold, model in zip(seen, folds, result.models):
        assert not train_queries & set(fold)
        assert model.standardizer.mean == pytest.approx(X.mean(axis=0))
        test_rows = np.isin(data.qids, fold)
        assert model.standardizer.mean != pytest.approx(data.X[test_rows].mean(axis=0))


# ---- folds, re-ranking and the cascade -----------------------------------------------------------

def test_folds_are_disjoint_and_cover_every_query():
    qids = [str(i) for i in range(1, 41)]
    folds = topic_folds(qids, n_folds=5, seed=0)
    assert [len(f) for f in folds] == [8] * 5
    assert sorted(q for f in folds for q in f) == sorted(qids)
    assert topic_folds(qids, n_folds=5, seed=0) == folds  # fixed assignment
    assert topic_folds(qids, n_folds=5, seed=1) != folds
    uneven = topic_folds(qids[:38], n_folds=5)
    assert sorted(len(f) for f in uneven) == [7, 7, 8, 8, 8]


def test_cross_validate_rejects_bad_folds():
    data, y, _ = synthetic(num_queries=4)
    train = lambda X, yy, q: train_ranker("pointwise", X, yy, q, epochs=1)  # noqa: E731
    with pytest.raises(ValueError, match="disjoint"):
        cross_validate(data, y, [("q0", "q1"), ("q1", "q2", "q3")], train)
    with pytest.raises(ValueError, match="cover"):
        cross_validate(data, y, [("q0", "q1"), ("q2",)], train)


def test_rerank_orders_by_score_and_keeps_the_rows():
    data = RankingData(np.zeros((4, 1)), np.array(["a", "a", "a", "b"]), np.array(["x", "y", "z", "w"]),
                       np.arange(4), ("f",))
    run = rerank(data, [0.1, 0.7, 0.1, 2.0])
    assert run == {"a": {"y": 0.7, "x": 0.1, "z": 0.1}, "b": {"w": 2.0}}
    assert list(run["a"]) == ["y", "x", "z"]  # ties keep the first-stage order


def test_cascade_never_leaves_the_first_stage(lee):
    docnos, index, queries, qrels, run, data = lee
    texts = lee_corpus().documents
    model = train_lambdamart(normalize_per_query(data).X, grades(data, qrels), data.qids, num_boost_round=20)
    some = dict(list(queries.items())[:6])
    exclude = {q: q for q in some}
    for k in (5, 20):
        final = cascade(index, docnos, texts, some, model, k=k, exclude=exclude)
        stage = first_stage(index, docnos, some, k=k, exclude=exclude)
        assert list(final) == list(some)
        for qid in some:
            assert set(final[qid]) == set(stage[qid]) and len(final[qid]) <= k
            assert qid not in final[qid]


def test_cascade_with_a_query_that_matches_nothing(toy):
    queries = {"q": "cat mat", "r": "zebra"}
    run = first_stage(toy, DOCNOS, queries, k=10)
    data = extract_features(toy, DOCNOS, TEXTS, queries, run)
    assert run["r"] == {} and set(data.qids) == {"q"}
    labels = np.array([1 if d == "d0" else 0 for d in data.docnos])
    model = train_ranker("pointwise", normalize_per_query(data).X, labels, data.qids, epochs=3)
    final = cascade(toy, DOCNOS, TEXTS, queries, model, k=10)
    assert final["r"] == {} and set(final["q"]) == set(run["q"])


def test_first_stage_recall_by_hand():
    run = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"x": 1.0}}
    qrels = {"q1": {"a": 0, "b": 2, "c": 1, "d": 1}, "q2": {"x": 1}, "q3": {"y": 2}}
    assert first_stage_recall(run, qrels, k=2) == {"q1": 1 / 3, "q2": 1.0, "q3": 0.0}
    assert first_stage_recall(run, qrels) == {"q1": 2 / 3, "q2": 1.0, "q3": 0.0}


# ---- features ----------------------------------------------------------------------------------------

def test_feature_shape_names_and_rows(lee):
    docnos, index, queries, qrels, run, data = lee
    assert data.feature_names == FEATURE_NAMES and len(FEATURE_NAMES) == len(set(FEATURE_NAMES))
    assert data.X.shape == (sum(len(run[q]) for q in queries), len(FEATURE_NAMES))
    assert np.isfinite(data.X).all()
    assert list(dict.fromkeys(data.qids)) == list(queries)
    for qid in queries:
        assert data.docnos[data.qids == qid].tolist() == list(run[qid])  # first-stage order
    assert [docnos[d] for d in data.doc_ids] == data.docnos.tolist()


def test_bm25_features_equal_bm25_scores_exactly(lee):
    docnos, index, queries, qrels, run, data = lee
    for name, b in [("bm25", 0.75), ("bm15", 0.0), ("bm11", 1.0)]:
        for qid, query in queries.items():
            rows = data.qids == qid
            expected = bm25_scores(index, query, k1=1.2, b=b)[0][data.doc_ids[rows]]
            assert np.array_equal(data.column(name)[rows], expected)
    bm25 = data.column("bm25")
    assert np.array_equal(bm25, np.array([run[q][d] for q, d in zip(data.qids, data.docnos)]))


def test_features_by_hand(toy):
    queries = {"q": "cat mat", "r": "dog cat bird"}
    run = first_stage(toy, DOCNOS, queries, k=10)
    data = extract_features(toy, DOCNOS, TEXTS, queries, run, descriptions={"q": "mat", "r": "bird"})
    assert data.feature_names == FEATURE_NAMES + (DESCRIPTION_FEATURE,)
    row = {(q, d): i for i, (q, d) in enumerate(zip(data.qids, data.docnos))}
    n = toy.num_docs
    cat, mat = math.log(n / 4), math.log(n / 2)  # cat in d0, d1, d2, d4; mat in d0, d5
    x = dict(zip(data.feature_names, data.X[row["q", "d0"]]))
    assert (x["query_terms"], x["query_idf_sum"], x["query_idf_max"]) == pytest.approx((2, cat + mat, mat))
    assert x["log_doc_length"] == pytest.approx(math.log(1 + 3))  # cat sat mat
    assert x["log_distinct_terms"] == pytest.approx(math.log(1 + 3))
    assert x["jaccard"] == pytest.approx(2 / 3)
    assert x["matched_fraction"] == 1.0
    assert x["proximity"] == pytest.approx(2 / 5)  # cat at 1, mat at 5
    assert x[DESCRIPTION_FEATURE] == pytest.approx(bm25_scores(toy, "mat")[0][0])
    assert x["tfidf_cosine"] == pytest.approx(tfidf_scores(toy, "cat mat")[0][0])
    x = dict(zip(data.feature_names, data.X[row["q", "d4"]]))  # "cat and dog and cat and dog"
    assert (x["matched_fraction"], x["proximity"], x["log_doc_length"]) == pytest.approx((0.5, 0.0, math.log(5)))
    assert x["log_distinct_terms"] == pytest.approx(math.log(3))
    x = dict(zip(data.feature_names, data.X[row["r", "d4"]]))  # cat at 0 and 4, dog at 2 and 6: window 3
    assert (x["matched_fraction"], x["proximity"]) == pytest.approx((2 / 3, 2 / 3))
    assert x["jaccard"] == pytest.approx(jaccard_scores(toy, "dog cat bird")[0][4])


def test_grades_count_unjudged_as_zero(toy):
    run = first_stage(toy, DOCNOS, {"q": "cat"}, k=10)
    data = extract_features(toy, DOCNOS, TEXTS, {"q": "cat"}, run)
    assert dict(zip(data.docnos, grades(data, {"q": {"d1": 2, "d2": 0}}).tolist())) == {
        "d0": 0, "d1": 2, "d2": 0, "d4": 0}


def test_normalize_per_query(lee):
    data = lee[-1]
    normalized = normalize_per_query(data)
    query_columns = [data.feature_names.index(name) for name in QUERY_FEATURES]
    others = [i for i in range(len(data.feature_names)) if i not in query_columns]
    assert np.array_equal(normalized.X[:, query_columns], data.X[:, query_columns])
    for qid in dict.fromkeys(data.qids):
        block = normalized.X[data.qids == qid][:, others]
        assert block.mean(axis=0) == pytest.approx(np.zeros(len(others)), abs=1e-12)
        assert np.all((np.abs(block.std(axis=0) - 1) < 1e-9) | (np.abs(block).max(axis=0) < 1e-12))
    # a positive affine change of one query's features changes nothing after normalisation
    changed = data.X.copy()
    rows = data.qids == data.qids[0]
    changed[np.ix_(rows, others)] = 3.0 * changed[np.ix_(rows, others)] - 7.0
    again = normalize_per_query(RankingData(changed, data.qids, data.docnos, data.doc_ids, data.feature_names))
    assert again.X[:, others] == pytest.approx(normalized.X[:, others], abs=1e-9)
    assert normalized.docnos is data.docnos and np.array_equal(data.X, lee[-1].X)  # input left unchanged


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), min_size=1, max_size=5), min_size=1, max_size=4))
def test_min_window_equals_brute_force(positions):
    arrays = [np.array(sorted(set(p))) for p in positions]
    brute = min(max(c) - min(c) + 1 for c in itertools.product(*arrays))
    assert min_window(arrays) == brute


def test_standardizer():
    s = Standardizer().fit(np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0]]))
    assert s.transform(np.array([[2.0, 3.0]])) == pytest.approx(np.array([[0.0, 2.0]]))
    assert s.scale == pytest.approx([math.sqrt(8 / 3), 1.0])


# ---- bad input ------------------------------------------------------------------------------------------

def test_bad_input(toy):
    data, y, _ = synthetic(num_queries=2)
    with pytest.raises(ValueError, match="model_kind must be one of"):
        train_ranker("pairwise", data.X, y, data.qids)
    with pytest.raises(ValueError, match="y must hold values >= 0"):
        train_ranker("ranknet", data.X, -y, data.qids)
    with pytest.raises(ValueError, match="qids must have one entry per row"):
        train_ranker("ranknet", data.X, y, data.qids[:-1])
    with pytest.raises(ValueError, match="epochs"):
        train_ranker("ranknet", data.X, y, data.qids, epochs=0)
    with pytest.raises(ValueError, match="no pair"):
        ranknet_loss(t([1.0, 2.0]), t([1, 1]), torch.tensor([0, 0]))
    with pytest.raises(ValueError, match="no pair"):
        lambdarank_loss(t([1.0, 2.0]), t([1, 0]), torch.tensor([0, 1]))  # different grades, different queries
    with pytest.raises(ValueError, match="one grade only"):
        listnet_loss(t([1.0, 2.0]), t([0, 0]), torch.tensor([0, 0]))
    with pytest.raises(ValueError, match="labels must have 3 entries along its first axis"):
        ranknet_loss(t([1.0, 2.0, 3.0]), t([1, 0]), torch.tensor([0, 0, 0]))
    with pytest.raises(ValueError, match="k must be >= 1"):
        delta_ndcg(t([1.0, 2.0]), t([1, 0]), k=0)
    with pytest.raises(ValueError, match="n_folds"):
        topic_folds(["1", "2", "3"], n_folds=4)
    with pytest.raises(ValueError, match="k must be >= 1"):
        first_stage(toy, DOCNOS, {"q": "cat"}, k=0)
    with pytest.raises(ValueError, match="no candidates"):
        extract_features(toy, DOCNOS, TEXTS, {"q": "cat"}, {})
    with pytest.raises(ValueError, match="texts must have one entry per document"):
        extract_features(toy, DOCNOS, TEXTS[:-1], {"q": "cat"}, {"q": {}})
    with pytest.raises(ValueError, match="not in the collection"):
        extract_features(toy, DOCNOS, TEXTS, {"q": "cat"}, {"q": {"zz": 1.0}})
    with pytest.raises(ValueError, match="no analyzer"):
        tokens_only = InvertedIndex.from_tokens([["cat"], ["dog"]])
        extract_features(tokens_only, ["a", "b"], ["cat", "dog"], {"q": ["cat"]}, {"q": {"a": 1.0}})
    with pytest.raises(ValueError, match="name must be one of"):
        data.column("pagerank")
    with pytest.raises(ValueError, match="fitted on 3"):
        train_ranker("pointwise", data.X, y, data.qids, epochs=1).predict(np.zeros((2, 4)))


def test_loss_inputs_are_checked_tensors():
    scores, labels, queries = t([0.5, 1.0, -1.0]), t([2, 1, 0]), torch.tensor([0, 0, 0])
    for call, error, message in [
        (lambda: ranknet_loss([0.5, 1.0, -1.0], labels, queries), TypeError, "scores must be a 1-D torch tensor"),
        (lambda: ranknet_loss(t([0.5, float("nan"), 1.0]), labels, queries), ValueError, "scores must hold finite"),
        (lambda: ranknet_loss(scores.reshape(1, 3), labels, queries), ValueError, "scores must be 1-dimensional"),
        (lambda: ranknet_loss(scores, t([2, -1, 0]), queries), ValueError, "labels must be grades >= 0"),
        (lambda: ranknet_loss(scores, labels, t([0, 0, 0])), TypeError, "query_ids must hold integers"),
        (lambda: ranknet_loss(scores, labels, queries, sigma=0), ValueError, "sigma must be > 0"),
        (lambda: pointwise_loss(t([]), t([])), ValueError, "scores must not be empty"),
        (lambda: lambdarank_loss(scores, labels, queries, k=2.0), TypeError, "k must be an int"),
    ]:
        with pytest.raises(error, match=message):
            call()


def test_numpy_integers_are_counts():
    scores, labels = t([0.5, 1.0, -1.0]), t([2, 1, 0])
    assert torch.equal(delta_ndcg(scores, labels, k=np.int64(2)), delta_ndcg(scores, labels, k=2))
    assert topic_folds(["a", "b", "c", "d"], n_folds=np.int64(2)) == topic_folds(["a", "b", "c", "d"], n_folds=2)
    assert torch.equal(delta_ndcg(scores, torch.tensor([2, 1, 0]), k=2), delta_ndcg(scores, labels, k=2))


def test_training_settings_are_bounded():
    data, y, _ = synthetic(num_queries=2)
    with pytest.raises(ValueError, match="epochs must be <= 100000"):
        train_ranker("ranknet", data.X, y, data.qids, epochs=10**9)
    with pytest.raises(ValueError, match="lr must be <= 10"):
        train_ranker("ranknet", data.X, y, data.qids, lr=1e300)
    with pytest.raises(ValueError, match="hidden must be <= 10000"):
        Scorer(3, hidden=10**9)
    with pytest.raises(TypeError, match="ranker must have a predict"):
        cascade(None, DOCNOS, TEXTS, {"q": "cat"}, ranker=object())
