"""Audit 4: ``check_bank_conflict_free`` decides by enumeration without reading
``assume``.

With ``method="auto"`` an UNKNOWN from Z3 on a concrete access map is settled by
enumerating it (layoutalg/channel/banks.py, ``_enumerated``), including the
UNKNOWN that says "the assumptions contradict each other, so nothing is proved":
the answer becomes PROVED. ``method="enumeration"`` never looks at ``assume``:
contradictory assumptions are PROVED and a malformed one (which ``method="z3"``
refuses with MapError naming ``assume[0]``) is ignored.

Truth: ``sympy.false`` holds for no sizes at all (nothing to check), so the
only honest answer under it is UNKNOWN, as ``method="z3"`` says.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg import channel as ch
from layoutalg.verify.result import Status

N = sympy.Symbol("N", integer=True, positive=True)


def _access() -> la.IndexMap:
    space = la.Space(col=8, thread=8)
    col, thread = space.symbols
    return la.IndexMap(space, la.Space(addr=1024), [thread * 16 + col * 128], name="rows")


def test_z3_says_unknown_under_contradictory_assumptions():
    r = ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), assume=[sympy.false],
                                    method="z3")
    assert r.status is Status.UNKNOWN


def test_z3_refuses_a_malformed_assumption():
    with pytest.raises(la.MapError, match="assume"):
        ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), assume=[N > 5], method="z3")


@pytest.mark.parametrize("method", ["auto", "enumeration"])
def test_contradictory_assumptions_are_not_proved(method):
    r = ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), assume=[sympy.false],
                                    method=method)
    assert r.status is Status.UNKNOWN


def test_enumeration_refuses_a_malformed_assumption():
    with pytest.raises(la.MapError, match="assume"):
        ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), assume=[N > 5],
                                    method="enumeration")


@pytest.mark.parametrize("method", ["auto", "enumeration"])
def test_assumptions_that_hold_keep_the_enumerated_verdict(method):
    # by hand: addr // 16 % 8 = thread % 8, distinct for the 8 threads of each col
    r = ch.check_bank_conflict_free(_access(), ch.Banks(8, 16), assume=[sympy.true],
                                    method=method)
    assert r.status is Status.PROVED
