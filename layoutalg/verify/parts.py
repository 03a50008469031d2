"""``check_bijective_by_parts``: a chain is a bijection if its parts are.

The lemma: let ``f: D → C₁`` be a bijection onto the valid slots ``V`` of
``C₁``, and ``g: C₁ → C₂`` map all of ``C₁`` one to one into the valid
slots ``W`` of ``C₂`` with an inverse that is right on ``W`` (``g⁻¹(y)``
lies in ``C₁`` and ``g(g⁻¹(y)) = y`` for every ``y`` in ``W``). Then
``g ∘ f`` is a bijection onto ``g(V)``, the slots ``y ∈ W`` with
``g⁻¹(y) ∈ V`` — exactly the valid slots ``compose`` gives the
composition. (``g⁻¹`` is then also a left inverse: for ``z`` in ``C₁``,
``g(g⁻¹(g(z))) = g(z)`` and ``g`` is one to one.) So proving each part, each in its own small query, proves the
whole, whose single query may be beyond Z3 (a flattened padded tiling
multiplies three unknown sizes).

When a part fails (it is not such a bijection, has no inverse, or Z3 does
not decide it), the lemma says nothing, so the composition is
checked directly: a failed part never refutes the whole.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import sympy

from layoutalg.core.chain import Chain
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MapError, describe
from layoutalg.verify import query as q
from layoutalg.verify.checks import (check_bijective, check_images_valid, check_in_bounds,
                                     check_injective, inverse_misses)
from layoutalg.verify.result import CheckResult, Status
from layoutalg.verify.solver import DEFAULT_TIMEOUT_MS

Assume = Sequence[sympy.Basic]


def check_bijective_by_parts(
    chain: Chain, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """The chain's composition is a bijection onto its valid slots.

    PROVED by parts when the first part is bijective and every later part
    maps its whole domain one to one onto its valid slots with a right
    inverse; otherwise the verdict of ``check_bijective`` on the
    composition, whose reason says why the parts did not settle it.
    """
    if not isinstance(chain, Chain):
        raise MapError(f"check_bijective_by_parts: chain must be a Chain; got {describe(chain)}")
    start = time.perf_counter()
    whole = chain.index_map()
    first, *later = chain.parts
    shown = [check_bijective(first, assume=assume, timeout_ms=timeout_ms)]
    for part in later:
        if not shown[-1].proved:
            break
        shown.append(_bijection_with_right_inverse(part, assume, timeout_ms))
    if shown[-1].proved and len(shown) == len(chain.parts):
        steps = "; ".join(f"{part.label}: {r.reason}" for part, r in zip(chain.parts, shown))
        return q.result(Status.PROVED, "bijective_by_parts", chain.label, start,
                        reason=f"a bijection onto the valid slots of {whole.codomain}, by parts "
                        f"({steps})")
    failed = chain.parts[len(shown) - 1]
    direct = check_bijective(whole, assume=assume, timeout_ms=timeout_ms)
    return q.result(direct.status, "bijective_by_parts", chain.label, start,
                    counterexample=direct.counterexample,
                    reason=f"{direct.reason} (checked whole: part {failed.label} is "
                    f"{shown[-1].status}: {shown[-1].reason})")


def _bijection_with_right_inverse(g: IndexMap, assume: Assume, timeout_ms: int) -> CheckResult:
    """``g`` maps its whole domain into its valid slots, one to one, and its
    inverse is right on every valid slot (so ``g`` is onto them)."""
    start = time.perf_counter()
    if g.inverse is None:
        return q.result(Status.UNKNOWN, "bijection with a right inverse", g.label, start,
                        reason="the lemma needs an inverse for every part after the first")
    for check in (check_in_bounds, check_injective, check_images_valid):
        part = check(g, assume=assume, timeout_ms=timeout_ms)
        if not part.proved:
            return part
    outcome = inverse_misses(g, assume, timeout_ms)
    y, _ = q.unknowns(g.codomain)
    return q.verdict(outcome, "bijection with a right inverse", g.label, start,
                     proved="a bijection of its domain onto its valid slots, with a right "
                     "inverse",
                     refuted=lambda: {"reason": "its inverse is not right at "
                                      f"{q.point_of(outcome, y)}"})
