"""mmir_lib: the code of the book *Multimedia Information Retrieval, Executable*.

Each chapter's algorithms live here, one small module per topic, so that the
notebooks can show, run and test them:

* :mod:`mmir_lib.data` -- loaders for the book's real, offline data sets;
* :mod:`mmir_lib.ir` -- information retrieval (text analysis, inverted index, BM25);
* :mod:`mmir_lib.widgets` -- interactive figures that also work in the static book;
* :mod:`mmir_lib.kmeans` -- k-means (Lloyd, k-means++), used by Part II (codebooks of
  visual words) and Part III (clusters of word vectors);
* :mod:`mmir_lib.contrastive` -- contrastive losses (InfoNCE, CLIP's symmetric loss),
  used by Part VI (dense retrieval and images with text);
* shared by every part: :mod:`mmir_lib.chapter` (:func:`setup_chapter`, the first code
  cell of every chapter), :mod:`mmir_lib.validation` (argument checks),
  :mod:`mmir_lib.listing` (code listings), :mod:`mmir_lib.plotting` (the figures' style)
  and :mod:`mmir_lib.ranking` (top-k selection with the book's tie rule: documents in
  Part I, nearest words in Part III).
"""

from .chapter import setup_chapter
from .listing import show_code

__all__ = ["setup_chapter", "show_code"]

__version__ = "0.1.0"
