"""Bad-input cases for the shared modules: validation (widgets and data: see their own cases)."""

from mmir_lib import validation
from tests.api_fuzz import Case

EXEMPT = {
    # The validators are what the contract is made of; tests/test_validation.py checks
    # their messages directly (each one names the argument it is given).
    **{f"mmir_lib.validation.{name}": "the checks themselves (tests/test_validation.py)"
       for name in validation.__all__},
}
CASES: list[Case] = []
