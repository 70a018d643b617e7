"""Check the stored notebooks under other CPU code paths than this machine's own (`make test`).

The book stores every notebook executed, and strict nbval proves that the stored
outputs are what the code computes now. On one machine that is not enough: torch and
numpy choose their compute kernels at run time by the CPU's instruction sets, and a
wider vector unit adds the terms of a sum in another order, which changes the last
bits of a float and, rarely, a printed digit or a ranking with near ties. A reader's
laptop must reproduce the stored numbers too. So this script re-runs strict nbval over
``notebooks/`` once per *code path* that this CPU can execute, other than its native
one, each selected with the knobs that really switch the kernels:

=================== ============================================================
knob                what it switches
=================== ============================================================
ATEN_CPU_CAPABILITY torch's kernels: ``avx512``, ``avx2`` or ``default`` (SSE)
NPY_DISABLE_CPU_FEATURES  numpy's dispatched loops (sums, exp, log, comparisons):
                    naming the AVX-512 (X86_V4, AVX512_*) and AVX2 (X86_V3)
                    targets leaves the narrower ones
OPENBLAS_CORETYPE   the BLAS kernels of numpy's and scipy's matrix products:
                    ``Haswell`` (AVX2) or ``Nehalem`` (SSE4.2)
MKL_CBWR            the branch of Intel MKL, torch's BLAS (``AVX2``, ``SSE4_2``, …;
                    ``ATEN_CPU_CAPABILITY`` does not reach it)
OMP_NUM_THREADS     thread pools at start-up (``setup_chapter`` then fixes them
                    to ``mmir_lib.chapter.THREADS``; a chapter that computed before
                    calling it would show up here)
=================== ============================================================

The second code path (one, chosen by what the CPU has; each path re-runs every chapter,
so a third would cost a third more of `make test`'s time):

* on an AVX-512 CPU, ``avx2``: torch AVX2, numpy without AVX-512, OpenBLAS Haswell,
  MKL's AVX2 branch, 1 thread at start -- the code path of most readers' laptops;
* otherwise, ``baseline``: torch default, numpy without AVX2 and AVX-512, OpenBLAS
  Nehalem, 3 threads at start.

Measured on a machine of this project's kind (AMD EPYC, AVX-512): chapter I.8 once printed an
exact equality of two rankings that held under AVX-512 and the baseline path and
failed under AVX2; this check is what catches such a claim before it lands.

MKL also picks its code by CPU *vendor*, and that no setting reproduces: on an AMD EPYC
(AVX-512) IV.4 once printed a difference of ``4e-17`` between two hidden units where
Intel printed ``0``; on this project's Intel Xeon (AVX-512) the same cell printed ``0``
under ``MKL_CBWR`` = ``AVX2``, ``SSE4_2``, ``AVX``, ``SSE4_1`` and ``COMPATIBLE`` and
``MKL_ENABLE_INSTRUCTIONS`` = ``AVX2`` and ``SSE4_2`` (measured 2026-11-28). That class
of difference is caught at its source instead: ``tests/test_book_source.py`` fails on
any stored output that prints floating-point residue (a zero of algebra, or a number
below 1e-9) as a measurement.

With ``--native`` first, the native path (no knob set) runs too, and with
``--beside ARGS`` a plain ``pytest ARGS`` (the unit tests) runs beside them: `make test`
runs everything this way, side by side, so that both cores stay busy. Every chapter
computes on one thread (``setup_chapter``), so each run keeps one core busy.

Nothing the runs share may print into a cell: each kernel gets its own IPython
directory (no shared history database), and matplotlib's font cache is built before
they start (a cache being built prints a warning after 5 s). A cell that prints to a
stream anyway fails with the text it printed (``notebooks/conftest.py``).

Usage: python tools/check_cpu_paths.py [--native] [--beside "PYTEST ARGS"] [pytest arguments, default: notebooks]
Exits non-zero if any path fails; prints which.
"""

from __future__ import annotations

import os
import platform
import subprocess
import sys
import tempfile
import time

NUMPY_AVX512 = ["X86_V4", "AVX512_ICL", "AVX512_SPR", "AVX512F", "AVX512_SKX"]
NUMPY_AVX2 = ["X86_V3", "AVX2", "FMA3"]


def native() -> dict:
    """This machine's code paths: torch's capability and numpy's enabled dispatch targets."""
    import numpy  # noqa: F401  (loads the CPU feature tables)
    import torch
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return {"torch": torch.backends.cpu.get_cpu_capability(),
            "numpy_dispatch": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
            "features": {f for f, on in __cpu_features__.items() if on}}


def paths(cpu: dict) -> dict[str, dict[str, str]]:
    """The second code path this CPU can run, as environment settings (one entry)."""
    if platform.machine() not in ("x86_64", "AMD64"):
        return {"baseline": {"ATEN_CPU_CAPABILITY": "default", "OMP_NUM_THREADS": "3"}}

    def without(names):
        return " ".join(f for f in cpu["numpy_dispatch"] if f in names or f.startswith("AVX512"))

    has_avx2 = {"AVX2", "FMA3"} <= cpu["features"]
    if has_avx2 and cpu["torch"] not in ("AVX2", "DEFAULT"):
        found = {"avx2": {"ATEN_CPU_CAPABILITY": "avx2", "NPY_DISABLE_CPU_FEATURES": without(NUMPY_AVX512),
                          "OPENBLAS_CORETYPE": "Haswell", "MKL_CBWR": "AVX2", "OMP_NUM_THREADS": "1"}}
    else:
        found = {"baseline": {"ATEN_CPU_CAPABILITY": "default",
                              "NPY_DISABLE_CPU_FEATURES": without(NUMPY_AVX512 + NUMPY_AVX2),
                              "OPENBLAS_CORETYPE": "Nehalem", "OMP_NUM_THREADS": "3"}}
    for settings in found.values():
        if not settings.get("NPY_DISABLE_CPU_FEATURES", "x"):
            del settings["NPY_DISABLE_CPU_FEATURES"]
    return found


def warm_caches() -> None:
    """Build what the runs would otherwise build at the same time: matplotlib's font cache."""
    import matplotlib.font_manager  # noqa: F401  (loads the cache, building it if missing)


def main(args: list[str]) -> int:
    cpu = native()
    with_native = bool(args) and args[0] == "--native"
    args = args[1:] if with_native else args
    beside = None
    if args[:1] == ["--beside"]:
        beside, args = args[1].split(), args[2:]
    targets = args or ["notebooks"]
    print(f"native code path: torch {cpu['torch']}, numpy dispatch {' '.join(cpu['numpy_dispatch']) or 'none'}")
    warm_caches()
    runs, commands = {}, {}
    if beside:
        commands["unit tests"] = ({}, beside)
    for name, settings in (({"native": {}} if with_native else {}) | paths(cpu)).items():
        commands[f"notebooks, {name} code path"] = (settings, targets)
    scratch = tempfile.TemporaryDirectory()
    for i, (name, (settings, pytest_args)) in enumerate(commands.items()):
        log = tempfile.TemporaryFile(mode="w+")
        env = {**os.environ, **settings, "IPYTHONDIR": os.path.join(scratch.name, f"ipython-{i}")}
        process = subprocess.Popen([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                                   env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        runs[name] = (settings, process, log, time.perf_counter())
    failed = []
    for name, (settings, process, log, start) in runs.items():
        code = process.wait()
        shown = " ".join(f"{k}={v!r}" if " " in v else f"{k}={v}" for k, v in settings.items()) or "as it is"
        log.seek(0)
        print(f"\n=== {name}: {shown}\n{log.read().rstrip()}")
        print(f"=== {name}: {'passed' if code == 0 else 'FAILED'} in {time.perf_counter() - start:.0f} s", flush=True)
        if code != 0:
            failed.append(name)
    scratch.cleanup()
    if failed:
        print(f"\nfailed: {'; '.join(failed)}. A notebook that fails only under another code path prints a "
              "number that depends on the CPU: print what holds on every CPU (round, compare with a tolerance), "
              "or tag a truly varying cell nbval-ignore-output and assert a sane result in it (README, "
              "'Same numbers on every machine').")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
