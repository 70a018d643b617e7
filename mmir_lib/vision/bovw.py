"""Bag of visual words: images as documents, searched with Part I's inverted index.

Sivic and Zisserman's *Video Google* (2003) turned image retrieval into text retrieval.
A codebook of k centres (:mod:`mmir_lib.kmeans`) replaces every local descriptor of an image
by the number of its nearest centre, a **visual word**; the image becomes a bag of
words, and everything Part I built for text applies unchanged: an inverted index, tf,
df, idf, BM25.

* ``visual_words(descriptors, centres)``: word w(x) = argmin_j ‖x − c_j‖ for each
  descriptor, (n,);
* ``word_histogram(words, k)``: tf_w = the number of descriptors with word w, (k,);
* ``word_tokens(words, k)``: the words as terms, ``"w0042"``, zero-padded to the width
  of k − 1, so that sorted order (the index's term order) is word-number order;
* ``bovw_index(descriptor_sets, centres)``: a Part I :class:`~mmir_lib.ir.index.InvertedIndex`
  with one document per image (document id = position in ``descriptor_sets``), built
  by ``InvertedIndex.from_tokens``;
* ``bovw_query(descriptors, centres)``: the tokens of a query image.

The glue, from descriptors to a ranked list of images::

    from mmir_lib.ir.bm25 import bm25_search
    from mmir_lib.ir.scoring import tfidf_search

    centres = kmeans(training_descriptors, k=1000, seed=0).centres
    index = bovw_index([descriptors_of(image) for image in images], centres)
    query = bovw_query(descriptors_of(query_image), centres)
    doc_ids, scores = bm25_search(index, query, k=10)              # positions in `images`
    doc_ids, scores = tfidf_search(index, query, k=10, scheme="ltc.ltc")

A query is a list of terms, which Part I's searches take as already analysed (a
word repeated in the query counts once per occurrence). Words that occur in every
image get a low idf, like stop words; a word occurring in few images, a distinctive
patch, a high one. The ranking's ``doc_ids`` map back to images by position; names
for evaluation (Part I's ``average_precision`` takes a ranking of names) are
``[names[d] for d in doc_ids]``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ..ann.distances import check_descriptors
from ..ir.index import InvertedIndex
from ..kmeans import assign
from ..validation import check_array, check_count, check_memory, describe

__all__ = ["visual_words", "word_histogram", "word_tokens", "bovw_index", "bovw_query"]


def visual_words(descriptors: object, centres: object) -> np.ndarray:
    """w(x) = argmin_j ‖x − c_j‖: the visual word of every row of ``descriptors`` (n, d),
    given the codebook ``centres`` (k, d); (n,) int64."""
    return assign(*check_descriptors(descriptors, centres, "descriptors", "centres"))


def _check_words(words: object, vocabulary_size: object) -> tuple[np.ndarray, int]:
    vocabulary_size = check_count("vocabulary_size", vocabulary_size, low=1, high=10**9)
    words = check_array("words", words, kind="int", ndim=1, low=0)
    if words.size and words.max() >= vocabulary_size:
        raise ValueError(f"words must be below vocabulary_size={vocabulary_size}, found {words.max()}")
    return words, vocabulary_size


def word_histogram(words: object, vocabulary_size: int) -> np.ndarray:
    """tf_w: how many times each word 0 … k − 1 occurs in ``words``; (k,) int64."""
    words, vocabulary_size = _check_words(words, vocabulary_size)
    check_memory("vocabulary_size", vocabulary_size)  # the (k,) int64 histogram
    return np.bincount(words, minlength=vocabulary_size)


def word_tokens(words: object, vocabulary_size: int) -> list[str]:
    """The words as terms: word 42 of a 1000-word vocabulary is ``"w042"`` (as many
    digits as k − 1 has, so that sorting the terms sorts the word numbers)."""
    words, vocabulary_size = _check_words(words, vocabulary_size)
    width = len(str(vocabulary_size - 1))
    return [f"w{w:0{width}d}" for w in words.tolist()]


def bovw_query(descriptors: object, centres: object) -> list[str]:
    """The terms of an image with these ``descriptors`` (n, d): one token per descriptor,
    its visual word under ``centres`` (k, d), for Part I's ``bm25_search`` or ``tfidf_search``."""
    centres = check_array("centres", centres, ndim=2, nonempty=True)
    return word_tokens(visual_words(descriptors, centres), len(centres))


def bovw_index(descriptor_sets: Iterable[object], centres: object) -> InvertedIndex:
    """An inverted index of images: document d holds the visual words of
    ``descriptor_sets[d]`` (each (n_d, d) descriptors; n_d = 0 gives an empty document).

    The index's tf of word w in document d is ``word_histogram(...)[w]`` of that image,
    its df the number of images containing w; only words that occur somewhere are terms.
    """
    if isinstance(descriptor_sets, (str, bytes, Mapping, np.ndarray)) or not isinstance(descriptor_sets, Iterable):
        raise TypeError(f"descriptor_sets must be a list of descriptor arrays (one per image), "
                        f"got {describe(descriptor_sets)}")
    centres = check_array("centres", centres, ndim=2, nonempty=True)
    documents = []
    for i, descriptors in enumerate(descriptor_sets):
        descriptors, _ = check_descriptors(descriptors, centres, f"descriptor_sets[{i}]", "centres")
        documents.append(word_tokens(visual_words(descriptors, centres), len(centres)))
    if not documents:
        raise ValueError("descriptor_sets must hold at least one image")
    return InvertedIndex.from_tokens(documents)
