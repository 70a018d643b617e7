"""Part VI.4's kNN-LM search: mmir_lib.ann's IVF-PQ against faiss's IndexIVFPQ on the same keys, one thread each.

The keys are V.7's transformer's hidden states (the final layer norm's output, d = 192)
at the first ``n_keys`` positions of the training plays; the queries its states at the
first ``n_queries`` positions of the validation plays (:func:`mmir_lib.lm.knn_lm.hidden_states`).
faiss trains ``IndexIVFPQ`` (nlist 256, m 24 sub-vectors of 8 bits, as chapter VI.4's
index but with fewer lists for the smaller slice) on the keys; our ``IVFPQ`` gets its
centroids and codebooks, so both search the same lists with the same codes. For each
nprobe: queries per second of each, and the share of neighbour ids the two agree on
(at least 99% asserted: only float32 ties differ). Run with ``python benchmarks/knn_lm_search.py``;
``main()`` returns the rows.
"""

from __future__ import annotations

import faiss
import numpy as np
import torch
from report import markdown_table
from threadpoolctl import threadpool_limits
from vector_search import _timed

from mmir_lib.ann.ivfpq import IVFPQ
from mmir_lib.ann.pq import ProductQuantizer
from mmir_lib.lm.corpus import BOUNDARY, corpus_ids, vocabulary
from mmir_lib.lm.knn_lm import hidden_states
from mmir_lib.lm.transformer import load_checkpoint

SECTION = ("## kNN-LM search: mmir_lib.ann's IVF-PQ against faiss on the transformer's keys\n\n"
           "Chapter VI.4's datastore search on a slice: V.7's transformer's hidden states (d = 192) at the first "
           "training positions as keys, at validation positions as queries; faiss's IndexIVFPQ and ours with its "
           "centroids and codebooks (the same lists and codes), k = 64, one thread each; the neighbour ids "
           "agree (asserted on 99% of places).\n\n")


def main(n_keys: int = 300_000, n_queries: int = 2_000, nlist: int = 256, m: int = 24, k: int = 64) -> list[dict]:
    torch.set_num_threads(1)
    faiss.omp_set_num_threads(1)
    newline = vocabulary("character").index[BOUNDARY]
    model = load_checkpoint()
    keys, _ = hidden_states(model, corpus_ids("train", "character")[:n_keys], newline)
    queries, _ = hidden_states(model, corpus_ids("validation", "character")[:n_queries], newline)
    coarse = faiss.IndexFlatL2(keys.shape[1])
    index = faiss.IndexIVFPQ(coarse, keys.shape[1], nlist, m, 8)
    index.cp.seed = index.pq.cp.seed = 0
    index.train(keys[::5])
    index.add(keys)
    ours = IVFPQ(coarse.reconstruct_n(0, nlist),
                 ProductQuantizer(faiss.vector_to_array(index.pq.centroids).reshape(m, 256, keys.shape[1] // m)))
    ours.add(keys)
    rows = []
    with threadpool_limits(1):
        for nprobe in (1, 4, 16):
            index.nprobe = nprobe
            theirs_s, (_, theirs_ids) = _timed(lambda: index.search(queries, k))
            ours_s, (_, ours_ids) = _timed(lambda: ours.search(queries, k, nprobe))
            agree = float(np.mean(ours_ids == theirs_ids))
            assert agree > 0.99, f"nprobe {nprobe}: the two indexes agree on only {agree:.2%} of neighbour ids"
            rows.append({"setting": f"{n_keys:,} keys, nlist {nlist}, m {m} × 8 bits, nprobe {nprobe}, k {k}",
                         "ours (queries/s)": f"{n_queries / ours_s:,.0f}",
                         "faiss (queries/s)": f"{n_queries / theirs_s:,.0f}",
                         "ratio (time)": f"{ours_s / theirs_s:.1f}×", "same ids": f"{agree:.2%}"})
    return rows


if __name__ == "__main__":
    print(SECTION + markdown_table(main()))
