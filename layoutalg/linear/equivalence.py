"""Is a linear layout the same function as a CuTe layout, an IndexMap or another linear layout?

- Another :class:`LinearLayout` (same in and out dim names, else an error):
  equivalent iff the in and out dim sizes are equal (Triton's ``operator==``,
  ``include/triton/Tools/LinearLayout.h``) and the bases are (both linear).
- A CuTe layout, both flattened first dim fastest: with power-of-two modes
  CuTe's map is the *sum* of its values ``v_b = L(2**b)`` over the set bits of
  the index, the linear layout's their XOR; since ``a + b = (a ^ b) + 2(a & b)``
  they agree everywhere iff they agree on every ``2**b`` and no two ``v_b``
  share a bit. Exact, no enumeration; the counterexample holds in dims only.
- An ``IndexMap`` (same domain extents by position): Z3 on
  :meth:`LinearLayout.index_map` through ``la.check_equivalent``; an UNKNOWN is
  settled by enumeration up to ``2**20`` inputs, and stays UNKNOWN otherwise.
"""

from __future__ import annotations

import time

from layoutalg.core.cute_layout import CuteLayout
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import LinearLayoutError, UndefinedValueError, describe
from layoutalg.linear.algebra import check_layout, columns_in, reorder_outs
from layoutalg.linear.checks import label, result
from layoutalg.linear.layout import LinearLayout
from layoutalg.verify import brute as core_brute
from layoutalg.verify import checks as core_checks
from layoutalg.verify.result import CheckResult, Status, point_text

ENUMERATION_LIMIT = 1 << 20


def check_equivalent(layout: LinearLayout, other: object) -> CheckResult:
    """``layout`` and ``other`` give the same element for every input.

    >>> check_equivalent(LinearLayout({"i": [[1], [2]]}), CuteLayout(4, 1)).status
    <Status.PROVED: 'PROVED'>
    >>> print(check_equivalent(LinearLayout({"i": [[3], [6]]}), CuteLayout(4, 3)).reason)
    they differ at flat index 3 (i=3): the linear layout gives 5 (3 ^ 6), the CuTe layout 9 (3 + 6)
    """
    check_layout(layout, "check_equivalent: layout")
    if isinstance(other, LinearLayout):
        return _with_linear(layout, other)
    if isinstance(other, CuteLayout):
        return _with_cute(layout, other)
    if isinstance(other, IndexMap):
        return _with_map(layout, other)
    raise LinearLayoutError(f"check_equivalent: other must be a LinearLayout, a CuteLayout or "
                            f"an IndexMap; got {describe(other)}")


def _with_linear(a: LinearLayout, b: LinearLayout) -> CheckResult:
    start = time.perf_counter()
    subject = f"{label(a)} ≡ {label(b)}"
    if a.in_names != b.in_names:
        raise LinearLayoutError(f"check_equivalent: the layouts must have the same in dims; "
                                f"got {a.in_names} and {b.in_names}")
    if a.in_dims != b.in_dims:
        return result(Status.REFUTED, "equivalent", subject, start,
                      reason=f"sizes differ: {dict(a.in_dims)} vs {dict(b.in_dims)}")
    b = reorder_outs(b, a.out_names, "check_equivalent")
    if a.out_dims != b.out_dims:
        return result(Status.REFUTED, "equivalent", subject, start,
                      reason=f"out dim sizes differ: {dict(a.out_dims)} vs {dict(b.out_dims)} "
                      f"(Triton's == compares them)")
    for bit, (x, y) in enumerate(zip(a.columns, columns_in(b, a))):
        if x != y:
            point = a.unflat_in(1 << bit)
            return result(Status.REFUTED, "equivalent", subject, start, counterexample=point,
                          reason=f"they differ at {point_text(point, point.values())}: "
                          f"{point_text(a.out_names, a(**point))} vs "
                          f"{point_text(b.out_names, b(**point))}")
    return result(Status.PROVED, "equivalent", subject, start,
                  reason=f"equal on all {a.in_bits} basis inputs, hence (both linear over "
                  f"GF(2)) on all {a.in_size} inputs")


def _with_cute(layout: LinearLayout, cute: CuteLayout) -> CheckResult:
    start = time.perf_counter()
    subject = f"{label(layout)} ≡ {cute}"
    if cute.size != layout.in_size:
        return result(Status.REFUTED, "equivalent", subject, start,
                      reason=f"sizes differ: {layout.in_size} vs {cute.size}")
    mine = list(layout.columns)
    theirs = [cute(1 << b) for b in range(layout.in_bits)]
    for b, (x, y) in enumerate(zip(mine, theirs)):
        if x != y:
            return _differ(layout, subject, start, 1 << b, x, y, "", "")
    seen = 0
    for b, v in enumerate(theirs):
        if seen & v:
            a = next(a for a in range(b) if theirs[a] & v)
            i = (1 << a) | (1 << b)
            return _differ(layout, subject, start, i, mine[a] ^ mine[b], theirs[a] + v,
                           f" ({mine[a]} ^ {mine[b]})", f" ({theirs[a]} + {v})")
        seen |= v
    return result(Status.PROVED, "equivalent", subject, start,
                  reason=f"equal on all {layout.in_bits} inputs 2**b, and CuTe's values there "
                  f"share no bit, so its sums are XORs: equal on all {layout.in_size} inputs")


def _differ(layout, subject, start, i, mine, theirs, how_mine, how_theirs) -> CheckResult:
    point = layout.unflat_in(i)
    return result(Status.REFUTED, "equivalent", subject, start, counterexample=point,
                  reason=f"they differ at flat index {i} {point_text(point, point.values())}: "
                  f"the linear layout gives {mine}{how_mine}, the CuTe layout "
                  f"{theirs}{how_theirs}")


def _with_map(layout: LinearLayout, m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    mine = layout.index_map()
    if m.domain.rank != mine.domain.rank or m.codomain.rank != mine.codomain.rank:
        raise LinearLayoutError(
            f"check_equivalent: the IndexMap must have {mine.domain.rank} domain dims and "
            f"{mine.codomain.rank} codomain dims like {mine.domain} → {mine.codomain}; got "
            f"{m.domain} → {m.codomain}")
    if any(a != b for a, b in zip(m.domain.extents, mine.domain.extents)):
        return result(Status.REFUTED, "equivalent", f"{label(layout)} ≡ {m.label}", start,
                      method="z3", reason=f"sizes differ: {mine.domain} vs {m.domain}")
    verdict = core_checks.check_equivalent(mine, m)
    if verdict.status is not Status.UNKNOWN or layout.in_size > ENUMERATION_LIMIT:
        return verdict
    try:
        exact = core_brute.check_equivalent(mine, m)
    except UndefinedValueError as error:  # the IndexMap has no value somewhere: Z3's UNKNOWN stands
        return CheckResult(Status.UNKNOWN, "equivalent", verdict.subject, None,
                           f"{verdict.reason}; enumeration cannot decide either: {error}",
                           time.perf_counter() - start, method=verdict.method)
    return CheckResult(exact.status, "equivalent", verdict.subject, exact.counterexample,
                       f"Z3: {verdict.reason}; decided by enumerating all {layout.in_size} "
                       f"inputs: {exact.reason}", time.perf_counter() - start,
                       method="enumeration")


__all__ = ["check_equivalent"]
