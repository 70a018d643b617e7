"""The first code cell of every chapter: ``setup_chapter()``.

A stored output of the book must be what the code computes on the reader's machine
too, whatever its CPU and its number of cores. Three things change floating-point
results from one machine to another, and this helper pins down the two that can be
pinned from inside Python:

* **random state**: Python's ``random``, numpy's global generator and torch are seeded
  (torch, with its thread count and deterministic mode below, as soon as the chapter
  imports it: a chapter that never uses torch does not pay its 4 s import);
* **thread count**: a parallel sum adds its terms in an order that depends on how many
  threads share the work, and floating-point addition is not associative. Torch's
  intra-op pool and the BLAS/OpenMP pools of numpy and scipy (through threadpoolctl)
  are fixed to :data:`THREADS` threads, and child processes (Dask workers) inherit the
  same limits through the environment. Torch also runs in deterministic mode.

The third, the **CPU code path** (AVX-512, AVX2 or plain SSE kernels, chosen by torch
and numpy at run time), cannot be fixed without giving up speed; instead, printed
numbers are rounded to what is stable, and ``make test`` re-runs every notebook on
another code path to prove it (README, "Same numbers on every machine").

It also applies the book's plotting style (:mod:`mmir_lib.plotting`) and makes numpy
scalars print as plain numbers (``0.5``, not ``np.float64(0.5)``): outputs read better,
and myst-nb's ``glue`` can format a glued numpy scalar in the text.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import random
import sys
from pathlib import Path

import numpy as np

from .plotting import use_book_style
from .validation import check_bool, check_count, check_str

__all__ = ["THREADS", "TOOLS", "setup_chapter", "use_deterministic_torch", "load_tool"]

#: Threads every chapter computes with, on any machine (1: the same sums in the same
#: order everywhere; the book's examples are small enough not to need more).
THREADS = 1

_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: The repository's scripts: notebook execution, the CPU code-path check, and the
#: deterministic training scripts of the committed checkpoints.
TOOLS = Path(__file__).resolve().parents[1] / "tools"


def setup_chapter(seed: int = 0) -> np.random.Generator:
    """Seed everything, fix thread counts, make torch deterministic, apply the book's style
    and print numpy scalars as plain numbers.

    Parameters
    ----------
    seed : int
        Seeds Python's ``random``, numpy's global generator and torch.

    Returns
    -------
    numpy.random.Generator
        A generator seeded with ``seed``, for the chapter's own random draws.

    Examples
    --------
    >>> rng = setup_chapter(seed=7)
    >>> import torch; torch.get_num_threads() == THREADS and torch.are_deterministic_algorithms_enabled()
    True
    """
    seed = check_count("seed", seed, high=2**32 - 1)
    for variable in _THREAD_VARIABLES:  # inherited by child processes (Dask workers)
        os.environ[variable] = str(THREADS)
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=THREADS)  # numpy's and scipy's BLAS/OpenMP pools, in this process
    random.seed(seed)
    np.random.seed(seed)
    _configure_torch_when_imported(seed)
    np.set_printoptions(legacy="1.25")  # repr(np.float64(0.5)) == "0.5"
    use_book_style()
    return np.random.default_rng(seed)


def _configure_torch(seed: int) -> None:
    """Seed torch, fix its thread count and make its kernels deterministic."""
    import torch

    torch.manual_seed(seed)
    torch.set_num_threads(THREADS)
    use_deterministic_torch(True)


class _ConfigureTorchOnImport(importlib.abc.MetaPathFinder):
    """Configures torch (:func:`_configure_torch`) the moment it is first imported.

    Importing torch takes about 4 s; half of the chapters never use it and should not pay
    that. The finder sits first on ``sys.meta_path``, finds torch's module spec the usual
    way and wraps its loader, so that the seed and settings apply right after torch's own
    ``__init__`` has run, before any line of the chapter can draw from it."""

    def __init__(self, seed: int):
        self.seed = seed

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        load = spec.loader.exec_module

        def exec_module(module):
            load(module)
            _configure_torch(self.seed)

        spec.loader.exec_module = exec_module
        return spec


def _configure_torch_when_imported(seed: int) -> None:
    """Configure torch now if it is imported already, otherwise when it is."""
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _ConfigureTorchOnImport)]
    if "torch" in sys.modules:
        _configure_torch(seed)
    else:
        sys.meta_path.insert(0, _ConfigureTorchOnImport(seed))


def use_deterministic_torch(mode: bool = True) -> None:
    """Make torch's kernels deterministic (``mode=True``) or free again: the effect of
    ``torch.use_deterministic_algorithms(mode)`` on every eager kernel, without its
    import of ``torch._inductor`` (about 2.7 s in each new process), which only sets the
    flag of ``torch.compile``'s code generator; the book never compiles a model.

    Examples
    --------
    >>> import torch
    >>> use_deterministic_torch(True); torch.are_deterministic_algorithms_enabled()
    True
    """
    mode = check_bool("mode", mode)
    import torch

    torch._C._set_deterministic_algorithms(mode, warn_only=False)


def load_tool(name: str):
    """The repository's script ``tools/<name>.py``, imported as a module.

    A model that trains longer than a chapter may is trained by a deterministic script
    in :data:`TOOLS`, which also holds the code that loads what it saved; a chapter or a
    test imports the script to call it, e.g.
    ``load_tool("train_date_translators").load_date_translators()``. The script's
    ``main()`` does not run.
    """
    name = check_str("name", name)
    path = TOOLS / f"{name}.py"
    if os.sep in name or "/" in name or not path.is_file():
        scripts = ", ".join(sorted(p.stem for p in TOOLS.glob("*.py")))
        raise ValueError(f"name must name a script of {TOOLS} without its .py ({scripts}), got {name!r}")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
