"""Z3 checks of one map: in bounds, injective, bijective, equivalent.

Each asks Z3 for a counterexample; ``unsat`` proves the property for every
point (and, with symbolic extents, every size meeting the assumptions).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

import sympy

from layoutalg.core.expr import same_for_every_size
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import MapError, describe
from layoutalg.verify import enumerated, one_query
from layoutalg.verify import query as q
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS, checked_timeout
from layoutalg.verify.result import CheckResult, Status, point_text

Assume = Sequence[sympy.Basic]

# Structural ways to prove a map bijective (the mixed-radix and by-parts lemmas,
# registered by verify.parts), tried before the queries of verify.one_query (six
# combinators at radix 4: 5 s whole, 44 ms by parts). Each gives PROVED or None.
_OTHER_WAYS: list[Callable[[IndexMap, Assume, int], CheckResult | None]] = []


def other_way_to_bijective(procedure: Callable[[IndexMap, Assume, int], CheckResult | None]):
    """Register ``procedure(m, assume, timeout_ms)`` (see ``_OTHER_WAYS``)."""
    _OTHER_WAYS.append(procedure)
    return procedure


@enumerated.falls_back("in_bounds")
def check_in_bounds(
    m: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """Every image lies inside the codomain extents.

    >>> from layoutalg import Space, IndexMap
    >>> d = Space(i=4); (i,) = d.symbols
    >>> check_in_bounds(IndexMap(d, Space(o=4), [i + 1], name="shift")).counterexample
    {'i': 3}
    """
    timeout_ms = _checked(timeout_ms, m=m)
    proved = f"every image lies in {m.codomain}"
    if (small := enumerated.decide("in_bounds", [m], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    x, bounds = q.unknowns(m.domain)
    fx = q.images(m, x, bounds)
    escape = q.any_of(*(q.outside(v, e) for v, e in zip(fx, m.codomain.extents)))
    outcome = q.run(bounds, [escape], [m], assume=assume, timeout_ms=timeout_ms)
    return q.verdict(outcome, "in_bounds", m.label, start,
                     proved=proved, refuted=lambda: _out_of_bounds(m, outcome, x))


def _out_of_bounds(m, outcome, x):
    """The point Z3 found whose image escapes the codomain, and which dims escape."""
    params, point, found = _found(outcome, [m], x, m.domain.names)
    bound = q.concrete(m, params)
    image = bound(*point)
    bad = [f"{n}={v} not in [0, {e})"
           for n, v, e in zip(m.codomain.names, image, bound.codomain.extents) if not 0 <= v < e]
    return {
        "counterexample": found,
        "reason": f"out of bounds: {point_text(m.domain.names, point)} maps to "
        f"{point_text(m.codomain.names, image)}: {', '.join(bad)}{q.params_text(params)}",
    }


@enumerated.falls_back("injective")
def check_injective(
    m: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """No two domain points share a slot.

    A REFUTED counterexample names both points: the first under the domain's
    names, the second with a prime (``i'``).
    """
    timeout_ms = _checked(timeout_ms, m=m)
    proved = "no two elements share a slot"
    if (small := enumerated.decide("injective", [m], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    if m.inverse is not None and _has_left_inverse(m, assume, timeout_ms):
        return q.result(Status.PROVED, "injective", m.label, start,
                        reason="no two elements share a slot (the inverse undoes the map)")
    x, bounds_x = q.unknowns(m.domain)
    y, bounds_y = q.unknowns(m.domain, "'")
    fx, fy = q.images(m, x, bounds_x), q.images(m, y, bounds_y)
    differ = q.any_of(*(q.ne(a, b) for a, b in zip(x, y)))
    collide = [q.eq(a, b) for a, b in zip(fx, fy)]
    outcome = q.run(bounds_x + bounds_y, [differ, *collide], [m], assume=assume,
                    timeout_ms=timeout_ms)
    return q.verdict(outcome, "injective", m.label, start,
                     proved=proved, refuted=lambda: _shared_slot(m, outcome, x, y))


def _shared_slot(m, outcome, x, y):
    """The two points Z3 found on one slot (the second primed)."""
    params = q.parameter_values(outcome, [m])
    first, second = q.point_of(outcome, x), q.point_of(outcome, y)
    slot = q.concrete(m, params)(*first)
    names = m.domain.names
    return {
        "counterexample": {**q.named(names, first), **q.named(names, second, "'"),
                           **q.named(params, params.values())},
        "reason": f"not injective: {point_text(names, first)} and {point_text(names, second)} "
        f"both map to {point_text(m.codomain.names, slot)}{q.params_text(params)}",
    }


def _has_left_inverse(m: IndexMap, assume: Assume, timeout_ms: int) -> bool:
    """Is ``inverse(f(x)) == x`` for every x? Then f is injective (one point per
    query instead of a pair, often far easier). False means "not shown": the
    inverse may be wrong, Z3 may not know, or an image may have no value (each
    is in the query as ``f(x) = f(x)``), and the pairwise query decides."""
    x, bounds = q.unknowns(m.domain)
    back = q.substitute(m.inverse, m.codomain.symbols, fx := q.images(m, x, bounds), bounds)
    moved = q.any_of(*(q.ne(a, b) for a, b in zip(back, x)))
    return q.run(bounds, [moved, *(q.eq(v, v) for v in fx)], [m], assume=assume,
                 timeout_ms=min(timeout_ms, 5_000)).answer == "unsat"


@enumerated.falls_back("images_valid")
def check_images_valid(
    m: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """Every element that lands inside the codomain lands on a slot that ``valid``
    calls real (not padding). Images outside the codomain are not slots at all:
    ``check_in_bounds`` judges those, and ``valid`` is not consulted there."""
    timeout_ms = _checked(timeout_ms, m=m)
    proved = "every element lands on a valid slot"
    if (small := enumerated.decide("images_valid", [m], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    x, bounds = q.unknowns(m.domain)
    fx = q.images(m, x, bounds)
    lands_inside = [sympy.Not(q.outside(v, e)) for v, e in zip(fx, m.codomain.extents)]
    # With no valid predicate nothing is to refute, but the images still go through
    # the translation: no value somewhere (x mod 0, a Piecewise gap) is UNKNOWN there
    valid = sympy.true if m.valid is None else q.substitute(
        [m.valid], m.codomain.symbols, fx, bounds)[0]
    outcome = q.run(bounds, [*lands_inside, sympy.Not(valid)], [m], assume=assume,
                    timeout_ms=timeout_ms)
    return q.verdict(outcome, "images_valid", m.label, start,
                     proved=proved if m.valid is not None else "the map declares every slot valid",
                     refuted=lambda: _on_padding(m, outcome, x))


def _on_padding(m, outcome, x):
    """The element Z3 found on a slot ``valid`` calls padding."""
    params, point, found = _found(outcome, [m], x, m.domain.names)
    slot = q.concrete(m, params)(*point)
    return {
        "counterexample": found,
        "reason": f"element {point_text(m.domain.names, point)} lands on padding slot "
        f"{point_text(m.codomain.names, slot)}{q.params_text(params)}",
    }


@enumerated.falls_back("surjective")
@q.asks_once
def check_surjective(
    m: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """Every valid slot holds some element.

    With an inverse ``g``: no valid ``p`` with ``g(p)`` outside the domain or
    ``f(g(p)) != p``; a slot found so is confirmed by a second query (any
    preimage?), so a wrong inverse never refutes a correct map. Otherwise
    counting, then the quantified query decides.
    """
    timeout_ms = _checked(timeout_ms, m=m)
    proved = "every valid slot holds an element"
    if (small := enumerated.decide("surjective", [m], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    p, bounds_p = q.unknowns(m.codomain)
    valid = sympy.true if m.valid is None else m.valid
    if m.inverse is not None:
        outcome = one_query.inverse_misses(m, assume, timeout_ms)
        if outcome.answer == "unsat" and _has_values(m, assume, timeout_ms):
            return q.result(Status.PROVED, "surjective", m.label, start,
                            reason="every valid slot holds an element (by the inverse)")
        if outcome.answer == "sat":
            confirmed = _confirm_empty(m, outcome, p, assume, timeout_ms)
            if confirmed is not None:
                return q.result(Status.REFUTED, "surjective", m.label, start, **confirmed)
    inverse_wrong = m.inverse is not None and outcome.answer == "sat"
    if _onto_by_counting(m, assume, timeout_ms):
        return q.result(Status.PROVED, "surjective", m.label, start,
                        reason="every valid slot holds an element (injective, in bounds, "
                        "and as many elements as slots)")
    x, bounds_x = q.unknowns(m.domain, "!")
    hits = q.all_of(*(q.eq(a, b) for a, b in zip(q.images(m, x), p)))
    outcome = q.run(bounds_p, [valid], [m], assume=assume, timeout_ms=timeout_ms,
                    forall=(bounds_x, sympy.Not(hits)))
    if outcome.answer == "unknown" and inverse_wrong:
        note = " (the supplied inverse is wrong somewhere)"
        outcome = replace(outcome, reason=outcome.reason + note)
    return q.verdict(outcome, "surjective", m.label, start,
                     proved=proved, refuted=lambda: _empty_slot(m, outcome, p))


def _has_values(m: IndexMap, assume: Assume, timeout_ms: int) -> bool:
    """Has ``m`` a value at every point (the inverse query reads it at ``g(p)`` only)?
    Its images go to the translation, which refuses one that may have none."""
    x, bounds = q.unknowns(m.domain)
    return q.run(bounds, [sympy.false, *(q.eq(v, v) for v in q.images(m, x, bounds))], [m],
                 assume=assume, timeout_ms=timeout_ms).answer == "unsat"


def _onto_by_counting(m: IndexMap, assume: Assume, timeout_ms: int) -> bool:
    """Pigeonhole: an injective, in-bounds map of n elements into n slots is
    onto. Only when every slot is valid (no ``valid`` predicate) and the two
    sizes are equal as formulas, so it holds for every size at once. False
    means "not shown"; the quantified query decides."""
    if m.valid is not None or not same_for_every_size(m.domain.size, m.codomain.size):
        return False
    return all(check(m, assume=assume, timeout_ms=timeout_ms).proved
               for check in (check_in_bounds, check_injective))


def _confirm_empty(m, outcome, p, assume, timeout_ms):
    """The slot found by the inverse query really has no preimage?"""
    params, slot = q.parameter_values(outcome, [m]), q.point_of(outcome, p)
    bound = q.concrete(m, params)
    x, bounds = q.unknowns(bound.domain)
    hit = [q.eq(a, v) for a, v in zip(q.images(bound, x, bounds), slot)]
    sizes = [a.subs(params) for a in q.checked_assumptions(assume, m.parameters)]  # look-alikes
    check = q.run(bounds, hit, [bound], assume=sizes, timeout_ms=timeout_ms)
    return _empty_slot(m, outcome, p) if check.answer == "unsat" else None


def _empty_slot(m, outcome, p):
    params, slot, found = _found(outcome, [m], p, m.codomain.names)
    return {
        "counterexample": found,
        "reason": f"not onto: valid slot {point_text(m.codomain.names, slot)} holds no element"
        f"{q.params_text(params)}",
    }


@enumerated.falls_back("bijective")
@q.asks_once
def check_bijective(
    m: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """In bounds, injective, every element on a valid slot, every valid slot filled.

    REFUTED by the first part refuted, in that order (its counterexample and
    reason; later parts are not run); UNKNOWN if one is unknown; else PROVED.
    """
    timeout_ms = _checked(timeout_ms, m=m)
    padding_note = "" if m.valid is None else " (padding excluded)"
    proved = f"a bijection onto the valid slots of {m.codomain}{padding_note}"
    if (small := enumerated.decide("bijective", [m], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    for procedure in _OTHER_WAYS:
        other = procedure(m, assume, timeout_ms)
        if other is not None and other.proved:
            return q.result(Status.PROVED, "bijective", m.label, start, reason=other.reason)
    tried = one_query.attempt(m, assume, timeout_ms)
    if tried.proved:
        return q.result(Status.PROVED, "bijective", m.label, start, reason=proved)
    # a point query's unsat proved the first three (surjective's inverse query is then
    # answered from memory); with no valid predicate, in bounds covers images_valid
    ordered = (check_in_bounds, check_injective) + (
        (check_images_valid,) if m.valid is not None else ()) + (check_surjective,)
    parts = []
    for check in ordered[-1:] if tried.point_proved else ordered:
        part = check(m, assume=assume, timeout_ms=timeout_ms)
        if part.refuted:
            return q.result(Status.REFUTED, "bijective", m.label, start,
                            counterexample=part.counterexample, reason=part.reason)
        parts.append(part)
    for part in parts:
        if part.status is Status.UNKNOWN:
            return q.result(Status.UNKNOWN, "bijective", m.label, start,
                            reason=f"{part.check}: {part.reason}")
    return q.result(Status.PROVED, "bijective", m.label, start, reason=proved)


@enumerated.falls_back("equivalent")
def check_equivalent(
    m1: IndexMap, m2: IndexMap, *, assume: Assume = (), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """Same domain point → same values, for every point.

    Points are matched by position (names may differ); the domains must
    have equal rank and the codomains equal rank. REFUTED carries the domain
    point (``m1``'s names) where they differ; domains of different concrete
    extents are REFUTED too ("sizes differ", with a point only one has).
    """
    timeout_ms = _checked(timeout_ms, m1=m1, m2=m2)
    differing = _domains_differ(m1, m2)
    if differing is not None:  # but the assumptions go through the door first
        gate = q.assumptions_met([m1, m2], assume=assume, timeout_ms=timeout_ms)
        return differing if gate.answer == "unsat" else q.unknown(
            "equivalent", differing.subject, time.perf_counter(), gate)
    _check_same_domain(m1, m2)
    proved = "both maps send every point to the same values"
    if (small := enumerated.decide("equivalent", [m1, m2], assume, proved=proved)) is not None:
        return small
    start = time.perf_counter()
    subject = f"{m1.label} ≡ {m2.label}"
    x, bounds = q.unknowns(m1.domain)
    f1 = q.images(m1, x, bounds)
    f2 = q.substitute(m2.exprs, m2.domain.symbols, x, bounds)
    # Coordinates written alike (after the rules of verify.rewrite) cannot
    # differ: each stays in the query only as "a == a" (still translated, so
    # an operator outside the vocabulary is UNKNOWN as before; Z3 drops it).
    differ = q.any_of(*(q.ne(a, b) for a, b in zip(f1, f2) if a != b))
    alike = [q.eq(a, a) for a, b in zip(f1, f2) if a == b]
    outcome = q.run(bounds, [differ, *alike], [m1, m2], assume=assume, timeout_ms=timeout_ms)
    return q.verdict(outcome, "equivalent", subject, start,
                     proved=proved, refuted=lambda: _difference(m1, m2, outcome, x))


def _difference(m1, m2, outcome, x):
    """The point Z3 found where the two maps give different values."""
    params, point, found = _found(outcome, [m1, m2], x, m1.domain.names)
    a = q.concrete(m1, params)(*point)
    b = tuple(int(v) for v in q.concrete(m2, params).apply(*point))
    return {
        "counterexample": found,
        "reason": f"they differ at {point_text(m1.domain.names, point)}: {m1.label} gives "
        f"{point_text(m1.codomain.names, a)}, {m2.label} gives "
        f"{point_text(m2.codomain.names, b)}{q.params_text(params)}",
    }


def _checked(timeout_ms: object, **maps: object) -> int:
    """``timeout_ms`` checked, after each map (MapError naming its argument)."""
    for argument, m in maps.items():
        if not isinstance(m, IndexMap):
            raise MapError(f"{argument} must be an IndexMap; got {describe(m)}")
    return checked_timeout(timeout_ms)


def _found(outcome, maps, x, names):
    """The sizes and point ``x`` of Z3's model, and the counterexample naming both."""
    params, point = q.parameter_values(outcome, maps), q.point_of(outcome, x)
    return params, point, {**q.named(names, point), **q.named(params, params.values())}


def _domains_differ(m1: IndexMap, m2: IndexMap) -> CheckResult | None:
    """REFUTED when both domains have the same rank and concrete extents that
    differ: the first point (by position) that lies in one domain only."""
    e1, e2 = m1.domain.extents, m2.domain.extents
    concrete = m1.domain.is_concrete and m2.domain.is_concrete
    if len(e1) != len(e2) or not concrete or tuple(e1) == tuple(e2):
        return None
    k = next(i for i, (a, b) in enumerate(zip(e1, e2)) if a != b)
    point = tuple(min(a, b) if i == k else 0 for i, (a, b) in enumerate(zip(e1, e2)))
    names = m1.domain.names if e1[k] > e2[k] else m2.domain.names
    return CheckResult(
        Status.REFUTED, "equivalent", f"{m1.label} ≡ {m2.label}",
        counterexample=dict(zip(names, point)),
        reason=f"sizes differ: {m1.domain} vs {m2.domain}; "
               f"{point_text(names, point)} lies in one domain only",
        method="arithmetic")


def _check_same_domain(m1: IndexMap, m2: IndexMap) -> None:
    if m1.domain.rank != m2.domain.rank or not all(
            map(same_for_every_size, m1.domain.extents, m2.domain.extents)):
        raise MapError(
            f"check_equivalent needs domains with equal extents; got {m1.domain} and {m2.domain}"
        )
    if m1.codomain.rank != m2.codomain.rank:
        raise MapError(
            f"check_equivalent needs codomains of equal rank; got {m1.codomain} and {m2.codomain}"
        )
