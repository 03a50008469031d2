"""The vacuity guard's question: do the query's side conditions admit every size?

The side conditions of a query over symbolic sizes (a named tile size
``extent#k = ⌈M/PR⌉``, quotient and remainder variables) must hold for
*every* size; :func:`ruled_out_sizes` checks them at ``DRAWS`` sizes meeting
the assumptions, up to ``2**MAX_BITS`` per parameter (fixed seed), and
``solver._unless_vacuous`` makes an unsat answer UNKNOWN when one is not
admitted (docs/verification.md, "What PROVED means").
"""

from __future__ import annotations

import random

import sympy
import z3

from layoutalg.verify import plugged
from layoutalg.verify.z3_backend import checker_threads
from layoutalg.verify.z3_backend.terms import Translator as _Translator

SEED = 7  # the draws' (the solver's random_seed is the same number)
DRAWS = 20
MAX_BITS = 20


def ruled_out_sizes(translator, parameters, assumptions, unknowns,
                     timeout_ms: int) -> str | None:
    """Sizes meeting the assumptions that the query's side conditions do not
    admit (or cannot be shown to), as text; None when every draw is admitted.

    Remembered per process by the question (the side conditions' Z3 text,
    the parameters and assumptions, the draws' settings, the timeout), but
    only when every check was sat or unsat, never when an unknown had a part."""
    # the query's encoding: assumptions and side conditions
    encoding = translator.asserted(parameters, assumptions, unknowns, ()) + translator.definitions
    sizes = [translator.term(p) for p in parameters]
    key = (DRAWS, MAX_BITS, SEED, timeout_ms, tuple(parameters), tuple(assumptions),
           tuple(map(str, sizes)), z3.And(encoding).sexpr())
    if key in MEMO:
        return MEMO[key]
    definite = [True]  # False once a check answers unknown
    draws = _draws(translator.ctx, parameters, tuple(assumptions), timeout_ms, definite)
    shown = _first_not_admitted(translator, encoding, sizes, unknowns, timeout_ms, draws,
                                parameters, definite)
    if definite[0] and MEMO_SIZE:
        if len(MEMO) >= MEMO_SIZE:
            del MEMO[next(iter(MEMO))]  # the oldest
        MEMO[key] = shown
    return shown


MEMO: dict[tuple, str | None] = {}  # per process; see ruled_out_sizes
MEMO_SIZE = 4096  # 0: remember nothing


def _draws(ctx, parameters, assumed, timeout_ms: int, definite: list):
    """``DRAWS`` floors per parameter (fixed seed; the first all 1), each with sizes
    at least that large meeting ``assumed``: the floors if they do (plugged in exactly),
    else sizes Z3 finds; floors the assumptions bound the sizes below are left out."""
    rng = random.Random(SEED)
    meets = None
    for k in range(DRAWS):
        floors = [1 if k == 0 else int(2 ** rng.uniform(0, MAX_BITS)) for _ in parameters]
        if not assumed or plugged.holds(assumed, dict(zip(parameters, floors))):
            yield floors  # they meet the assumptions (shown exactly): no Z3 check needed
            continue
        if meets is None:  # sizes meeting the assumptions, translated plainly (no named
            # terms): the query's translation may lean on the side conditions under test
            plain = _Translator(ctx, plain=True)
            meets, drawn = z3.Solver(ctx=ctx), [plain.term(p) for p in parameters]
            meets.set("timeout", timeout_ms)
            meets.add([size >= 1 for size in drawn])
            meets.add([plain.boolean(a) for a in assumed])
        meets.push()
        meets.add([size >= low for size, low in zip(drawn, floors)])
        answer = checker_threads.interruptible_check(meets, meets.ctx)
        definite[0] &= answer != z3.unknown
        values = [meets.model().eval(size, model_completion=True).as_long()
                  for size in drawn] if answer == z3.sat else None
        meets.pop()
        if values is not None:
            yield values


def closed_encoding(translator, encoding, unknowns) -> z3.BoolRef:
    """``encoding``'s assertions with each unknown at its low end and each
    side-condition variable replaced by the term its definition gives it
    (``translator.computed``: a named extent its value, a quotient and
    remainder variable the Euclidean ones), last first, so the terms of
    earlier variables are replaced in turn: a formula over the sizes. Where
    it holds, that assignment meets every assertion: a witness."""
    lows = [(translator.term(u.symbol), translator.term(sympy.sympify(u.low))) for u in unknowns]
    closed = z3.And(encoding)
    if lows:  # before and after: a low end may name a variable, a variable's term an unknown
        closed = z3.substitute(closed, *lows)
    for var, term in reversed(translator.computed):
        closed = z3.substitute(closed, (var, term))
    return z3.substitute(closed, *lows) if lows else closed


def holds_at(closed, sizes, values) -> bool:
    """Does ``closed`` (:func:`closed_encoding`) simplify to true at the sizes
    ``values``? False also when Z3 cannot say so by simplifying (a division
    by zero there, a variable nothing computes): then Z3 is asked."""
    pairs = [(size, z3.IntVal(int(value), closed.ctx)) for size, value in zip(sizes, values)]
    return z3.is_true(z3.simplify(z3.substitute(closed, *pairs)))


def plugged_in(translator, encoding, sizes, values, unknowns) -> bool:
    """Does :func:`closed_encoding` hold at the sizes ``values``? True is a
    witness, as Z3's ``sat`` would be; False means undecided here."""
    return holds_at(closed_encoding(translator, encoding, unknowns), sizes, values)


def _first_not_admitted(translator, encoding, sizes, unknowns, timeout_ms: int, draws,
                        parameters, definite: list) -> str | None:
    """The first draw the encoding does not admit (or is not shown to), as
    text; a note if none was drawn. Plugged in first (:func:`holds_at`), else
    Z3 (a solver made on first need, the sizes pushed per question)."""
    closed = solver = None
    tested = False
    for values in draws:
        tested = True
        if closed is None:
            closed = closed_encoding(translator, encoding, unknowns)
        if holds_at(closed, sizes, values):
            continue
        if solver is None:
            solver = z3.Solver(ctx=translator.ctx)
            solver.set("timeout", timeout_ms)
            solver.add(encoding)
        solver.push()
        solver.add([size == value for size, value in zip(sizes, values)])
        answer = checker_threads.interruptible_check(solver, solver.ctx)
        solver.pop()
        definite[0] &= answer != z3.unknown
        if answer != z3.sat:
            return ", ".join(f"{p}={v}" for p, v in zip(parameters, values))
    if not tested and not definite[0]:
        return "(none: Z3 did not find sizes meeting the assumptions)"
    return None
