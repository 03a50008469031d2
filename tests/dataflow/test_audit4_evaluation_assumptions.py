"""Audit 4: ``check_energy_below`` and ``check_reuse_above``
(layoutalg/dataflow/checks.py) accept ``assume=`` but decide by exact evaluation
without reading it: under ``assume=[sympy.false]`` (true of no sizes) they answer
PROVED / REFUTED where ``check_tiles_fit`` on the same schedule answers UNKNOWN
("the assumptions contradict each other"), and a malformed ``assume`` (a string)
gets a verdict instead of the MapError naming ``assume[0]`` that the Z3 checks of
the family raise.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg import dataflow as df
from layoutalg.verify.result import Status


def _pair():
    return df.Schedule("os", (4, 4, 4), (2, 2, 2)), df.Schedule("ws", (4, 4, 4), (2, 2, 2))


def test_a_z3_check_of_the_family_says_unknown_under_false():
    first, _ = _pair()
    assert df.check_tiles_fit(first, assume=[sympy.false]).status is Status.UNKNOWN


def test_a_z3_check_of_the_family_refuses_a_malformed_assumption():
    first, _ = _pair()
    with pytest.raises(la.MapError, match="assume"):
        df.check_tiles_fit(first, assume=["garbage"])


def test_energy_below_is_unknown_under_false():
    first, other = _pair()
    assert df.check_energy_below(first, other, assume=[sympy.false]).status is Status.UNKNOWN


def test_reuse_above_is_unknown_under_false():
    first, other = _pair()
    assert df.check_reuse_above(first, other, "A", assume=[sympy.false]).status is Status.UNKNOWN


def test_energy_below_refuses_a_malformed_assumption():
    first, other = _pair()
    with pytest.raises(la.MapError, match="assume"):
        df.check_energy_below(first, other, assume=["garbage"])


def test_assumptions_that_hold_keep_the_evaluated_verdict():
    first, other = _pair()
    for check in (lambda **kw: df.check_energy_below(first, other, **kw),
                  lambda **kw: df.check_reuse_above(first, other, "A", **kw)):
        assert check(assume=[sympy.true]).status is check().status is not Status.UNKNOWN
