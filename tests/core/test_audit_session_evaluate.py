"""Audit (session after 92c76b2): the evaluator's input conversion (``core.evaluate.narrow``).

The rule: values must be integers; a float64 array holding 2.5 is refused with a
``MapError`` ("values must be integers"), never rounded. An *object* array goes
went through ``np.frompyfunc(int, 1, 1)`` instead, so Python's ``int()`` silently
truncated 2.5 to 2, a ``Fraction(5, 2)`` to 2, and parsed the string ``'3'``:
``IndexMap.apply`` then returned an image for a point that is not one. Fixed:
``core.integers.narrow`` takes only integers (and integral floats, as the float64
path does) from an object array.

Truth in plain Python: ``2 * 2.5 == 5.0`` and ``2 * Fraction(5, 2) == 5``, neither
of which the map's answer 4 is; ``'3'`` is not an integer at all.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.errors import MapError


def _double() -> la.IndexMap:
    space = la.Space(i=8)
    (i,) = space.symbols
    return la.IndexMap(space, la.Space(o=16), [2 * i], name="double")


def test_a_float_array_is_refused_not_rounded():
    with pytest.raises(MapError, match="values must be integers"):
        _double().apply(np.array([2.5]))


def test_the_truth_in_python():
    assert 2 * 2.5 == 5.0 and 2 * Fraction(5, 2) == 5
    assert int(2.5) == 2 and int(Fraction(5, 2)) == 2 and int("3") == 3   # what int() makes of them


@pytest.mark.parametrize("value", [2.5, Fraction(5, 2), "3"], ids=["float", "fraction", "str"])
def test_a_non_integer_in_an_object_array_is_refused(value):
    with pytest.raises(MapError):
        _double().apply(np.array([value], dtype=object))


@pytest.mark.parametrize("value", [None, "x", 1j, float("nan")], ids=["none", "word", "complex",
                                                                      "nan"])
def test_an_object_array_of_non_numbers_gets_one_clear_error(value):
    with pytest.raises(MapError, match="values must be integers"):
        _double().apply(np.array([value], dtype=object))


# -- the zero-divisor refusal over no points (commit 16cf54e) ---------------------------
#
# ``i + 7 mod j`` with ``i`` bound to no values and ``j`` to 0: there is no point, so
# nothing needs a value (Python: ``[x + 7 % 0 for x in []] == []``; the evaluator before
# the session gave an empty array). ``_Scope.refuse`` saw the 0-d zero mask's ``any()``,
# then took ``argmax`` of it broadcast to the empty shape: a bare ValueError. Fixed:
# over an empty shape it refuses nothing.


def test_the_truth_over_no_points_in_python():
    assert [x + 7 % 0 for x in []] == []


def test_a_divisor_that_is_not_zero_over_no_points_gives_no_values():
    space = la.Space(i=4, j=4)
    i, j = space.symbols
    m = la.IndexMap(space, la.Space(o=16), [i + sympy.Mod(7, j)], name="seven_mod_j")
    assert m.apply(np.arange(0), np.array([1]))[0].tolist() == []


@pytest.mark.parametrize("big", [0, 2**64], ids=["int64", "exact"])   # 2**64: bounds escape
def test_a_zero_divisor_over_no_points_gives_no_values(big):
    space = la.Space(i=4, j=4)
    i, j = space.symbols
    m = la.IndexMap(space, la.Space(o=16), [i + sympy.Mod(7, j) + big], name="seven_mod_j")
    assert m.apply(np.arange(0), np.array([0]))[0].tolist() == []
