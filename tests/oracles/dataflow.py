"""Enumeration twins of the dataflow checks, for concrete sizes.

They share no formula with the Z3 checks: traffic comes from running the
counting rule step by step (:func:`layoutalg.dataflow.reuse.simulate`),
footprints from the trimmed tile bounds of every step.
"""

from __future__ import annotations

import time

from layoutalg.dataflow.checks import COMPULSORY, _same_problem
from layoutalg.dataflow.energy import EYERISS, AccessCosts
from layoutalg.errors import DataflowError
from layoutalg.validate import concrete_sizes, one_of
from layoutalg.dataflow.reuse import loop_nest, simulate, tile_elements
from layoutalg.dataflow.schedule import OPERANDS, Schedule
from layoutalg.dataflow.seed import SeedReuse
from layoutalg.dataflow.tiling import Capacities
from layoutalg.errors import describe
from layoutalg.verify.result import CheckResult, Status, point_text


def check_meets_compulsory(subject: Schedule | SeedReuse, operand: str | None = None,
                           **_: object) -> CheckResult:
    """Enumeration twin of :func:`layoutalg.dataflow.checks.check_meets_compulsory`."""
    start = time.perf_counter()
    chosen = OPERANDS if operand is None else (one_of(DataflowError, "operand", operand, OPERANDS,
                                                      where="check_meets_compulsory"),)
    if isinstance(subject, SeedReuse):
        s = subject.schedule
        concrete_sizes(DataflowError, "check_meets_compulsory", s, *s.problem, *s.tiles,
                       subject.array_cols)
        claims = {x: (int(subject.uses(x)), int(subject.reuse(x))) for x in OPERANDS}
    elif isinstance(subject, Schedule):
        s = subject
        concrete_sizes(DataflowError, "check_meets_compulsory", s, *s.problem, *s.tiles)
        counts = simulate(s)
        claims = {"A": (counts["dram", "A", "read"], 1), "B": (counts["dram", "B", "read"], 1),
                  "C": (counts["dram", "C", "write"], 1)}
    else:
        raise DataflowError(f"check_meets_compulsory: subject must be a Schedule or a SeedReuse; "
                            f"got {describe(subject)}")
    for x in chosen:
        num, den = claims[x]
        if num < s.size(x) * den:
            return _result(Status.REFUTED, "meets_compulsory", subject.label, start,
                           {"reported": num // den, "compulsory": s.size(x)},
                           f"{x}: {num}/{den} elements across DRAM < {s.size(x)} ({COMPULSORY[x]})")
    return _result(Status.PROVED, "meets_compulsory", subject.label, start, None,
                   "every operand moves at least its compulsory traffic")


def check_stationary_once(schedule: Schedule, **_: object) -> CheckResult:
    """Enumeration twin of :func:`layoutalg.dataflow.checks.check_stationary_once`."""
    start = time.perf_counter()
    concrete_sizes(DataflowError, "check_stationary_once", schedule, *schedule.problem,
                   *schedule.tiles)
    counts = simulate(schedule)
    x = schedule.stationary
    whole = schedule.size(x)
    if x == "C":
        ok = counts["dram", "C", "read"] == 0 and counts["dram", "C", "write"] == whole
    else:
        ok = counts["dram", x, "read"] == whole
    status = Status.PROVED if ok else Status.REFUTED
    return _result(status, "stationary_once", schedule.label, start,
                   None if ok else {"read": counts["dram", x, "read"]},
                   f"{x} DRAM reads {counts['dram', x, 'read']}, "
                   f"writes {counts['dram', x, 'write']}")


def check_tiles_fit(schedule: Schedule, capacities: Capacities | None = None,
                    **_: object) -> CheckResult:
    """Enumeration twin of :func:`layoutalg.dataflow.checks.check_tiles_fit`."""
    start = time.perf_counter()
    capacities = Capacities() if capacities is None else capacities
    concrete_sizes(DataflowError, "check_tiles_fit", schedule, *schedule.problem, *schedule.tiles,
                   capacities.l2_bytes, capacities.register_bytes)
    for step in loop_nest(schedule):
        for level in ("l2", "register"):
            used = sum(tile_elements(schedule, x, step.tile(x))
                       for x in schedule.resident_in(level)) * schedule.element_bytes
            if used > capacities.of(level):
                where = (step.ti, step.tj, step.tk)
                return _result(Status.REFUTED, "tiles_fit", schedule.label, start,
                               {"ti": step.ti, "tj": step.tj, "tk": step.tk, "bytes": used,
                                "capacity": capacities.of(level)},
                               f"{level} overflow at {point_text(('ti', 'tj', 'tk'), where)}: "
                               f"{used} > {capacities.of(level)} bytes")
    return _result(Status.PROVED, "tiles_fit", schedule.label, start, None,
                   "every step's tiles fit")


def check_energy_below(subject: Schedule, other: Schedule, costs: AccessCosts = EYERISS,
                       **_: object) -> CheckResult:
    """Twin of :func:`layoutalg.dataflow.checks.check_energy_below` from simulated counts."""
    start = time.perf_counter()
    _same_problem("check_energy_below", subject, other)
    mine, theirs = (_simulated_energy(s, costs) for s in (subject, other))
    ok = mine < theirs
    return _result(Status.PROVED if ok else Status.REFUTED, "energy_below",
                   f"{subject.label} vs {other.label}", start,
                   None if ok else {"energy": round(mine), "other": round(theirs)},
                   f"energy {mine} vs {theirs}")


def check_reuse_above(subject: Schedule, other: Schedule, operand: str, factor: int = 1,
                      **_: object) -> CheckResult:
    """Twin of :func:`layoutalg.dataflow.checks.check_reuse_above` from simulated counts."""
    start = time.perf_counter()
    one_of(DataflowError, "operand", operand, OPERANDS, where="check_reuse_above")
    _same_problem("check_reuse_above", subject, other)
    mine, theirs = (sum(v for (lv, op, _), v in simulate(s).items()
                        if lv == "dram" and op == operand) for s in (subject, other))
    ok = theirs > factor * mine
    return _result(Status.PROVED if ok else Status.REFUTED, "reuse_above",
                   f"{subject.label} vs {other.label}", start,
                   None if ok else {"moved": mine, "other_moved": theirs},
                   f"{operand} crosses DRAM {mine} vs {theirs} times")


def _simulated_energy(schedule: Schedule, costs: AccessCosts):
    total = 0
    for (level, _, _), count in simulate(schedule).items():
        total += count * (costs.mac if level == "mac" else costs.of(level))
    return total


def _result(status, check, subject, start, counterexample, reason) -> CheckResult:
    return CheckResult(status, check, subject, counterexample=counterexample, reason=reason,
                       seconds=time.perf_counter() - start, method="enumeration")
