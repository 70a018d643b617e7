"""Test-wide settings.

Hypothesis draws its examples from a fixed seed (``derandomize``), so that CI runs the
same cases every time: a property test fails on a commit, or it does not.
"""

from hypothesis import settings

settings.register_profile("book", derandomize=True, print_blob=True)
settings.load_profile("book")
