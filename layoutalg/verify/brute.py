"""Brute-force twins of every check (docs/verification.md): NumPy enumeration of
small concrete maps, same names and verdicts as the Z3 checks. They never return
UNKNOWN, and refuse symbolic or too large maps with VerificationError."""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from layoutalg.core import evaluate as ev
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import VerificationError
from layoutalg.verify.conflicts import validate as validate_conflicts
from layoutalg.verify.memory import byte_end, flat_offset, memory_dims
from layoutalg.verify.result import CheckResult, Padding, Status, point_text

MAX_POINTS = 1 << 22


def points(space: Space, limit: int = MAX_POINTS) -> np.ndarray:
    """Every point of a concrete space, row-major, as an ``(n, rank)`` int64 array."""
    if not space.is_concrete:
        raise VerificationError(f"enumeration needs concrete extents; {space} is symbolic")
    size = math.prod(space.extents)
    if size > limit:
        raise VerificationError(f"enumeration of {space} ({size} points) exceeds the limit {limit}")
    if space.rank == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.indices(space.extents, dtype=np.int64).reshape(space.rank, -1).T


def _columns(values, n: int) -> np.ndarray:
    """An ``(n, len(values))`` array, each value broadcast to a column."""
    return np.stack([np.broadcast_to(v, (n,)) for v in values], axis=1) if values else (
        np.zeros((n, 0), dtype=np.int64))


def image_table(m: IndexMap) -> tuple[np.ndarray, np.ndarray]:
    """``(domain points, images)``, both ``(n, rank)`` arrays.

    The images are exact: int64 when every one fits, else an object array of
    Python ints (a wrapped image could land back inside the codomain). A map
    that divides by 0 at a domain point has no value there: the evaluator
    refuses it (``UndefinedValueError`` naming the point), never inventing 0.
    """
    xs = points(m.domain)
    return xs, ev.narrow(_columns(m.apply(*xs.T), len(xs)))


def _result(status, check, subject, start, counterexample=None, reason="enumerated"):
    return CheckResult(status, check, subject, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def _named(names, values, suffix=""):
    return {f"{n}{suffix}": int(v) for n, v in zip(names, values)}


def _outside(m: IndexMap, ys: np.ndarray) -> np.ndarray:
    extents = ev.narrow(np.asarray(m.codomain.extents, dtype=object))
    return np.any((ys < 0) | (ys >= extents), axis=1)


def _first_bad(check: str, m: IndexMap, start: float, xs, ys, bad, reason: str) -> CheckResult:
    """PROVED when no row of the image table is ``bad``; else REFUTED at the first, its
    ``reason`` naming the element ``{x}`` and its image ``{y}``."""
    rows = np.flatnonzero(bad)
    if rows.size == 0:
        return _result(Status.PROVED, check, m.label, start)
    x = xs[rows[0]]
    return _result(Status.REFUTED, check, m.label, start, _named(m.domain.names, x),
                   reason.format(x=point_text(m.domain.names, x),
                                 y=point_text(m.codomain.names, ys[rows[0]])))


def check_in_bounds(m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    xs, ys = image_table(m)
    return _first_bad("in_bounds", m, start, xs, ys, _outside(m, ys),
                      "out of bounds: {x} maps to {y}")


def check_injective(m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    xs, ys = image_table(m)
    order = np.lexsort(ys.T[::-1]) if ys.shape[1] else np.arange(len(ys))
    sorted_ys = ys[order]
    hits = np.flatnonzero(np.all(sorted_ys[1:] == sorted_ys[:-1], axis=1))
    if hits.size == 0:
        return _result(Status.PROVED, "injective", m.label, start)
    a, b = xs[order[hits[0]]], xs[order[hits[0] + 1]]
    names = m.domain.names
    return _result(Status.REFUTED, "injective", m.label, start,
                   {**_named(names, a), **_named(names, b, "'")},
                   f"not injective: {point_text(names, a)} and {point_text(names, b)} both map "
                   f"to {point_text(m.codomain.names, sorted_ys[hits[0]])}")


def _valid_mask(m: IndexMap, slots: np.ndarray) -> np.ndarray:
    if m.valid is None:
        return np.ones(len(slots), dtype=bool)
    env = dict(zip(m.codomain.symbols, slots.T))
    return np.broadcast_to(np.asarray(ev.evaluate(m.valid, env), dtype=bool), (len(slots),))


def check_images_valid(m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    xs, ys = image_table(m)
    inside = ~_outside(m, ys)
    ok = np.ones(len(ys), dtype=bool)
    ok[inside] = _valid_mask(m, ys[inside])
    return _first_bad("images_valid", m, start, xs, ys, ~ok,
                      "element {x} lands on padding slot {y}")


def _occupied(m: IndexMap, ys: np.ndarray) -> np.ndarray:
    """A flat boolean array over the codomain: which slots some element fills."""
    extents = m.codomain.extents
    filled = np.zeros(math.prod(extents), dtype=bool)
    inside = ys[~_outside(m, ys)].astype(np.int64)  # inside the codomain: they fit
    if len(inside):
        filled[np.ravel_multi_index(tuple(inside.T), extents)] = True
    return filled


def check_surjective(m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    _, ys = image_table(m)
    slots = points(m.codomain)
    empty = np.flatnonzero(_valid_mask(m, slots) & ~_occupied(m, ys))
    if empty.size == 0:
        return _result(Status.PROVED, "surjective", m.label, start)
    p = slots[empty[0]]
    return _result(Status.REFUTED, "surjective", m.label, start, _named(m.codomain.names, p),
                   f"not onto: valid slot {point_text(m.codomain.names, p)} holds no element")


def check_bijective(m: IndexMap) -> CheckResult:
    start = time.perf_counter()
    for part in (check_in_bounds, check_injective, check_images_valid, check_surjective):
        verdict = part(m)
        if verdict.refuted:
            return _result(Status.REFUTED, "bijective", m.label, start,
                           verdict.counterexample, verdict.reason)
    return _result(Status.PROVED, "bijective", m.label, start)


def check_bijective_by_parts(chain) -> CheckResult:
    """The twin of the lemma-based check: the chain walked point by point,
    then the composition enumerated. A reached point that a part sends
    outside the next part's domain leaves the chain undefined there: REFUTED
    at that point of the chain's domain."""
    start = time.perf_counter()
    names = chain.parts[0].domain.names
    xs = reached = points(chain.parts[0].domain)
    for part, after in zip(chain.parts, chain.parts[1:]):
        images = _columns(part.apply(*reached.T), len(reached)).astype(object)
        limits = np.array(after.domain.extents, dtype=object)
        outside = np.flatnonzero(np.any((images < 0) | (images >= limits), axis=1))
        if outside.size:
            k = outside[0]
            return _result(Status.REFUTED, "bijective_by_parts", chain.label, start,
                           _named(names, xs[k]),
                           f"the chain is not defined everywhere: {part.label} sends "
                           f"{point_text(names, xs[k])} to "
                           f"{point_text(part.codomain.names, images[k])}, outside "
                           f"{after.domain}")
        reached = images
    verdict = check_bijective(chain.index_map())
    return _result(verdict.status, "bijective_by_parts", chain.label, start,
                   verdict.counterexample, verdict.reason)


def check_equivalent(m1: IndexMap, m2: IndexMap) -> CheckResult:
    start = time.perf_counter()
    subject = f"{m1.label} ≡ {m2.label}"
    if (m1.domain.rank == m2.domain.rank and m1.domain.extents != m2.domain.extents
            and m1.domain.is_concrete and m2.domain.is_concrete):
        first = set(itertools.product(*(range(e) for e in m1.domain.extents)))
        second = set(itertools.product(*(range(e) for e in m2.domain.extents)))
        only = min(first ^ second)
        names = m1.domain.names if only in first else m2.domain.names
        return _result(Status.REFUTED, "equivalent", subject, start, _named(names, only),
                       f"sizes differ: {m1.domain} vs {m2.domain}; "
                       f"{point_text(names, only)} lies in one domain only")
    if m1.domain.extents != m2.domain.extents or m1.codomain.rank != m2.codomain.rank:
        raise VerificationError(
            f"check_equivalent needs equal domain extents and codomain ranks; got "
            f"{m1.domain} → {m1.codomain} and {m2.domain} → {m2.codomain}")
    xs, a = image_table(m1)
    _, b = image_table(m2)
    bad = np.flatnonzero(np.any(a != b, axis=1))
    if bad.size == 0:
        return _result(Status.PROVED, "equivalent", subject, start)
    k = bad[0]
    return _result(Status.REFUTED, "equivalent", subject, start, _named(m1.domain.names, xs[k]),
                   f"they differ at {point_text(m1.domain.names, xs[k])}: {m1.label} gives "
                   f"{point_text(m1.codomain.names, a[k])}, {m2.label} gives "
                   f"{point_text(m2.codomain.names, b[k])}")


def padding(m: IndexMap) -> Padding:
    """Codomain slots no element occupies, counted by enumeration."""
    filled = _occupied(m, image_table(m)[1])
    return Padding(int(filled.size - filled.sum()), int(filled.size), method="enumeration")


def check_fits(m: IndexMap, capacity: int, *, per: Sequence[str] | None = None,
               element_bytes: int = 1, offsets_in_bytes: bool = False,
               memory_name: str = "memory") -> CheckResult:
    start = time.perf_counter()
    memory, inside = memory_dims(m, per)
    if not m.codomain.is_concrete:
        raise VerificationError(f"enumeration needs concrete extents; {m.codomain} is symbolic")
    xs, ys = image_table(m)
    # The evaluator bounds flat·extent + image (an image far outside the
    # codomain must not wrap into a small byte count).
    slot = m.codomain.symbols
    need = ev.evaluate(byte_end(flat_offset(m, slot, inside), element_bytes, offsets_in_bytes),
                       dict(zip(slot, ys.T)))
    need = np.broadcast_to(need, (len(ys),))
    if len(need) == 0 or need.max() <= capacity:
        return _result(Status.PROVED, "fits", m.label, start)
    k = int(np.argmax(need))
    where = tuple(int(ys[k, j]) for j in memory)
    label = where[0] if len(where) == 1 else where
    owner = f"{memory_name} {label}" if where else "the layout"
    return _result(Status.REFUTED, "fits", m.label, start,
                   {**_named(m.domain.names, xs[k]), "bytes": int(need[k])},
                   f"{owner} exceeds memory: {int(need[k])} > {capacity} bytes")


def check_conflict_free(space: Space, accesses: Mapping[str, IndexMap],
                        resource: IndexMap | None = None, *,
                        subject: str = "accesses") -> CheckResult:
    start = time.perf_counter()
    named = validate_conflicts(space, accesses, resource)
    its = points(space)
    used = {}
    for label, access in named.items():
        address = _columns(access.apply(*its.T), len(its))
        used[label] = address if resource is None else _columns(
            resource.apply(*address.T), len(its))
    for x, y in itertools.combinations(used, 2):
        clash = np.flatnonzero(np.all(used[x] == used[y], axis=1))
        if clash.size:
            point = its[clash[0]]
            names = resource.codomain.names if resource is not None else named[x].codomain.names
            return _result(Status.REFUTED, "conflict_free", subject, start,
                           _named(space.names, point),
                           f"conflict at {point_text(space.names, point)}: {x} and {y} both use "
                           f"{point_text(names, used[x][clash[0]])}")
    return _result(Status.PROVED, "conflict_free", subject, start)
