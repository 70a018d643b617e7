"""Bad-input cases for the second half of Part I (chapters 4-8): TREC files, evaluation,
the test collection, probabilistic models, feedback, links, crawling, learning to rank.

Toy data only (a six-document index, a three-query run), so that the whole fuzz stays fast.
"""

from __future__ import annotations

import io

import numpy as np
import torch

from mmir_lib.ir import Analyzer, InvertedIndex, bm25_scores
from mmir_lib.ir import collection, crawler, evaluation, feedback, links, ltr, ltr_features, probabilistic, trec
from tests.api_fuzz import Case

TEXTS = ["the cat sat on the mat", "a dog and a cat", "the dog barked at the cat", "a bird sang",
         "cat and dog and cat and dog", "the mat"]
DOCNOS = [f"d{i}" for i in range(len(TEXTS))]
INDEX = InvertedIndex.from_texts(TEXTS, Analyzer(stopwords={"the", "a", "on", "and", "at"}))
QUERIES = {"q1": "cat mat", "q2": "dog"}
RUN = {"q1": {"d0": 2.0, "d1": 1.0, "d4": 0.5}, "q2": {"d1": 1.5, "d2": 1.0}}
QRELS = {"q1": {"d0": 2, "d1": 0, "d5": 1}, "q2": {"d2": 1, "d4": 1}}
RANKING = ["d0", "d1", "d4"]
JUDGEMENTS = {"d0": 2, "d1": 0, "d5": 1}
TOPIC = trec.Topic("7", "poison cup", "A drink is poisoned.", "")

# ---- learning to rank: a tiny feature set ---------------------------------------------------
FIRST_STAGE = ltr_features.first_stage(INDEX, DOCNOS, QUERIES, k=10)
DATA = ltr_features.extract_features(INDEX, DOCNOS, TEXTS, QUERIES, FIRST_STAGE)
LABELS = ltr_features.grades(DATA, QRELS)
X = np.array([[1.0, 0.0], [0.5, 1.0], [0.0, 0.5], [2.0, 1.0], [1.0, 1.5], [0.0, 0.0]])
Y = np.array([2, 1, 0, 1, 0, 2])
QIDS = np.array(["a", "a", "a", "b", "b", "b"])
SCORES_T = torch.tensor([0.5, 1.0, -1.0, 0.0, 0.2], dtype=torch.float64)
LABELS_T = torch.tensor([2.0, 1.0, 0.0, 0.0, 1.0], dtype=torch.float64)
QUERY_IDS_T = torch.tensor([0, 0, 0, 1, 1])
RANKER = ltr.train_ranker("pointwise", X, Y, QIDS, epochs=2)
MART = ltr.train_lambdamart(X, Y, QIDS, num_boost_round=2, min_data_in_leaf=1)
STANDARDIZER = ltr_features.Standardizer().fit(X)
CASCADE_RANKER = ltr.train_ranker("pointwise", ltr_features.normalize_per_query(DATA).X, LABELS, DATA.qids, epochs=1)


def _buffer():
    return io.StringIO()


def _fetch(url):
    return crawler.Response("some page text here", ("/b",)) if url.endswith("/a") else None


def _train(X, y, qids):
    return ltr.train_ranker("pointwise", X, y, qids, epochs=1)


def _scorer(index, query):
    return bm25_scores(index, query)


# a run, qrels and seen sets for evaluation-style functions; ids are str
ADJACENCY = [[0, 1, 1], [0, 0, 1], [1, 0, 0]]
SHINGLES = [np.array([1, 2, 3]), np.array([2, 3, 4])]
HASHER = crawler.MinHasher(num_perm=16, seed=0)

_OPT = {"none"}  # an optional argument: None is legal
_HUGE = {"huge_int", "huge_float"}
# a query is analysed: words outside the dictionary (or no terms at all) match nothing
_QUERY = {"query": {"str", "empty_list"}}
_WEIGHT = {"zero"} | _HUGE  # a feedback weight: 0 drops its term, a huge one dominates
_RANKED = {"ranking": {"empty_list"}, "judgements": {"dict"}}  # nothing retrieved; {"a": 1} judges a
# a str destination is a file name: fuzzing it would write files named after the bad values
# (tests/ir/test_trec.py checks that non-path, non-file destinations are refused)
_NO_FILES = {"destination": "a bad str is a legal file name; other types: tests/ir/test_trec.py"}

CASES = [
    # ---- trec ----------------------------------------------------------------------------------
    Case(trec.Topic, dict(qid="1", title="ghost king", description="A ghost.", narrative="Relevant: ghosts."),
         accepts={"title": {"str"}, "description": {"str"}, "narrative": {"str"}}),  # any text is a text
    # a mapping's keys are its docnos (the judgements of a query, a query's scores)
    Case(trec.check_docnos, dict(docnos=["d1", "d2"], where="ranking"), accepts={"docnos": {"empty_list", "dict"}, "where": {"str"}}),
    Case(trec.check_judgements, dict(judgements=JUDGEMENTS, qid="q1"), accepts={"qid": _OPT, "judgements": {"dict"}}),
    Case(trec.check_qrels, dict(name="qrels", qrels=QRELS), accepts={"name": {"str"}, "qrels": {"empty_list"}}),
    Case(trec.check_run, dict(name="run", run=RUN), accepts={"name": {"str"}, "run": {"empty_list"}}),
    Case(trec.run_rankings, dict(name="run", run=RUN), accepts={"name": {"str"}, "run": {"empty_list"}}),
    Case(trec.run_scores, dict(name="run", run=RUN), accepts={"name": {"str"}, "run": {"empty_list"}}),
    Case(trec.check_queries, dict(name="queries", queries=QUERIES), accepts={"name": {"str"}}),
    Case(trec.read_qrels, dict(source=["1 0 d1 2", "1 0 d7 0"]), accepts={"source": {"empty_list"}}),
    Case(trec.read_run, dict(source=["1 Q0 d3 1 12.5 bm25"]), accepts={"source": {"empty_list"}}),
    Case(trec.read_topics, dict(source=["<top>", "<num> Number: 1", "<title> ghost", "</top>"]),
         accepts={"source": {"empty_list"}}),
    Case(trec.trec_ranking, dict(doc_scores={"d1": 0.5, "d2": 0.9}), accepts={"doc_scores": {"dict"}}),
    Case(trec.write_qrels, dict(qrels=QRELS, destination=io.StringIO()), skip=_NO_FILES),
    Case(trec.write_run, dict(run=RUN, destination=io.StringIO(), tag="demo"), skip=_NO_FILES),
    Case(trec.write_topics, dict(topics=[TOPIC], destination=io.StringIO()), accepts={"topics": {"empty_list"}},
         skip=_NO_FILES),
    # ---- evaluation ----------------------------------------------------------------------------
    # {"a": 1} is a legal judgement (document a is relevant), so a dict is accepted as judgements
    *[Case(f, dict(ranking=RANKING, judgements=JUDGEMENTS), accepts=_RANKED)
      for f in (evaluation.precision, evaluation.recall, evaluation.f1, evaluation.r_precision,
                evaluation.reciprocal_rank, evaluation.precision_recall_curve)],
    *[Case(f, dict(ranking=RANKING, judgements=JUDGEMENTS, k=2), accepts=_RANKED)
      for f in (evaluation.precision_at_k, evaluation.recall_at_k)],
    Case(evaluation.average_precision, dict(ranking=RANKING, judgements=JUDGEMENTS, k=2),
         accepts=_RANKED | {"k": _OPT}),
    Case(evaluation.interpolated_precision, dict(ranking=RANKING, judgements=JUDGEMENTS, recall_levels=[0.0, 0.5]),
         accepts=_RANKED | {"recall_levels": {"empty_list"}}),
    # a huge base is a patient user: every discount is 1 (no discount), a well-defined DCG
    *[Case(f, dict(ranking=RANKING, judgements=JUDGEMENTS, k=2, discount="seed", base=2.0),
           accepts=_RANKED | {"k": _OPT, "base": _OPT | {"huge_int", "huge_float"}})
      for f in (evaluation.dcg, evaluation.ndcg)],
    Case(evaluation.rank_biased_precision, dict(ranking=RANKING, judgements=JUDGEMENTS, p=0.8, k=2),
         accepts=_RANKED | {"k": _OPT}),
    Case(evaluation.evaluate, dict(run=RUN, qrels=QRELS, measures=["map", "P_2"], missing="zero"),
         accepts={"run": {"empty_list"}, "qrels": {"empty_list"}}),
    Case(evaluation.aggregate, dict(results={"q1": {"map": 0.5}, "q2": {"map": 0.1}}, mean="geometric",
                                    floor=1e-5)),
    Case(evaluation.arithmetic_mean, dict(values=[0.5, 0.25])),
    Case(evaluation.geometric_mean, dict(values=[0.5, 0.25], floor=1e-5)),
    *[Case(f, dict(scores_a=[0.5, 0.4, 0.9, 0.2], scores_b=[0.3, 0.3, 0.6, 0.25], alternative="greater"))
      for f in (evaluation.paired_t_test, evaluation.wilcoxon_test)],
    Case(evaluation.held_out_scores, dict(topic_scores={0.5: {"q1": 0.2, "q2": 0.4}, 1.0: {"q1": 0.3, "q2": 0.1}},
                                          folds=[("q1",), ("q2",)])),
    # ---- collection ----------------------------------------------------------------------------
    Case(collection.description_query, dict(topic=TOPIC)),
    Case(collection.make_run, dict(index=INDEX, docnos=DOCNOS, queries=QUERIES, scorer=_scorer, depth=3,
                                   exclude={"q1": "d0"}),
         accepts={"exclude": _OPT}),
    Case(collection.pool, dict(runs={"bm25": RUN}, depth=2)),
    *[Case(f, {}) for f in (collection.topics, collection.qrels, collection.judgement_reasons,
                            collection.lee_collection)],
    # ---- probabilistic -------------------------------------------------------------------------
    # counts broadcast (r_t as a matrix gives a matrix of weights); a huge correction, k1 or
    # Poisson rate is extreme but defined (weights tend to 0, likelihoods stay finite)
    Case(probabilistic.rsj_weight, dict(N=100, n_t=10, R=5, r_t=4, correction=0.5),
         accepts={"n_t": {"zero"}, "R": {"zero"}, "r_t": {"zero", "matrix"}, "correction": _HUGE}),
    *[Case(f, dict(index=INDEX, query="cat bird", relevant=[0, 1], correction=0.5),
           accepts={"relevant": _OPT | {"empty_list"}, "correction": _HUGE, **_QUERY})
      for f in (probabilistic.bim_term_weights, probabilistic.bim_scores)],
    Case(probabilistic.bm25_rsj_scores, dict(index=INDEX, query="cat bird", relevant=[0, 1], k1=1.2, b=0.75,
                                             correction=0.5),
         accepts={"relevant": _OPT | {"empty_list"}, "k1": {"zero"} | _HUGE, "b": {"zero"}, "correction": _HUGE,
                  **_QUERY}),
    Case(probabilistic.two_poisson_log_likelihood, dict(tf_counts=[0, 0, 1, 3, 0], pi=0.2, lam=3.0, mu=0.1),
         accepts={"pi": {"zero"}, "lam": {"zero"} | _HUGE, "mu": {"zero"} | _HUGE}),
    Case(probabilistic.fit_two_poisson, dict(tf_counts=[0, 0, 0, 1, 4, 5, 0, 0], init=(0.3, 4.0, 0.1),
                                             max_iter=50, tol=1e-8),
         accepts={"init": _OPT, "tol": {"zero"}}),
    Case(probabilistic.eliteness_weight, dict(tf=[0, 1, 5], lam=4.0, mu=0.2, p_rel=0.6, p_nonrel=0.1),
         accepts={"tf": {"zero", "matrix"}, "mu": {"zero"}, "lam": _HUGE, "p_rel": {"zero"}, "p_nonrel": {"zero"}}),
    Case(probabilistic.TwoPoissonFit(0.2, 3.0, 0.1, -5.0, 3, True, np.zeros(4)).pmf, dict(k=[0, 1, 2]),
         accepts={"k": {"zero", "matrix"}}),
    # ---- feedback ------------------------------------------------------------------------------
    Case(feedback.document_vectors, dict(index=INDEX, doc_ids=[0, 2], scheme="ltc.ltc"),
         accepts={"doc_ids": _OPT | {"empty_list"}}),
    Case(feedback.query_vector, dict(index=INDEX, query="cat mat", scheme="ltc.ltc"), accepts=_QUERY),
    Case(feedback.cosine_scores, dict(index=INDEX, query_vector=feedback.query_vector(INDEX, "cat"),
                                      scheme="ltc.ltc")),
    Case(feedback.bm25_document_vectors, dict(index=INDEX, doc_ids=[0, 2], k1=1.2, b=0.75, variant="seed"),
         accepts={"doc_ids": _OPT | {"empty_list"}, "k1": {"zero"}, "b": {"zero"}}),
    Case(feedback.bm25_vector_scores, dict(index=INDEX, query_vector=feedback.query_vector(INDEX, "cat"),
                                           k1=1.2, b=0.75, variant="seed"),
         accepts={"k1": {"zero"}, "b": {"zero"}}),
    Case(feedback.cosine_space, dict(scheme="ltc.ltc")),
    Case(feedback.bm25_space, dict(k1=1.2, b=0.75, variant="seed"), accepts={"k1": {"zero"}, "b": {"zero"}}),
    Case(feedback.VectorSpace, dict(name="cosine", query_vector=feedback.query_vector,  # any name will do
                                    document_vectors=feedback.document_vectors, scores=feedback.cosine_scores),
         accepts={"name": {"str"}}),
    # a (2, 3) matrix is two vectors of three terms; Rocchio's weights may be 0 or huge (the
    # result scales; the cosine's norm is computed without overflow)
    Case(feedback.centroid, dict(vectors=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), accepts={"vectors": {"matrix"}}),
    Case(feedback.rocchio, dict(query_vector=[1.0, 0.0, 0.0], relevant_vectors=[[0.5, 0.5, 0.0]],
                                nonrelevant_vectors=[[0.0, 0.0, 1.0]], alpha=1.0, beta=0.75, gamma=0.15,
                                expansion_terms=2),
         accepts={"nonrelevant_vectors": _OPT | {"empty_list", "matrix"},
                  "relevant_vectors": _OPT | {"empty_list", "matrix"}, "alpha": _WEIGHT, "beta": _WEIGHT,
                  "gamma": _WEIGHT, "expansion_terms": _OPT | {"zero"}}),
    Case(feedback.rocchio_scores, dict(index=INDEX, query="cat", relevant=[0, 4], nonrelevant=[3], alpha=1.0,
                                       beta=0.75, gamma=0.15, expansion_terms=3, space=feedback.cosine_space()),
         accepts={"nonrelevant": _OPT | {"empty_list"}, "relevant": {"empty_list"}, "alpha": _WEIGHT,
                  "beta": _WEIGHT, "gamma": _WEIGHT, "expansion_terms": _OPT | {"zero"}, "space": _OPT, **_QUERY}),
    Case(feedback.rocchio_search, dict(index=INDEX, query="cat", relevant=[0, 4], nonrelevant=[3], k=3,
                                       alpha=1.0),
         accepts={"nonrelevant": _OPT | {"empty_list"}, "relevant": {"empty_list"}, "alpha": _WEIGHT, **_QUERY}),
    Case(feedback.prf_query, dict(index=INDEX, query="cat", m=2, expansion_terms=3, alpha=1.0, beta=0.75,
                                  space=feedback.bm25_space()),
         accepts={"expansion_terms": {"zero"}, "alpha": _WEIGHT, "beta": _WEIGHT, "space": _OPT, **_QUERY}),
    Case(feedback.prf_scores, dict(index=INDEX, query="cat", m=2, expansion_terms=3, beta=0.75),
         accepts={"expansion_terms": {"zero"}, "beta": _WEIGHT, **_QUERY}),
    Case(feedback.prf_search, dict(index=INDEX, query="cat", m=2, expansion_terms=3, k=3, alpha=1.0),
         accepts={"expansion_terms": {"zero"}, "alpha": _WEIGHT, **_QUERY}),
    Case(feedback.added_terms, dict(index=INDEX, original=feedback.query_vector(INDEX, "cat"),
                                    expanded=feedback.query_vector(INDEX, "cat dog"))),
    Case(feedback.related_terms, dict(index=INDEX, term="cat", k=2, min_cooccurrence=1)),
    Case(feedback.cooccurrence_expansion, dict(index=INDEX, query="cat", per_term=2, weight=0.3, min_cooccurrence=1,
                                               space=feedback.bm25_space()),
         accepts={"weight": _WEIGHT, "space": _OPT, **_QUERY}),
    Case(feedback.residual_collection, dict(run=RUN, qrels=QRELS, seen={"q1": ["d0"]}),
         accepts={"run": {"empty_list"}, "qrels": {"empty_list"}, "seen": {"empty_list"}}),
    # ---- links ---------------------------------------------------------------------------------
    Case(links.adjacency_matrix, dict(sources=[0, 0, 1], targets=[1, 2, 2], num_nodes=3),
         accepts={"sources": {"empty_list"}, "targets": {"empty_list"}}),
    Case(links.transition_matrix, dict(adjacency=ADJACENCY)),
    Case(links.google_matrix, dict(adjacency=ADJACENCY, teleport=0.2), accepts={"teleport": {"zero"}}),
    Case(links.pagerank, dict(adjacency=ADJACENCY, teleport=0.15, tol=1e-10, max_iter=100),
         accepts={"teleport": {"zero"}, "tol": {"zero"}}),
    Case(links.LinkGraph.from_links, dict(links=[("A", "B"), ("B", "C")], pages=["D"]),
         accepts={"links": {"empty_list"}, "pages": {"empty_list"}}),
    Case(links.LinkGraph.from_links([("A", "B")]).page, dict(title="A")),
    Case(links.LinkGraph, dict(titles=np.array(["A", "B"]), adjacency=links.adjacency_matrix([0], [1], 2))),
    # ---- crawler -------------------------------------------------------------------------------
    Case(crawler.canonical_url, dict(url="HTTPS://En.Wikipedia.org:443/wiki/./Anarchism#History")),
    Case(crawler.UrlFilter, dict(robots={"en.wikipedia.org": "User-agent: *\nDisallow: /wiki/Special:"},
                                 hosts={"en.wikipedia.org"}, user_agent="mmir-crawler"),
         accepts={"hosts": _OPT | {"empty_list"}, "user_agent": {"str"}}),
    # a str that is no http(s) URL is a link a crawler meets and turns away (None, counted)
    Case(crawler.UrlFilter().admit, dict(url="https://en.wikipedia.org/wiki/Aristotle"), accepts={"url": {"str"}}),
    Case(crawler.UrlFilter().canonical, dict(url="https://en.wikipedia.org/wiki/Aristotle"),
         accepts={"url": {"str"}}),
    # frontiers queue what the filter admitted: any str
    *[Case(method, dict(url="https://a.org/x"), accepts={"url": {"str"}})
      for method in (crawler.FifoFrontier().push, crawler.BacklinkFrontier().push,
                     crawler.BacklinkFrontier().saw_link)],
    # a str is shingled by characters
    Case(crawler.shingles, dict(tokens="a rose is a rose is a rose".split(), w=2),
         accepts={"tokens": {"empty_list", "str"}}),
    Case(crawler.jaccard_matrix, dict(sets=SHINGLES), accepts={"sets": {"ragged"}}),  # sets {1} and {1, 2}
    Case(crawler.MinHasher, dict(num_perm=16, seed=0), accepts={"seed": {"zero"}}),
    Case(HASHER.signature, dict(shingle_ids=np.array([1, 2, 3], dtype=np.uint64), chunk=2)),
    Case(crawler.estimate_jaccard, dict(signature_a=HASHER.signature(np.array([1, 2, 3], dtype=np.uint64)),
                                        signature_b=HASHER.signature(np.array([2, 3, 4], dtype=np.uint64)))),
    Case(crawler.NearDuplicateDetector, dict(hasher=HASHER, threshold=0.8, w=2), accepts={"hasher": _OPT}),
    # any text is a page (a key is any name the caller gives it)
    Case(crawler.NearDuplicateDetector(HASHER, 0.8, 2).check, dict(key="a", text="a rose is a rose"),
         accepts={"key": {"str"}, "text": {"str"}}),
    Case(crawler.Response, dict(text="page", links=("/b",), location="/c"),
         accepts={"text": {"str"}, "location": _OPT | {"str"}, "links": {"empty_list"}}),
    Case(crawler.crawl, dict(seeds=["https://a.org/a"], fetch=_fetch, budget=3, url_filter=crawler.UrlFilter(),
                             frontier=crawler.FifoFrontier(), detector=None),
         accepts={"seeds": {"empty_list"}, "url_filter": _OPT, "frontier": _OPT, "detector": _OPT}),
    # ---- ltr_features --------------------------------------------------------------------------
    Case(ltr_features.first_stage, dict(index=INDEX, docnos=DOCNOS, queries=QUERIES, k=3, exclude={"q1": "d0"}),
         accepts={"exclude": _OPT | {"empty_list"}, "queries": {"empty_list"}}),
    Case(ltr_features.first_stage_recall, dict(run=RUN, qrels=QRELS, k=2),
         accepts={"k": _OPT, "run": {"empty_list"}, "qrels": {"empty_list"}}),
    Case(ltr_features.min_window, dict(positions=[np.array([0, 9]), np.array([5, 11])]),
         accepts={"positions": {"ragged"}}),  # two terms, at [1] and at [1, 2]
    Case(ltr_features.extract_features, dict(index=INDEX, docnos=DOCNOS, texts=TEXTS, queries=QUERIES,
                                             run=FIRST_STAGE, descriptions={"q1": "a cat", "q2": "a dog"}),
         accepts={"descriptions": _OPT}),
    Case(ltr_features.normalize_per_query, dict(data=DATA)),
    Case(ltr_features.grades, dict(data=DATA, qrels=QRELS), accepts={"qrels": {"empty_list"}}),
    Case(ltr_features.RankingData, dict(X=DATA.X, qids=DATA.qids, docnos=DATA.docnos, doc_ids=DATA.doc_ids,
                                        feature_names=DATA.feature_names)),
    Case(DATA.subset, dict(qids=["q1"]), accepts={"qids": {"empty_list"}}),  # no query, no row
    Case(DATA.column, dict(name="bm25")),
    Case(ltr_features.Standardizer().fit, dict(X=X), accepts={"X": {"matrix"}}),
    Case(STANDARDIZER.transform, dict(X=X)),
    # ---- ltr -----------------------------------------------------------------------------------
    Case(ltr.Scorer, dict(n_features=3, hidden=4), accepts={"hidden": {"zero"}}),
    Case(ltr.pointwise_loss, dict(scores=SCORES_T, labels=LABELS_T, query_ids=QUERY_IDS_T),
         accepts={"query_ids": _OPT}),
    # a huge sigma makes the pairwise loss a hinge, still finite
    Case(ltr.ranknet_loss, dict(scores=SCORES_T, labels=LABELS_T, query_ids=QUERY_IDS_T, sigma=1.0),
         accepts={"sigma": _HUGE}),
    Case(ltr.listnet_loss, dict(scores=SCORES_T, labels=LABELS_T, query_ids=QUERY_IDS_T)),
    Case(ltr.delta_ndcg, dict(scores=SCORES_T, labels=LABELS_T, k=3), accepts={"k": _OPT}),
    Case(ltr.lambdarank_loss, dict(scores=SCORES_T, labels=LABELS_T, query_ids=QUERY_IDS_T, sigma=1.0, k=3),
         accepts={"k": _OPT, "sigma": _HUGE}),
    Case(ltr.train_ranker, dict(model_kind="ranknet", X=X, y=Y, qids=QIDS, epochs=2, lr=0.05, seed=0, hidden=2,
                                weight_decay=0.01),
         accepts={"hidden": {"zero"}, "weight_decay": {"zero"} | _HUGE, "seed": {"zero"}}),
    Case(RANKER.predict, dict(X=X)),
    Case(ltr.train_lambdamart, dict(X=X, y=Y, qids=QIDS, num_boost_round=2, seed=0, min_data_in_leaf=1),
         accepts={"seed": {"zero"}},
         skip={"min_data_in_leaf": "a LightGBM parameter, passed through; LightGBM checks it"}),
    Case(MART.predict, dict(X=X)),
    Case(MART.importance, dict(kind="split")),
    Case(ltr.topic_folds, dict(qids=["a", "b", "c", "d"], n_folds=np.int64(2), seed=0), accepts={"seed": {"zero"}}),
    Case(ltr.cross_validate, dict(data=DATA, labels=LABELS, folds=[("q1",), ("q2",)], train=_train)),
    Case(ltr.rerank, dict(data=DATA, scores=np.arange(len(DATA), dtype=float))),
    Case(ltr.cascade, dict(index=INDEX, docnos=DOCNOS, texts=TEXTS, queries=QUERIES, ranker=CASCADE_RANKER, k=3,
                           descriptions=None, exclude=None, per_query=True),
         accepts={"descriptions": _OPT, "exclude": _OPT, "per_query": {"bool"}}),
]

_RESULT = "a plain record of results that the library builds and returns; it has no checks of its own"
EXEMPT = {f"mmir_lib.ir.{name}": _RESULT for name in (
    "evaluation.PRCurve", "evaluation.PairedTest", "evaluation.RBP", "probabilistic.TermWeight",
    "feedback.PRFQuery", "feedback.RelatedTerm", "links.PageRank", "crawler.CrawlLog", "ltr.CrossValidation",
)}
EXEMPT.update({f"mmir_lib.ir.collection.{name}": "builds the runs over all the speeches (minutes for the "
                                                 "fuzz); its one argument, depth, is checked first (check_count), "
                                                 "tested in tests/ir/test_collection.py"
               for name in ("pooling_runs", "pooled_documents")})
