"""Neural-network foundations (Part IV): the machinery of the deep chapters, by hand.

* :mod:`.autograd` -- a reverse-mode automatic differentiation engine over numpy arrays
  (:class:`~.autograd.Tensor`, each operation's derivative beside its forward; equal to
  ``torch.autograd``), with centred-difference gradient checking;
* :mod:`.optim` -- gradient descent with momentum, RMSprop and Adam on numpy arrays
  (equal to ``torch.optim``), exponentially weighted averages, learning-rate
  schedules, hyperparameters sampled on a log scale;
* :mod:`.surfaces` -- two-dimensional loss surfaces to watch optimisers on.
"""
