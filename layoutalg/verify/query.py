"""Shared pieces of the Z3 checks: domain unknowns, the one way into Z3, rendering."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import sympy

from layoutalg.core.expr import as_condition
from layoutalg.core.index_map import IndexMap, substitute_exprs
from layoutalg.core.space import Space
from layoutalg.errors import MapError, describe
from layoutalg.verify import solver
from layoutalg.verify.result import CheckResult, Status

Point = tuple[sympy.Symbol, ...]


def unknowns(space: Space, suffix: str = "") -> tuple[Point, list[solver.Bounded]]:
    """Fresh integer unknowns ranging over ``space`` (copies when ``suffix``)."""
    if suffix:
        symbols = tuple(
            sympy.Symbol(name + suffix, integer=True, nonnegative=True) for name in space.names
        )
    else:
        symbols = space.symbols
    bounds = [solver.Bounded(s, 0, e) for s, e in zip(symbols, space.extents)]
    return symbols, bounds


def images(m: IndexMap, point: Point) -> tuple[sympy.Expr, ...]:
    """``m``'s expressions at a symbolic point."""
    return substitute_exprs(m.exprs, m.domain.symbols, point)


def ne(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    return sympy.Ne(a, b, evaluate=False)


def eq(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    return sympy.Eq(a, b, evaluate=False)


def outside(value: sympy.Expr, extent) -> sympy.Basic:
    return sympy.Or(sympy.Lt(value, 0, evaluate=False), sympy.Ge(value, extent, evaluate=False))


def ask(
    unknown_bounds: Sequence[solver.Bounded],
    constraints: Sequence[sympy.Basic],
    *,
    parameters: Sequence[sympy.Symbol] = (),
    assumptions: Sequence[object] = (),
    timeout_ms: int,
    forall=None,
) -> solver.Outcome:
    """The one way a check reaches Z3: is there a point meeting ``constraints``?

    Every guard is here or in ``solver.solve`` below it, so no check can skip
    one: an operator outside the vocabulary is UNKNOWN (solver); an unsat
    answer whose encoding rules out large sizes is UNKNOWN (solver); an unsat
    answer under assumptions that no sizes meet is UNKNOWN (here), since it
    proves nothing. ``assumptions`` may mention only ``parameters`` (see
    :func:`checked_assumptions`). A test asserts no other module calls the
    solver.
    """
    parameters = sorted(set(parameters), key=str)
    assumed = checked_assumptions(assumptions, parameters)
    outcome = solver.solve(unknown_bounds, constraints, parameters=parameters,
                           assumptions=assumed, timeout_ms=timeout_ms, forall=forall)
    if outcome.answer == "unsat" and assumed:
        # unsat proves nothing if no sizes satisfy the assumptions at all.
        possible = solver.solve([], [], parameters=parameters, assumptions=assumed,
                                timeout_ms=timeout_ms)
        if possible.answer != "sat":
            reason = ("the assumptions contradict each other, so nothing is proved"
                      if possible.answer == "unsat" else
                      f"cannot tell whether the assumptions can hold ({possible.reason})")
            return solver.Outcome("unknown", reason=reason, seconds=outcome.seconds)
    return outcome


def run(
    unknown_bounds: Sequence[solver.Bounded],
    constraints: Sequence[sympy.Basic],
    maps: Sequence[IndexMap],
    *,
    assume: Sequence[object] = (),
    timeout_ms: int,
    forall=None,
    parameters: Sequence[sympy.Symbol] = (),
) -> solver.Outcome:
    """:func:`ask` with the maps' parameters and assumptions in force, and
    ``assume`` (over the maps' parameters) besides. ``parameters`` adds sizes
    the maps do not mention (a symbolic capacity): each is ≥ 1 like theirs."""
    parameters = set(parameters)
    for m in maps:
        parameters |= m.parameters
    assumptions = list(checked_assumptions(assume, parameters))
    for m in maps:
        assumptions.extend(m.assumptions)
    return ask(unknown_bounds, constraints, parameters=parameters, assumptions=assumptions,
               timeout_ms=timeout_ms, forall=forall)


def maximum(objective: sympy.Expr, unknown_bounds: Sequence[solver.Bounded], *,
            timeout_ms: int) -> tuple[int, dict[sympy.Symbol, int]] | None:
    """The largest value of ``objective`` over concrete ranges, with a point
    reaching it; None when Z3 does not say. Only picks a worst witness: no
    verdict rests on it."""
    return solver.maximize(objective, unknown_bounds, [], timeout_ms=timeout_ms)


def checked_assumptions(assume: Sequence[object], parameters) -> tuple[sympy.Basic, ...]:
    """``assume`` as SymPy booleans over ``parameters`` only.

    An assumption restricts the sizes a claim is proved for; one that
    mentions a coordinate would shrink the domain instead, and one written
    with a look-alike symbol (``Symbol("M", integer=True)`` beside the
    extent ``M``) would name a different unknown. So a look-alike is rebound
    to the parameter of its name, and any other symbol is refused.

    >>> from layoutalg import extents
    >>> M, = extents("M")
    >>> checked_assumptions([sympy.Symbol("M", integer=True) < 9], [M])[0].free_symbols == {M}
    True
    """
    if isinstance(assume, (str, bytes)) or not isinstance(assume, Sequence):
        raise MapError(f"assume must be a sequence of SymPy booleans; got {describe(assume)}")
    by_name = {p.name: p for p in parameters}
    checked = []
    for k, value in enumerate(assume):
        condition = as_condition(value, f"assume[{k}]")
        rebind = {}
        for symbol in sorted(condition.free_symbols, key=str):
            canonical = by_name.get(symbol.name)
            if canonical is None:
                allowed = ", ".join(sorted(by_name)) or "none: the sizes are concrete"
                raise MapError(
                    f"assume[{k}] may mention only the extent parameters ({allowed}); "
                    f"got symbol {symbol} in {condition}")
            if canonical is not symbol:
                rebind[symbol] = canonical
        checked.append(condition.xreplace(rebind) if rebind else condition)
    return tuple(checked)


def parameter_values(outcome: solver.Outcome, maps: Sequence[IndexMap]) -> dict[sympy.Symbol, int]:
    params = set().union(*(m.parameters for m in maps))
    return {p: outcome.model[p] for p in params if p in outcome.model}


def concrete(m: IndexMap, values: dict[sympy.Symbol, int]) -> IndexMap:
    """``m`` with its parameters bound to the values of a model."""
    if not m.parameters:
        return m
    return m.bind(**{str(p): v for p, v in values.items() if p in m.parameters})


def point_of(outcome: solver.Outcome, symbols: Point) -> tuple[int, ...]:
    return tuple(outcome.model[s] for s in symbols)


def params_text(values: dict[sympy.Symbol, int]) -> str:
    if not values:
        return ""
    items = sorted(values.items(), key=lambda kv: str(kv[0]))
    return " with " + ", ".join(f"{p}={v}" for p, v in items)


def named(names: Sequence[str], values: Sequence[int], suffix: str = "") -> dict[str, int]:
    return {f"{n}{suffix}": int(v) for n, v in zip(names, values)}


def result(
    status: Status, check: str, subject: str, start: float, *,
    counterexample: dict[str, int] | None = None, reason: str = "",
) -> CheckResult:
    return CheckResult(
        status=status, check=check, subject=subject, counterexample=counterexample,
        reason=reason, seconds=time.perf_counter() - start,
    )


def unknown(check: str, subject: str, start: float, outcome: solver.Outcome) -> CheckResult:
    return result(Status.UNKNOWN, check, subject, start, reason=outcome.reason)


def verdict(
    outcome: solver.Outcome, check: str, subject: str, start: float, *,
    proved: str, refuted: Callable[[], dict],
) -> CheckResult:
    """The result of a query for a counterexample: PROVED with reason ``proved``
    on unsat, UNKNOWN with Z3's reason, else REFUTED with the ``counterexample``
    and ``reason`` that ``refuted()`` reads off the model (called only then)."""
    if outcome.answer == "unsat":
        return result(Status.PROVED, check, subject, start, reason=proved)
    if outcome.answer == "unknown":
        return unknown(check, subject, start, outcome)
    return result(Status.REFUTED, check, subject, start, **refuted())
