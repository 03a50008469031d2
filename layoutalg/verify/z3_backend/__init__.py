"""The Z3 back end: the only code that imports ``z3`` (docs/verification.md).

``terms`` (with ``bits`` and ``bitvector``) translates SymPy to Z3, ``solver``
asks in a fresh context with a timeout and a fixed seed, on the threads of
``checker_threads``. Only ``layoutalg.verify.query`` imports it
(``tests/verify/test_one_path_into_z3.py``), so every check meets its guards.
"""
