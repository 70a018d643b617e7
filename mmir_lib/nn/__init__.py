"""Neural-network foundations (Part IV): the machinery of the deep chapters, by hand.

* :mod:`.losses` -- the stable sigmoid, binary and softmax cross-entropy from logits, each
  with its gradient (equal to torch's);
* :mod:`.logistic` -- logistic and softmax regression with L2, trained by (mini-batch)
  gradient descent (the same weights as scikit-learn's LogisticRegression), accuracy;
* :mod:`.autograd` -- a reverse-mode automatic differentiation engine over numpy arrays
  (:class:`~.autograd.Tensor`, each operation's derivative beside its forward; equal to
  ``torch.autograd``), with centred-difference gradient checking;
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
