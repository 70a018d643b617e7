"""Bad-input cases for Jelinek–Mercer query likelihood (mmir_lib.ir.query_likelihood).

The Dirichlet scorer of the same module has its case with the rest of Part I; this file
covers only the Jelinek–Mercer functions added for chapter I.3.
"""

from __future__ import annotations

from mmir_lib.ir import Analyzer, InvertedIndex
from mmir_lib.ir.query_likelihood import jelinek_mercer_scores, jelinek_mercer_search
from tests.api_fuzz import Case

INDEX = InvertedIndex.from_texts(["the cat sat on the mat", "a dog and a cat", "a bird sang"],
                                 Analyzer(stopwords={"the", "a", "on", "and"}))

# query: any string is a query (it is analysed), and an empty list is the empty query,
# whose log-probability is log 1 = 0 for every document.
QUERY_ACCEPTS = {"str", "empty_list"}

CASES = [
    Case(jelinek_mercer_scores, dict(index=INDEX, query="cat mat", lam=0.1), accepts={"query": QUERY_ACCEPTS}),
    Case(jelinek_mercer_search, dict(index=INDEX, query=["cat", "dog"], k=2, lam=0.5),
         accepts={"query": QUERY_ACCEPTS}),
]
