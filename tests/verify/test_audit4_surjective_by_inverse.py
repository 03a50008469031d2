"""Audit 4: ``check_surjective``'s inverse query translates the map only at the
inverse's points ``f(g(p))``, so a map with no value at a point outside ``g``'s
image is PROVED onto, while ``check_in_bounds``, ``check_injective`` and
``check_bijective`` on the same map say UNKNOWN.

``f(a) = bit_and(a - 1, 3)`` on ``a`` in [0, 3) with inverse ``g(p) = p + 1``:
``f(g(p)) = bit_and(p, 3)`` is defined everywhere the query looks, but at
``a = 0`` the argument ``a - 1`` is -1, where a bit operation has no value
(layoutalg.core.bits), as ``x mod 0`` has none. By the standard of 98af09a (a
check on a map with no value somewhere is not PROVED), this PROVED is false;
the shortcut is ``one_query.inverse_misses`` as used in
``layoutalg/verify/checks.py::check_surjective``.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.verify.result import Status


def _map() -> la.IndexMap:
    d, c = la.Space.of(("a",), (3,)), la.Space.of(("p",), (2,))
    (a,), (p,) = d.symbols, c.symbols
    return la.IndexMap(d, c, [la.bit_and(a - 1, 3)], inverse=[p + 1], name="neg")


def test_the_map_has_no_value_at_zero_in_plain_python():
    assert [a - 1 for a in range(3)] == [-1, 0, 1]  # -1: no value at a = 0


def test_the_other_checks_say_unknown():
    m = _map()
    for check in (la.check_in_bounds, la.check_injective, la.check_bijective):
        assert check(m).status is Status.UNKNOWN


def test_surjective_is_not_proved_for_a_map_without_a_value_somewhere():
    assert la.check_surjective(_map()).status is not Status.PROVED


def _zero_divisor_map() -> la.IndexMap:
    """``Mod(a - 1, a)``: no value at ``a = 0`` (x mod 0); 0 and 1 at a = 1, 2."""
    d, c = la.Space.of(("a",), (3,)), la.Space.of(("p",), (2,))
    (a,), (p,) = d.symbols, c.symbols
    return la.IndexMap(d, c, [sympy.Mod(a - 1, a, evaluate=False)], inverse=[p + 1], name="m0")


def test_the_zero_divisor_map_in_plain_python():
    assert [(a - 1) % a for a in (1, 2)] == [0, 1]
    with pytest.raises(ZeroDivisionError):
        (0 - 1) % 0


def test_in_bounds_says_unknown_for_the_zero_divisor():
    assert la.check_in_bounds(_zero_divisor_map()).status is Status.UNKNOWN


def test_surjective_is_not_proved_with_a_zero_divisor_somewhere():
    assert la.check_surjective(_zero_divisor_map()).status is not Status.PROVED
