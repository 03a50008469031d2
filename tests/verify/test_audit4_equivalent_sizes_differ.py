"""Audit 4: ``check_equivalent``'s "sizes differ" shortcut answers REFUTED before
the assumptions are read.

``_domains_differ`` (layoutalg/verify/checks.py) returns REFUTED ("sizes differ")
for two concrete domains of different extents before ``assume`` goes through
``query.checked_assumptions`` or the door: assumptions that contradict each other
(``N > 5`` and ``N < 2``: no integer meets both, checked in plain Python below)
get a REFUTED where every other check answers UNKNOWN ("the assumptions contradict
each other, so nothing is proved"), and an ``assume`` that is not a SymPy boolean
gets a verdict instead of the ``MapError`` naming the argument that
``check_in_bounds`` raises on the same input.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.verify.result import Status

N = sympy.Symbol("N", integer=True, positive=True)
CONTRADICTORY = [N > 5, N < 2]


def _maps():
    d3, d4 = la.Space.of(("i",), (3,)), la.Space.of(("i",), (4,))
    m3 = la.IndexMap(d3, la.Space.of(("o",), (8,)), [d3.symbols[0] * N], name="m3")
    m4 = la.IndexMap(d4, la.Space.of(("o",), (8,)), [d4.symbols[0] * N], name="m4")
    return m3, m4


def test_no_size_meets_the_assumptions_in_plain_python():
    assert not [n for n in range(1, 1000) if n > 5 and n < 2]


def test_the_other_checks_say_unknown_under_them():
    m3, _ = _maps()
    assert la.check_in_bounds(m3, assume=CONTRADICTORY).status is Status.UNKNOWN
    assert la.check_equivalent(m3, m3, assume=CONTRADICTORY).status is Status.UNKNOWN


def test_the_other_checks_refuse_a_malformed_assumption():
    m3, _ = _maps()
    with pytest.raises(la.MapError, match="assume"):
        la.check_in_bounds(m3, assume=["garbage"])


def test_sizes_differ_is_not_refuted_under_contradictory_assumptions():
    m3, m4 = _maps()
    assert la.check_equivalent(m3, m4, assume=CONTRADICTORY).status is Status.UNKNOWN


def test_sizes_differ_refuses_a_malformed_assumption():
    m3, m4 = _maps()
    with pytest.raises(la.MapError, match="assume"):
        la.check_equivalent(m3, m4, assume=["garbage"])
