"""``compatible_with``: two layouts put every element on the same PEs (a Z3 proof).

The seed compares fields, so ``RowPartition(4)`` and ``Grid(4, 1)`` differ
although they place every element alike. For partitioned layouts the question
is the equivalence of the PE maps; a replicated layout holds an element on
every PE of its grid, so each side's PEs are checked to be among the other's.
"""

from __future__ import annotations

import dataclasses
import time

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.verify.checks import check_equivalent
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status


def _covered(a, b, shape, assume, timeout_ms) -> CheckResult:
    """Every PE holding an element under ``a`` holds it under ``b``."""
    ma = a.index_map(shape, element_size=1)
    mb = b.index_map(shape, element_size=1)
    here = ma.exprs[:2]
    if b.is_replicated:  # the copy of b nearest to a's PE is that PE iff b has it
        there = [sympy.Min(here[0], b.pe_rows - 1), sympy.Min(here[1], b.pe_cols - 1)]
    else:
        tensor = ma.domain.symbols[ma.domain.rank - mb.domain.rank:]
        there = [e.xreplace(dict(zip(mb.domain.symbols, tensor))) for e in mb.exprs[:2]]
    pes = Space(pe_row=max(a.pe_rows, b.pe_rows), pe_col=max(a.pe_cols, b.pe_cols))
    return check_equivalent(IndexMap(ma.domain, pes, here, name=str(a)),
                               IndexMap(ma.domain, pes, there, name=str(b)),
                               assume=assume, timeout_ms=timeout_ms)


def _where(layout, index, shape) -> str:
    pes = layout.pes_for_element(index, shape)
    return f"PE {pes[0]}" if len(pes) == 1 else f"all {layout.pe_rows}×{layout.pe_cols} PEs"


def _explain(a, b, shape, verdict: CheckResult) -> str:
    """``element (i=…, j=…) lives on PE (0, 1) under A but on PE (1, 0) under B``."""
    names = a.index_map(shape, element_size=1).domain.names[-len(shape):]
    index = tuple(verdict.counterexample[n] for n in names)
    point = ", ".join(f"{n}={v}" for n, v in zip(names, index))
    return (f"element ({point}) lives on {_where(a, index, shape)} under {a} but on "
            f"{_where(b, index, shape)} under {b}")


def compare(a, b, shape: tuple[int, ...], *, assume=(),
            timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """PROVED when every element lives on the same PEs under MeshLayouts ``a`` and ``b``
    (checked by the callers: ``layout`` imports this module, which cannot import it)."""
    start = time.perf_counter()
    subject = f"{a} ~ {b} on {list(shape)}"
    directions = [(a, b)] + ([(b, a)] if a.is_replicated or b.is_replicated else [])
    for first, second in directions:
        verdict = _covered(first, second, shape, assume, timeout_ms)
        if verdict.refuted:
            verdict = dataclasses.replace(verdict, reason=_explain(a, b, shape, verdict))
        if not verdict.proved:
            return dataclasses.replace(verdict, check="compatible", subject=subject,
                                       seconds=time.perf_counter() - start)
    return CheckResult(Status.PROVED, "compatible", subject, None,
                       "every element lives on the same PEs under both layouts",
                       time.perf_counter() - start)
