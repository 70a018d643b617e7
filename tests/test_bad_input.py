"""Bad input meets a clear error, everywhere in the public API (see tests/api_fuzz.py).

Each public callable has a valid example call (tests/bad_input_cases/); every keyword
argument of it is replaced, one at a time, by each of the bad values of
``api_fuzz.BAD_VALUES``. The call must raise ValueError/TypeError naming the argument,
or return only where the case declares that value legal.
"""

from __future__ import annotations

import importlib
import pkgutil

import pytest

from tests import bad_input_cases
from tests.api_fuzz import BAD_VALUES, EXEMPT, outcome, public_callables, qualified_name

CASES, EXEMPTIONS = [], dict(EXEMPT)
for _info in pkgutil.iter_modules(bad_input_cases.__path__):
    _module = importlib.import_module(f"{bad_input_cases.__name__}.{_info.name}")
    CASES += _module.CASES
    EXEMPTIONS.update(getattr(_module, "EXEMPT", {}))

ARGUMENTS = [(case, argument) for case in CASES for argument in case.kwargs if argument not in case.skip]


def test_every_public_callable_has_a_case():
    covered = {qualified_name(case.func) for case in CASES}
    missing = sorted(set(public_callables()) - covered - set(EXEMPTIONS))
    assert not missing, f"public callables with no bad-input case (add one, or an EXEMPT reason): {missing}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_valid_call_succeeds(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    case.func(*case.args, **case.kwargs)  # the fuzzed calls start from a call that works


@pytest.mark.parametrize("case, argument", ARGUMENTS, ids=[f"{c.name}-{a}" for c, a in ARGUMENTS])
def test_bad_value_is_refused_clearly(case, argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a bad str that a function accepts as a file name lands here, not in the repo
    findings = []
    for bad_name in BAD_VALUES:
        kind, detail = outcome(case, argument, bad_name)
        if kind not in ("clear", "accepted"):
            findings.append(f"{argument}={bad_name}: {kind} ({detail[:200]})")
    assert not findings, f"{case.name}:\n" + "\n".join(findings)
