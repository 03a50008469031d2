"""la.padding of a small concrete map counts by enumeration; assumptions no
size meets must not get a count (found by audit 4: it returned one under
assume=[false])."""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la


def padded() -> la.IndexMap:
    return la.pad(la.Space(i=10), "i", 4)  # 10 elements in 12 slots: 2 empty


def test_the_count_without_assumptions():
    assert (la.padding(padded()).count, la.padding(padded()).total) == (2, 12)
    assert la.padding(padded(), assume=[sympy.true]).count == 2


def test_contradictory_assumptions_get_no_count():
    with pytest.raises(la.VerificationError, match="contradict"):
        la.padding(padded(), assume=[sympy.false])


def test_a_malformed_assumption_is_refused():
    with pytest.raises(la.MapError, match="assume"):
        la.padding(padded(), assume="i < 3")
