"""Audit 2 reproducers: verify.rewrite rebuilds And/Or with SymPy's evaluation,
which cancels a relation against its negation (``Eq(X, 0) | Ne(X, 0)`` is true,
``&`` false) and so drops a divisor that may be 0 (``X = i mod (M - 1)``, no value
at M = 1). The divisor guard of d4ba1a6/6460246 covers sums, products, powers,
Mod and floor, not the connectives: check_images_valid says PROVED for a map whose
``valid`` has no value at M = 1 (the translation of ``Mod(i, M - 1)`` alone is
UNKNOWN: "modulo by M - 1, which is not known to be positive"). Fixed:
``rewrite._Rewriter.witnessed`` keeps such a divisor (``& Eq(Mod(0, d), 0)``)."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.verify import checks, rewrite

M, = la.extents("M")


def python_valid(a: int, b: int, m: int) -> bool:
    """The map's valid predicate in plain Python ints (raises where it has no value)."""
    return a % (m - 1) == 0 or b % (m - 1) != 0


def duplicated_map() -> la.IndexMap:
    d = la.Space(i=M)
    cod = la.Space(a=M, b=M)
    (i,) = d.symbols
    a, b = cod.symbols
    valid = sympy.Or(sympy.Eq(sympy.Mod(a, M - 1), 0), sympy.Ne(sympy.Mod(b, M - 1), 0))
    return la.IndexMap(d, cod, [i, i], valid=valid, name="dup")


def test_truth_has_no_value_at_m_1():
    """The Python truth the reproducers rely on."""
    with pytest.raises(ZeroDivisionError):
        python_valid(0, 0, 1)
    assert python_valid(0, 0, 2) is True


def test_rewrite_keeps_divisor_in_connective():
    i = sympy.Symbol("i", integer=True, nonnegative=True)
    a, b = sympy.symbols("a b", integer=True, nonnegative=True)
    valid = sympy.Or(sympy.Eq(sympy.Mod(a, M - 1), 0), sympy.Ne(sympy.Mod(b, M - 1), 0))
    (out,) = rewrite.substitute([valid], [a, b], [i, i])
    # at M = 1 Python has no value for either side, so M - 1 must stay a divisor
    assert (M - 1) in rewrite._divisors(out)


def test_images_valid_not_proved_where_valid_has_no_value():
    m = duplicated_map()
    with pytest.raises(ZeroDivisionError):
        python_valid(0, 0, 1)  # M = 1: the only point i = 0 lands on (0, 0), no value there
    result = checks.check_images_valid(m)
    assert not result.proved, result
