"""Asking Z3: one query, one fresh context, a timeout, a fixed seed.

Int theory (bit-vectors were ~10^5 times slower on the grid queries), one
fresh ``z3.Solver`` per question; the queries of one check share a
``z3.Context`` (:func:`one_context`: making one costs 2–9 ms). A timeout or
an operator outside the vocabulary is ``unknown`` with its reason: never a
crash and never a pass. Bit operations are decided, not enumerated, in the
encoding :func:`choose_encoding` picks per query: ``"int"`` (only the touched
bits blasted, :mod:`.bits`: a swizzled offset may be unbounded) or
``"bitvector"`` (:mod:`.bitvector`; ``bench/bitvector.py`` measures both).
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import sympy
import z3

from layoutalg.core.expr import Unsupported
from layoutalg.errors import MapError, describe
from layoutalg.validate import is_int
from layoutalg.verify.encodings import (  # noqa: F401 - ENCODINGS, use_encoding re-exported
    ENCODINGS, choose_encoding, use_encoding)
from layoutalg.verify.z3_backend import checker_threads, vacuity
from layoutalg.verify.z3_backend.bitvector import BitVectorTranslator as _BitVectorTranslator
from layoutalg.verify.z3_backend.terms import Bounded
from layoutalg.verify.z3_backend.terms import Translator as _Translator

interruptible_check = checker_threads.interruptible_check  # by its old name (runner.claim_limit)

DEFAULT_TIMEOUT_MS = 20_000
SEED = 7
RACE_AFTER_S = 0.25
VACUITY_TIMEOUT_MS = 10_000


@dataclass(frozen=True)
class Outcome:
    """What Z3 said: ``"sat"`` with a model, ``"unsat"``, or ``"unknown"`` with a reason."""

    answer: str
    model: dict[sympy.Symbol, int] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0
    encoding: str = "int"


def solve(
    unknowns: Sequence[Bounded],
    constraints: Sequence[sympy.Basic],
    *,
    parameters: Sequence[sympy.Symbol] = (),
    assumptions: Sequence[sympy.Basic] = (),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    forall: tuple[Sequence[Bounded], sympy.Basic] | None = None,
) -> Outcome:
    """Is there an assignment meeting every constraint?

    ``parameters`` are positive integer extents, free unless ``assumptions``
    restrict them. ``forall=(bounded, body)`` adds "for every value of the
    bounded symbols in range, body holds" (quantified: prefer an inverse).
    The model maps every unknown and parameter to an int.
    """
    timeout_ms = checked_timeout(timeout_ms)
    start = time.perf_counter()
    query = (unknowns, constraints, parameters, assumptions, forall)
    encoding, width = choose_encoding(unknowns, constraints, parameters, forall)
    if encoding == "bitvector" and not width:
        return Outcome("unknown", seconds=_since(start), encoding=encoding, reason=(
            "the bit-vector encoding does not apply: it needs concrete sizes, no quantifier "
            "and values that interval bounds fit in 128 bits"))
    shared = _context()
    built = _build(*query, quotients=False, width=width, ctx=shared)
    if isinstance(built, Outcome):
        return built
    if encoding == "bitvector" or not built[1].constant_divisions:
        try:
            outcome = _check(built, query, timeout_ms, start)
        except BaseException:  # Ctrl-C: the check may still be winding down in its thread
            _drop_context(shared)
            raise
        return _unless_vacuous(outcome, built, query, timeout_ms)
    # Z3's own div/mod and quotient variables (num = den*q + r, linear) each
    # beat the other by 10x or more on some queries. Z3's own runs first;
    # if it has not answered after RACE_AFTER_S, both run, first answer wins.
    answers: queue.Queue = queue.Queue()
    builds = {"native": built}
    contexts = {"native": _start("native", built, query, timeout_ms, start, answers)}
    try:
        return _race(answers, builds, contexts, query, timeout_ms, start)
    except BaseException:  # Ctrl-C or the per-claim time limit: stop every check now
        for ctx in contexts.values():
            ctx.interrupt()
        _drop_context(shared)
        raise


def _race(answers, builds, contexts, query, timeout_ms, start) -> Outcome:
    """Wait for the native check; past RACE_AFTER_S, race quotient variables."""
    built = builds["native"]
    try:
        outcomes = [answers.get(timeout=RACE_AFTER_S)]
    except queue.Empty:
        outcomes = []
    if outcomes and outcomes[0][1].answer != "unknown":
        return _unless_vacuous(outcomes[0][1], built, query, timeout_ms)
    remaining = max(1, timeout_ms - int(_since(start) * 1000))
    _drop_context(built[1].ctx)  # the loser may still be checking in it when this returns
    builds["quotient variables"] = linear = _build(*query, quotients=True)
    contexts["quotient variables"] = _start("quotient variables", linear, query, remaining,
                                            start, answers)
    while len(outcomes) < len(contexts):
        outcomes.append(answers.get())
        label, outcome = outcomes[-1]
        if outcome.answer != "unknown":
            for other, ctx in contexts.items():
                if other != label:
                    ctx.interrupt()  # its answer is no longer needed
            return _unless_vacuous(outcome, builds[label], query, timeout_ms)
    reason = "; ".join(f"{label}: {outcome.reason}" for label, outcome in outcomes)
    return Outcome("unknown", reason=reason, seconds=_since(start))


def _unless_vacuous(outcome: Outcome, built, query, timeout_ms: int) -> Outcome:
    """``outcome``, or UNKNOWN when an unsat answer may be vacuous.

    Unsat over symbolic sizes proves the claim only for the sizes the
    encoding admits; its side conditions (:mod:`.vacuity`) must admit every
    size, or a naming bug that rules out large sizes "proves" the claim for
    small ones only. So they are checked at sizes meeting the assumptions;
    skipped with no parameters or no side conditions.
    """
    unknowns, _, parameters, assumptions, _ = query
    translator = built[1]
    if outcome.answer != "unsat" or not parameters or not translator.definitions:
        return outcome
    try:
        # Each check is a small ground query; it gets the caller's budget (at
        # least VACUITY_TIMEOUT_MS), so load alone does not turn PROVED to UNKNOWN.
        shown = vacuity.ruled_out_sizes(translator, parameters, assumptions, unknowns,
                                        max(timeout_ms, VACUITY_TIMEOUT_MS))
    except z3.Z3Exception as exc:
        shown = f"(the check failed: {exc})"
    if shown is None:
        return outcome
    return Outcome("unknown", seconds=outcome.seconds, reason=(
        f"the encoding does not admit the sizes {shown}, which meet the assumptions, "
        "so unsat may hold for small sizes only; nothing is proved"))


def _start(label, built, query, timeout_ms, start, answers) -> z3.Context:
    """Check ``built`` in a thread (Z3 releases the GIL), putting ``(label,
    Outcome)`` on ``answers``; an exception becomes an unknown naming it."""

    def run() -> None:
        try:
            outcome = _check(built, query, timeout_ms, start)
        except Exception as exc:  # never leave solve() waiting forever
            outcome = Outcome("unknown", reason=f"error: {exc!r}", seconds=_since(start))
        answers.put((label, outcome))

    checker_threads.run_soon(run)
    return built[1].ctx


_SHARED = threading.local()  # .ctx: the block's context (None: make one); .active


def _new_context() -> z3.Context:
    """A fresh context whose reference counts may drop on any thread: Python's
    cyclic GC may free a Z3 object of a check's context on another thread
    (the watchdog, the maker ahead). Without this such a race corrupted the
    context (``Z3_del_context`` never returned; the claim hung 300 s)."""
    ctx = z3.Context()
    z3.Z3_enable_concurrent_dec_ref(ctx.ref())
    return ctx


_FRESH = checker_threads.MadeAhead(_new_context)  # fresh contexts, made ahead of need


@contextlib.contextmanager
def one_context() -> Iterator[None]:
    """Within the block (one check: ``query.asks_once``) this thread's queries
    share one Z3 context, each with a solver of its own. Every block starts
    from a fresh context: a context's history changes Z3's search (a query
    of 0.3 s took 3.6 s in a context twenty checks had used)."""
    if getattr(_SHARED, "active", False):
        yield
        return
    _SHARED.active, _SHARED.ctx = True, None
    try:
        yield
    finally:
        _SHARED.active, _SHARED.ctx = False, None


def _context() -> z3.Context:
    """The block's shared context (see :func:`one_context`), else a fresh one.
    A context a check may still use after its query returned (a race's loser,
    a check Ctrl-C left winding down) is dropped: the next query makes one."""
    if not getattr(_SHARED, "active", False):
        return _FRESH.take()
    if getattr(_SHARED, "ctx", None) is None:
        _SHARED.ctx = _FRESH.take()
    return _SHARED.ctx


def _drop_context(ctx: z3.Context) -> None:
    if getattr(_SHARED, "ctx", None) is ctx:
        _SHARED.ctx = None


def _forget_contexts() -> None:
    global _SHARED
    _SHARED = threading.local()


os.register_at_fork(after_in_child=_forget_contexts)  # a forked child makes its own


def _build(unknowns, constraints, parameters, assumptions, forall, *, quotients: bool,
           width: int = 0, ctx: z3.Context | None = None):
    """A solver holding the query in ``ctx`` (None: a fresh one) and its
    translator (bit-vectors of ``width`` bits unless 0); or an unknown
    Outcome when the query uses an operator outside the vocabulary."""
    start = time.perf_counter()
    ctx = ctx or _FRESH.take()
    translator = _BitVectorTranslator(ctx, width) if width else _Translator(ctx, quotients=quotients)
    translator.note_ranges(unknowns)
    try:
        solver = z3.Solver(ctx=ctx)
        solver.set("random_seed", SEED)
        solver.add(translator.asserted(parameters, assumptions, unknowns, constraints))
        if forall is not None:
            solver.add(translator.universal(*forall))
        solver.add(translator.definitions)
        solver.add(translator.total_definitions)
    except Unsupported as exc:
        return Outcome("unknown", reason=f"unsupported: {exc}", seconds=_since(start),
                       encoding=translator.encoding)
    return solver, translator


def _check(built, query, timeout_ms: int, start: float) -> Outcome:
    """The one call of ``solver.check()``, its answer as an Outcome."""
    (solver, translator), (unknowns, _, parameters, _, _) = built, query
    solver.set("timeout", int(timeout_ms))
    # the watchdog interrupts a check that overruns Z3's own timeout (some of
    # its preprocessing does not poll it)
    ticket = checker_threads.arm(timeout_ms / 1000 * 2 + 5, translator.ctx.interrupt)
    try:
        answer = checker_threads.interruptible_check(solver, translator.ctx)
    finally:
        checker_threads.disarm(ticket)
    seconds, encoding = _since(start), translator.encoding
    if answer == z3.sat:
        model, symbols = solver.model(), [u.symbol for u in unknowns] + list(parameters)
        values = {s: translator.value(model, s) for s in symbols}
        return Outcome("sat", values, seconds=seconds, encoding=encoding)
    if answer == z3.unsat:
        return Outcome("unsat", seconds=seconds, encoding=encoding)
    return Outcome("unknown", reason=f"z3: {solver.reason_unknown()}", seconds=seconds,
                   encoding=encoding)


def maximize(
    objective: sympy.Expr,
    unknowns: Sequence[Bounded],
    constraints: Sequence[sympy.Basic],
    *,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> tuple[int, dict[sympy.Symbol, int]] | None:
    """The largest value of ``objective`` under the constraints (concrete sizes),
    with a point reaching it; None if Z3 cannot say within the timeout."""
    ctx = _FRESH.take()
    translator = _Translator(ctx)
    translator.note_ranges(unknowns)
    try:
        opt = z3.Optimize(ctx=ctx)
        opt.set("timeout", int(timeout_ms))
        opt.add(translator.asserted((), (), unknowns, constraints))
        opt.maximize(translator.term(objective))
        opt.add(translator.definitions)
        opt.add(translator.total_definitions)
    except Unsupported:
        return None
    if checker_threads.interruptible_check(opt, ctx) != z3.sat:
        return None
    model = opt.model()
    point = {u.symbol: translator.value(model, u.symbol) for u in unknowns}
    return model.eval(translator.term(objective), model_completion=True).as_long(), point


def checked_timeout(timeout_ms: object) -> int:
    """``timeout_ms`` as an int, or MapError unless it is a positive whole
    number of milliseconds (NumPy integers too; 0 would make Z3 give up)."""
    if not is_int(timeout_ms) or timeout_ms < 1:
        raise MapError(f"timeout_ms must be a positive whole number of milliseconds; "
                       f"got {describe(timeout_ms)}")
    return int(timeout_ms)


def _since(start: float) -> float:
    return time.perf_counter() - start
