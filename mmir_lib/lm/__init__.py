"""Language models (Part III): one module per topic, in the order of the chapters.

* :mod:`.corpus` -- the corpus of the whole part: Shakespeare's plays split by play
  into train, validation and test, at character and word level;
* :mod:`.information` -- information content, entropy, cross-entropy, KL divergence,
  perplexity;
* :mod:`.ngram` -- n-gram counting and models: uniform, MLE, add-k, interpolation,
  Kneser–Ney;
* :mod:`.sampling` -- softmax with temperature, sampling, greedy and sampled generation;
* :mod:`.neural` -- the bigram table as a softmax layer, and Bengio's feed-forward
  n-gram model, in torch;
* :mod:`.vectors` -- vector semantics: term-document and term-term counts, tf-idf, PPMI,
  cosine, truncated SVD, word-similarity and analogy benchmarks;
* :mod:`.word2vec` -- skip-gram and CBOW with negative sampling, in torch;
* :mod:`.glove` -- GloVe's weighted least-squares objective and a small trainer;
* :mod:`.bias` -- a gender direction, projections, neutralising and equalising, and what
  neutralising leaves behind;
* :mod:`.heldout` -- the table of held-out cross-entropy (bits per character) of every
  model of Part III;
* :mod:`.tagging` -- sequence labelling with hidden Markov models of order 1 and 2: the
  forward algorithm, Viterbi, brute-force enumeration, accuracy and confusion;
* :mod:`.crf` -- a linear-chain conditional random field tagger trained in torch;
* :mod:`.spans` -- spans as BIO tags and back, proper-name spans of a treebank, and
  span-level precision, recall and F1;
* :mod:`.rnn` -- (Part V) the Elman recurrent cell, backpropagation through time by hand,
  the gradient norm against distance and its bound, clipping by the global norm;
* :mod:`.gated` -- GRU and LSTM cells by hand in torch's layout, stacked and
  bidirectional;
* :mod:`.char_lm` -- character-level recurrent language models (LSTM, GRU, Elman) trained
  by truncated backpropagation through time, scored over the whole test stream, sampled
  with the state carried;
* :mod:`.number_words` -- chapter V.5's translation task: English number words to
  French ones (num2words), split by number;
* :mod:`.seq2seq` -- an encoder–decoder with Bahdanau's additive attention, trained with
  teacher forcing;
* :mod:`.decoding` -- greedy, beam (with length normalisation), exhaustive search and
  top-k / temperature sampling;
* :mod:`.bleu` -- corpus BLEU written out, equal to sacrebleu's;
* :mod:`.attention` -- scaled dot-product attention with causal and padding
  masks, and the split into heads and back;
* :mod:`.transformer` -- multi-head attention built on it (equal to
  ``nn.MultiheadAttention``), layer norm and sinusoidal positions by hand, and a
  decoder-only character transformer with its held-out losses, attention weights,
  next-character distribution (for sampling) and the checkpoint of V.7.
"""
