"""Audit (session after 92c76b2): a zero divisor dropped by the query rewrite.

The map ``(i, r) -> ((i mod 4r) mod 4, r)`` over ``i < 4, r < 3`` has no value at
``r = 0`` (Python: ``1 % 0`` raises). Held with unevaluated ``Mod`` (as
``core.tiling.remainder`` builds them, or ``sympy.Mod(..., evaluate=False)``), the
evaluator refuses it there (``UndefinedValueError``, the session's zero-divisor
rule), and a divisor not known positive is meant to leave a Z3 check UNKNOWN.
But ``verify.rewrite``'s rule ``Mod(Mod(a, k), q) = Mod(a, q)`` when ``q | k``
(``reduced_term``) took ``k = 4r`` as a multiple of 4 without asking ``k != 0``,
so the query held ``Mod(i, 4)`` alone: ``check_in_bounds``, ``check_bijective`` and
``check_equivalent`` (against the identity) answered PROVED for a map with no value
at 4 of its 12 points. Fixed: a rule removes a divisor only when it is shown non-zero,
so the divisor ``4*r`` reaches the translation, which answers UNKNOWN for it. (SymPy's own ``Mod`` folds the evaluated form the same way
at construction, which no check can see; this file pins the unevaluated form.)
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.core.tiling import remainder
from layoutalg.errors import UndefinedValueError


def _nested():
    domain = la.Space(i=4, r=3)
    i, r = domain.symbols
    return la.IndexMap(domain, la.Space(o=4, r=3), [remainder(remainder(i, 4 * r), 4), r],
                       name="nested_mod")


def _python_image(i: int, r: int):
    try:
        return (i % (4 * r)) % 4, r
    except ZeroDivisionError:
        return None


def test_the_truth_in_python_ints():
    undefined = [(i, r) for i in range(4) for r in range(3) if _python_image(i, r) is None]
    assert undefined == [(0, 0), (1, 0), (2, 0), (3, 0)]


def test_the_evaluator_refuses_the_point():
    with pytest.raises(UndefinedValueError, match="divisor 4\\*r is 0"):
        _nested()(1, 0)


def test_in_bounds_is_not_proved():
    assert not la.check_in_bounds(_nested()).proved


def test_bijective_is_not_proved():
    assert not la.check_bijective(_nested()).proved


def test_equivalent_to_the_identity_is_not_proved():
    m = _nested()
    identity = la.IndexMap(m.domain, m.codomain, list(m.domain.symbols), name="identity")
    assert not la.check_equivalent(m, identity).proved


# The sibling rule: a term that is a multiple of q is dropped from Mod(p, q) without
# asking whether the term itself has a value: (i + 4*(i mod r)) mod 4 -> i mod 4.


def _multiple_dropped():
    domain = la.Space(i=4, r=3)
    i, r = domain.symbols
    return la.IndexMap(domain, la.Space(o=4, r=3), [remainder(i + 4 * remainder(i, r), 4), r],
                       name="multiple_of_four")


def test_the_multiple_has_no_value_in_python_at_r_0():
    with pytest.raises(ZeroDivisionError):
        (1 + 4 * (1 % 0)) % 4


def test_a_dropped_multiple_keeps_its_zero_divisor():
    assert not la.check_bijective(_multiple_dropped()).proved
