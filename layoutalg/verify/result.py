"""Verdicts of checks: ``Status``, ``CheckResult`` and ``Padding``."""

from __future__ import annotations

import enum
from dataclasses import dataclass

import sympy


class Status(enum.Enum):
    """PROVED and REFUTED are answers; UNKNOWN (timeout, unsupported) is never a pass."""

    PROVED = "PROVED"
    REFUTED = "REFUTED"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class CheckResult:
    """The verdict of one check on one subject.

    Attributes:
        status: PROVED, REFUTED or UNKNOWN.
        check: the check's name ("injective", "in_bounds", ...).
        subject: the label of the map (or maps) checked.
        counterexample: plain ints naming the witness when REFUTED, else None.
        reason: a sentence: what was proved, the concrete failure, or why unknown.
        seconds: wall time of the check.
        method: "z3" or "enumeration".
    """

    status: Status
    check: str
    subject: str
    counterexample: dict[str, int] | None = None
    reason: str = ""
    seconds: float = 0.0
    method: str = "z3"

    @property
    def proved(self) -> bool:
        return self.status is Status.PROVED

    @property
    def refuted(self) -> bool:
        return self.status is Status.REFUTED

    def __bool__(self) -> bool:
        raise TypeError(
            "a CheckResult has three outcomes; test .proved, .refuted or .status explicitly"
        )

    def __str__(self) -> str:
        return f"{self.check}({self.subject}): {self.status} — {self.reason}"


@dataclass(frozen=True)
class Padding:
    """Codomain slots that hold no element.

    ``count`` and ``total`` are ints for concrete maps and SymPy expressions
    for parametric ones; ``fraction`` is ``count / total``.
    """

    count: int | sympy.Expr
    total: int | sympy.Expr
    method: str = "enumeration"

    @property
    def fraction(self) -> float | sympy.Expr:
        if isinstance(self.count, int) and isinstance(self.total, int):
            return self.count / self.total
        return sympy.simplify(sympy.sympify(self.count) / self.total)


def point_text(names, values) -> str:
    """``(i=0, j=1)``."""
    return "(" + ", ".join(f"{n}={v}" for n, v in zip(names, values)) + ")"
