"""What ``compose`` must know about its parts, each fact proved once per map.

``first``'s images lie in its codomain and in ``then``'s domain, and
``then``'s inverse is right and left (it pulls ``first``'s padding back): both are
proved here, with Z3 or by enumeration when the map is concrete and small,
and kept by map (domain, codomain, formulas, inverse, valid and assumptions,
not its name), so a map composed many times is proved once. Only PROVED and
REFUTED answers are kept (they do not depend on the time allowed). Without a
usable inverse, :func:`reached_condition` lists the slots of a concrete
``then`` that no real point of ``first`` reaches.

Maps the combinators build from a ``Space`` are *exact by construction*: in
bounds, a bijection onto their valid slots, with an inverse that is right on
every valid slot and left on every point. The core records them
(:mod:`layoutalg.core.exact`, bookkeeping without a proof) and they need no
query here; a composition of two exact maps is exact again.
"""

from __future__ import annotations

import math
import time

import numpy as np
import sympy

from layoutalg.core import evaluate as ev
from layoutalg.core.exact import Memo, is_exact, key, mark_exact
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import flatten
from layoutalg.verify import query as q
from layoutalg.verify.checks import check_in_bounds
from layoutalg.verify.exhaustive import holds
from layoutalg.verify.one_query import inverse_misses
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult, Status

ENUMERATION_LIMIT = 1 << 16
RUN_LIMIT = 256

_Memo = Memo  # the bounded memo (core.exact), by the name the tests know

_parts = Memo()  # key of a composition -> (first, then)
_in_bounds = Memo()  # key -> CheckResult (PROVED or REFUTED) of "images in its codomain"
_fits = Memo()  # (key, target extents) -> CheckResult of "images in the target"
_inverse = Memo()  # key -> CheckResult of "inverse right and left"

def note_composition(composed: IndexMap, first: IndexMap, then: IndexMap) -> None:
    """Remember the parts of ``composed``: its images are ``then``'s images of
    points inside ``then``'s domain (compose proved that), so ``then`` being in
    bounds on its whole domain puts ``composed`` in bounds. Two exact parts
    make an exact composition: images in bounds and valid, and the composed
    inverse ``first⁻¹ ∘ then⁻¹`` right and left, part by part."""
    k = key(composed)
    if k not in (key(first), key(then)):  # a part equal to the whole would recurse forever
        _parts.put(k, (first, then))
    if is_exact(first) and is_exact(then):
        mark_exact(composed)


def parts_of(m: IndexMap, _opening: frozenset = frozenset()) -> list[IndexMap] | None:
    """The parts ``compose`` made ``m`` of, first to last (a part that was a
    composition itself opened up in turn); None when ``m`` was not composed
    here (or was forgotten). A part whose records lead back to a map being
    opened (``A = B ∘ r`` and ``B = A ∘ r⁻¹``) stays whole."""
    k = key(m)
    recorded = _parts.get(k)
    if recorded is None or k in _opening:
        return None
    first, then = recorded
    return (parts_of(first, _opening | {k}) or [first]) + [then]


def in_own_codomain(
    m: IndexMap, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS,
    _opening: frozenset = frozenset(),
) -> CheckResult:
    """``check_in_bounds(m)``, from memory when known: exact by construction,
    proved before, or a composition whose last part is in bounds everywhere
    (records that lead back to a map being asked about are not followed, as in
    :func:`parts_of`)."""
    start = time.perf_counter()
    k = key(m)
    known = _in_bounds.get(k)
    if known is not None and (known.proved or not assume):
        return known
    if is_exact(m):
        return q.result(Status.PROVED, "in_bounds", m.label, start,
                        reason=f"every image lies in {m.codomain} (by construction)")
    parts = _parts.get(k)
    if parts is not None and k not in _opening:
        last = in_own_codomain(parts[1], timeout_ms=timeout_ms, _opening=_opening | {k})
        if last.proved:
            verdict = q.result(Status.PROVED, "in_bounds", m.label, start,
                               reason=f"every image lies in {m.codomain} (its last part "
                               f"{parts[1].label} is in bounds on its whole domain)")
            _in_bounds.put(k, verdict)
            return verdict
    verdict = check_in_bounds(m, assume=assume, timeout_ms=timeout_ms)
    if verdict.status is not Status.UNKNOWN and not assume:
        _in_bounds.put(k, verdict)
    return verdict


def lands_in(
    first: IndexMap, target: Space, *, assumptions=(), timeout_ms: int = DEFAULT_TIMEOUT_MS
) -> CheckResult:
    """Every image of ``first`` lies in its own codomain and in ``target``.

    In its own codomain first (a map escaping it is no map); then, where
    ``target`` is not seen to be as wide, in ``target`` itself, under
    ``first``'s assumptions and the extra ``assumptions``. REFUTED carries
    a domain point of ``first`` whose image escapes.
    """
    wider = [_at_least(b, a) for a, b in zip(first.codomain.extents, target.extents)]
    narrower = [_at_least(a, b) for a, b in zip(first.codomain.extents, target.extents)]
    if not all(narrower) or all(wider):
        own = in_own_codomain(first, timeout_ms=timeout_ms)
        if not own.proved or all(wider):
            return own
    probe = IndexMap(first.domain, target, first.exprs, name=first.label,
                     assumptions=first.assumptions + tuple(assumptions))
    return _remembered(_fits, (key(probe), target.extents),
                       lambda: check_in_bounds(probe, timeout_ms=timeout_ms))


def inverse_exact(then: IndexMap, *, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """``then``'s inverse ``g`` can pull a predicate back through ``then``.

    Right on every valid slot (``g(y)`` in the domain and ``then(g(y)) = y``)
    and left on every point ``then`` sends to a valid slot inside its
    codomain (``g(then(z)) = z``): then a valid slot ``y`` holds an element
    of a set ``V`` exactly when ``g(y)`` is in ``V``. Two quantifier-free
    queries, or none for a map exact by construction.
    """
    start = time.perf_counter()
    if then.inverse is None:
        return q.result(Status.UNKNOWN, "inverse", then.label, start,
                        reason=f"{then.label} has no inverse")
    if is_exact(then):
        return q.result(Status.PROVED, "inverse", then.label, start,
                        reason="right and left (by construction)")
    return _remembered(_inverse, key(then), lambda: _inverse_by_enumeration(then, start)
                       if _enumerable(then) else _prove_inverse(then, start, timeout_ms))


def _remembered(memo: Memo, k, verdict) -> CheckResult:
    """The verdict kept in ``memo`` under ``k``, else ``verdict()``, kept unless UNKNOWN."""
    known = memo.get(k)
    if known is None:
        known = verdict()
        if known.status is not Status.UNKNOWN:
            memo.put(k, known)
    return known


def _prove_inverse(then: IndexMap, start: float, timeout_ms: int) -> CheckResult:
    right = inverse_misses(then, (), timeout_ms)
    if right.answer != "unsat":
        return _inverse_verdict(then, right, start, "right",
                                lambda: q.point_of(right, then.codomain.symbols))
    z, bounds = q.unknowns(then.domain)
    image = q.images(then, z, bounds)
    inside = [sympy.Not(q.outside(v, e)) for v, e in zip(image, then.codomain.extents)]
    valid = [] if then.valid is None else [
        q.substitute([then.valid], then.codomain.symbols, image, bounds)[0]]
    back = q.substitute(then.inverse, then.codomain.symbols, image, bounds)
    moved = sympy.Or(*(q.ne(a, b) for a, b in zip(back, z)))
    left = q.run(bounds, [*inside, *valid, moved], [then], timeout_ms=timeout_ms)
    if left.answer != "unsat":
        return _inverse_verdict(then, left, start, "left", lambda: q.point_of(left, z))
    return q.result(Status.PROVED, "inverse", then.label, start,
                    reason="right on every valid slot and left on every point sent to one")


def _inverse_by_enumeration(then: IndexMap, start: float) -> CheckResult:
    """The two conditions of :func:`inverse_exact`, over every slot and point."""
    for side, names, miss in (("right", then.codomain.names, _right_miss(then)),
                              ("left", then.domain.names, _left_miss(then))):
        if miss is not None:
            where = q.named(names, miss)
            return CheckResult(Status.REFUTED, "inverse", then.label, counterexample=where,
                               reason=f"its inverse is not {side} at ({_text(where)})",
                               seconds=time.perf_counter() - start, method="enumeration")
    return CheckResult(Status.PROVED, "inverse", then.label,
                       reason="right on every valid slot and left on every point sent to one "
                       "(enumerated)", seconds=time.perf_counter() - start, method="enumeration")


def _right_miss(then: IndexMap) -> list[int] | None:
    """A valid slot ``y`` with ``g(y)`` outside the domain or ``then(g(y)) != y``."""
    slots = _grid(then.codomain.extents)
    claimed = holds(then.valid, then.codomain, slots)
    back = _values(then.inverse, then.codomain.symbols, slots)
    ok = ~claimed | _inside(back, then.domain.extents)
    if np.all(ok):
        hit = [np.asarray(values[claimed]).astype(np.int64) for values in back]
        again = _values(then.exprs, then.domain.symbols, hit)
        ok[claimed] = np.all([a == s[claimed] for a, s in zip(again, slots)], axis=0)
    return _first(~ok, slots)


def _left_miss(then: IndexMap) -> list[int] | None:
    """A point ``z`` sent to a valid slot inside the codomain with ``g(then(z)) != z``."""
    z = _grid(then.domain.extents)
    images = _values(then.exprs, then.domain.symbols, z)
    lands = _inside(images, then.codomain.extents)
    if then.valid is not None and np.any(lands):
        lands[lands] = holds(then.valid, then.codomain,
                             [np.asarray(v[lands]).astype(np.int64) for v in images])
    again = _values(then.inverse, then.codomain.symbols, images)
    return _first(lands & ~np.all([a == v for a, v in zip(again, z)], axis=0), z)


def _first(bad: np.ndarray, points: list[np.ndarray]) -> list[int] | None:
    """The first of the ``points`` (one array per coordinate) where ``bad`` holds."""
    hits = np.flatnonzero(bad)
    return [int(p[hits[0]]) for p in points] if hits.size else None


def _inside(values: list[np.ndarray], extents) -> np.ndarray:
    """Which points (one array per coordinate) lie in the box ``[0, extents)``."""
    return np.all([(v >= 0) & (v < e) for v, e in zip(values, extents)], axis=0)


def _values(exprs, symbols, values) -> list[np.ndarray]:
    """``exprs`` over ``symbols`` at the points ``values`` (one array per symbol)."""
    env = dict(zip(symbols, values))
    return [np.broadcast_to(np.asarray(ev.evaluate(e, env)), (len(values[0]),)) for e in exprs]


def _text(where: dict) -> str:
    return ", ".join(f"{n}={v}" for n, v in where.items())


def _inverse_verdict(then, outcome, start, side, point) -> CheckResult:
    if outcome.answer == "unknown":
        return q.result(Status.UNKNOWN, "inverse", then.label, start,
                        reason=f"cannot tell whether its inverse is {side}: {outcome.reason}")
    where = q.named(then.codomain.names if side == "right" else then.domain.names, point())
    return q.result(Status.REFUTED, "inverse", then.label, start, counterexample=where,
                    reason=f"its inverse is not {side} at ({_text(where)})"
                    f"{q.params_text(q.parameter_values(outcome, [then]))}")


def not_enumerable(first: IndexMap, then: IndexMap) -> str | None:
    """None when ``then``'s domain and codomain (and ``first``'s codomain and
    padding) are concrete and small enough to enumerate; else why not."""
    symbolic = then.parameters | first.codomain.parameters
    if first.valid is not None:
        symbolic |= first.valid.free_symbols - set(first.codomain.symbols)
    if symbolic:
        return f"the sizes {sorted(map(str, symbolic))} are symbolic, so no list of slots will do"
    if not _enumerable(then):
        return (f"its domain or codomain is too large to list the slots (more than "
                f"{ENUMERATION_LIMIT} points) or has rank 0")
    return None


def _enumerable(m: IndexMap) -> bool:
    return (not m.parameters and m.domain.rank > 0 and m.codomain.rank > 0
            and max(math.prod(m.domain.extents), math.prod(m.codomain.extents))
            <= ENUMERATION_LIMIT)


def reached_condition(first: IndexMap, then: IndexMap) -> sympy.Basic | str | None:
    """False exactly on the valid slots of ``then`` that no real point of
    ``first`` reaches through ``then`` (a real point: inside ``first``'s
    codomain, where ``first.valid`` holds); None when there are none.

    By enumerating ``then``'s domain and codomain (:func:`not_enumerable`
    must be None). The slots are written as runs of their row-major flat
    index, ``Not(a <= flat < b or ...)``, or, past ``RUN_LIMIT`` runs, by
    their residues when the pattern repeats with a period ``p`` of at most
    ``RUN_LIMIT`` slots (checked on every slot: ``Not(flat mod p in R)``, e.g.
    the odd slots a stride-2 map never reaches); otherwise the predicate would
    be too large to check, and a sentence saying so is returned.
    """
    z = _grid(then.domain.extents)
    real = _inside(z, first.codomain.extents)
    real &= holds(first.valid, first.codomain, z)
    images = _values(then.exprs, then.domain.symbols, z)
    real &= _inside(images, then.codomain.extents)
    extents = then.codomain.extents
    filled = np.zeros(math.prod(extents), dtype=bool)
    if np.any(real):
        hit = tuple(np.asarray(values[real]).astype(np.int64) for values in images)
        filled[np.ravel_multi_index(hit, extents)] = True
    missed = holds(then.valid, then.codomain) & ~filled
    unreached = np.flatnonzero(missed)
    if not len(unreached):
        return None
    breaks = np.flatnonzero(np.diff(unreached) != 1) + 1
    runs = [(int(run[0]), int(run[-1]) + 1) for run in np.split(unreached, breaks)]
    flat = flatten(then.codomain.symbols, extents)
    if len(runs) > RUN_LIMIT:
        period = next((p for p in range(1, RUN_LIMIT + 1)
                       if np.array_equal(missed[p:], missed[:-p])), None)
        if period is None:
            return (f"its valid slots minus {len(unreached)} unreached ones in {len(runs)} "
                    f"runs (more than {RUN_LIMIT}) would be too large a predicate to check")
        return sympy.Not(sympy.Or(*(sympy.Eq(sympy.Mod(flat, period), int(r))
                                    for r in np.flatnonzero(missed[:period]))))
    return sympy.Not(sympy.Or(*(
        sympy.Eq(flat, a) if b == a + 1 else sympy.And(flat >= a, flat < b) for a, b in runs)))


def _grid(extents) -> list[np.ndarray]:
    """Every point of a concrete box, one flat array per dim (row-major)."""
    return [axis.ravel() for axis in np.meshgrid(*map(np.arange, extents), indexing="ij")]


def _at_least(a, b) -> bool:
    """Is ``a >= b`` for every size (as SymPy can tell)?"""
    return bool(sympy.simplify(sympy.sympify(a) - b).is_nonnegative)
