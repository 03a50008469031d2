"""The Z3 back end: the only code that imports ``z3``.

One subsystem owns Z3 (DESIGN.md): it translates SymPy to Z3 terms
(``terms``, with bit operations in ``bits`` and ``bitvector``), creates a
fresh context per check with a timeout and a fixed seed, and maps
``unknown`` with its reason (``solver``), on reused checker threads
(``checker_threads``). It is split into modules only to keep each under
400 lines. Nothing outside ``layoutalg.verify.query`` imports it
(``tests/verify/test_one_path_into_z3.py``): every check reaches Z3 through
``query.ask`` and its guards.
"""
