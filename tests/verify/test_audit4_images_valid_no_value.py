"""Audit 4: ``check_images_valid``'s shortcut for a map without ``valid`` still
PROVES maps whose expressions have no (integer) value at some point.

98af09a kept the images of a map with a bit operation away from the shortcut
("the map declares every slot valid"), and a divisor not known positive is
screened too, but any other expression the guarded translation refuses still
skips it: a ``Piecewise`` with no branch that holds at some point (no value,
like ``x mod 0``) and an expression outside the index vocabulary (``a/2`` is
``1/2`` at ``a = 1``, not an index). ``check_in_bounds`` and ``check_injective``
on the same maps say UNKNOWN ("PROVED means proved"; UNKNOWN is never a pass).

Truth in plain Python: at ``a = 2`` neither branch of ``Piecewise((a, a < 2))``
holds; at ``a = 1`` the image ``a/2`` is the fraction 1/2.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

import layoutalg as la
from layoutalg.verify.result import Status


def _domain():
    d = la.Space.of(("a",), (3,))
    return d, d.symbols[0]


def _no_branch_map() -> la.IndexMap:
    d, a = _domain()
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [sympy.Piecewise((a, a < 2))], name="pw")


def _half_map() -> la.IndexMap:
    d, a = _domain()
    return la.IndexMap(d, la.Space.of(("p",), (4,)), [a / 2], name="half")


def test_truth_in_plain_python():
    assert [a for a in range(3) if not a < 2] == [2]  # no branch holds at a = 2
    assert Fraction(1, 2).denominator != 1  # a/2 at a = 1 is no index


@pytest.mark.parametrize("make", [_no_branch_map, _half_map])
def test_the_other_checks_say_unknown(make):
    m = make()
    assert la.check_in_bounds(m).status is Status.UNKNOWN
    assert la.check_injective(m).status is Status.UNKNOWN


def test_images_valid_not_proved_where_no_branch_holds():
    assert la.check_images_valid(_no_branch_map()).status is not Status.PROVED


def test_images_valid_not_proved_outside_the_vocabulary():
    assert la.check_images_valid(_half_map()).status is not Status.PROVED
