"""``check_bijective_by_parts``: a chain is a bijection if its parts are.

The lemma: let ``f: D → C₁`` be a bijection onto the valid slots ``V`` of
``C₁``, and ``g: C₁ → C₂`` map all of ``C₁`` one to one into the valid
slots ``W`` of ``C₂`` with an inverse right on ``W`` (``g⁻¹(y) ∈ C₁`` and
``g(g⁻¹(y)) = y`` for every ``y ∈ W``). Then ``g ∘ f`` is a bijection onto
``g(V)``, the slots ``y ∈ W`` with ``g⁻¹(y) ∈ V``: exactly the valid slots
``compose`` gives the composition (``g⁻¹`` is also a left inverse, since
``g(g⁻¹(g(z))) = g(z)`` and ``g`` is one to one). So each part's small query
proves the whole, whose single query may be beyond Z3 (docs/verification.md).

The composition must exist first: every image of each part must lie in the
next part's domain, or the chain is undefined there and REFUTED, whatever
the formulas compute past the edge (``compose`` proves it link by link).
When a part fails (not such a bijection, no inverse, or Z3 undecided) the
lemma says nothing and the composition is checked directly: a failed part
never refutes the whole (a later part escaping its codomain only where the
chain never reaches leaves the composition defined).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Sequence
from dataclasses import replace

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import CompositionError, MapError, describe
from layoutalg.verify import composition as facts
from layoutalg.verify import one_query, radix
from layoutalg.verify import query as q
from layoutalg.verify.chain import Chain
from layoutalg.verify.checks import (
    check_bijective,
    check_images_valid,
    check_in_bounds,
    check_injective,
    other_way_to_bijective,
)
from layoutalg.verify.compose import compose
from layoutalg.verify.one_query import inverse_misses
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS, checked_timeout
from layoutalg.verify.result import CheckResult, Status

Assume = Sequence[sympy.Basic]


@q.asks_once
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
    timeout_ms = checked_timeout(timeout_ms)
    start = time.perf_counter()
    chain, whole, shown = _by_lemma(chain, assume, timeout_ms)
    if isinstance(whole, CheckResult):
        return q.result(whole.status, "bijective_by_parts", chain.label, start,
                        counterexample=whole.counterexample, reason=whole.reason)
    if shown[-1].proved and len(shown) == len(chain.parts):
        return q.result(Status.PROVED, "bijective_by_parts", chain.label, start,
                        reason=_proved(chain, whole, shown))
    failed = chain.parts[len(shown) - 1]
    direct = check_bijective(whole, assume=assume, timeout_ms=timeout_ms)
    return q.result(direct.status, "bijective_by_parts", chain.label, start,
                    counterexample=direct.counterexample,
                    reason=f"{direct.reason} (checked whole: part {failed.label} is "
                    f"{shown[-1].status}: {shown[-1].reason})")


def _by_lemma(chain: Chain, assume: Assume, timeout_ms: int, composed: IndexMap | None = None):
    """``(chain, whole, shown)``: the chain under the assumptions, its
    composition (or the CheckResult saying why there is none), and the
    verdicts of its parts up to the first not proved. ``composed``: the
    composition ``compose`` made of these parts, every link proved then."""
    if assume:
        # The composition is judged under the assumptions too (an escape at
        # sizes they rule out is none): the parts carry them into compose.
        assumed = q.checked_assumptions(
            assume, frozenset().union(*(part.parameters for part in chain.parts)))
        chain = Chain(tuple(part.assuming(*assumed) for part in chain.parts), name=chain.label)
        composed = None
    whole = _composition(chain, timeout_ms) if composed is None else composed
    if isinstance(whole, CheckResult):
        return chain, whole, []
    first, *later = chain.parts
    shown = [check_bijective(first, assume=assume, timeout_ms=timeout_ms)]
    for part in later:
        if not shown[-1].proved:
            break
        shown.append(_bijection_with_right_inverse(part, assume, timeout_ms))
    return chain, whole, shown


def _proved(chain: Chain, whole: IndexMap, shown: list[CheckResult]) -> str:
    steps = "; ".join(f"{part.label}: {r.reason}" for part, r in zip(chain.parts, shown))
    return f"a bijection onto the valid slots of {whole.codomain}, by parts ({steps})"


_OPENING = contextvars.ContextVar("opening_parts", default=False)


@other_way_to_bijective
def by_digits(m: IndexMap, assume: Assume, timeout_ms: int) -> CheckResult | None:
    """The mixed-radix lemma (``verify.radix``) on ``m`` itself: PROVED or None."""
    start = time.perf_counter()
    proved = radix.digit_by_digit(m, assume, timeout_ms)
    return None if proved is None else q.result(Status.PROVED, "bijective", m.label, start,
                                                reason=proved.reason)


@other_way_to_bijective
def by_recorded_parts(m: IndexMap, assume: Assume, timeout_ms: int) -> CheckResult | None:
    """When ``compose`` made ``m`` of parts, the lemma on those parts:
    PROVED, or None (``check_bijective`` goes on directly).

    A map one query leaves beyond Z3 (a three-level cyclic deal of a
    symbolic N) is decided by its parts' small queries. The lemma's whole
    must be ``m`` itself (domain, codomain, formulas, valid slots). Not
    reentered: the parts' own checks do not open their parts again.
    """
    if _OPENING.get():
        return None
    parts = facts.parts_of(m)
    if parts is None or len(parts) < 2:
        return None
    start = time.perf_counter()
    try:
        chain = Chain(tuple(parts), name=m.label)
    except CompositionError:  # compose allows a codomain wider than the next domain
        return None
    token = _OPENING.set(True)
    try:
        chain, whole, shown = _by_lemma(chain, assume, timeout_ms, composed=m)
    finally:
        _OPENING.reset(token)
    if isinstance(whole, CheckResult) or not (shown[-1].proved and len(shown) == len(parts)):
        return None
    if (whole.domain, whole.codomain, whole.exprs, whole.valid) != (
            m.domain, m.codomain, m.exprs, m.valid):
        return None
    return q.result(Status.PROVED, "bijective", m.label, start, reason=_proved(chain, whole, shown))


def _composition(chain: Chain, timeout_ms: int) -> IndexMap | CheckResult:
    """``chain.index_map()``, once every link is proved (each part's images,
    reached from the chain's domain, lie in the next part's domain); else the
    link's REFUTED verdict (at a point of the chain's domain), or UNKNOWN
    when a link or the composed valid slots are not decided."""
    so_far = chain.parts[0]
    for part in chain.parts[1:]:
        fit = facts.lands_in(so_far, part.domain, assumptions=part.assumptions,
                             timeout_ms=timeout_ms)
        if not fit.proved:
            lead = ("the chain is not defined everywhere" if fit.refuted else
                    "cannot tell whether the chain is defined everywhere")
            return replace(fit, reason=f"{lead}: {fit.reason}")
        try:
            so_far = compose(so_far, part)
        except CompositionError as error:
            return q.result(Status.UNKNOWN, "compose", chain.label, time.perf_counter(),
                            reason=f"the chain has no composition to check: {error}")
    return so_far.renamed(chain.label)


def _bijection_with_right_inverse(g: IndexMap, assume: Assume, timeout_ms: int) -> CheckResult:
    """``g`` maps its whole domain into its valid slots, one to one, and its
    inverse is right on every valid slot (so ``g`` is onto them).

    The mixed-radix lemma first, then the queries of ``verify.one_query``;
    when they do not prove it, only what they left open is asked again (the
    three point checks unless the point query was unsat, the inverse query
    unless it was answered)."""
    start = time.perf_counter()
    if g.inverse is None:
        return q.result(Status.UNKNOWN, "bijection with a right inverse", g.label, start,
                        reason="the lemma needs an inverse for every part after the first")
    by_digits = radix.digit_by_digit(g, assume, timeout_ms)
    if by_digits is not None:
        return by_digits
    proved = "a bijection of its domain onto its valid slots, with a right inverse"
    tried = one_query.attempt(g, assume, timeout_ms, together=True)
    if tried.proved:
        return q.result(Status.PROVED, "bijection with a right inverse", g.label, start,
                        reason=proved)
    if not tried.point_proved:
        for check in (check_in_bounds, check_injective, check_images_valid):
            part = check(g, assume=assume, timeout_ms=timeout_ms)
            if not part.proved:
                return part
    outcome = tried.inverse or inverse_misses(g, assume, timeout_ms)
    y, _ = q.unknowns(g.codomain)
    return q.verdict(outcome, "bijection with a right inverse", g.label, start,
                     proved=proved,
                     refuted=lambda: {"reason": "its inverse is not right at "
                                      f"{q.point_of(outcome, y)}"})
