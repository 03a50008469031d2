"""Shared pieces of the Z3 checks: domain unknowns, the one way into Z3, rendering."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
import time
from collections.abc import Callable, Iterator, Sequence

import sympy

from layoutalg.core.exact import Memo
from layoutalg.core.expr import as_condition
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import MapError, describe
from layoutalg.verify import plugged, rewrite
from layoutalg.verify.encodings import current_encoding
from layoutalg.verify.result import CheckResult, Status
from layoutalg.verify.z3_backend import solver
# the door's vocabulary, for checks that build queries (none of it is Z3)
from layoutalg.verify.z3_backend.solver import (  # noqa: F401 - re-exported
    DEFAULT_TIMEOUT_MS, Bounded, Outcome, checked_timeout)

Point = tuple[sympy.Symbol, ...]


def unknowns(space: Space, suffix: str = "") -> tuple[Point, list[solver.Bounded]]:
    """Fresh integer unknowns ranging over ``space`` (copies when ``suffix``)."""
    symbols = tuple(sympy.Symbol(name + suffix, integer=True, nonnegative=True)
                    for name in space.names) if suffix else space.symbols
    return symbols, [solver.Bounded(s, 0, e) for s, e in zip(symbols, space.extents)]


def images(m: IndexMap, point: Point, bounds: Sequence[solver.Bounded] = ()
           ) -> tuple[sympy.Expr, ...]:
    """``m``'s expressions at a symbolic point (see :func:`substitute`)."""
    return substitute(m.exprs, m.domain.symbols, point, bounds)


def substitute(exprs, symbols, values, bounds: Sequence[solver.Bounded] = ()
               ) -> tuple[sympy.Basic, ...]:
    """``values`` for ``symbols`` in ``exprs``, by structural integer rules
    (:mod:`layoutalg.verify.rewrite`) instead of SymPy's evaluation.
    ``bounds`` are unknowns of the query the result goes into: their ranges
    may simplify it (``Mod(i, 8) = i`` for ``0 <= i < 4``), exact because
    the query holds every unknown in its range. Remembered by structure (a
    pure function of SymPy values)."""
    ranges = {}
    for b in bounds:
        low, high = sympy.sympify(b.low), sympy.sympify(b.high)
        if low.is_Integer:
            ranges[b.symbol] = (int(low), int(high) - 1 if high.is_Integer else None)
    return _substituted(tuple(exprs), tuple(symbols), tuple(values),
                        tuple(sorted(ranges.items(), key=lambda kv: kv[0].sort_key())))


@functools.lru_cache(maxsize=4096)
def _substituted(exprs, symbols, values, ranges) -> tuple[sympy.Basic, ...]:
    return rewrite.substitute(exprs, symbols, values, dict(ranges))


def ne(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    return sympy.Ne(a, b, evaluate=False)


def eq(a: sympy.Expr, b: sympy.Expr) -> sympy.Basic:
    return sympy.Eq(a, b, evaluate=False)


def outside(value: sympy.Expr, extent) -> sympy.Basic:
    return any_of(sympy.Lt(value, 0, evaluate=False), sympy.Ge(value, extent, evaluate=False))


def any_of(*args: sympy.Basic) -> sympy.Basic:
    """``Or(*args)`` as written: see :func:`all_of`."""
    return _connective(sympy.Or, args)


def all_of(*args: sympy.Basic) -> sympy.Basic:
    """``And(*args)`` as written, without SymPy's evaluation (canonical
    relations, negations compared, arguments sorted: the largest SymPy cost
    of building a query, issue 17). Only rules true of any formula are kept:
    a ``false`` (``true`` for ``Or``) decides it, a ``true`` or a repeated
    argument is dropped, one argument is itself and none is ``true``; the
    order is the caller's, so a query is built the same way every time."""
    return _connective(sympy.And, args)


def _connective(kind, args) -> sympy.Basic:
    parts = []
    for arg in args:
        arg = arg if isinstance(arg, sympy.Basic) else sympy.sympify(arg)
        if arg == kind.zero:
            return kind.zero
        if arg == kind.identity:
            continue
        parts.extend(arg.args if isinstance(arg, kind) else (arg,))
    parts = list(dict.fromkeys(parts))
    if len(parts) < 2:
        return parts[0] if parts else kind.identity
    made = sympy.Basic.__new__(kind, *parts)
    made._argset = frozenset(parts)
    return made


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
    answer under assumptions that no sizes meet is UNKNOWN (here). A test
    asserts no other module calls the solver. ``assumptions`` may mention
    only ``parameters`` (:func:`checked_assumptions`). Plainly false constraints
    (no unknown, no assumption) are unsat without Z3; within :func:`asks_once`
    or :func:`shortcuts` an answer is reused.
    """
    parameters = sorted(set(parameters), key=str)
    assumed = checked_assumptions(assumptions, parameters)
    reuse, scope = _REUSE.get(), _SCOPE.get()
    key = _key(unknown_bounds, constraints, parameters, assumed, forall)
    known = (scope or {}).get(key) or (_ANSWERS.get(key) if reuse else None)
    if known is not None:
        return known
    outcome = _ask(unknown_bounds, constraints, parameters, assumed, timeout_ms, forall)
    if outcome.answer != "unknown" and key is not None:
        (scope if scope is not None else {})[key] = outcome
        if reuse:
            _ANSWERS.put(key, outcome)
    return outcome


def _ask(unknown_bounds, constraints, parameters, assumed, timeout_ms, forall) -> solver.Outcome:
    if not (unknown_bounds or assumed or forall) and sympy.false in constraints and all(
            c in (sympy.true, sympy.false) for c in constraints):  # side conditions in ints
        outcome = solver.Outcome("unsat")  # nothing to translate, no point: no solver
    else:
        outcome = solver.solve(unknown_bounds, constraints, parameters=parameters,
                               assumptions=assumed, timeout_ms=timeout_ms, forall=forall)
    if outcome.answer == "unsat" and assumed and plugged.witness(assumed, parameters) is None:
        # unsat proves nothing if no sizes satisfy the assumptions at all. Sizes
        # that meet them, plugged in exactly, show they do; else Z3 decides.
        possible = solver.solve([], [], parameters=parameters, assumptions=assumed,
                                timeout_ms=timeout_ms)
        if possible.answer != "sat":
            reason = ("the assumptions contradict each other, so nothing is proved"
                      if possible.answer == "unsat" else
                      f"cannot tell whether the assumptions can hold ({possible.reason})")
            return solver.Outcome("unknown", reason=reason, seconds=outcome.seconds)
    return outcome


class _Answers(Memo):
    """Answers already given, by query (as SymPy holds it: structurally).

    A query is a closed formula, so its answer is the same whoever asks and
    whenever: one map stated in several claims or specs asks Z3 once. Only
    sat and unsat are kept (unknown may depend on the time allowed). Locked."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key) -> solver.Outcome | None:
        if key is None:
            return None
        with self.lock:
            known = super().get(key)
            self.hits += known is not None
            self.misses += known is None
        return known

    def put(self, key, outcome: solver.Outcome) -> None:
        if key is not None:
            with self.lock:
                super().put(key, outcome)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.hits = self.misses = 0


ANSWERS_KEPT = 4096
ENUMERATE_UP_TO = 1 << 16
_ANSWERS = _Answers(ANSWERS_KEPT)
_REUSE: contextvars.ContextVar[bool] = contextvars.ContextVar("reuse", default=False)
_ENUMERATE: contextvars.ContextVar[int] = contextvars.ContextVar("enumerate", default=0)
_SCOPE: contextvars.ContextVar[dict | None] = contextvars.ContextVar("asked", default=None)


@contextlib.contextmanager
def shortcuts(*, reuse: bool = True, enumerate_up_to: int = ENUMERATE_UP_TO) -> Iterator[None]:
    """Within the block (``layoutalg prove`` runs each spec in one), a query
    asked before gets the answer given then (``answers_memo``), and the core
    checks decide a concrete map of at most ``enumerate_up_to`` points in
    domain and codomain by enumerating it (``verify.exhaustive``, exact).
    Outside, every check asks Z3 (the differential tests need it).
    """
    tokens = (_REUSE.set(bool(reuse)), _ENUMERATE.set(int(enumerate_up_to)))
    try:
        yield
    finally:
        _ENUMERATE.reset(tokens[1])
        _REUSE.reset(tokens[0])


def asks_once(check: Callable) -> Callable:
    """``check`` and the checks it calls ask each distinct question once per
    call, in one Z3 context (``solver.one_context``): a check combining others
    (bijective, surjective's pigeonhole) reuses a part's sat and unsat answers."""

    @functools.wraps(check)
    def once(*args, **kwargs):
        token = _SCOPE.set({}) if _SCOPE.get() is None else None
        try:
            with solver.one_context():
                return check(*args, **kwargs)
        finally:
            if token is not None:
                _SCOPE.reset(token)

    return once


def enumeration_limit() -> int:
    """The most points a concrete map may have to be enumerated (0: never)."""
    return _ENUMERATE.get()


def answers_memo() -> _Answers:
    """The memo of query answers (``hits``, ``misses``, ``clear()``): for
    benchmarks that measure cold runs, and tests of what is reused."""
    return _ANSWERS


def _key(unknown_bounds, constraints, parameters, assumed, forall):
    """The query (with the encoding a test forces) as a hashable value; None
    if some part does not hash."""
    quantified = None if forall is None else (tuple(forall[0]), forall[1])
    key = (tuple(unknown_bounds), tuple(constraints), tuple(parameters), tuple(assumed),
           quantified, current_encoding())
    try:
        hash(key)
    except TypeError:
        return None
    return key


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
    parameters = set(parameters).union(*(m.parameters for m in maps))
    assumptions = [*checked_assumptions(assume, parameters),
                   *(a for m in maps for a in m.assumptions)]
    return ask(unknown_bounds, constraints, parameters=parameters, assumptions=assumptions,
               timeout_ms=timeout_ms, forall=forall)


def assumptions_met(maps: Sequence[IndexMap] = (), *, assume: Sequence[object] = (),
                    timeout_ms: int, parameters: Sequence[sympy.Symbol] = ()) -> solver.Outcome:
    """Can some sizes meet ``assume`` and the maps' assumptions? The query
    ``false`` under them: ``unsat`` when they can, ``unknown`` (its reason says
    why) when no size meets them or Z3 cannot tell. Checks decided without Z3
    (enumeration, arithmetic) ask it first: contradictory assumptions prove nothing."""
    return run([], [sympy.false], maps, assume=assume, timeout_ms=timeout_ms,
               parameters=parameters)


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
    params = sorted(set().union(*(m.parameters for m in maps)), key=str)  # a stable order
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
