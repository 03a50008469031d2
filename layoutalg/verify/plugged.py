"""Assumptions checked at candidate sizes with exact integer arithmetic.

The guards of issue 8 ask whether any sizes meet a query's assumptions
(unsat under assumptions no size meets proves nothing) and draw sizes that
meet them (the vacuity test). One size meeting every assumption, plugged in
exactly (:mod:`layoutalg.core.evaluate`, Python ints), is a witness as Z3's
``sat`` is; so a few candidates are tried first and Z3 gets the cases where
none fits. A candidate that cannot be evaluated is simply not a witness.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import sympy

from layoutalg.core import evaluate as ev
from layoutalg.core.expr import Unsupported
from layoutalg.errors import LayoutError

# every parameter the same size, then a few fixed-seed mixtures
_SAME = (1, 2, 3, 4, 8, 16, 64, 256, 1024, 4096, 65536)
_MIXED = 8
_SEED = 17


def holds(assumptions: Sequence[sympy.Basic], values: dict[sympy.Symbol, int]) -> bool:
    """Do all ``assumptions`` hold at ``values`` (every symbol they mention
    bound, each ≥ 1)? False when one fails or cannot be evaluated there."""
    if any(int(v) < 1 for v in values.values()):
        return False
    env = {s: int(v) for s, v in values.items()}
    for assumption in assumptions:
        if assumption is sympy.true:
            continue
        if assumption is sympy.false:
            return False
        try:
            if not bool(np.asarray(ev.evaluate(assumption, env)).all()):
                return False
        except (Unsupported, LayoutError, ArithmeticError, KeyError, TypeError, ValueError):
            return False  # e.g. UndefinedValueError: a divisor is 0 there (no value)
    return True


def witness(assumptions: Sequence[sympy.Basic], parameters: Sequence[sympy.Symbol]
            ) -> dict[sympy.Symbol, int] | None:
    """Sizes (each ≥ 1) meeting every assumption, among a few candidates; None
    when no candidate does (which proves nothing: Z3 is asked then)."""
    parameters = list(parameters)
    rng = random.Random(_SEED)
    candidates = [[v] * len(parameters) for v in _SAME]
    candidates += [[rng.choice(_SAME) for _ in parameters] for _ in range(_MIXED)]
    sizes = (dict(zip(parameters, values)) for values in candidates)
    return next((s for s in sizes if holds(assumptions, s)), None)

