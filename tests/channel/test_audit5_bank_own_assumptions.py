"""Audit 5: b8053b7 gates ``check_bank_conflict_free``'s enumeration on
``assume`` only (``if assume:`` in ``channel/banks.py::_enumerated``); the access
map's *own* assumptions (``IndexMap(..., assumptions=[...])``), which every Z3
query holds (``query.run`` adds ``m.assumptions``), are never read there. A
concrete access whose own assumptions contradict each other is UNKNOWN with
``method="z3"`` ("the assumptions contradict each other") but PROVED with
``method="enumeration"``, and ``method="auto"`` turns Z3's very UNKNOWN into
PROVED. (``verify.enumerated._small`` refuses such a map for the core checks.)

Truth: ``sympy.false`` holds for no sizes, so nothing is proved under it.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg import channel as ch
from layoutalg.verify.result import Status


def _access() -> la.IndexMap:
    space = la.Space(col=8, thread=8)
    col, thread = space.symbols
    return la.IndexMap(space, la.Space(addr=1024), [thread * 16 + col * 128], name="rows",
                       assumptions=[sympy.false])


def test_truth_z3_says_nothing_is_proved():
    r = ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), method="z3")
    assert r.status is Status.UNKNOWN


@pytest.mark.parametrize("method", ["enumeration", "auto"])
def test_own_contradictory_assumptions_not_proved(method):
    r = ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), method=method)
    assert r.status is not Status.PROVED
