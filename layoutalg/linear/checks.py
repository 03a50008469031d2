"""Injective, surjective, invertible, conversion: decided by the exact GF(2) rank ``r``
of the layout's ``out_bits × in_bits`` matrix, for every input at once:

- injective  ⟺ r = in_bits (else a kernel vector ``k``: inputs 0 and ``k`` collide);
- surjective ⟺ r = out_bits (else a unit output outside the span is held by no input);
- invertible ⟺ both (Triton's ``isInvertible``: surjective and equal sizes);
- ``a⁻¹∘b`` exists ⟺ ``a`` injective and ``b``'s bases in ``a``'s span; then
  ``a(c(x)) = b(x)`` holds on every basis input, hence (both sides linear) on all.

Each result's ``method`` is ``"gf2-rank"``. Enumeration twins: ``tests/oracles/linear.py``.
"""

from __future__ import annotations

import time

from layoutalg.linear import gf2
from layoutalg.linear.algebra import check_layout, conversion_obstacle, convert, reorder_outs
from layoutalg.linear.layout import LinearLayout
from layoutalg.verify.result import CheckResult, Status, point_text

METHOD = "gf2-rank"
PROOF = "by Gaussian elimination over GF(2), a complete proof for these power-of-two sizes"


def result(status, check, subject, start, counterexample=None, reason="",
           method=METHOD) -> CheckResult:
    """A ``check`` verdict on ``subject``, timed from ``start``."""
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method=method)


def label(layout: LinearLayout) -> str:
    return layout.label


def _named(point: dict[str, int], suffix: str = "") -> dict[str, int]:
    return {f"{k}{suffix}": int(v) for k, v in point.items()}


def _point(point: dict[str, int]) -> str:
    return point_text(point.keys(), point.values())


def check_injective(layout: LinearLayout) -> CheckResult:
    """No two inputs hold the same element (rank = number of input bits); REFUTED names
    the two inputs (the second primed), as ``la.check_injective`` does.

    >>> broadcast = LinearLayout({"lane": [[0], [1]]})       # lanes 0 and 1 share an element
    >>> check_injective(broadcast).counterexample
    {'lane': 0, "lane'": 1}
    """
    check_layout(layout, "check_injective: layout")
    start = time.perf_counter()
    state = gf2.eliminate(layout.columns)
    rank = len(state.pivots)
    if not state.kernel:
        return result(Status.PROVED, "injective", label(layout), start,
                      reason=f"rank {rank} = {layout.in_bits} input bits: no two inputs share "
                      f"an element ({PROOF})")
    first, second = layout.unflat_in(0), layout.unflat_in(state.kernel[0])
    element = layout(**second)
    return result(Status.REFUTED, "injective", label(layout), start,
                  counterexample={**_named(first), **_named(second, "'")},
                  reason=f"not injective: rank {rank} < {layout.in_bits} input bits; "
                  f"{_point(first)} and {_point(second)} both map to "
                  f"{point_text(layout.out_names, element)}")


def check_surjective(layout: LinearLayout) -> CheckResult:
    """Every element of the out dims is held by some input (rank = number of output bits)."""
    check_layout(layout, "check_surjective: layout")
    start = time.perf_counter()
    rank = layout.rank
    if rank == layout.out_bits:
        return result(Status.PROVED, "surjective", label(layout), start,
                      reason=f"rank {rank} = {layout.out_bits} output bits: every element is "
                      f"held ({PROOF})")
    j = gf2.missing_unit(layout.columns, layout.out_bits)
    element = layout.unflat_out(1 << j)
    return result(Status.REFUTED, "surjective", label(layout), start,
                  counterexample=dict(zip(layout.out_names, element)),
                  reason=f"not onto: rank {rank} < {layout.out_bits} output bits; element "
                  f"{point_text(layout.out_names, element)} is held by no input")


def check_invertible(layout: LinearLayout) -> CheckResult:
    """Injective and surjective: a bijection between inputs and elements."""
    check_layout(layout, "check_invertible: layout")
    start = time.perf_counter()
    for part in (check_injective(layout), check_surjective(layout)):
        if part.refuted:
            return result(Status.REFUTED, "invertible", label(layout), start,
                          counterexample=part.counterexample, reason=part.reason)
    return result(Status.PROVED, "invertible", label(layout), start,
                  reason=f"rank {layout.rank} = {layout.in_bits} input bits = "
                  f"{layout.out_bits} output bits: a bijection ({PROOF})")


def check_conversion(a: LinearLayout, b: LinearLayout) -> CheckResult:
    """The conversion ``c = a⁻¹∘b`` exists and ``a(c(x)) = b(x)`` for every input ``x`` of b;
    REFUTED names two inputs of a non-injective ``a`` (the second primed) or the input
    of ``b`` whose element ``a`` misses."""
    check_layout(a, "check_conversion: a")
    check_layout(b, "check_conversion: b")
    start = time.perf_counter()
    subject = f"{label(a)}⁻¹ ∘ {label(b)}"
    obstacle = conversion_obstacle(a, b, "check_conversion")
    if obstacle is not None:
        counterexample = _named(obstacle.point)
        if obstacle.other is not None:
            counterexample.update(_named(obstacle.other, "'"))
        return result(Status.REFUTED, "conversion", subject, start,
                      counterexample=counterexample, reason=obstacle.text)
    c = convert(a, b)
    b_as_a = reorder_outs(b, a.out_names, "check_conversion")
    for bit in range(b.in_bits):
        x = b.unflat_in(1 << bit)
        if a(**dict(zip(a.in_names, c(**x)))) != b_as_a(**x):
            raise AssertionError(f"convert is wrong at {x}")  # a bug, never bad input
    return result(Status.PROVED, "conversion", subject, start,
                  reason=f"a(a⁻¹∘b (x)) = b(x) on all {b.in_bits} basis inputs, hence on all "
                  f"{b.in_size} inputs (both sides linear; a injective, rank {a.rank})")


__all__ = ["check_conversion", "check_injective", "check_invertible", "check_surjective"]
