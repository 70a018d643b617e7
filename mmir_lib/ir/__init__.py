"""Information retrieval (Part I): one module per topic, in the order of the chapters.

Modules used as a whole rather than by name: :mod:`.scoring` (Jaccard, tf-idf,
cosine), :mod:`.query_likelihood`, :mod:`.collection` (the book's test collection)
and :mod:`.ltr` (learning-to-rank models; it imports torch, so it is not imported
here).
"""

# Chapter 1: text analysis, the inverted index, Boolean and phrase queries, Zipf and Heaps
from .text import ENGLISH_STOP_WORDS, Analyzer, tokenize
from .index import InvertedIndex
from .positional import PositionalIndex, index_sizes
from .boolean import and_not, boolean_search, intersect, intersect_many, parse_query, phrase_query, union
from .laws import fit_heaps, fit_zipf, vocabulary_growth

# Chapter 2: query processing, compression, distribution, caching
from ..ranking import top_k  # the book's ranking rule (mmir_lib.ranking), part of Part I's toolkit
from .query_processing import CollectionStatistics, daat_top_k, maxscore_top_k, taat_top_k, wand_top_k
from .compression import bits_per_posting, decode_postings, dgaps, encode_postings
from .distributed import build_shards, distributed_search, merge_results, partition_documents
from .caching import LRUCache, che_lru_hit_rate, lru_hit_rate, static_cache_hit_rate, zipf_query_stream

# Chapter 3: BM25 and BM25F
from .bm25 import VARIANTS, bm25_impacts, bm25_lucene, bm25_robertson, bm25_scores, bm25_search, bm25_seed, saturation
from .bm25f import FieldedIndex, bm25f_scores, bm25f_search

# Chapter 4: TREC files and evaluation measures
from .trec import Topic, read_qrels, read_run, read_topics, trec_ranking, write_qrels, write_run, write_topics
from .evaluation import (
    aggregate, arithmetic_mean, average_precision, dcg, evaluate, f1, geometric_mean, interpolated_precision,
    ndcg, paired_t_test, precision, precision_at_k, precision_recall_curve, r_precision, rank_biased_precision,
    recall, recall_at_k, reciprocal_rank, wilcoxon_test,
)

# Chapter 5: probabilistic retrieval
from .probabilistic import (
    bim_scores, bim_term_weights, bm25_rsj_scores, eliteness_weight, fit_two_poisson, rsj_weight,
    two_poisson_log_likelihood,
)

# Chapter 6: relevance feedback and query expansion
from .feedback import (
    bm25_space, cosine_space, prf_query, prf_scores, prf_search, related_terms, residual_collection, rocchio,
    rocchio_scores, rocchio_search,
)

# Chapter 7: link analysis and crawling
from .links import LinkGraph, PageRank, adjacency_matrix, google_matrix, pagerank, transition_matrix
from .crawler import (
    BacklinkFrontier, CrawlLog, FifoFrontier, MinHasher, NearDuplicateDetector, Response, UrlFilter, canonical_url,
    crawl, estimate_jaccard, jaccard_matrix, shingles,
)

# Chapter 8: learning to rank, features and the first stage (the models: mmir_lib.ir.ltr)
from .ltr_features import (
    FEATURE_NAMES, RankingData, extract_features, first_stage, first_stage_recall, grades, normalize_per_query,
)

__all__ = [
    # Chapter 1
    "ENGLISH_STOP_WORDS", "Analyzer", "tokenize", "InvertedIndex", "PositionalIndex", "index_sizes",
    "and_not", "boolean_search", "intersect", "intersect_many", "parse_query", "phrase_query", "union",
    "fit_heaps", "fit_zipf", "vocabulary_growth",
    # Chapter 2
    "top_k", "CollectionStatistics", "daat_top_k", "maxscore_top_k", "taat_top_k", "wand_top_k",
    "bits_per_posting", "decode_postings", "dgaps", "encode_postings",
    "build_shards", "distributed_search", "merge_results", "partition_documents",
    "LRUCache", "che_lru_hit_rate", "lru_hit_rate", "static_cache_hit_rate", "zipf_query_stream",
    # Chapter 3
    "VARIANTS", "bm25_impacts", "bm25_lucene", "bm25_robertson", "bm25_scores", "bm25_search", "bm25_seed",
    "saturation", "FieldedIndex", "bm25f_scores", "bm25f_search",
    # Chapter 4
    "Topic", "read_qrels", "read_run", "read_topics", "trec_ranking", "write_qrels", "write_run", "write_topics",
    "aggregate", "arithmetic_mean", "average_precision", "dcg", "evaluate", "f1", "geometric_mean",
    "interpolated_precision", "ndcg", "paired_t_test", "precision", "precision_at_k", "precision_recall_curve",
    "r_precision", "rank_biased_precision", "recall", "recall_at_k", "reciprocal_rank", "wilcoxon_test",
    # Chapter 5
    "bim_scores", "bim_term_weights", "bm25_rsj_scores", "eliteness_weight", "fit_two_poisson", "rsj_weight",
    "two_poisson_log_likelihood",
    # Chapter 6
    "bm25_space", "cosine_space", "prf_query", "prf_scores", "prf_search", "related_terms", "residual_collection",
    "rocchio", "rocchio_scores", "rocchio_search",
    # Chapter 7
    "LinkGraph", "PageRank", "adjacency_matrix", "google_matrix", "pagerank", "transition_matrix",
    "BacklinkFrontier", "CrawlLog", "FifoFrontier", "MinHasher", "NearDuplicateDetector", "Response", "UrlFilter",
    "canonical_url", "crawl", "estimate_jaccard", "jaccard_matrix", "shingles",
    # Chapter 8
    "FEATURE_NAMES", "RankingData", "extract_features", "first_stage", "first_stage_recall", "grades",
    "normalize_per_query",
]
