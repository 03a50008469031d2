"""The one module that imports Z3.

It translates SymPy integer expressions and booleans into Z3 integer terms
(Int theory: bit-vectors were ~10^5 times slower on the grid queries), asks
one question per fresh ``z3.Context`` with a timeout and a fixed seed, and
reports ``unknown`` with Z3's reason. An operator outside the vocabulary
becomes ``unknown`` too: never a crash and never a pass.

Bit operations (:mod:`layoutalg.core.bits`) are decided, not enumerated,
in either of two encodings, chosen per query (:func:`choose_encoding`):

* ``"int"``, mixed: Int theory with only the touched bits blasted. ``a ^ b``
  with ``0 <= b < 2**K`` splits ``a = high·2**K + Σ bit_j·2**j`` (Boolean
  ``bit_j``, Int ``high``) and is ``high·2**K + Σ (bit_j ⊕ b_j)·2**j``, so
  ``a`` may be unbounded (a symbolic number of rows); masks, shifts by
  constants and their compositions read bits structurally;
* ``"bitvector"``: the whole query in two's-complement bit-vectors of a width
  that interval bounds prove no value of the query leaves (concrete sizes
  only; signed operations match Python's floor division and shifts).

``bench/bitvector.py`` measures both on the shipped swizzle claims.
"""

from __future__ import annotations

import contextlib
import contextvars
import queue
import random
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy
import z3

from layoutalg.core.bit_facts import MAX_SHIFT, log2_exact, trailing_zeros, upper_bound
from layoutalg.core.bits import BitAnd, BitOp, BitXor, ShiftLeft, ShiftRight, bounds_kernel
from layoutalg.core.bounds import Escapes
from layoutalg.core.expr import Unsupported, integer_terms, quotient
from layoutalg.errors import MapError, describe

DEFAULT_TIMEOUT_MS = 20_000
SEED = 7
RACE_AFTER_S = 0.25
VACUITY_DRAWS = 20
VACUITY_MAX_BITS = 20
VACUITY_TIMEOUT_MS = 10_000
ENCODINGS = ("auto", "int", "bitvector")
BV_WIDTHS = (16, 24, 32, 48, 64, 96, 128)
_ENCODING: contextvars.ContextVar[str] = contextvars.ContextVar("encoding", default="auto")


@dataclass(frozen=True)
class Bounded:
    """An integer unknown of a query with ``low <= symbol < high``."""

    symbol: sympy.Symbol
    low: object
    high: object


@dataclass(frozen=True)
class Outcome:
    """What Z3 said: ``"sat"`` with a model, ``"unsat"``, or ``"unknown"`` with a reason."""

    answer: str
    model: dict[sympy.Symbol, int] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0
    encoding: str = "int"


@contextlib.contextmanager
def use_encoding(name: str) -> Iterator[None]:
    """Within the block, queries use encoding ``name`` (``"auto"``, ``"int"`` or
    ``"bitvector"``; a forced ``"bitvector"`` that does not apply is unknown).
    For measurements and tests; checks leave the choice to ``"auto"``."""
    if name not in ENCODINGS:
        raise MapError(f"encoding must be one of {ENCODINGS}; got {describe(name)}")
    token = _ENCODING.set(name)
    try:
        yield
    finally:
        _ENCODING.reset(token)


def choose_encoding(unknowns, constraints, parameters, forall) -> tuple[str, int]:
    """The encoding of one query and, for bit-vectors, their width.

    ``"auto"`` takes bit-vectors when the query has a bit operation and
    concrete sizes (no parameters, no quantifier, constant ranges) and
    interval bounds fit every value in at most 64 bits; Int theory with the
    mixed bit-blasting otherwise. bench/bitvector.py: bit-vectors were
    faster on 27 of 34 concrete swizzle claims (0.32–0.97×), Int theory on
    queries without bit operations (1.5–2.9×), and only Int theory handles
    symbolic sizes. Without bit operations, Int theory as before.
    """
    wanted = _ENCODING.get()
    if wanted == "int":
        return "int", 0
    has_bits = any(isinstance(c, sympy.Basic) and c.atoms(BitOp) for c in constraints)
    if wanted == "auto" and not has_bits:
        return "int", 0
    width = _bitvector_width(unknowns, constraints, parameters, forall)
    if wanted == "auto" and (width is None or width > 64):
        return "int", 0
    return "bitvector", width or 0


def _bitvector_width(unknowns, constraints, parameters, forall) -> int | None:
    """The least width of ``BV_WIDTHS`` in which interval bounds prove every
    value of the query fits (one spare bit for floor division); None when the
    query has parameters, a quantifier or an unbounded value."""
    if parameters or forall is not None:
        return None
    ranges = {}
    for unknown in unknowns:
        low, high = sympy.sympify(unknown.low), sympy.sympify(unknown.high)
        if not (low.is_Integer and high.is_Integer):
            return None
        ranges[unknown.symbol] = (int(low), max(int(low), int(high) - 1))
    for width in BV_WIDTHS:
        limit = 2 ** (width - 2) - 1
        try:
            for constraint in constraints:
                bounds_kernel(constraint)(ranges, limit)
            for low, high in ranges.values():
                if max(abs(low), abs(high)) > limit:
                    raise Escapes
        except Escapes:
            continue
        except Unsupported:
            return None
        return width
    return None


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
    bounded symbols in range, body holds" (a quantified query; prefer an
    inverse, which keeps queries quantifier-free). The model maps every
    unknown and parameter to an int.
    """
    timeout_ms = checked_timeout(timeout_ms)
    start = time.perf_counter()
    query = (unknowns, constraints, parameters, assumptions, forall)
    encoding, width = choose_encoding(unknowns, constraints, parameters, forall)
    if encoding == "bitvector" and not width:
        return Outcome("unknown", seconds=_since(start), encoding=encoding, reason=(
            "the bit-vector encoding does not apply: it needs concrete sizes, no quantifier "
            "and values that interval bounds fit in 128 bits"))
    built = _build(*query, quotients=False, width=width)
    if isinstance(built, Outcome):
        return built
    solver, translator = built
    if encoding == "bitvector" or not translator.constant_divisions:
        outcome = _check(solver, translator, unknowns, parameters, timeout_ms, start)
        return _unless_vacuous(outcome, built, query, timeout_ms)
    # Z3's own div/mod and quotient variables (num = den*q + r, linear) each
    # beat the other by 10x or more on some queries. Z3's own runs first;
    # if it has not answered after RACE_AFTER_S, both run, first answer wins.
    answers: queue.Queue = queue.Queue()
    builds = {"native": built}
    contexts = {"native": _start("native", built, unknowns, parameters, timeout_ms, start,
                                 answers)}
    try:
        return _race(answers, builds, contexts, query, unknowns, parameters, timeout_ms, start)
    except BaseException:  # Ctrl-C or the per-claim time limit: stop every check now
        for ctx in contexts.values():
            ctx.interrupt()
        raise


def _race(answers, builds, contexts, query, unknowns, parameters, timeout_ms, start) -> Outcome:
    """Wait for the native check; past RACE_AFTER_S, race quotient variables."""
    built = builds["native"]
    try:
        outcomes = [answers.get(timeout=RACE_AFTER_S)]
    except queue.Empty:
        outcomes = []
    if outcomes and outcomes[0][1].answer != "unknown":
        return _unless_vacuous(outcomes[0][1], built, query, timeout_ms)
    remaining = max(1, timeout_ms - int(_since(start) * 1000))
    builds["quotient variables"] = linear = _build(*query, quotients=True)
    contexts["quotient variables"] = _start("quotient variables", linear, unknowns, parameters,
                                            remaining, start, answers)
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
    encoding admits. The translation adds side conditions (a named tile
    size ``extent#k = ⌈M/PR⌉``, quotient and remainder variables) that must
    hold for *every* size: a naming bug that equates two of them rules out
    large sizes, and the claim is then "proved" for small sizes only, with
    no counterexample anywhere to show it. So the side conditions alone are
    checked at ``VACUITY_DRAWS`` sizes that meet the assumptions, drawn up
    to ``2**VACUITY_MAX_BITS`` per parameter (fixed seed): each must admit
    them. Skipped when there is nothing to rule sizes out (no parameters or
    no side conditions).
    """
    unknowns, _, parameters, assumptions, _ = query
    if outcome.answer != "unsat" or not parameters:
        return outcome
    solver_, translator = built
    if not translator.definitions:
        return outcome
    try:
        # Each check is a small ground query; it gets the caller's budget (at
        # least VACUITY_TIMEOUT_MS), so load alone does not turn PROVED to UNKNOWN.
        budget = max(timeout_ms, VACUITY_TIMEOUT_MS)
        shown = _ruled_out_sizes(translator, parameters, assumptions, unknowns, budget)
    except z3.Z3Exception as exc:
        shown = f"(the check failed: {exc})"
    if shown is None:
        return outcome
    return Outcome("unknown", seconds=outcome.seconds, reason=(
        f"the encoding does not admit the sizes {shown}, which meet the assumptions, "
        "so unsat may hold for small sizes only; nothing is proved"))


def _ruled_out_sizes(translator, parameters, assumptions, unknowns,
                     timeout_ms: int) -> str | None:
    """Sizes meeting the assumptions that the query's side conditions do not
    admit (or cannot be shown to), as text; None when every draw is admitted."""
    ctx = translator.ctx
    # Sizes meeting the assumptions come from a plain translation (Z3's own
    # div/mod, no named terms): the query's own translation of them may lean
    # on the very side conditions under test.
    plain = _Translator(ctx, plain=True)
    meets = z3.Solver(ctx=ctx)
    admits = z3.Solver(ctx=ctx)  # the query's encoding: assumptions and side conditions
    for s, t in ((meets, plain), (admits, translator)):
        s.set("timeout", timeout_ms)
        s.add([t.term(p) >= 1 for p in parameters])
        s.add([t.boolean(a) for a in assumptions])
    for unknown in unknowns:
        var = translator.term(unknown.symbol)
        admits.add(var >= translator.term(sympy.sympify(unknown.low)))
        admits.add(var < translator.term(sympy.sympify(unknown.high)))
    admits.add(translator.definitions)
    drawn = [plain.term(p) for p in parameters]
    sizes = [translator.term(p) for p in parameters]
    draws = random.Random(SEED)
    for k in range(VACUITY_DRAWS):
        floors = [1 if k == 0 else int(2 ** draws.uniform(0, VACUITY_MAX_BITS)) for _ in sizes]
        meets.push()
        meets.add([size >= low for size, low in zip(drawn, floors)])
        found = interruptible_check(meets, ctx) == z3.sat
        values = [meets.model().eval(size, model_completion=True).as_long()
                  for size in drawn] if found else []
        meets.pop()
        if not found:
            continue  # the assumptions bound the sizes below these floors
        admits.push()
        admits.add([size == value for size, value in zip(sizes, values)])
        answer = interruptible_check(admits, ctx)
        admits.pop()
        if answer != z3.sat:
            return ", ".join(f"{p}={v}" for p, v in zip(parameters, values))
    return None


def _start(label, built, unknowns, parameters, timeout_ms, start, answers) -> z3.Context:
    """Check ``built`` in a thread (Z3 releases the GIL), putting ``(label,
    Outcome)`` on ``answers``; an exception becomes an unknown naming it."""
    solver, translator = built

    def run() -> None:
        try:
            outcome = _check(solver, translator, unknowns, parameters, timeout_ms, start)
        except Exception as exc:  # never leave solve() waiting forever
            outcome = Outcome("unknown", reason=f"error: {exc!r}", seconds=_since(start))
        answers.put((label, outcome))

    threading.Thread(target=run, name=f"z3 {label}", daemon=True).start()
    return translator.ctx


def _build(unknowns, constraints, parameters, assumptions, forall, *, quotients: bool,
           width: int = 0):
    """A solver holding the query, and its translator (bit-vectors of ``width``
    bits when it is not 0); or an unknown Outcome when the query uses an
    operator outside the vocabulary."""
    start = time.perf_counter()
    ctx = z3.Context()
    if width:
        translator = _BitVectorTranslator(ctx, width)
    else:
        translator = _Translator(ctx, quotients=quotients)
    translator.note_ranges(unknowns)
    try:
        solver = z3.Solver(ctx=ctx)
        solver.set("random_seed", SEED)
        for parameter in parameters:
            solver.add(translator.term(parameter) >= 1)
        for assumption in assumptions:
            solver.add(translator.boolean(assumption))
        for unknown in unknowns:
            var = translator.term(unknown.symbol)
            solver.add(var >= translator.term(sympy.sympify(unknown.low)))
            solver.add(var < translator.term(sympy.sympify(unknown.high)))
        for constraint in constraints:
            solver.add(translator.boolean(constraint))
        if forall is not None:
            solver.add(translator.universal(*forall))
        solver.add(translator.definitions)
        solver.add(translator.total_definitions)
    except Unsupported as exc:
        return Outcome("unknown", reason=f"unsupported: {exc}", seconds=_since(start),
                       encoding=translator.encoding)
    return solver, translator


def _check(solver, translator, unknowns, parameters, timeout_ms: int, start: float) -> Outcome:
    """The one call of ``solver.check()``, its answer as an Outcome."""
    solver.set("timeout", int(timeout_ms))
    answer = _check_with_deadline(solver, translator.ctx, timeout_ms)
    seconds = _since(start)
    encoding = translator.encoding
    if answer == z3.sat:
        model = solver.model()
        values = {}
        for symbol in [u.symbol for u in unknowns] + list(parameters):
            values[symbol] = translator.value(model, symbol)
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
    ctx = z3.Context()
    translator = _Translator(ctx)
    translator.note_ranges(unknowns)
    try:
        opt = z3.Optimize(ctx=ctx)
        opt.set("timeout", int(timeout_ms))
        for unknown in unknowns:
            var = translator.term(unknown.symbol)
            opt.add(var >= translator.term(sympy.sympify(unknown.low)))
            opt.add(var < translator.term(sympy.sympify(unknown.high)))
        for constraint in constraints:
            opt.add(translator.boolean(constraint))
        opt.maximize(translator.term(objective))
        opt.add(translator.definitions)
        opt.add(translator.total_definitions)
    except Unsupported:
        return None
    if interruptible_check(opt, ctx) != z3.sat:
        return None
    model = opt.model()
    value = model.eval(translator.term(objective), model_completion=True)
    point = {
        u.symbol: model.eval(translator.term(u.symbol), model_completion=True).as_long()
        for u in unknowns
    }
    return value.as_long(), point


def _check_with_deadline(solver, ctx: z3.Context, timeout_ms: int):
    """``solver.check()``, interrupted from another thread if Z3 overruns its own
    timeout (some of its preprocessing does not poll it)."""
    guard = threading.Timer(timeout_ms / 1000 * 2 + 5, ctx.interrupt)
    guard.daemon = True
    guard.start()
    try:
        return interruptible_check(solver, ctx)
    finally:
        guard.cancel()


def checked_timeout(timeout_ms: object) -> int:
    """``timeout_ms`` as an int, or MapError: a positive whole number of
    milliseconds (NumPy integers too); a negative or zero one would make Z3
    give up at once, and a string is a mistake."""
    if isinstance(timeout_ms, (bool, np.bool_)) or not isinstance(timeout_ms, (int, np.integer)) \
            or timeout_ms < 1:
        raise MapError(f"timeout_ms must be a positive whole number of milliseconds; "
                       f"got {describe(timeout_ms)}")
    return int(timeout_ms)


def interruptible_check(solver, ctx: z3.Context):
    """``solver.check()`` that Ctrl-C stops at once.

    Left to itself, Z3 catches SIGINT during a check and answers "unknown
    (canceled)", so the run went on with the next query and Ctrl-C was lost.
    Here Z3 leaves SIGINT alone (``ctrl_c`` off) and the check runs in a
    thread (Z3 releases the GIL) while the calling thread waits; in the main
    thread that wait raises KeyboardInterrupt, which interrupts the check
    and goes on up to the CLI (exit 130).
    """
    solver.set("ctrl_c", False)
    if threading.current_thread() is not threading.main_thread():
        return solver.check()  # only the main thread receives SIGINT
    answer: queue.Queue = queue.Queue()

    def run() -> None:
        try:
            answer.put(solver.check())
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            answer.put(exc)

    threading.Thread(target=run, name="z3 check", daemon=True).start()
    try:
        result = answer.get()
    except BaseException:  # Ctrl-C, or the per-claim time limit's alarm
        ctx.interrupt()
        raise
    if isinstance(result, BaseException):
        raise result
    return result


def _derived_extent(expr: sympy.Basic) -> bool:
    """A floor/ceiling/Mod over extent parameters only (no coordinates)."""
    if not isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Mod)):
        return False
    symbols = expr.free_symbols
    return bool(symbols) and all(s.is_positive for s in symbols)


def _since(start: float) -> float:
    return time.perf_counter() - start


_RELATIONS = {
    sympy.Eq: lambda a, b: a == b,
    sympy.Ne: lambda a, b: a != b,
    sympy.Lt: lambda a, b: a < b,
    sympy.Le: lambda a, b: a <= b,
    sympy.Gt: lambda a, b: a > b,
    sympy.Ge: lambda a, b: a >= b,
}


class _Translator:
    """SymPy → Z3 in one context, memoized per node."""

    encoding = "int"

    def __init__(self, ctx: z3.Context, *, quotients: bool = False, plain: bool = False) -> None:
        self.ctx = ctx
        self.quotients = quotients
        self.plain = plain  # no named terms: Z3's own div/mod and nothing else
        self.constant_divisions = 0
        self.made = 0
        self.memo: dict[sympy.Basic, z3.ExprRef] = {}
        self.names: dict[sympy.Symbol, z3.ArithRef] = {}
        self.definitions: list[z3.BoolRef] = []
        self.divisions: dict[tuple[sympy.Expr, sympy.Expr], tuple[z3.ArithRef, z3.ArithRef]] = {}
        self.bound: frozenset[sympy.Symbol] = frozenset()
        self.ranges: dict[sympy.Symbol, int] = {}  # symbol -> upper bound (lower bound 0)
        self.splits: dict[sympy.Expr, tuple[int, z3.ArithRef, list]] = {}
        self.split_memo: dict[tuple[sympy.Basic, int], tuple[z3.ArithRef, list]] = {}
        self.total_definitions: list[z3.BoolRef] = []  # bit splits: satisfiable for any value

    def note_ranges(self, bounded: Sequence[Bounded]) -> None:
        """Remember constant ranges ``0 <= symbol < high``: bit operations use them."""
        for unknown in bounded:
            low, high = sympy.sympify(unknown.low), sympy.sympify(unknown.high)
            if low.is_Integer and high.is_Integer and low >= 0:
                self.ranges[unknown.symbol] = max(int(high) - 1, 0)

    def value(self, model, symbol: sympy.Symbol) -> int:
        return model.eval(self.term(symbol), model_completion=True).as_long()

    def term(self, expr: sympy.Basic) -> z3.ArithRef:
        if expr not in self.memo:
            named = _derived_extent(expr) and not self.plain
            self.memo[expr] = self._named(expr) if named else self._term(expr)
        return self.memo[expr]

    def fresh(self, prefix: str) -> z3.ArithRef:
        """A new Z3 integer no other term of this query shares. The counter is
        taken when the variable is made, after its definition's subterms are
        translated (they may make variables of their own). "#" never occurs
        in a dimension name, so these cannot alias a coordinate."""
        self.made += 1
        return z3.Int(f"{prefix}#{self.made}", self.ctx)

    def _named(self, expr: sympy.Basic) -> z3.ArithRef:
        # A quotient of extents (a tile size such as ceil(M/PR)) becomes a
        # variable of its own with a defining equation: Z3's nonlinear
        # reasoning handles TR*q far better than ((M+PR-1)/PR)*q. The value is
        # translated before the name is taken: ceil(ceil(M/8)/3) names its
        # inner ceiling first, and the two must not share a name.
        value = self._term(expr)
        var = self.fresh("extent")
        self.definitions.append(var == value)
        return var

    def boolean(self, expr: sympy.Basic) -> z3.BoolRef:
        if expr not in self.memo:
            self.memo[expr] = self._boolean(expr)
        return self.memo[expr]

    def universal(self, bounded: Sequence[Bounded], body: sympy.Basic) -> z3.BoolRef:
        variables = [self.term(b.symbol) for b in bounded]
        self.note_ranges(bounded)
        ranges = [
            z3.And(v >= self.term(sympy.sympify(b.low)), v < self.term(sympy.sympify(b.high)))
            for v, b in zip(variables, bounded)
        ]
        # Divisions over bound variables stay inside the quantifier (no
        # top-level quotient variables for them).
        self.bound = frozenset(b.symbol for b in bounded)
        try:
            inner = self.boolean(body)
        finally:
            self.bound = frozenset()
        return z3.ForAll(variables, z3.Implies(z3.And(ranges), inner))

    def _divided(self, num: sympy.Expr, den: sympy.Expr) -> tuple[z3.ArithRef, z3.ArithRef] | None:
        """Quotient and remainder variables of ``num`` by a constant ``den``
        when translating ``quotients=True``; else None (Z3's own div/mod).
        Symbolic ``den`` and ``num`` over quantified variables stay Z3's.

        With ``num = den·q + r, 0 <= r < den`` the query stays linear and a
        floor and a mod of one numerator share ``q`` and ``r``: Z3's own
        div/mod needs 70x the work (rlimit) of this to prove
        ``(8,4,1,5):(12,1,192,192)`` split by 209 injective; but an XOR
        swizzle composed with itself goes the other way (3x), so ``solve``
        races both.
        """
        if not den.is_Integer or num.free_symbols & self.bound:
            return None
        self.constant_divisions += 1
        if not self.quotients:
            return None
        key = (num, den)
        if key not in self.divisions:
            # Translate first: nested divisions register theirs before these.
            top, bottom = self.term(num), self.term(den)
            q, r = self.fresh("quot"), self.fresh("rem")
            self.definitions += [top == bottom * q + r, r >= 0, r < bottom]
            self.divisions[key] = (q, r)
        return self.divisions[key]

    def _var(self, symbol: sympy.Symbol) -> z3.ArithRef:
        if symbol not in self.names:
            self.names[symbol] = z3.Int(f"{symbol.name}!{len(self.names)}", self.ctx)
        return self.names[symbol]

    def _term(self, expr: sympy.Basic) -> z3.ArithRef:  # noqa: C901 - one branch per operator
        if isinstance(expr, sympy.Symbol):
            if not expr.is_integer:
                raise Unsupported(f"symbol {expr} is not declared integer")
            return self._var(expr)
        if isinstance(expr, sympy.Integer):
            return z3.IntVal(int(expr), self.ctx)
        if isinstance(expr, sympy.Add):
            return z3.Sum([self.term(a) for a in expr.args])
        if isinstance(expr, sympy.Mul):
            return z3.Product([self.term(a) for a in integer_terms(expr)])
        if isinstance(expr, sympy.Pow):
            base, exponent = expr.args
            if not (exponent.is_Integer and exponent >= 0):
                raise Unsupported(f"power {expr} with a non-natural exponent")
            if int(exponent) == 0:
                return z3.IntVal(1, self.ctx)
            return z3.Product([self.term(base)] * int(exponent))
        if isinstance(expr, (sympy.floor, sympy.Mod)) and expr.has(BitOp):
            # ``// 2**k`` and ``mod 2**k`` of bit operations read their bits.
            split = self._structural_split(expr, 0)
            if split is not None:
                return split[0]
        if isinstance(expr, sympy.floor):
            num, den = quotient(expr.args[0])
            divided = self._divided(num, den)
            if divided is not None:
                return divided[0]
            # Z3's integer division is Euclidean: floor division for den > 0.
            return self.term(num) / self.term(den)
        if isinstance(expr, sympy.ceiling):
            num, den = quotient(expr.args[0])
            # (num + den - 1) / den, not -(-num / den): Z3 proves far more with it.
            divided = self._divided(num + den - 1, den)
            if divided is not None:
                return divided[0]
            bottom = self.term(den)
            return (self.term(num) + bottom - 1) / bottom
        if isinstance(expr, sympy.Mod):
            left, right = expr.args
            if not (right.is_integer and right.is_positive):
                raise Unsupported(f"modulo by {right}, which is not known to be positive")
            divided = self._divided(left, right)
            if divided is not None:
                return divided[1]
            return self.term(left) % self.term(right)
        if isinstance(expr, BitOp):
            return self._bit_term(expr)
        if isinstance(expr, (sympy.Min, sympy.Max)):
            args = [self.term(a) for a in expr.args]
            result = args[0]
            for other in args[1:]:
                if isinstance(expr, sympy.Min):
                    result = z3.If(other < result, other, result)
                else:
                    result = z3.If(other > result, other, result)
            return result
        if isinstance(expr, sympy.Piecewise):
            result = None
            for value, cond in reversed(expr.args):
                if result is None:
                    if cond is not sympy.true:
                        # Outside every branch the value is undefined: refuse.
                        raise Unsupported(f"Piecewise without a final True branch: {expr}")
                    result = self.term(value)
                else:
                    result = z3.If(self.boolean(cond), self.term(value), result)
            return result
        raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index vocabulary")

    # -- bit operations: Int theory, blasting only the bits they touch ----------------

    def _upper(self, expr: sympy.Basic) -> int | None:
        """``u`` with ``0 <= expr <= u`` (see :func:`layoutalg.core.bit_facts.upper_bound`)."""
        return upper_bound(expr, self.ranges)

    def _from_bits(self, bits: list) -> z3.ArithRef:
        if not bits:
            return z3.IntVal(0, self.ctx)
        return z3.Sum([z3.If(b, z3.IntVal(1 << j, self.ctx), z3.IntVal(0, self.ctx))
                       for j, b in enumerate(bits)])

    def _false(self, count: int) -> list:
        return [z3.BoolVal(False, self.ctx)] * max(count, 0)

    def _bits(self, expr: sympy.Basic, width: int) -> list:
        """The low ``width`` bits of ``expr`` (bit 0 first)."""
        return self._split(expr, width)[1]

    def _split(self, expr: sympy.Basic, width: int) -> tuple[z3.ArithRef, list]:
        """``expr = high·2**width + Σ bit_j·2**j``: ``(high, [bit_0 …])``.

        Read through the structure where it shows the bits (constants, masks,
        shifts, XOR, ``//`` and ``mod`` by powers of two, sums of disjoint bit
        fields such as ``row·128 + col·16``); otherwise the bits are fresh
        Booleans defined once per term (see :meth:`_fresh_split`)."""
        key = (expr, width)
        if key not in self.split_memo:
            self.split_memo[key] = self._structural_split(expr, width) or \
                self._fresh_split(expr, width)
        return self.split_memo[key]

    def _shifted(self, inner: sympy.Basic, shift: int, width: int):
        """The split of ``inner·2**shift`` at ``width``."""
        if width >= shift:
            high, bits = self._split(inner, width - shift)
            return high, self._false(shift) + bits
        return self.term(inner) * (1 << (shift - width)), self._false(width)

    def _structural_split(self, expr: sympy.Basic, width: int):  # noqa: C901 - one per operator
        if isinstance(expr, sympy.Integer) and expr >= 0:
            value = int(expr)
            return (z3.IntVal(value >> width, self.ctx),
                    [z3.BoolVal(bool(value >> j & 1), self.ctx) for j in range(width)])
        a, b = expr.args if isinstance(expr, BitOp) else (None, None)
        if isinstance(expr, ShiftRight) and b.is_Integer:
            high, bits = self._split(a, width + int(b))
            return high, bits[int(b):]
        if isinstance(expr, ShiftLeft) and b.is_Integer:
            return self._shifted(a, int(b), width)
        if isinstance(expr, BitAnd) and (a.is_Integer or b.is_Integer):
            mask, value = (int(a), b) if a.is_Integer else (int(b), a)
            top = mask.bit_length()
            _, bits = self._split(value, max(width, top))
            kept = [bits[j] if mask >> j & 1 else z3.BoolVal(False, self.ctx)
                    for j in range(max(width, top))]
            return self._from_bits(kept[width:]), kept[:width]
        if isinstance(expr, BitXor):
            return self._xor_split(a, b, width)
        if isinstance(expr, sympy.floor):
            num, den = quotient(expr.args[0])
            k = log2_exact(den)
            if k is not None:
                high, bits = self._split(num, width + k)
                return high, bits[k:]
        if isinstance(expr, sympy.Mod) and log2_exact(expr.args[1]) is not None:
            k = log2_exact(expr.args[1])
            _, bits = self._split(expr.args[0], max(k, width))
            kept = bits[:k] + self._false(width - k)
            return self._from_bits(kept[width:]), kept[:width]
        if isinstance(expr, sympy.Mul) and len(expr.args) == 2 and expr.args[0].is_Integer:
            k = log2_exact(expr.args[0])
            if k is not None:
                return self._shifted(expr.args[1], k, width)
            if expr.args[0] > 0 and self._upper(expr.args[1]) == 1:
                # c·b for a bit b (a linear layout's basis value): c's bits where b is set
                (bit,) = self._bits(expr.args[1], 1)
                c = int(expr.args[0])
                bits = [z3.And(bit, z3.BoolVal(bool(c >> j & 1), self.ctx)) for j in range(width)]
                return z3.If(bit, z3.IntVal(c >> width, self.ctx), z3.IntVal(0, self.ctx)), bits
        if isinstance(expr, sympy.Add):
            return self._fields_split(expr, width)
        return None

    def _xor_split(self, a, b, width: int):
        """``a ^ b`` with one side below ``2**w``: the other side's high part, XORed bits."""
        sides = [(self._upper(x), k) for k, x in enumerate((a, b))]
        known = [(u.bit_length(), k) for u, k in sides if u is not None]
        if not known:
            return None
        small_width, small = min(known)
        both = max(small_width, width)
        small_bits = self._bits((a, b)[small], both)
        high, big_bits = self._split((a, b)[1 - small], both)
        mixed = [z3.Xor(x, y) for x, y in zip(big_bits, small_bits)]
        return high * (1 << (both - width)) + self._from_bits(mixed[width:]), mixed[:width]

    def _fields_split(self, expr: sympy.Add, width: int):
        """A sum whose terms occupy disjoint bit fields (no carries): bits are ORs.

        At most one term may be unbounded, and its known trailing zero bits
        must lie above every bounded term's top bit."""
        bounded, free = [], []
        for term in expr.args:
            top = self._upper(term)
            (free if top is None else bounded).append((term, top))
        if len(free) > 1 or any(term.is_Integer and term < 0 for term, _ in bounded):
            return None
        fields = sorted((trailing_zeros(t), top.bit_length()) for t, top in bounded)
        if any(low >= high for low, high in fields):
            fields = [(low, high) for low, high in fields if low < high]  # zero terms
        for (_, high), (low, _) in zip(fields, fields[1:]):
            if low < high:
                return None
        if free and fields and trailing_zeros(free[0][0]) < fields[-1][1]:
            return None
        highs, columns = [], []
        for term, _ in bounded + free:
            high, bits = self._split(term, width)
            highs.append(high)
            columns.append(bits)
        bits = [z3.Or([column[j] for column in columns]) for j in range(width)]
        return z3.Sum(highs), bits

    def _fresh_split(self, expr: sympy.Basic, width: int):
        """Fresh Booleans ``bit_j`` and an Int ``high`` with ``expr = high·2**width +
        Σ bit_j·2**j`` (one definition per term; a wider split serves a narrower
        one). Over quantified variables, or in a plain translation, terms
        ``(expr div 2**j) mod 2`` instead."""
        value = self.term(expr)
        if self.plain or expr.free_symbols & self.bound:
            bits = [(value / (1 << j)) % 2 == 1 for j in range(width)]
            return value / (1 << width), bits
        known = self.splits.get(expr)
        if known is None or known[0] < width:
            self.made += 1
            bits = [z3.Bool(f"bit{j}#{self.made}", self.ctx) for j in range(width)]
            upper = self._upper(expr)
            if upper is not None and upper < (1 << width):
                high = z3.IntVal(0, self.ctx)  # no bits above: fewer unknowns
            else:
                high = self.fresh("high")
            # Total: every integer value has exactly one such high part and bits,
            # so this can never rule sizes out, and the vacuity check (which
            # guards definitions that could) leaves it aside.
            self.total_definitions.append(value == high * (1 << width) + self._from_bits(bits))
            known = self.splits[expr] = (width, high, bits)
        have, high, bits = known
        if have > width:
            high = high * (1 << (have - width)) + self._from_bits(bits[width:])
        return high, bits[:width]

    def _power_of_two(self, k: sympy.Expr) -> z3.ArithRef:
        if k.is_Integer:
            return z3.IntVal(1 << int(k), self.ctx)
        top = self._upper(k)
        if top is None or top > MAX_SHIFT:
            raise Unsupported(f"shift by {k}, which is not known to be at most {MAX_SHIFT}")
        amount, result = self.term(k), z3.IntVal(1 << top, self.ctx)
        for j in reversed(range(top)):
            result = z3.If(amount == j, z3.IntVal(1 << j, self.ctx), result)
        return result

    def _bit_term(self, expr: BitOp) -> z3.ArithRef:
        a, b = expr.args
        if isinstance(expr, ShiftRight):
            # Z3's integer division is Euclidean: floor division for 2**k > 0.
            return self.term(a) / self._power_of_two(b)
        if isinstance(expr, ShiftLeft):
            return self.term(a) * self._power_of_two(b)
        upper = self._upper(expr)
        if upper is not None:
            return self._from_bits(self._bits(expr, upper.bit_length()))
        if isinstance(expr, BitAnd):
            raise Unsupported(f"{expr}: neither side of & has a known bound")
        split = self._xor_split(a, b, 0)
        if split is None:
            raise Unsupported(f"{expr}: neither side of ^ has a known bound")
        return split[0]

    def _relation(self, expr: sympy.Rel) -> z3.BoolRef:
        """``lhs op rhs``. SymPy may have divided an integer relation through
        (``9*d > 2`` held as ``d > 2/9``): when ``lhs − rhs`` is an integer
        term plus a fraction ``p/q``, it is decided as ``q·term + p op 0``,
        the same relation over the integers. Any other fraction (a
        non-integer image such as ``i/2``) stays outside the vocabulary."""
        compare = _RELATIONS[type(expr)]
        try:
            return compare(self.term(expr.lhs), self.term(expr.rhs))
        except Unsupported:
            fraction, rest = (expr.lhs - expr.rhs).as_coeff_Add()
            if not (fraction.is_Rational and not fraction.is_Integer):
                raise
            p, q = fraction.p, fraction.q
            return compare(q * self.term(rest) + p, z3.IntVal(0, self.ctx))

    def _boolean(self, expr: sympy.Basic) -> z3.BoolRef:
        if expr is sympy.true:
            return z3.BoolVal(True, self.ctx)
        if expr is sympy.false:
            return z3.BoolVal(False, self.ctx)
        if type(expr) in _RELATIONS:
            return self._relation(expr)
        if isinstance(expr, sympy.And):
            return z3.And([self.boolean(a) for a in expr.args])
        if isinstance(expr, sympy.Or):
            return z3.Or([self.boolean(a) for a in expr.args])
        if isinstance(expr, sympy.Not):
            return z3.Not(self.boolean(expr.args[0]))
        if isinstance(expr, sympy.Implies):
            return z3.Implies(self.boolean(expr.args[0]), self.boolean(expr.args[1]))
        if isinstance(expr, sympy.ITE):
            condition, then, otherwise = (self.boolean(a) for a in expr.args)
            return z3.If(condition, then, otherwise)
        if isinstance(expr, sympy.Xor):
            result, *rest = (self.boolean(a) for a in expr.args)
            for other in rest:
                result = z3.Xor(result, other)
            return result
        if isinstance(expr, sympy.Equivalent):
            first, *rest = (self.boolean(a) for a in expr.args)
            return z3.And([first == other for other in rest])
        raise Unsupported(f"condition {type(expr).__name__} in {expr} is outside the vocabulary")



class _BitVectorTranslator(_Translator):
    """SymPy → two's-complement bit-vectors of ``width`` bits. Used only when
    interval bounds prove every value of the query fits (see
    :func:`choose_encoding`), so no operation wraps; signed division and
    shifts round down as Python's ``//`` and ``>>`` do."""

    encoding = "bitvector"

    def __init__(self, ctx: z3.Context, width: int) -> None:
        super().__init__(ctx)
        self.width = width

    def value(self, model, symbol: sympy.Symbol) -> int:
        return model.eval(self.term(symbol), model_completion=True).as_signed_long()

    def _number(self, value: int):
        return z3.BitVecVal(value, self.width, self.ctx)

    def _var(self, symbol: sympy.Symbol):
        if symbol not in self.names:
            self.names[symbol] = z3.BitVec(f"{symbol.name}!{len(self.names)}", self.width,
                                           self.ctx)
        return self.names[symbol]

    def _floor_div(self, num, den):
        # bvsmod takes the divisor's sign: for den > 0, num - num mod den is an
        # exact multiple of den, so the signed (truncating) division is exact.
        return (num - num % den) / den

    def term(self, expr: sympy.Basic):
        if expr not in self.memo:
            self.memo[expr] = self._term(expr)
        return self.memo[expr]

    def _term(self, expr: sympy.Basic):  # noqa: C901 - one branch per operator
        if isinstance(expr, sympy.Symbol):
            if not expr.is_integer:
                raise Unsupported(f"symbol {expr} is not declared integer")
            return self._var(expr)
        if isinstance(expr, sympy.Integer):
            return self._number(int(expr))
        if isinstance(expr, sympy.Add):
            return z3.Sum([self.term(a) for a in expr.args])
        if isinstance(expr, sympy.Mul):
            return z3.Product([self.term(a) for a in integer_terms(expr)])
        if isinstance(expr, sympy.Pow):
            base, exponent = expr.args
            if not (exponent.is_Integer and exponent >= 0):
                raise Unsupported(f"power {expr} with a non-natural exponent")
            if int(exponent) == 0:
                return self._number(1)
            return z3.Product([self.term(base)] * int(exponent))
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            num, den = quotient(expr.args[0])
            if isinstance(expr, sympy.ceiling):
                num = num + den - 1
            return self._floor_div(self.term(num), self.term(den))
        if isinstance(expr, sympy.Mod):
            left, right = expr.args
            if not (right.is_integer and right.is_positive):
                raise Unsupported(f"modulo by {right}, which is not known to be positive")
            return self.term(left) % self.term(right)
        if isinstance(expr, BitOp):
            a, b = (self.term(x) for x in expr.args)
            if isinstance(expr, BitXor):
                return a ^ b
            if isinstance(expr, BitAnd):
                return a & b
            return a >> b if isinstance(expr, ShiftRight) else a << b  # >> is arithmetic
        if isinstance(expr, (sympy.Min, sympy.Max, sympy.Piecewise)):
            return super()._term(expr)
        raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index "
                          "vocabulary")

    def _relation(self, expr: sympy.Rel) -> z3.BoolRef:
        return _RELATIONS[type(expr)](self.term(expr.lhs), self.term(expr.rhs))
