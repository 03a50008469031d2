"""Audit 4: the Z3 translation's guard on bit operations (an argument below 0 has
no value, like ``x mod 0``) is skipped when the bit operation sits under ``mod``
or ``//`` by a power of two.

``Translator._term`` (layoutalg/verify/z3_backend/terms.py) refuses a ``BitOp``
whose argument is not shown non-negative (UNKNOWN), but ``_division`` first
hands a ``floor``/``Mod`` containing a bit operation to ``_structural_split``
(z3_backend/bits.py), which splits the bit operation's arguments into bits
without that guard (a negative argument is split as two's complement). So
``bit_xor(b - a, 1)`` alone is UNKNOWN, while ``Mod(bit_xor(b - a, 1), 4)`` on
the same domain is PROVED in bounds, and ``floor(bit_xor(b - a, 1) / 2)`` gets a
counterexample at a point where the map has no value (its explanation then
crashes with the evaluator's MapError instead of giving a verdict).

Truth in plain Python: at ``a = 1, b = 0`` the argument ``b - a`` is ``-1``.
"""

from __future__ import annotations

import itertools

import pytest
import sympy

import layoutalg as la
from layoutalg.verify.result import Status


def _map(expr_of) -> la.IndexMap:
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [expr_of(a, b)], name="bits")


def test_an_argument_is_negative_somewhere_in_plain_python():
    assert [(a, b) for a, b in itertools.product(range(3), range(2)) if b - a < 0][0] == (1, 0)


def test_the_bare_bit_operation_is_unknown():
    assert la.check_in_bounds(_map(lambda a, b: la.bit_xor(b - a, 1))).status is Status.UNKNOWN


UNDER_MOD = {
    "xor": lambda a, b: sympy.Mod(la.bit_xor(b - a, 1), 4, evaluate=False),
    "and": lambda a, b: sympy.Mod(la.bit_and(b - a, 3), 4, evaluate=False),
    "shift": lambda a, b: sympy.Mod(la.shift_right(b - a, 1), 4, evaluate=False),
}


@pytest.mark.parametrize("kind", sorted(UNDER_MOD))
def test_in_bounds_not_proved_with_a_bit_operation_under_mod(kind):
    assert la.check_in_bounds(_map(UNDER_MOD[kind])).status is Status.UNKNOWN


def test_in_bounds_unknown_with_a_bit_operation_under_floor():
    m = _map(lambda a, b: sympy.floor(la.bit_xor(b - a, 1) / 2))
    assert la.check_in_bounds(m).status is Status.UNKNOWN
