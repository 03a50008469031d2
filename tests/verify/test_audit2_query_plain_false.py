"""Audit 2 reproducer: check_images_valid of a map with no ``valid`` predicate
asks ``[false]`` with no unknown (query._ask answers it unsat without Z3, c3c0f33;
Z3 said the same before), so it is PROVED whatever the map's formulas are: also
for ``i mod (M - 1)``, which has no value at M = 1 (Python's ``0 % 0``). Its
siblings say UNKNOWN for that map ("modulo by M - 1, which is not known to be
positive"), and the promise is that a map with no value at a point is never
PROVED anything there: the images' divisors never reached the query. Fixed:
the check asks about the images with ``valid`` taken as true."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.verify import checks

M, = la.extents("M")


def no_value_at_1() -> la.IndexMap:
    d = la.Space(i=M)
    (i,) = d.symbols
    return la.IndexMap(d, la.Space(o=M), [sympy.Mod(i, M - 1)], name="r")


def test_truth_and_sibling():
    with pytest.raises(ZeroDivisionError):
        _ = 0 % (1 - 1)  # M = 1, i = 0: no value
    assert not checks.check_in_bounds(no_value_at_1()).proved


def test_images_valid_not_proved_for_map_without_value():
    assert not checks.check_images_valid(no_value_at_1()).proved
