"""Information retrieval: text analysis, the inverted index, scoring and ranking."""

from .bm25 import VARIANTS, bm25_lucene, bm25_robertson, bm25_scores, bm25_search, bm25_seed, saturation
from .index import InvertedIndex
from .ranking import top_k
from .text import ENGLISH_STOP_WORDS, Analyzer, tokenize

__all__ = [
    "Analyzer", "ENGLISH_STOP_WORDS", "InvertedIndex", "VARIANTS", "bm25_lucene",
    "bm25_robertson", "bm25_scores", "bm25_search", "bm25_seed", "saturation",
    "tokenize", "top_k",
]
