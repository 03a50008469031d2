"""Audit 5: b0d263f gates ``la.padding``'s enumeration on ``assume`` only
(``verify/padding.py::padding``: ``any(a is not sympy.true for a in assume)``);
the map's *own* assumptions are not read, so a small concrete map whose own
assumptions contradict each other still gets a count, where ``assume=[false]``
now gets VerificationError and the Z3 checks say UNKNOWN for the same map
("the assumptions contradict each other, so nothing is proved").
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import VerificationError
from layoutalg.verify.result import Status


def _map(assumptions=()) -> la.IndexMap:
    d = la.Space(a=4)
    return la.IndexMap(d, la.Space(p=4), [d.symbols[0]], name="id", assumptions=assumptions)


def test_truth_the_same_map_under_assume_false_is_refused():
    with pytest.raises(VerificationError):
        la.padding(_map(), assume=[sympy.false])
    assert la.check_in_bounds(_map([sympy.false])).status is Status.UNKNOWN


def test_own_contradictory_assumptions_get_no_count():
    with pytest.raises(VerificationError):
        la.padding(_map([sympy.false]))
