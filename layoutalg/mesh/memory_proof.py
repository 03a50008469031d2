"""The proof of a memory plan (enumeration twin: ``tests/oracles/mesh.py``, ``check_memory_safe``).

Per PE group, Z3 looks for a step and a byte inside two regions live then
(unsat: no overlap), and for a byte past the budget in a live region (unsat:
the PE fits). Per tensor, ``check_fits_pe`` proves its slots end within its
reservation, so region safety carries over to every element. ``prove_plan``
takes a ``MemoryPlan`` (not imported: ``memory_plan`` imports this module).
"""

from __future__ import annotations

import itertools
import time

import sympy

from layoutalg.mesh.checks import check_fits_pe
from layoutalg.verify import query
from layoutalg.verify.result import CheckResult, Status

STEP = sympy.Symbol("step", integer=True, nonnegative=True)
BYTE = sympy.Symbol("byte", integer=True, nonnegative=True)


def _box(first_step: int, last_step: int, offset: int, stop: int) -> sympy.Basic:
    """``first_step <= step <= last_step`` and ``offset <= byte < stop``, as written
    (see ``query.all_of``)."""
    return query.all_of(sympy.Le(first_step, STEP, evaluate=False),
                        sympy.Le(STEP, last_step, evaluate=False),
                        sympy.Le(offset, BYTE, evaluate=False),
                        sympy.Lt(BYTE, stop, evaluate=False))


def _both(a, b) -> sympy.Basic:
    """``a`` and ``b`` both live at ``step`` and both hold ``byte``: each pair of numeric
    bounds on one unknown is the tighter one (``start_a <= step and start_b <= step``
    is ``max(start_a, start_b) <= step``), half the terms for Z3 (the same condition)."""
    return _box(max(a.start, b.start), min(a.end, b.end), max(a.offset, b.offset),
                min(a.stop, b.stop))


def prove_plan(plan, *, timeout_ms: int | None = None) -> CheckResult:
    start = time.perf_counter()
    timeout = timeout_ms or query.DEFAULT_TIMEOUT_MS
    subject = f"memory plan ({plan.strategy}, {plan.budget} bytes per PE)"

    def verdict(status, reason, counterexample=None):
        return CheckResult(status, "memory_safe", subject, counterexample, reason,
                           time.perf_counter() - start)

    for group in plan.groups:
        top = max(group.used, 1)
        bounds = [query.Bounded(STEP, 0, plan.steps), query.Bounded(BYTE, 0, top)]
        # SymPy's And and Or sort and compare every argument with the others (most
        # of this proof's time); the connectives as written mean the same to Z3
        clashes = [_both(a, b) for a, b in itertools.combinations(group.regions, 2)]
        over = [_box(r.start, r.end, max(r.offset, plan.budget), r.stop)
                for r in group.regions if r.stop > plan.budget]
        for kind, cases in (("overlap", clashes), ("budget", over)):
            if not cases:
                continue
            outcome = query.ask(bounds, [query.any_of(*cases)], timeout_ms=timeout)
            if outcome.answer == "unknown":
                return verdict(Status.UNKNOWN, outcome.reason)
            if outcome.answer == "sat":
                step, byte = outcome.model[STEP], outcome.model[BYTE]
                row, col = group.pes[0]
                where = {"pe_row": row, "pe_col": col, "step": step, "byte": byte}
                if kind == "budget":
                    return verdict(Status.REFUTED, f"PE ({row}, {col}) exceeds memory: "
                                   f"{group.used} > {plan.budget} bytes (byte {byte} is in use "
                                   f"at step {step})", {**where, "bytes": group.used})
                a, b = [r for r in group.live_at(step) if r.offset <= byte < r.stop][:2]
                return verdict(Status.REFUTED, f"PE ({row}, {col}): {a.label} "
                               f"[{a.offset}, {a.stop}) and {b.label} [{b.offset}, {b.stop}) are "
                               f"both live at step {step} and share byte {byte}", where)
    layouts = dict(plan.layouts)
    for tensor in plan.graph.tensors:
        placed = layouts[tensor.name].on(tensor.shape, tensor.dtype)
        reserved = placed.layout.reserved_bytes(tensor.shape, placed.element_size)
        fits = check_fits_pe(placed, reserved, timeout_ms=timeout)
        if not fits.proved:
            return verdict(fits.status, f"{tensor.name}: {fits.reason}", fits.counterexample)
    pes = sum(len(g.pes) for g in plan.groups)
    return verdict(Status.PROVED, f"{pes} PEs in {len(plan.groups)} groups: no two live regions "
                   f"share a byte, every PE within {plan.budget} bytes (fullest "
                   f"{plan.max_pe_memory_used}), every tensor's slots inside its region")
