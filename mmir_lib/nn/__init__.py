"""Neural-network foundations (Part IV): the machinery of the deep chapters, by hand.

* :mod:`.optim` -- gradient descent with momentum, RMSprop and Adam on numpy arrays
  (equal to ``torch.optim``), exponentially weighted averages, learning-rate
  schedules, hyperparameters sampled on a log scale;
* :mod:`.surfaces` -- two-dimensional loss surfaces to watch optimisers on;
* :mod:`.init` -- weight initialisation (zeros, small random, Xavier/Glorot, He) and the
  variance of activations and gradients it sets, measured layer by layer;
* :mod:`.regularization` -- the L2 penalty (weight decay) and inverted dropout;
* :mod:`.normalization` -- input standardisation and batch normalisation, forward and
  backward, with torch's running statistics (equal to ``torch.nn.BatchNorm1d``).
"""
