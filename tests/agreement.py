"""The one ``agree`` helper of the differential tests (issue 12 item 8).

A Z3 verdict and its enumeration twin agree when both decided the same
status; UNKNOWN from Z3 is a failure, never agreement.
"""

from __future__ import annotations

from layoutalg.verify.result import CheckResult, Status


def agree(proved: CheckResult, enumerated: CheckResult) -> None:
    """Same status on both sides; UNKNOWN is a failure, not agreement."""
    assert proved.status is not Status.UNKNOWN, f"Z3 said UNKNOWN: {proved}"
    assert enumerated.method == "enumeration", f"the twin did not enumerate: {enumerated}"
    assert proved.status is enumerated.status, (
        f"Z3 and enumeration disagree:\n  z3:    {proved}\n  brute: {enumerated}")
