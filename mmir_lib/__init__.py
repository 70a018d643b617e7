"""mmir_lib: the code of the book *Multimedia Information Retrieval, Executable*.

Each chapter's algorithms live here, one small module per topic, so that the
notebooks can show, run and test them:

* :mod:`mmir_lib.data` -- loaders for the book's real, offline data sets;
* :mod:`mmir_lib.ir` -- information retrieval (text analysis, inverted index, BM25);
* :mod:`mmir_lib.widgets` -- interactive figures that also work in the static book.
"""

__version__ = "0.1.0"
