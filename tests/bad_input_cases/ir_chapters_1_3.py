"""Bad-input cases for the first half of Part I (chapters 1-3): text, indexes, Boolean
retrieval, the laws of text, compression, tf-idf, BM25 and BM25F, query likelihood,
top-k query processing, distribution and caching, and showing results.

Toy data only (a six-document index), so that the whole fuzz stays fast.
"""

from __future__ import annotations

import numpy as np

from mmir_lib.ir import boolean, bm25, bm25f, caching, compression, display, distributed, laws, positional
from mmir_lib.ir import query_likelihood, query_processing, scoring, text
from mmir_lib.ir.index import InvertedIndex
from mmir_lib.ir.positional import PositionalIndex
from tests.api_fuzz import Case, SyncClient

TEXTS = ["the cat sat on the mat", "a dog and a cat", "the dog barked at the cat", "a bird sang",
         "cat and dog and cat and dog", "the mat"]
ANALYZER = text.Analyzer(stopwords=frozenset({"the", "a", "on", "and", "at"}))
TOKENS = [ANALYZER(t) for t in TEXTS]
INDEX = InvertedIndex.from_texts(TEXTS, ANALYZER)
PINDEX = PositionalIndex.from_texts(TEXTS, ANALYZER)
FIELDED = bm25f.FieldedIndex.from_texts({"text": TEXTS, "title": ["cat", "dog", "dog", "bird", "cat", "mat"]},
                                        ANALYZER)
STATS = query_processing.CollectionStatistics.of(INDEX)
PARTS = distributed.partition_documents(len(TOKENS), 2)
SHARDS = distributed.build_shards(TOKENS, PARTS, ANALYZER)
CACHE = caching.LRUCache(2)


_OPT = {"none"}  # an optional argument: None is legal
_HUGE = {"huge_int", "huge_float"}
# a query is analysed: words outside the dictionary (or no terms at all) match nothing
_QUERY = {"query": {"str", "empty_list"}}
# BM25's parameters: k1 = 0 (binary tf) and b = 0 (no length normalisation) are legal,
# a huge k1 is an extreme but well-defined setting (every weight tends to 0)
_BM25 = {"k1": {"zero"} | _HUGE, "b": {"zero"}, **_QUERY}
# postings lists: an empty list is a term that occurs nowhere
_POSTINGS = {"empty_list"}

CASES = [
    # ---- text ------------------------------------------------------------------------------------
    Case(text.tokenize, dict(text="To be, or not to be"), accepts={"text": {"str"}}),
    Case(text.Analyzer, dict(stopwords=frozenset({"the"}), stem=True), accepts={"stopwords": _OPT | {"empty_list"}, "stem": {"bool"}}),
    Case(ANALYZER.__call__, dict(text="The cat"), accepts={"text": {"str"}}),
    # ---- index -----------------------------------------------------------------------------------
    Case(InvertedIndex.from_texts, dict(texts=TEXTS, analyzer=ANALYZER)),
    Case(InvertedIndex.from_tokens, dict(documents=TOKENS, analyzer=ANALYZER), accepts={"analyzer": _OPT}),
    Case(InvertedIndex, dict(terms=INDEX.terms, postings=INDEX.postings, doc_lengths=INDEX.doc_lengths,
                             analyzer=ANALYZER), accepts={"analyzer": _OPT}),
    Case(INDEX.term_id, dict(term="cat"), accepts={"term": {"str"}}),
    Case(INDEX.postings_list, dict(term="cat"), accepts={"term": {"str"}}),
    Case(INDEX.analyze, dict(query="cat"), accepts={"query": {"str"}}),
    Case(INDEX.query_terms, dict(query="cat"), accepts=_QUERY),
    # ---- positional ------------------------------------------------------------------------------
    Case(positional.analyze_with_positions, dict(analyzer=ANALYZER, text="the cat"), accepts={"text": {"str"}}),
    Case(PositionalIndex.from_texts, dict(texts=TEXTS, analyzer=ANALYZER)),
    Case(PositionalIndex.from_tokens, dict(documents=[["cat", None, "mat"], ["dog"]], analyzer=ANALYZER),
         accepts={"analyzer": _OPT}),
    Case(PINDEX.positions, dict(term="cat", doc_id=1), accepts={"term": {"str"}, "doc_id": {"zero"}}),
    Case(PINDEX.positions_of_posting, dict(j=1), accepts={"j": {"zero"}}),
    Case(PINDEX.postings_with_positions, dict(term="cat"), accepts={"term": {"str"}}),
    Case(positional.index_sizes, dict(index=PINDEX)),
    # ---- boolean ---------------------------------------------------------------------------------
    *[Case(f, dict(a=[1, 3, 5], b=[2, 3]), accepts={"a": _POSTINGS, "b": _POSTINGS})
      for f in (boolean.intersect, boolean.union, boolean.and_not)],
    # [[1], [1, 2]] is two postings lists; by_df=True is the default
    Case(boolean.intersect_many, dict(lists=[[1, 2, 3], [2, 3]], by_df=True), accepts={"lists": {"ragged"},
                                                                                        "by_df": {"bool"}}),
    Case(boolean.parse_query, dict(query="cat AND NOT dog"), accepts={"query": {"str"}}),
    Case(boolean.evaluate, dict(node=boolean.parse_query("cat OR dog"), index=PINDEX)),
    Case(boolean.boolean_search, dict(index=PINDEX, query="cat AND NOT dog"), accepts={"query": {"str"}}),
    Case(boolean.phrase_query, dict(index=PINDEX, phrase="cat sat"), accepts={"phrase": {"str"}}),
    Case(boolean.Term, dict(word="cat", position=0), accepts={"word": {"str"}, "position": {"zero"}}),
    Case(boolean.Phrase, dict(text="cat sat", position=0), accepts={"text": {"str"}, "position": {"zero"}}),
    Case(boolean.Not, dict(operand=boolean.Term("cat"))),
    *[Case(f, dict(operands=(boolean.Term("cat"), boolean.Term("dog")))) for f in (boolean.And, boolean.Or)],
    # ---- laws ------------------------------------------------------------------------------------
    Case(laws.fit_loglog, dict(x=[1, 2, 4, 8], y=[24, 12, 6, 3])),
    Case(laws.rank_frequency, dict(frequencies=[3, 10, 1])),
    Case(laws.fit_zipf, dict(frequencies=[100, 50, 33, 25, 20], rank_min=1, rank_max=4), accepts={"rank_max": _OPT}),
    # a fit is a record built by fit_zipf / fit_heaps; what is checked is the evaluation of the curve
    # (the rank or token count 0 has no Zipf frequency; 0 tokens have a vocabulary of 0)
    Case(laws.fit_zipf([100, 50, 33, 25]).__call__, dict(rank=[1, 2]),
         accepts={"rank": {"huge_int", "huge_float", "empty_list", "matrix"}}),
    Case(laws.fit_heaps([10, 100, 1000], [9, 60, 310]).__call__, dict(n=[10, 20]),
         accepts={"n": {"zero", "huge_int", "huge_float", "empty_list", "matrix"}}),
    Case(laws.vocabulary_growth, dict(tokens=["to", "be", "or", "not", "to", "be"], sizes=[2, 4]),
         accepts={"sizes": _OPT | {"empty_list"}}),
    Case(laws.fit_heaps, dict(n=[10, 100, 1000], vocabulary=[9, 60, 310], n_min=1, n_max=1000),
         accepts={"n_max": _OPT}),
    # ---- compression -----------------------------------------------------------------------------
    Case(compression.dgaps, dict(doc_ids=[0, 3, 4, 10]), accepts={"doc_ids": {"empty_list"}}),
    Case(compression.from_dgaps, dict(gaps=[1, 3, 1, 6]), accepts={"gaps": {"empty_list"}}),
    Case(compression.vbyte_encode, dict(numbers=[5, 130]), accepts={"numbers": {"empty_list"}}),
    Case(compression.vbyte_decode, dict(data=bytes([0x85, 0x01, 0x82]))),
    *[Case(f, dict(numbers=[1, 2, 5]), accepts={"numbers": {"empty_list"}})
      for f in (compression.gamma_encode, compression.delta_encode, compression.bit_length)],
    Case(compression.gamma_decode, dict(bits="1010001010001001")),
    Case(compression.delta_decode, dict(bits="101000110100100001")),
    Case(compression.code_lengths, dict(numbers=[1, 5, 1000], code="gamma"), accepts={"numbers": {"empty_list"}}),
    Case(compression.encode_postings, dict(doc_ids=[0, 3, 4, 10], code="gamma"), accepts={"doc_ids": {"empty_list"}}),
    Case(compression.decode_postings, dict(encoded="1011100110", code="gamma")),
    Case(compression.index_dgaps, dict(index=INDEX)),
    Case(compression.bits_per_posting, dict(index=INDEX, code="gamma")),
    # ---- scoring ---------------------------------------------------------------------------------
    Case(scoring.jaccard, dict(a=["ides", "of", "march"], b=["march", "hare"]),
         accepts={"a": {"empty_list"}, "b": {"empty_list"}}),
    Case(scoring.jaccard_scores, dict(index=INDEX, query="cat mat"), accepts=_QUERY),
    Case(scoring.tf_weight, dict(tf=[0, 1, 10], scheme="l"),
         accepts={"tf": {"zero", "empty_list", "matrix"} | _HUGE}),
    Case(scoring.idf, dict(df=[1, 2], n_docs=10), accepts={"df": {"empty_list", "matrix"}}),
    Case(scoring.parse_scheme, dict(scheme="lnc.ltc")),
    Case(scoring.document_norms, dict(index=INDEX, scheme="lnc.ltc")),
    Case(scoring.query_weights, dict(index=INDEX, query="cat mat", scheme="lnc.ltc"), accepts=_QUERY),
    Case(scoring.tfidf_scores, dict(index=INDEX, query="cat mat", scheme="lnc.ltc",
                                    norms=scoring.document_norms(INDEX, "lnc.ltc")),
         accepts={"norms": _OPT, **_QUERY}),
    Case(scoring.tfidf_search, dict(index=INDEX, query="cat mat", k=2, scheme="ltc.ltc"), accepts=_QUERY),
    # ---- bm25 ------------------------------------------------------------------------------------
    # tf and dl work element-wise and broadcast (a matrix of tfs gives a matrix of weights);
    # dl = 0 is an empty document; a huge tf saturates (S -> 1), a huge dl or avdl gives S -> 0
    Case(bm25.saturation, dict(tf=[0, 1, 2], dl=[3, 4, 5], avdl=4.0, k1=1.2, b=0.75),
         accepts={"tf": {"zero", "matrix", "huge_float"}, "dl": {"zero", "matrix", "huge_float"},
                  "avdl": {"huge_float", "huge_int"}, "k1": {"zero"} | _HUGE, "b": {"zero"}}),
    *[Case(f, dict(tf=[0, 1, 2], dl=[3, 4, 5], avdl=4.0, df=[1, 2, 2], n_docs=6, k1=1.2, b=0.75),
           accepts={"tf": {"zero", "matrix", "huge_float"}, "dl": {"zero", "matrix", "huge_float"},
                    "avdl": {"huge_float", "huge_int"}, "df": {"matrix"}, "n_docs": {"huge_float", "huge_int"},
                    "k1": {"zero"} | _HUGE, "b": {"zero"}})
      for f in (bm25.bm25_seed, bm25.bm25_robertson, bm25.bm25_lucene)],
    Case(bm25.bm25_impacts, dict(index=INDEX, k1=1.2, b=0.75, variant="lucene"),
         accepts={"k1": {"zero"} | _HUGE, "b": {"zero"}}),
    Case(bm25.bm25_scores, dict(index=INDEX, query="cat mat", k1=1.2, b=0.75, variant="lucene"), accepts=_BM25),
    Case(bm25.bm25_search, dict(index=INDEX, query="cat mat", k=2, k1=1.2, b=0.75, variant="robertson"),
         accepts=_BM25),
    # ---- bm25f -----------------------------------------------------------------------------------
    Case(bm25f.FieldedIndex, dict(fields=dict(FIELDED.fields))),
    Case(bm25f.FieldedIndex.from_texts, dict(fields={"text": TEXTS}, analyzer=ANALYZER)),
    Case(bm25f.FieldedIndex.from_tokens, dict(fields={"text": TOKENS}, analyzer=ANALYZER), accepts={"analyzer": _OPT}),
    Case(FIELDED.df, dict(term="cat"), accepts={"term": {"str"}}),
    Case(FIELDED.query_terms, dict(query="cat"), accepts=_QUERY),
    Case(bm25f.bm25f_scores, dict(index=FIELDED, query="cat mat", weights={"text": 1.0, "title": 2.0}, k1=1.2,
                                  b=0.75, variant="seed"),
         accepts={"weights": _OPT, **_BM25}),
    Case(bm25f.bm25f_search, dict(index=FIELDED, query="cat mat", k=2, weights={"text": 1.0}, k1=1.2,
                                  b={"text": 0.5}, variant="lucene"),
         accepts={"weights": _OPT, **_BM25}),
    # ---- query likelihood ------------------------------------------------------------------------
    Case(query_likelihood.query_likelihood_scores, dict(index=INDEX, query="cat mat", mu=100.0),
         accepts={"mu": _HUGE, **_QUERY}),
    Case(query_likelihood.query_likelihood_search, dict(index=INDEX, query="cat mat", k=2, mu=100.0),
         accepts={"mu": _HUGE, **_QUERY}),
    # ---- query processing ------------------------------------------------------------------------
    Case(query_processing.CollectionStatistics, dict(num_docs=6, total_length=14, df={"cat": 4}),
         accepts={"df": {"dict"}}),  # {"a": 1}: a term in one document
    Case(query_processing.CollectionStatistics.of, dict(index=INDEX, terms=["cat", "zebra"]),
         accepts={"terms": _OPT | {"empty_list"}}),
    Case(query_processing.CollectionStatistics.combine, dict(parts=[STATS, STATS])),
    Case(query_processing.TermPostings, dict(term="cat", doc_ids=np.array([0, 2]), weights=np.array([0.5, 0.25])),
         accepts={"term": {"str"}}),
    Case(query_processing.scored_postings, dict(index=INDEX, query="cat mat", k1=1.2, b=0.75, variant="seed",
                                                statistics=STATS),
         accepts={"statistics": _OPT, **_BM25}),
    *[Case(f, dict(index=INDEX, query="cat mat", k=2, k1=1.2, b=0.75, variant="seed", statistics=STATS),
           accepts={"statistics": _OPT, **_BM25})
      for f in (query_processing.taat_top_k, query_processing.daat_top_k, query_processing.maxscore_top_k,
                query_processing.wand_top_k)],
    # ---- distributed -----------------------------------------------------------------------------
    Case(distributed.partition_documents, dict(num_docs=7, num_shards=3, method="random", seed=1),
         accepts={"seed": {"zero"}}),
    Case(distributed.build_shards, dict(documents=TOKENS, parts=PARTS, analyzer=ANALYZER),
         accepts={"analyzer": _OPT}),
    Case(distributed.Shard, dict(doc_ids=SHARDS[0].doc_ids, index=SHARDS[0].index)),
    Case(distributed.shard_statistics, dict(shard=SHARDS[0], queries=["cat", "dog mat"]),
         accepts={"queries": {"empty_list", "str"}}),
    Case(distributed.search_shard, dict(shard=SHARDS[0], queries=["cat", "dog mat"], k=2, statistics=STATS,
                                        algorithm="wand", k1=1.2, b=0.75),
         accepts={"queries": {"empty_list", "str"}, "statistics": _OPT, "k1": {"zero"} | _HUGE, "b": {"zero"}}),
    Case(distributed.merge_results, dict(rankings=[(np.array([4, 0]), np.array([2.0, 1.0])),
                                                   (np.array([1]), np.array([2.0]))], k=2)),
    Case(distributed.distributed_search, dict(client=SyncClient(), shards=SHARDS, queries=["cat", "dog"], k=2,
                                              statistics="global", algorithm="taat"),
         accepts={"queries": {"empty_list", "str"}}),
    Case(distributed.document_partition_costs, dict(index=INDEX, queries=["cat", "dog mat"], parts=PARTS, k=2),
         accepts={"queries": {"empty_list", "str"}}),
    Case(distributed.term_partition_costs, dict(index=INDEX, queries=["cat", "dog mat"], num_nodes=3),
         accepts={"queries": {"empty_list", "str"}}),
    Case(distributed.term_node, dict(term="love", num_nodes=4), accepts={"term": {"str"}}),
    # ---- caching ---------------------------------------------------------------------------------
    Case(caching.LRUCache, dict(capacity=2), accepts={"capacity": {"zero"}}),
    # any hashable value is a key; None, a str, a number are all hashable
    Case(CACHE.get, dict(key="love", default=None), skip={"default": "any value is a legal default"},
         accepts={"key": {"none", "str", "bytes", "bool", "nan", "inf", "negative", "negative_float", "zero",
                          "huge_int", "huge_float", "object"}}),
    Case(CACHE.put, dict(key="love", value=1), skip={"value": "any value may be cached"},
         accepts={"key": {"none", "str", "bytes", "bool", "nan", "inf", "negative", "negative_float", "zero",
                          "huge_int", "huge_float", "object"}}),
    Case(CACHE.lookup, dict(key="love", compute=lambda: 1),
         accepts={"key": {"none", "str", "bytes", "bool", "nan", "inf", "negative", "negative_float", "zero",
                          "huge_int", "huge_float", "object"}}),
    Case(caching.query_vocabulary, dict(documents=[["sweet", "love"], ["sweet", "love"]], size=3, min_count=1),
         accepts={"documents": {"empty_list"}}),
    # s = 0: every query equally popular; a huge s: all requests go to the first query
    Case(caching.zipf_probabilities, dict(n=3, s=1.0), accepts={"s": {"zero"} | _HUGE}),
    Case(caching.zipf_query_stream, dict(queries=["love", "king", "ghost"], length=8, s=1.0, seed=1),
         accepts={"length": {"zero"}, "s": {"zero"} | _HUGE, "seed": {"zero"}}),
    # a stream is any sequence of hashable queries: a str is a stream of one-letter queries
    Case(caching.lru_hit_rate, dict(stream=["a", "b", "a"], capacity=2),
         accepts={"stream": {"empty_list", "str", "nan_array"}, "capacity": {"zero"}}),
    *[Case(f, dict(probabilities=[0.5, 0.3, 0.2], capacity=2),
           accepts={"capacity": {"zero"}})
      for f in (caching.static_cache_hit_rate, caching.che_lru_hit_rate)],
    # ---- display ---------------------------------------------------------------------------------
    Case(display.snippet, dict(text="the cat sat on the mat", terms={"cat"}, analyzer=ANALYZER, width=4),
         accepts={"text": {"str"}, "terms": {"empty_list"}}),
    Case(display.ranking_table, dict(rows=[{"text": "the cat", "id": "d0"}], scores=[1.5], terms=["cat"],
                                     analyzer=ANALYZER, columns=["id"], text_column="text", caption="top"),
         accepts={"caption": {"str"}, "terms": {"empty_list"}, "columns": {"empty_list"}}),
]

EXEMPT = {
    "mmir_lib.ir.boolean.MergeResult": "a plain record (doc_ids, comparisons) that the merges build",
    "mmir_lib.ir.laws.LogLogFit": "a plain record of a fit's results, built by fit_loglog",
    "mmir_lib.ir.positional.IndexSizes": "a plain record of byte counts, built by index_sizes",
    "mmir_lib.ir.query_processing.WorkCounts": "a plain record of counters that the algorithms increment",
    "mmir_lib.ir.query_processing.QueryResult": "a plain record (doc_ids, scores, work) that the algorithms build",
    "mmir_lib.ir.distributed.PartitionCosts": "a plain record of cost matrices, built by the *_partition_costs "
                                              "functions",
}
