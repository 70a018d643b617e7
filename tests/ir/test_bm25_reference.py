"""Cross-checks on the real corpus: every Shakespeare speech, under matching settings.

rank_bm25's BM25Okapi(epsilon=0) is Robertson's idf (floored at 0) with the (k1 + 1)
numerator, in float64; bm25s stores precomputed scores as float32, so its agreement
is judged at float32 precision.
"""

import bm25s
import numpy as np
import pytest
import rank_bm25

from mmir_lib.data import shakespeare_speeches
from mmir_lib.ir import ENGLISH_STOP_WORDS, Analyzer, InvertedIndex, bm25_scores

QUERIES = ["murder sleep", "a horse my kingdom for a horse", "sweet love", "crown king england",
           "poison cup drink", "ghost father revenge", "fairy wood night", "gold silver lead casket",
           "storm sea shipwreck island", "jealous handkerchief", "love", "lord"]
SETTINGS = [(1.2, 0.75), (0.5, 0.0), (2.0, 1.0)]


@pytest.fixture(scope="module")
def corpus():
    analyzer = Analyzer(stopwords=ENGLISH_STOP_WORDS, stem=True)
    tokens = [analyzer(s.text) for s in shakespeare_speeches()]
    return analyzer, tokens, InvertedIndex.from_tokens(tokens, analyzer)


def _top100(scores):
    return np.lexsort((np.arange(len(scores)), -scores))[:100]


def _relative_error(ours, theirs, rows):
    return np.max(np.abs(ours[rows] - theirs[rows]) / np.abs(ours[rows]))


@pytest.mark.parametrize("k1, b", SETTINGS)
# rank_bm25 computes 0/0 for an empty speech (every word a stop word) when b = 1
@pytest.mark.filterwarnings("ignore:invalid value encountered in divide:RuntimeWarning")
def test_robertson_equals_rank_bm25(corpus, k1, b):
    analyzer, tokens, index = corpus
    okapi = rank_bm25.BM25Okapi(tokens, k1=k1, b=b, epsilon=0.0)
    for query in QUERIES:
        terms = analyzer(query)
        ours, _ = bm25_scores(index, terms, k1=k1, b=b, variant="robertson")
        theirs = np.asarray(okapi.get_scores(terms)) / (k1 + 1)
        rows = _top100(ours)
        rows = rows[ours[rows] > 0]  # only matched documents have a score to compare
        assert len(rows) > 0, query
        assert _relative_error(ours, theirs, rows) <= 1e-9, query


@pytest.mark.parametrize("k1, b", SETTINGS)
@pytest.mark.parametrize("variant, method, factor", [("robertson", "robertson", 1), ("lucene", "lucene", 1), ("seed", "atire", None)])
def test_variants_equal_bm25s(corpus, k1, b, variant, method, factor):
    analyzer, tokens, index = corpus
    retriever = bm25s.BM25(k1=k1, b=b, method=method)
    retriever.index(tokens, show_progress=False)
    for query in QUERIES:
        terms = analyzer(query)
        ours, _ = bm25_scores(index, terms, k1=k1, b=b, variant=variant)
        theirs = np.asarray(retriever.get_scores(terms), dtype=np.float64) / (factor or k1 + 1)
        rows = _top100(ours)
        rows = rows[ours[rows] > 0]
        assert len(rows) > 0, query
        assert _relative_error(ours, theirs, rows) <= 1e-5, query
