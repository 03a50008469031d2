"""Example sizes of a parametric map: small values that meet its assumptions.

A theorem over symbolic extents has no picture of its own; a picture of one
instance (``M=7, N=10, PR=3``) shows what the theorem is about. Z3 picks the
values, so assumptions such as ``M mod PR = 0`` are met.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.verify.query import ask

TENSOR, OTHER, ANY = (7, 12), (2, 6), (1, 12)
TIMEOUT_MS = 2_000


def example_sizes(m: IndexMap, assume: Sequence[sympy.Basic] = ()) -> dict[str, int] | None:
    """``{name: value}`` for every parameter of ``m``, meeting ``m.assumptions``
    and ``assume``; ``{}`` for a concrete map; None if Z3 finds none in time.

    First tried: distinct values, 7 to 12 for the domain's extents (the
    tensor) and 2 to 6 for the rest (PE counts, tile sizes), so tiles come
    out uneven and several per memory; then any values from 1 to 12.

    >>> from layoutalg import extents, strided
    >>> M, N = extents("M N")
    >>> sizes = example_sizes(strided((M, N), (1, M)), [sympy.Eq(N % M, 0)])
    >>> sizes["N"] % sizes["M"], all(1 <= v <= 12 for v in sizes.values())
    (0, True)
    """
    drawn = sorted(m.parameters, key=str)
    if not drawn:
        return {}
    # A spec's assumptions may bound sizes the map does not have (a symbolic
    # L2 capacity): they are unknowns of the query too, unbounded and not drawn.
    others = {s for c in assume if isinstance(c, sympy.Basic) for s in c.free_symbols
              if s.is_integer and s.is_positive and s.name not in {p.name for p in drawn}}
    parameters = [*drawn, *sorted(others, key=str)]
    preferred = [_within(p, TENSOR if p in m.domain.parameters else OTHER) for p in drawn]
    distinct = [sympy.Ne(a, b) for k, a in enumerate(drawn) for b in drawn[k + 1:]]
    for ranges in ([*preferred, *distinct], [_within(p, ANY) for p in drawn]):
        outcome = ask([], ranges, parameters=parameters, assumptions=[*m.assumptions, *assume],
                      timeout_ms=TIMEOUT_MS)
        if outcome.answer == "sat":
            return {str(p): int(outcome.model[p]) for p in drawn}
    return None


def _within(p: sympy.Symbol, bounds: tuple[int, int]) -> sympy.Basic:
    return sympy.And(p >= bounds[0], p <= bounds[1])


def example_instance(m: IndexMap, assume: Sequence[sympy.Basic] = ()
                     ) -> tuple[IndexMap, dict[str, int]] | None:
    """``m`` bound to ``example_sizes`` and the sizes (``m`` and ``{}`` when it
    is concrete); None when no sizes are found."""
    sizes = example_sizes(m, assume)
    if sizes is None:
        return None
    return (m.bind(**sizes) if sizes else m), sizes


def sizes_text(sizes: dict[str, int]) -> str:
    """``M=7, N=8``."""
    return ", ".join(f"{name}={value}" for name, value in sizes.items())
