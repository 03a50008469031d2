"""The four facts of a bijection with an inverse, in two queries instead of four.

``check_bijective`` proves four facts, each its own query: in bounds,
injective (by the left inverse when there is one), images on valid slots,
and onto (by the inverse, right on every valid slot). Here the three facts
about a domain point ``x`` are one query (is there an ``x`` with ``f(x)``
outside the codomain, or ``g(f(x)) != x``, or ``f(x)`` inside on a slot
``valid`` calls padding?) and the inverse's rightness on the valid slots
(:func:`inverse_misses`) the other. Unsat twice proves the map a bijection
onto its valid slots with an inverse right on each of them. Any other
answer proves nothing by itself: the caller then runs the checks one by one,
which say which fact fails and where (a wrong inverse never refutes a
correct map).

On the 110 shipped bijective claims (CPU s, each cold): four queries 14.5,
two 10.0, all four facts in one 13.1 (fastest on most maps, but 4.0 s
against 0.33 s on the symbolic height-sharded TT tensor). The small steps of
a chain (``check_bijective_by_parts``'s later parts) gain most from one
query, so there it is tried first for at most ``TOGETHER_MS``: 8.2 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.verify import query as q

TIMEOUT_MS = 5_000  # the point query's cap: past it the checks one by one decide
TOGETHER_MS = 1_000  # past this the two queries decide
SLOT_SUFFIX = "~"


@dataclass(frozen=True)
class Attempt:
    """What the two queries found: ``proved`` (both unsat), and each answer
    (None: not asked), so a caller falling back asks only what is open. An
    unsat ``point`` alone proves ``m`` in bounds, injective (by the left
    inverse) and on valid slots."""

    proved: bool
    point: q.Outcome | None = None
    inverse: q.Outcome | None = None

    @property
    def point_proved(self) -> bool:
        return self.point is not None and self.point.answer == "unsat"


def inverse_misses(m: IndexMap, assume: Sequence[object], timeout_ms: int):
    """Ask for a valid slot ``p`` whose ``inverse(p)`` lies outside the domain
    or does not map back to ``p``; ``unsat`` means the inverse is right on
    every valid slot. The model names ``p`` by the codomain's symbols."""
    p, bounds = q.unknowns(m.codomain)
    valid = sympy.true if m.valid is None else m.valid
    return q.run(bounds, [valid, sympy.Or(*_slot_misses(m, p, bounds))], [m], assume=assume,
                 timeout_ms=timeout_ms)


def _slot_misses(m: IndexMap, p, bounds) -> list:
    """A slot's ways to fail: ``inverse(p)`` escapes the domain or does not
    map back to ``p``."""
    gp = q.substitute(m.inverse, m.codomain.symbols, p, bounds)
    back = q.substitute(m.exprs, m.domain.symbols, gp, bounds)
    return ([q.outside(v, e) for v, e in zip(gp, m.domain.extents)]
            + [q.ne(a, b) for a, b in zip(back, p)])


def attempt(m: IndexMap, assume: Sequence[object], timeout_ms: int, *,
            together: bool = False) -> Attempt:
    """The two queries (see the module docstring), with their answers.

    ``together`` first asks all four facts in one query, for at most
    ``TOGETHER_MS`` (for the small steps of a chain). The point query gets
    at most ``TIMEOUT_MS``; the inverse query, asked only when the point
    query is unsat, the whole ``timeout_ms``, as ``check_surjective`` asks
    it (inside ``query.asks_once`` a caller falling back reuses its answer)."""
    if m.inverse is None:
        return Attempt(False)
    if together and _all_at_once(m, assume, min(timeout_ms, TOGETHER_MS)):
        return Attempt(True)
    x, bounds = q.unknowns(m.domain)
    failures = _point_failures(m, x, q.images(m, x, bounds), bounds)
    point = q.run(bounds, [sympy.Or(*failures)], [m], assume=assume,
                  timeout_ms=min(timeout_ms, TIMEOUT_MS))
    if point.answer != "unsat":
        return Attempt(False, point)
    inverse = inverse_misses(m, assume, timeout_ms)
    return Attempt(inverse.answer == "unsat", point, inverse)


def _point_failures(m: IndexMap, x, fx, bounds) -> list:
    """A domain point's ways to fail: its image escapes, the inverse does not
    bring it back, or it lands inside on padding."""
    back = q.substitute(m.inverse, m.codomain.symbols, fx, bounds)
    failures = [q.outside(v, e) for v, e in zip(fx, m.codomain.extents)]
    failures += [q.ne(a, b) for a, b in zip(back, x)]
    if m.valid is not None:
        on_padding = sympy.Not(q.substitute([m.valid], m.codomain.symbols, fx, bounds)[0])
        inside = [sympy.Not(q.outside(v, e)) for v, e in zip(fx, m.codomain.extents)]
        failures.append(sympy.And(*inside, on_padding))
    return failures


def _all_at_once(m: IndexMap, assume: Sequence[object], timeout_ms: int) -> bool:
    """One query: a domain point that fails, or a valid slot ``p`` (its
    unknowns suffixed, so a codomain dimension named like a domain one is
    another unknown) whose inverse escapes or does not map back to ``p``."""
    x, bounds_x = q.unknowns(m.domain)
    p, bounds_p = q.unknowns(m.codomain, SLOT_SUFFIX)
    bounds = bounds_x + bounds_p
    failures = _point_failures(m, x, q.images(m, x, bounds), bounds)
    valid = sympy.true if m.valid is None else q.substitute([m.valid], m.codomain.symbols, p,
                                                            bounds)[0]
    failures.append(sympy.And(valid, sympy.Or(*_slot_misses(m, p, bounds))))
    return q.run(bounds, [sympy.Or(*failures)], [m], assume=assume,
                 timeout_ms=timeout_ms).answer == "unsat"
