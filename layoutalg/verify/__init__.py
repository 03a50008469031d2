"""Verification: Z3 checks (``checks``, ``memory``, ``conflicts``, ``padding``),
their brute-force twins (``brute``), and the one Z3 module (``solver``)."""
