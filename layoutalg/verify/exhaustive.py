"""Exhaustive evaluation: a complete decision procedure for small concrete maps.

Used by :mod:`layoutalg.verify.enumerated` instead of asking Z3 when a map has
concrete sizes and few points. Every image is computed exactly
(:mod:`layoutalg.core.evaluate`), so each verdict is as complete as a proof; its
``method`` is ``"enumeration"``. Written apart from the test oracles
(:mod:`layoutalg.verify.brute`) so the differential tests compare two things:
an open grid of coordinates, one mixed-radix code per image sorted once (not a
row sort), filled slots by a flat index into the codomain.

Each function returns a ``CheckResult`` with the counterexample format of the
Z3 check of the same name (domain names; a second point primed), or None when
it declines (an image too large for a code, say): the caller then asks Z3,
which keeps its guards. A map that divides by 0 at some point has no value
there: the evaluator raises ``UndefinedValueError`` (never a verdict), and the
caller leaves the check to Z3.
"""

from __future__ import annotations

import math
import time

import numpy as np

from layoutalg.core import evaluate as ev
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.verify.result import CheckResult, Status, point_text

_CODE_LIMIT = 1 << 62  # a mixed-radix code of an image must stay below this (int64)


def _axes(space: Space) -> list[np.ndarray]:
    """One int64 array per dimension, shaped to broadcast over the space."""
    rank = space.rank
    return [np.arange(e, dtype=np.int64).reshape([e if k == j else 1 for j in range(rank)])
            for k, e in enumerate(space.extents)]


def _images(m: IndexMap) -> list[np.ndarray]:
    """``m``'s exact images of every domain point (row-major), one 1-D array per dim."""
    env, shape = dict(zip(m.domain.symbols, _axes(m.domain))), tuple(m.domain.extents)
    return [np.broadcast_to(v, shape).reshape(-1) for v in ev.evaluate_all(m.exprs, env)]


def holds(valid, space: Space, columns: list[np.ndarray] | None = None) -> np.ndarray:
    """``valid`` (None: true) at the given slots (``columns``), or at every slot of ``space``."""
    grid = columns is None
    env = dict(zip(space.symbols, _axes(space) if grid else columns))
    shape = tuple(space.extents) if grid else (len(columns[0]) if columns else 1,)
    value = True if valid is None else ev.evaluate(valid, env)
    return np.broadcast_to(np.asarray(value, dtype=bool), shape).reshape(-1)


def _outside(m: IndexMap, ys: list[np.ndarray]) -> np.ndarray:
    bad = np.zeros(math.prod(m.domain.extents), dtype=bool)
    for y, extent in zip(ys, m.codomain.extents):
        bad |= np.asarray((y < 0) | (y >= extent), dtype=bool)
    return bad


def _point(space: Space, k: int) -> tuple[int, ...]:
    return tuple(int(v) for v in np.unravel_index(int(k), tuple(space.extents)))


def _image(ys, k: int) -> tuple[int, ...]:
    return tuple(int(y[k]) for y in ys)


def _named(names, values, suffix: str = "") -> dict[str, int]:
    return {f"{n}{suffix}": int(v) for n, v in zip(names, values)}


def _done(status, check, subject, start, counterexample=None, reason="") -> CheckResult:
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def _proved(check: str, subject: str, start: float) -> CheckResult:
    return _done(Status.PROVED, check, subject, start, reason="every point enumerated")


def _begin(m: IndexMap, ys, start: float | None):
    """The images (computed unless given) and the start time (now unless given)."""
    return _images(m) if ys is None else ys, time.perf_counter() if start is None else start


def in_bounds(m: IndexMap, ys=None, start: float | None = None) -> CheckResult:
    ys, start = _begin(m, ys, start)
    bad = np.flatnonzero(_outside(m, ys))
    if bad.size == 0:
        return _proved("in_bounds", m.label, start)
    x, y = _point(m.domain, bad[0]), _image(ys, bad[0])
    escapes = [f"{n}={v} not in [0, {e})"
               for n, v, e in zip(m.codomain.names, y, m.codomain.extents) if not 0 <= v < e]
    return _done(Status.REFUTED, "in_bounds", m.label, start, _named(m.domain.names, x),
                 f"out of bounds: {point_text(m.domain.names, x)} maps to "
                 f"{point_text(m.codomain.names, y)}: {', '.join(escapes)}")


def _codes(ys: list[np.ndarray]) -> np.ndarray | None:
    """One int64 per image, equal exactly when the images are equal; None when
    the images span too much for an int64 code (or are past int64)."""
    code = np.zeros(len(ys[0]) if ys else 1, dtype=np.int64)
    span = 1
    for y in ys:
        if y.dtype == object:
            return None
        low, high = int(y.min()), int(y.max())
        width = high - low + 1
        span *= width
        if span >= _CODE_LIMIT:
            return None
        code = code * width + (y - low)
    return code


def injective(m: IndexMap, ys=None, start: float | None = None) -> CheckResult | None:
    ys, start = _begin(m, ys, start)
    codes = _codes(ys)
    if codes is None:
        return None
    order = np.argsort(codes, kind="stable")
    ranked = codes[order]
    same = np.flatnonzero(ranked[1:] == ranked[:-1])
    if same.size == 0:
        return _proved("injective", m.label, start)
    a, b = int(order[same[0]]), int(order[same[0] + 1])
    first, second = _point(m.domain, a), _point(m.domain, b)
    names = m.domain.names
    return _done(Status.REFUTED, "injective", m.label, start,
                 {**_named(names, first), **_named(names, second, "'")},
                 f"not injective: {point_text(names, first)} and {point_text(names, second)} "
                 f"both map to {point_text(m.codomain.names, _image(ys, a))}")


def images_valid(m: IndexMap, ys=None, start: float | None = None) -> CheckResult:
    ys, start = _begin(m, ys, start)
    inside = np.flatnonzero(~_outside(m, ys))
    ok = holds(m.valid, m.codomain, [y[inside] for y in ys])
    bad = inside[~ok]
    if bad.size == 0:
        return _proved("images_valid", m.label, start)
    x = _point(m.domain, bad[0])
    return _done(Status.REFUTED, "images_valid", m.label, start, _named(m.domain.names, x),
                 f"element {point_text(m.domain.names, x)} lands on padding slot "
                 f"{point_text(m.codomain.names, _image(ys, bad[0]))}")


def surjective(m: IndexMap, ys=None, start: float | None = None) -> CheckResult:
    ys, start = _begin(m, ys, start)
    inside = ~_outside(m, ys)
    filled = np.zeros(math.prod(m.codomain.extents), dtype=bool)
    if inside.any():
        slots = tuple(np.asarray(y[inside], dtype=np.int64) for y in ys)  # inside: they fit
        filled[np.ravel_multi_index(slots, tuple(m.codomain.extents))] = True
    empty = np.flatnonzero(holds(m.valid, m.codomain) & ~filled)
    if empty.size == 0:
        return _proved("surjective", m.label, start)
    p = _point(m.codomain, empty[0])
    return _done(Status.REFUTED, "surjective", m.label, start, _named(m.codomain.names, p),
                 f"not onto: valid slot {point_text(m.codomain.names, p)} holds no element")


def bijective(m: IndexMap) -> CheckResult | None:
    """In bounds, injective, on valid slots, onto them: the first part refuted."""
    start = time.perf_counter()
    ys = _images(m)
    for part in (in_bounds, injective, images_valid, surjective):
        verdict = part(m, ys, start)
        if verdict is None:
            return None
        if verdict.refuted:
            return _done(Status.REFUTED, "bijective", m.label, start,
                         verdict.counterexample, verdict.reason)
    return _proved("bijective", m.label, start)


def equivalent(m1: IndexMap, m2: IndexMap) -> CheckResult | None:
    """Same values at every point of one domain (the caller checks the domains match)."""
    start = time.perf_counter()
    subject = f"{m1.label} ≡ {m2.label}"
    if tuple(m1.domain.extents) != tuple(m2.domain.extents):
        return None
    a, b = _images(m1), _images(m2)
    differ = [np.asarray(u != v, dtype=bool) for u, v in zip(a, b)]
    bad = np.flatnonzero(np.any(differ, axis=0))
    if bad.size == 0:
        return _proved("equivalent", subject, start)
    x = _point(m1.domain, bad[0])
    return _done(Status.REFUTED, "equivalent", subject, start, _named(m1.domain.names, x),
                 f"they differ at {point_text(m1.domain.names, x)}: {m1.label} gives "
                 f"{point_text(m1.codomain.names, _image(a, bad[0]))}, {m2.label} gives "
                 f"{point_text(m2.codomain.names, _image(b, bad[0]))}")
