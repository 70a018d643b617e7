"""Valid calls of every public callable of mmir_lib, for the bad-input test
(``tests/api_fuzz.py`` explains the contract). One module per part of the library;
each defines ``CASES`` (a list of :class:`tests.api_fuzz.Case`) and may define
``EXEMPT`` (qualified name -> reason)."""
