"""Test-wide settings.

Hypothesis draws its examples from a fixed seed (``derandomize``), so that CI runs the
same cases every time: a property test fails on a commit, or it does not.

The tests compute on one thread (torch's pool and the BLAS pools of numpy and torch), as
every chapter does (``mmir_lib.chapter.THREADS``). `make test` runs them beside two
notebook runs on a two-core machine, where a second thread mostly waits for a core:
measured here, a transformer evaluation that takes 2.2 s on one thread took 1.2 s on two
on an idle machine and 3.4 s on two with one core busy. A test that needs another count
sets it and puts it back (tests/test_training.py).
"""

import torch
from hypothesis import settings
from threadpoolctl import threadpool_limits

settings.register_profile("book", derandomize=True, print_blob=True)
settings.load_profile("book")

torch.set_num_threads(1)
_ONE_THREAD = threadpool_limits(limits=1)  # kept for the whole session
