"""Bag of visual words: images become documents of Part I's inverted index, and BM25 /
tf-idf find the right image."""

import numpy as np
import pytest

from mmir_lib.ir.bm25 import bm25_search
from mmir_lib.ir.index import InvertedIndex
from mmir_lib.ir.scoring import tfidf_search
from mmir_lib.vision.bovw import bovw_index, bovw_query, visual_words, word_histogram, word_tokens
from mmir_lib.kmeans import kmeans

VOCABULARY, DIM, IMAGES = 40, 16, 12


@pytest.fixture(scope="module")
def collection():
    """12 synthetic images. Each draws its descriptors around the codebook's centres with
    its own preference for a few words (a "scene"), plus words common to all images.
    The codebook is learnt by k-means from the descriptors, as in practice."""
    rng = np.random.default_rng(0)
    true_centres = rng.normal(0.0, 10.0, (VOCABULARY, DIM))

    def draw_image(preferred, n):
        common = rng.integers(0, 5, n // 2)  # words 0-4: in every image, like stop words
        own = rng.choice(preferred, n - n // 2)
        words = np.concatenate([common, own])
        return true_centres[words] + rng.normal(size=(n, DIM))

    scenes = [rng.choice(np.arange(5, VOCABULARY), 4, replace=False) for _ in range(IMAGES)]
    images = [draw_image(scene, int(rng.integers(60, 120))) for scene in scenes]
    queries = [draw_image(scene, 40) for scene in scenes]  # a new view of every scene
    centres = kmeans(np.vstack(images), VOCABULARY, seed=0).centres
    return images, queries, centres


@pytest.mark.parametrize("search", [bm25_search, lambda index, query: tfidf_search(index, query, scheme="ltc.ltc")])
def test_the_right_image_ranks_first(collection, search):
    images, queries, centres = collection
    index = bovw_index(images, centres)
    assert isinstance(index, InvertedIndex) and index.num_docs == IMAGES
    first = [int(search(index, bovw_query(query, centres))[0][0]) for query in queries]
    assert first == list(range(IMAGES))


def test_index_statistics_are_the_word_histograms(collection):
    images, _, centres = collection
    index = bovw_index(images, centres)
    histograms = np.array([word_histogram(visual_words(image, centres), VOCABULARY) for image in images])
    present = np.flatnonzero(histograms.sum(axis=0))
    assert index.terms.tolist() == word_tokens(present, VOCABULARY)  # sorted terms = word order
    assert np.array_equal(index.postings.toarray(), histograms[:, present])  # tf
    assert np.array_equal(index.df, (histograms[:, present] > 0).sum(axis=0))  # df
    assert np.array_equal(index.doc_lengths, [len(image) for image in images])


def test_visual_words_are_the_nearest_centres(collection):
    images, _, centres = collection
    words = visual_words(images[0], centres)
    brute = np.linalg.norm(images[0][:, None, :] - centres[None, :, :], axis=2).argmin(axis=1)
    assert np.array_equal(words, brute)
    assert sorted(bovw_query(images[0], centres)) == sorted(word_tokens(words, VOCABULARY))


@pytest.mark.parametrize("vocabulary, word, token", [(10, 7, "w7"), (11, 7, "w07"), (1000, 42, "w042"),
                                                     (1001, 42, "w0042")])
def test_word_tokens_are_zero_padded(vocabulary, word, token):
    assert word_tokens([word], vocabulary) == [token]
    tokens = word_tokens(np.arange(vocabulary), vocabulary)
    assert tokens == sorted(tokens)


def test_an_image_without_descriptors_is_an_empty_document():
    centres = np.eye(3)
    index = bovw_index([np.eye(3), np.empty((0, 3))], centres)
    assert index.doc_lengths.tolist() == [3, 0] and word_histogram([], 3).tolist() == [0, 0, 0]


@pytest.mark.parametrize("call, error, words", [
    (lambda: word_histogram([0, 3], 3), ValueError, "words must be below vocabulary_size=3"),
    (lambda: word_tokens([-1], 3), ValueError, "words must hold values >= 0"),
    (lambda: visual_words(np.ones((2, 3)), np.ones((4, 2))), ValueError, "descriptors and centres"),
    (lambda: bovw_index([np.ones((2, 3)), np.ones((2, 2))], np.ones((4, 3))), ValueError, r"descriptor_sets\[1\]"),
    (lambda: bovw_index([], np.ones((4, 3))), ValueError, "at least one image"),
    (lambda: bovw_index(np.ones((2, 3)), np.ones((4, 3))), TypeError, "descriptor_sets must be a list"),
])
def test_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()
