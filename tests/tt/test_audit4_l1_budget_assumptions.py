"""Audit 4: the arithmetic paths of ``check_l1_fit`` and ``check_l1_guard``
(layoutalg/tt/l1_budget.py, ``_arith``) give a verdict without reading ``assume``.

A number of bytes checked against an ``L1Budget``, and a guard whose limit is
below 0 ("admits no size: PROVED without asking Z3"), never pass ``assume``
through ``query.checked_assumptions`` or the door: ``assume=[sympy.false]``
(true of no sizes at all) is PROVED / REFUTED, where the Z3 path of the same
function answers UNKNOWN ("the assumptions contradict each other"), and a
malformed ``assume`` (a string) gets a verdict where the Z3 path raises MapError.

Truth in plain Python: 1_000 bytes fit the 1,258,112 B free of the budget below
(1,572,864 - 119,936 - 194,816), so only the assumptions make PROVED wrong.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.tt import L1Budget, check_l1_fit, check_l1_guard
from layoutalg.verify.result import Status


def _budget() -> L1Budget:
    return L1Budget(device="blackhole", reserved=119_936, buffers=[("other tensors", 194_816)])


def _no_free_l1() -> L1Budget:  # CB region ends at 700, the lowest buffer is at 600
    return L1Budget(l1_bytes=1000, reserved=100, circular_buffers=[("cb", 600)],
                    buffers=[("x", 400)])


def test_the_budgets_in_plain_python():
    assert 1_572_864 - 119_936 - 194_816 == _budget().free >= 1_000
    assert 1000 - 400 - (100 + 600) == _no_free_l1().free < 0


def test_the_z3_path_says_unknown_under_false():
    assert check_l1_guard(_budget(), assume=[sympy.false]).status is Status.UNKNOWN


def test_the_z3_path_refuses_a_malformed_assumption():
    with pytest.raises(la.MapError, match="assume"):
        check_l1_guard(_budget(), assume=["garbage"])


def test_bytes_fit_is_not_proved_under_false():
    assert check_l1_fit(1_000, _budget(), assume=[sympy.false]).status is Status.UNKNOWN


def test_guard_admitting_nothing_is_not_proved_under_false():
    assert check_l1_guard(_no_free_l1(), assume=[sympy.false]).status is Status.UNKNOWN


def test_bytes_fit_refuses_a_malformed_assumption():
    with pytest.raises(la.MapError, match="assume"):
        check_l1_fit(1_000, _budget(), assume=["garbage"])


def test_assumptions_that_hold_keep_the_arithmetic_verdict():
    # 1,258,112 B free (plain Python above): 1,000 B fit, 2,000,000 B do not
    assert check_l1_fit(1_000, _budget(), assume=[sympy.true]).status is Status.PROVED
    assert check_l1_fit(2_000_000, _budget(), assume=[sympy.true]).status is Status.REFUTED
    assert check_l1_guard(_no_free_l1(), assume=[sympy.true]).status is Status.PROVED
