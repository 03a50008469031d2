"""Audit 3: ``check_images_valid`` on a map without ``valid`` whose bit operation has
no value at some point (an argument below 0) must not be PROVED.

Bit operations are defined on non-negative integers only (``layoutalg.core.bits``;
``bit_and`` says so): a negative argument has no value, as ``x mod 0`` has none. The
check's shortcut for ``valid is None`` ("the map declares every slot valid") screens
divisors that may be 0 (such a map stays UNKNOWN, pinned below) but not bit
operations, so a map with no value at a point is PROVED, while ``check_in_bounds``
and ``check_injective`` on the same map say UNKNOWN. (This shortcut predates
fc385bb; found while auditing the enumeration fallback, which leaves it alone.)

The truth is computed here with plain Python ints: at ``a = 1`` the argument ``-a``
is ``-1``.
"""

from __future__ import annotations

import itertools

import sympy

import layoutalg as la
from layoutalg.verify.result import Status


def _negative_bit_map() -> la.IndexMap:
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    return la.IndexMap(d, la.Space.of(("p",), (8,)), [la.bit_and(-a, a + b)], name="negbit")


def test_the_map_has_no_value_somewhere_in_plain_python():
    negative = [(a, b) for a, b in itertools.product(range(3), range(2)) if -a < 0]
    assert negative[0] == (1, 0)  # bit_and(-1, 1): an argument below 0, no value


def test_the_other_checks_say_unknown():
    m = _negative_bit_map()
    assert la.check_in_bounds(m).status is Status.UNKNOWN
    assert la.check_injective(m).status is Status.UNKNOWN


def test_a_zero_divisor_stays_unknown_there():
    """The same shortcut keeps UNKNOWN for ``a mod b`` at ``b = 0``."""
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    m = la.IndexMap(d, la.Space.of(("p",), (8,)), [sympy.Mod(a, b, evaluate=False)], name="z")
    assert la.check_images_valid(m).status is Status.UNKNOWN


def test_images_valid_is_not_proved_where_a_bit_operation_has_no_value():
    assert la.check_images_valid(_negative_bit_map()).status is not Status.PROVED
