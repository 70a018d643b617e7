"""Vector search (Part VI, chapter 2): the k nearest neighbours of a query among many
vectors, exactly and approximately, one module per idea.

* :mod:`.topk` -- the k best of many scores per query, ties broken by the smaller id
  (shared by every index);
* :mod:`.exact` -- exact k-NN by inner product or Euclidean distance, as blocked matrix
  products (equal to faiss's ``IndexFlatIP`` / ``IndexFlatL2``);
* :mod:`.ivf` -- the inverted-file index: a k-means coarse quantizer, one inverted list
  per centroid, ``nprobe`` lists searched (equal to ``IndexIVFFlat`` with its centroids);
* :mod:`.pq` -- product quantization: sub-vector codebooks, codes, asymmetric distance
  tables (equal to faiss's ``ProductQuantizer`` with its codebooks);
* :mod:`.ivfpq` -- IVF-PQ: inverted lists of PQ-encoded residuals to the coarse centroid,
  asymmetric distance tables per probed list (equal to ``IndexIVFPQ`` with its centroids
  and codebooks);
* :mod:`.hnsw` -- the hierarchical navigable small-world graph, built and searched
  greedily layer by layer;
* :mod:`.shards` -- a collection split into shards, searched in parallel (on a Dask
  cluster) and merged: equal to the single index for exact search and for inverted files
  that share their centroids.

Vector search is shared ground (Part II's descriptors, Part VI's embeddings), so the
indexes of Chapter II.7 live here too:

* :mod:`.distances` -- all pairwise Euclidean distances from one matrix product
  (float64; Chapter II.7's matching uses them too);
* :mod:`.kdtree` -- the exact k-d tree, searched best bin first;
* :mod:`.lsh` -- p-stable locality-sensitive hashing, candidates re-ranked exactly.

Vectors are float32, as in faiss: an index stores its vectors as (n, d) float32 and every
distance is computed in float32 arithmetic, so results agree with faiss's to float32
rounding, not to the last bit.
"""
