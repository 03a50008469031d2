"""Z3 checks of dataflow models: compulsory traffic, stationarity, tile fit.

Each asks Z3 (through ``layoutalg.verify.query``, the one door to the Z3 back end that
imports it) for a counterexample; with symbolic sizes the verdict holds for
every size. ``tests/oracles/dataflow.py`` has the enumeration twins.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sympy

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.capacities import Capacities
from layoutalg.dataflow.energy import EYERISS, AccessCosts, energy
from layoutalg.dataflow.schedule import INDEXED_BY, LOOPS, OPERANDS, Schedule
from layoutalg.dataflow.seed import SeedReuse
from layoutalg.dataflow.traffic import traffic
from layoutalg.errors import DataflowError, describe
from layoutalg.validate import concrete_sizes, instance_of, one_of
from layoutalg.verify import query as q
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status, point_text

Assume = Sequence[sympy.Basic]
COMPULSORY = {"A": "M·K", "B": "K·N", "C": "M·N"}


def dram_claims(subject: Schedule | SeedReuse) -> dict[str, tuple]:
    """Per operand ``(numerator, denominator, compulsory)`` of DRAM elements: a
    schedule's exact reads of A and B and writes of C, the seed's ``uses / reuse``."""
    if isinstance(subject, SeedReuse):
        return subject.dram_claims()
    if isinstance(subject, Schedule):
        t = traffic(subject)
        return {x: (t.get("dram", x, "write" if x == "C" else "read"), 1, subject.size(x))
                for x in OPERANDS}
    raise DataflowError(f"check_meets_compulsory: subject must be a Schedule or a SeedReuse; "
                        f"got {describe(subject)}")


def check_meets_compulsory(subject: Schedule | SeedReuse, operand: str | None = None, *,
                           assume: Assume = (),
                           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The model moves at least the compulsory data across DRAM: A ≥ M·K and
    B ≥ K·N elements read, C ≥ M·N written (hence in total at least
    ``element_bytes·(MK + KN + MN)`` bytes). ``operand`` limits it to one.

    >>> from layoutalg.dataflow.schedule import Schedule
    >>> check_meets_compulsory(Schedule("ws", (64, 64, 64), (16, 16, 16))).status.value
    'PROVED'
    """
    start = time.perf_counter()
    claims = dram_claims(subject)
    chosen = OPERANDS if operand is None else (one_of(DataflowError, "operand", operand, OPERANDS,
                                                      where="check_meets_compulsory"),)
    short = [sympy.Lt(num, comp * den, evaluate=False) for num, den, comp in
             (claims[x] for x in chosen)]
    schedule = subject.schedule if isinstance(subject, SeedReuse) else subject
    parameters, outcome = _ask(schedule, [], short, [v for x in chosen for v in claims[x]],
                               assume, timeout_ms)
    names = ", ".join(f"{x} ≥ {COMPULSORY[x]}" for x in chosen)
    scope = "for every size" if parameters else "here"

    def refuted():  # the sizes Z3 found, and the first operand that moves less than it must
        values = {p: outcome.model[p] for p in parameters}
        for x in chosen:
            num, den, comp = (_value(v, values) for v in claims[x])
            if num < comp * den:
                reported = num // den if num % den == 0 else f"{num}/{den}"
                return {
                    "counterexample": {**_named(values), "reported": num // den,
                                       "compulsory": comp},
                    "reason": f"{x}: the model moves {reported} elements across DRAM, fewer than "
                    f"the {comp} ({COMPULSORY[x]}) that must move at least once{_with(values)}",
                }
        raise AssertionError("Z3 model does not violate the claim")  # solver bug, not input

    return q.verdict(outcome, "meets_compulsory", subject.label, start,
                     proved=f"DRAM traffic {names} elements {scope}",
                     refuted=refuted)


def check_stationary_once(schedule: Schedule, *, assume: Assume = (),
                          timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The stationary operand crosses DRAM exactly once: OS writes C once and
    never reads it back, WS reads B once, IS reads A once.

    >>> from layoutalg.dataflow.schedule import Schedule
    >>> check_stationary_once(Schedule("os", (8, 8, 8), (2, 2, 2))).status.value
    'PROVED'
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="check_stationary_once")
    start = time.perf_counter()
    t, x = traffic(schedule), schedule.stationary
    whole = schedule.size(x)
    expected = {"read": 0, "write": whole} if x == "C" else {"read": whole}
    measured = {k: t.get("dram", x, k) for k in expected}
    wrong = [sympy.Ne(measured[k], expected[k], evaluate=False) for k in measured]
    parameters, outcome = _ask(schedule, [], wrong, [*measured.values(), whole], assume,
                               timeout_ms)

    def refuted():  # the sizes Z3 found, and how often operand ``x`` crosses DRAM there
        values = {p: outcome.model[p] for p in parameters}
        got = {k: _value(v, values) for k, v in measured.items()}
        return {
            "counterexample": {**_named(values), **got},
            "reason": f"{x} crosses DRAM {got} times its elements, not once{_with(values)}",
        }

    return q.verdict(outcome, "stationary_once", schedule.label, start,
                     proved=f"{x} (stationary) crosses DRAM exactly once "
                     f"({COMPULSORY[x]} elements)",
                     refuted=refuted)


def step_footprint(schedule: Schedule, level: str, point: Sequence) -> object:
    """Bytes of the (edge-trimmed) tiles resident in ``level`` at step ``point``
    (``(ti, tj, tk)``, ints or symbols)."""
    def length(loop):
        k = LOOPS.index(loop)
        return _tile_length(schedule.tiles[k], schedule.problem[k], point[k])

    return sum(length(rows) * length(cols) for rows, cols in
               (INDEXED_BY[x] for x in schedule.resident_in(level))) * schedule.element_bytes


def _tile_length(tile, dim, index):
    """Length of tile ``index`` along a dimension: ``min(tile, dim − index·tile)``. With
    concrete sizes only the last tile can be short, and saying so (a case split, not a
    product of minimums) keeps Z3's queries linear: about 10× faster on the fit checks."""
    if isinstance(tile, int) and isinstance(dim, int):
        trips = ceil_div(dim, tile)
        edge = dim - (trips - 1) * tile
        if edge == tile:
            return tile
        return sympy.Piecewise((edge, sympy.Eq(index, trips - 1)), (tile, True))
    return sympy.Min(tile, dim - index * tile)


def check_tiles_fit(schedule: Schedule, capacities: Capacities | None = None, *,
                    assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """At every step the tiles resident in L2 fit ``l2_bytes`` and the
    stationary tile fits ``register_bytes`` (edge tiles trimmed).

    >>> from layoutalg.dataflow.schedule import Schedule
    >>> r = check_tiles_fit(Schedule("os", (64, 64, 64), (64, 64, 64)), Capacities(l2_bytes=32768))
    >>> r.status.value, r.counterexample["bytes"]
    ('REFUTED', 49152)
    """
    capacities = Capacities() if capacities is None else capacities
    instance_of(DataflowError, "schedule", schedule, Schedule, where="check_tiles_fit")
    instance_of(DataflowError, "capacities", capacities, Capacities, where="check_tiles_fit")
    start = time.perf_counter()
    point = tuple(sympy.Symbol(loop, integer=True, nonnegative=True) for loop in LOOPS)
    bounds = [q.Bounded(p, 0, n) for p, n in zip(point, schedule.trips)]
    need = {lv: step_footprint(schedule, lv, point) for lv in ("l2", "register")}
    over = [sympy.Gt(need[lv], capacities.of(lv), evaluate=False) for lv in need]
    parameters, outcome = _ask(schedule, bounds, over, [*schedule.problem, *schedule.tiles,
                               capacities.l2_bytes, capacities.register_bytes], assume, timeout_ms)

    def refuted():  # the sizes and step Z3 found, and the first level whose tiles overflow there
        values = {p: outcome.model[p] for p in parameters}
        step = tuple(outcome.model[p] for p in point)
        env = {**dict(zip(point, step)), **values}
        for level, footprint in need.items():
            used, cap = _value(footprint, env), _value(capacities.of(level), values)
            if used > cap:
                return {
                    "counterexample": {**dict(zip(LOOPS, step)), **_named(values), "bytes": used,
                                       "capacity": cap},
                    "reason": f"{'L2' if level == 'l2' else 'registers'} overflow at step "
                    f"{point_text(LOOPS, step)}: {used} > {cap} bytes "
                    f"({', '.join(schedule.resident_in(level))} resident){_with(values)}",
                }
        raise AssertionError("Z3 model does not overflow")  # solver bug, not input

    return q.verdict(
        outcome, "tiles_fit", schedule.label, start,
        proved=f"every step's tiles fit L2 ({capacities.l2_bytes} B) and the "
        f"registers ({capacities.register_bytes} B)",
        refuted=refuted)


def check_energy_below(subject: Schedule, other: Schedule, costs: AccessCosts = EYERISS, *,
                       assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """``subject`` spends strictly less energy than ``other`` on the same problem
    (concrete sizes; exact arithmetic)."""
    def judge():
        mine, theirs = energy(subject, costs).total, energy(other, costs).total
        return mine < theirs, {"energy": round(mine), "other": round(theirs)}, (
            f"energy {mine} under {subject.dataflow.upper()} {'<' if mine < theirs else '≥'} "
            f"{theirs} under {other.dataflow.upper()}")

    return _compared("energy_below", subject, other, assume, timeout_ms, judge)


def check_reuse_above(subject: Schedule, other: Schedule, operand: str, factor: int = 1, *,
                      assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """``operand``'s DRAM reuse (MACs per element crossing DRAM) under
    ``subject`` exceeds ``factor`` times that under ``other`` (concrete)."""
    one_of(DataflowError, "operand", operand, OPERANDS, where="check_reuse_above")

    def judge():
        mine, theirs = (traffic(s).accesses("dram", operand) for s in (subject, other))
        macs = traffic(subject).macs
        # reuse = macs / moved, so reuse_s > f·reuse_o  ⇔  moved_o > f·moved_s
        return theirs > factor * mine, {"moved": mine, "other_moved": theirs}, (
            f"{operand} crosses DRAM as {mine} elements under {subject.dataflow.upper()} and "
            f"{theirs} under {other.dataflow.upper()}: reuse {macs}/{mine} vs {macs}/{theirs} "
            f"MACs per element (asked for more than {factor}×)")

    return _compared("reuse_above", subject, other, assume, timeout_ms, judge)


def _compared(check, subject, other, assume, timeout_ms, judge) -> CheckResult:
    """The verdict ``judge()`` gives as ``(holds, counterexample, reason)`` on two
    concrete schedules of one problem, by evaluation. UNKNOWN instead when the door
    cannot show the assumptions hold (a verdict under assumptions no size meets
    proves nothing); ``assume`` is checked like the Z3 checks' (MapError), and
    none given asks no query."""
    start = time.perf_counter()
    _same_problem(f"check_{check}", subject, other)
    subject_text = f"{subject.label} vs {other.label}"
    own = [*subject.assumptions, *other.assumptions]
    parameters = _parameters(*own)
    assumed = q.checked_assumptions(assume, parameters)
    if assumed:
        possible = q.ask([], [sympy.false], parameters=parameters, assumptions=[*assumed, *own],
                         timeout_ms=timeout_ms)
        if possible.answer == "unknown":
            return q.unknown(check, subject_text, start, possible)
    holds, counterexample, reason = judge()
    return CheckResult(Status.PROVED if holds else Status.REFUTED, check, subject_text,
                       counterexample=None if holds else counterexample, reason=reason,
                       seconds=time.perf_counter() - start, method="evaluation")


def _same_problem(where: str, subject, other) -> None:
    for name, value in (("subject", subject), ("other", other)):
        instance_of(DataflowError, name, value, Schedule, where=where)
        concrete_sizes(DataflowError, where, value, *value.problem, *value.tiles)
    if subject.problem != other.problem or subject.element_bytes != other.element_bytes:
        raise DataflowError(f"{where}: both schedules must solve the same problem; got "
                            f"{subject.problem} and {other.problem}")


def _ask(schedule, bounds, bad, exprs, assume, timeout_ms):
    """``(parameters, outcome)``: Z3 asked for a point meeting one of ``bad`` over the
    sizes in ``exprs`` (each ≥ 1), under ``assume`` and the schedule's assumptions."""
    parameters = _parameters(*exprs, *schedule.assumptions)
    assumptions = [*q.checked_assumptions(assume, parameters), *schedule.assumptions]
    return parameters, q.ask(bounds, [sympy.Or(*bad)], parameters=parameters,
                             assumptions=assumptions, timeout_ms=timeout_ms)


def _parameters(*exprs) -> list[sympy.Symbol]:
    found = set().union(*(sympy.sympify(e).free_symbols for e in exprs))
    return sorted((s for s in found if s.is_positive), key=str)


def _value(expr, env) -> int:
    return int(sympy.sympify(expr).xreplace(env))


def _named(values: dict) -> dict[str, int]:
    return {str(k): int(v) for k, v in sorted(values.items(), key=lambda kv: str(kv[0]))}


def _with(values: dict) -> str:
    return " at " + ", ".join(f"{k}={v}" for k, v in _named(values).items()) if values else ""

