"""Audit 4: SymPy-side simplification of bit operations drops an argument that
may be negative, so a map with no value at a point gets a value there.

``BitOp.simplify_symbolic`` (layoutalg/core/bits.py) folds ``x & 0`` to 0,
``x ^ x`` to 0, ``x & x`` / ``x ^ 0`` / ``x >> 0`` to ``x`` for any symbolic
``x``, although bit operations are defined on non-negative integers only (an
argument below 0 has no value, like ``x mod 0``). ``core.index_map.substitute``
keeps a zero divisor that SymPy cancels (``+ Mod(0, d)``, audit 2), but not such
a bit operation: binding ``M = 1`` in ``bit_and(b - a, M - 1)`` (UNKNOWN to every
check before, since ``b - a`` is -1 at ``a = 1, b = 0``) leaves the map ``0``,
PROVED in bounds. The same fold at construction turns ``bit_and(b - a, 0)``
into 0.

Truth in plain Python: at ``a = 1, b = 0`` the argument ``b - a`` is -1.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.verify.result import Status


def _mask_map() -> la.IndexMap:
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    (m,) = la.extents("M")
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [la.bit_and(b - a, m - 1)], name="mask")


def test_an_argument_is_negative_in_plain_python():
    assert 0 - 1 < 0  # b - a at a = 1, b = 0


def test_before_binding_the_check_says_unknown():
    assert la.check_in_bounds(_mask_map()).status is Status.UNKNOWN


def test_binding_does_not_give_the_map_a_value():
    assert la.check_in_bounds(_mask_map().bind(M=1)).status is not Status.PROVED


def test_a_zero_mask_keeps_the_negative_argument():
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    m = la.IndexMap(d, la.Space.of(("p",), (4,)), [la.bit_and(b - a, 0)], name="zero")
    assert la.check_in_bounds(m).status is not Status.PROVED


def _folded(expr_of) -> la.IndexMap:
    d = la.Space.of(("a", "b"), (3, 2))
    a, b = d.symbols
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [expr_of(a, b)], name="folded")


# ``BitOp.is_nonnegative = True`` (before the fix) let SymPy's own evaluation decide
# a test or a Min on the operation's sign, dropping an argument that may be negative.
FOLDED_BY_SIGN = {
    "piecewise_condition": lambda a, b: sympy.Piecewise((a, la.bit_xor(b - a, 1) >= 0),
                                                        (0, True)),
    "min_with_zero": lambda a, b: sympy.Min(la.bit_xor(b - a, 1), 0),
}


@pytest.mark.parametrize("kind", sorted(FOLDED_BY_SIGN))
def test_sympy_does_not_fold_a_bit_operation_by_its_sign(kind):
    assert la.check_in_bounds(_folded(FOLDED_BY_SIGN[kind])).status is not Status.PROVED


def test_a_possibly_negative_argument_keeps_every_fold_and_sign_open():
    i = sympy.Symbol("i", integer=True, nonnegative=True)
    x = i - 1  # -1 at i = 0: no value there
    for kept in (la.bit_and(x, 0), la.bit_xor(x, x), la.bit_and(x, x), la.bit_xor(x, 0),
                 la.shift_right(x, 0), la.shift_left(x, 0), la.shift_right(0, x)):
        assert kept.free_symbols == {i} and kept.is_nonnegative is None
        assert kept.is_negative is None


# Plain Python on non-negative ints: the folds that stay are true there.
FOLDS_OF_A_NONNEGATIVE_ARGUMENT = [
    (la.bit_and, lambda x: (x, 0), lambda x: x & 0, lambda x: 0),
    (la.bit_xor, lambda x: (x, x), lambda x: x ^ x, lambda x: 0),
    (la.bit_and, lambda x: (x, x), lambda x: x & x, lambda x: x),
    (la.bit_xor, lambda x: (0, x), lambda x: 0 ^ x, lambda x: x),
    (la.shift_right, lambda x: (x, 0), lambda x: x >> 0, lambda x: x),
    (la.shift_left, lambda x: (0, x), lambda x: 0 << x, lambda x: 0),
]


@pytest.mark.parametrize("k", range(len(FOLDS_OF_A_NONNEGATIVE_ARGUMENT)))
def test_a_nonnegative_argument_is_still_folded(k):
    build, args, python, folded = FOLDS_OF_A_NONNEGATIVE_ARGUMENT[k]
    i = sympy.Symbol("i", integer=True, nonnegative=True)
    x = la.bit_xor(i, 5) + 2 * i  # shown >= 0 through a nested bit operation
    assert build(*args(x)) == folded(x)
    assert all(python(v) == folded(v) for v in range(64))
    assert x.is_nonnegative is True and la.bit_xor(x, 3).is_nonnegative is True
