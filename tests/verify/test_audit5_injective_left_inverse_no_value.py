"""Audit 5: ``check_injective``'s proof by the left inverse reads the map only
through ``inverse(f(x))`` (``verify/checks.py::_has_left_inverse``), so an image
the inverse does not read never reaches the translation's guards: the same
defect bd806cd fixed for ``check_surjective``'s inverse query (``_has_values``).

``(a, b) -> (a, b, t)`` over 2x2 with inverse ``(p, q)`` and ``t`` a
``Piecewise`` with no branch at ``b = 1`` or ``bit_and(a - 1, 1)`` (no value at
``a = 0``) is PROVED injective "(the inverse undoes the map)", while
``check_in_bounds`` on the same map says UNKNOWN and the audit 4 reproducers
pin ``check_injective`` UNKNOWN for a map with a Piecewise gap.

Truth in plain Python: ``a - 1 = -1`` at ``a = 0`` (bit operations are defined
on non-negative ints only) and ``b < 1`` fails at ``b = 1``; the evaluator
refuses both points with MapError.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.core.bits import bit_and
from layoutalg.errors import MapError
from layoutalg.verify.result import Status


def _map(kind: str) -> la.IndexMap:
    d = la.Space.of(("a", "b"), (2, 2))
    a, b = d.symbols
    c = la.Space.of(("p", "q", "r"), (2, 2, 2))
    p, q, _ = c.symbols
    third = {"bit": bit_and(a - 1, 1), "gap": sympy.Piecewise((a, b < 1))}[kind]
    return la.IndexMap(d, c, [a, b, third], inverse=[p, q], name=kind)


@pytest.mark.parametrize("kind, point", [("bit", (0, 0)), ("gap", (0, 1))])
def test_truth_no_value_at_some_point(kind, point):
    assert (0 - 1 < 0) and not (1 < 1)
    with pytest.raises(MapError):
        _map(kind)(*point)
    assert la.check_in_bounds(_map(kind)).status is Status.UNKNOWN


@pytest.mark.parametrize("kind", ["bit", "gap"])
def test_injective_not_proved_where_the_map_has_no_value(kind):
    assert la.check_injective(_map(kind)).status is not Status.PROVED
