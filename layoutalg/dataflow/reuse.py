"""The counting rule: one place that says what moves where, step by step.

Both the analytical model (:func:`layoutalg.dataflow.traffic`) and the
executor count accesses by this rule; the model is its closed form, and the
tests show the two agree exactly.

**The rule.** Each storage level an operand is resident in (see
``RESIDENCY`` in :mod:`layoutalg.dataflow.schedule`) holds one tile of it.
Walking the loop nest in order, at every step:

1. *write-back*: a level holding a C tile other than the one this step
   needs sends it to the level before it in C's chain (innermost first);
2. *fill*: a level holding a tile other than the one this step needs
   fetches it from the level before it (outermost first) — except a C tile
   never touched before, which starts at zero in place (no access: C is
   written, not read, on its first visit; read-modify-write after that);
3. *compute*: the step's ``mi·nj·kk`` MACs. The stationary operand is read
   from the registers once per MAC (C: read and written per MAC, without
   the read on its first touch). A streaming input tile is read once from
   L2 and hops into every PE that uses it (one array access per MAC). A
   streaming C tile is read from L2 (not on its first touch), its partial
   sums hop through the array (one per MAC), and it is written back to L2.

After the last step every level holding C writes it back (innermost first).
A move of n elements from level P to level Q is n reads at P and n writes at
Q; when one end is the registers the elements cross the array (n hops).

Hence the **Timeloop rule**: a level refetches a tile exactly when the index
of a loop that indexes it changes. When the one loop that does not index it
advances, the loops inside it wrap around, refetching the tile if one of
them indexes it and has more than one trip (otherwise the tile is reused).
:func:`fetch_factor` is that rule in closed form.

For an executor: perform each event of :func:`events` on the emulated
memories and add :func:`accesses` of it to the counters; the totals equal
:func:`simulate` and :func:`layoutalg.dataflow.traffic` exactly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import sympy

from layoutalg.dataflow.schedule import (
    INDEXED_BY,
    LOOP_ORDER,
    LOOPS,
    OPERANDS,
    Schedule,
    ceil_div,
)
from layoutalg.errors import DataflowError
from layoutalg.validate import concrete_sizes, instance_of, one_of

Tile = tuple[int, int]


@dataclass(frozen=True)
class Step:
    """One iteration of the tile loops."""

    ti: int
    tj: int
    tk: int

    def index(self, loop: str) -> int:
        return getattr(self, loop)

    def tile(self, operand: str) -> Tile:
        """The tile coordinates of ``operand`` this step uses (A: (ti, tk) …)."""
        rows, cols = INDEXED_BY[operand]
        return self.index(rows), self.index(cols)


@dataclass(frozen=True)
class Move:
    """``elements`` of one operand tile copied from ``source`` to ``target``.

    ``purpose`` is "fill" (bring a tile in) or "writeback" (send C partial
    sums out).
    """

    operand: str
    tile: Tile
    elements: int
    source: str
    target: str
    purpose: str


@dataclass(frozen=True)
class Zero:
    """A C tile never touched before starts at zero in ``level`` (no access)."""

    operand: str
    tile: Tile
    elements: int
    level: str


@dataclass(frozen=True)
class Compute:
    """The MACs of one step on a ``mi × nj × kk`` block."""

    step: Step
    shape: tuple[int, int, int]
    first_touch: bool

    @property
    def macs(self) -> int:
        mi, nj, kk = self.shape
        return mi * nj * kk


Event = Move | Zero | Compute


def loop_nest(schedule: Schedule) -> Iterator[Step]:
    """The steps of the schedule in execution order.

    >>> [tuple(vars(s).values()) for s in loop_nest(Schedule("ws", (2, 2, 2), (1, 2, 1)))]
    [(0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1)]
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="loop_nest")
    concrete_sizes(DataflowError, "loop_nest", schedule, *schedule.problem, *schedule.tiles)
    outer, middle, inner = schedule.loop_order
    for a in range(schedule.trip(outer)):
        for b in range(schedule.trip(middle)):
            for c in range(schedule.trip(inner)):
                yield Step(**{outer: a, middle: b, inner: c})


def extent(schedule: Schedule, loop: str, index: int) -> tuple[int, int]:
    """Element range ``[start, stop)`` of tile ``index`` along ``loop`` (edge tiles trimmed)."""
    size, dim = schedule.tile(loop), schedule.dim(loop)
    start = index * size
    return start, min(start + size, dim)


def tile_bounds(schedule: Schedule, operand: str, tile: Tile) -> tuple[tuple[int, int], ...]:
    """Row and column element ranges of an operand tile (what the executor slices)."""
    rows, cols = INDEXED_BY[operand]
    return extent(schedule, rows, tile[0]), extent(schedule, cols, tile[1])


def tile_elements(schedule: Schedule, operand: str, tile: Tile) -> int:
    (r0, r1), (c0, c1) = tile_bounds(schedule, operand, tile)
    return (r1 - r0) * (c1 - c0)


def events(schedule: Schedule) -> Iterator[Event]:
    """Every move, zero-fill and compute of the schedule, in order (the rule above)."""
    held: dict[tuple[str, str], Tile | None] = {
        (x, level): None for x in OPERANDS for level in schedule.residency(x)[1:]}
    touched: set[Tile] = set()
    c_chain = schedule.residency("C")
    for step in loop_nest(schedule):
        needed_c = step.tile("C")
        for parent, level in reversed(list(pairwise(c_chain))):
            old = held["C", level]
            if old is not None and old != needed_c:
                yield Move("C", old, tile_elements(schedule, "C", old), level, parent, "writeback")
                held["C", level] = None
        for operand in OPERANDS:
            needed = step.tile(operand)
            chain = schedule.residency(operand)
            for parent, level in pairwise(chain):
                if held[operand, level] == needed:
                    continue
                elements = tile_elements(schedule, operand, needed)
                if operand == "C" and needed not in touched:
                    yield Zero("C", needed, elements, level)
                else:
                    yield Move(operand, needed, elements, parent, level, "fill")
                held[operand, level] = needed
        first = needed_c not in touched
        touched.add(needed_c)
        spans = (extent(schedule, loop, step.index(loop)) for loop in LOOPS)
        yield Compute(step, tuple(stop - start for start, stop in spans), first)
    for parent, level in reversed(list(pairwise(c_chain))):
        last = held["C", level]
        if last is not None:
            yield Move("C", last, tile_elements(schedule, "C", last), level, parent, "writeback")


def accesses(schedule: Schedule, event: Event) -> list[tuple[str, str, str, int]]:
    """The accesses one event makes: ``(level, operand, kind, count)`` entries.

    ``kind`` is "read" or "write" at the storage levels (dram, l2,
    register) and "hop" at the array (an element entering a PE over the
    array network). A ``Compute`` also counts its MACs as ``("mac", "-",
    "op", n)``.
    """
    if isinstance(event, Zero):
        return []
    if isinstance(event, Move):
        n = event.elements
        found = [(event.source, event.operand, "read", n),
                 (event.target, event.operand, "write", n)]
        if "register" in (event.source, event.target):
            found.append(("array", event.operand, "hop", n))
        return found
    return _compute_accesses(schedule, event)


def _compute_accesses(schedule: Schedule, event: Compute) -> list[tuple[str, str, str, int]]:
    mi, nj, _ = event.shape
    macs = event.macs
    out_tile = mi * nj
    found = [("mac", "-", "op", macs)]
    for operand in OPERANDS:
        elements = tile_elements(schedule, operand, event.step.tile(operand))
        if operand == schedule.stationary:
            if operand == "C":
                first = out_tile if event.first_touch else 0
                found.append(("register", "C", "read", macs - first))
                found.append(("register", "C", "write", macs))
            else:
                found.append(("register", operand, "read", macs))
        elif operand == "C":
            found.append(("l2", "C", "read", 0 if event.first_touch else elements))
            found.append(("array", "C", "hop", macs))
            found.append(("l2", "C", "write", elements))
        else:
            found.append(("l2", operand, "read", elements))
            found.append(("array", operand, "hop", macs))
    return found


def simulate(schedule: Schedule) -> Counter:
    """Run the rule over the whole loop nest and total the accesses.

    Returns a ``Counter`` keyed by ``(level, operand, kind)`` (MACs under
    ``("mac", "-", "op")``). This is what an executor running the schedule
    must count; :func:`layoutalg.dataflow.traffic` gives the same numbers
    in closed form (and for symbolic sizes).
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="simulate")
    total: Counter = Counter()
    for event in events(schedule):
        for level, operand, kind, count in accesses(schedule, event):
            total[level, operand, kind] += count
    return total


def fetch_factor(schedule: Schedule, operand: str):
    """How many times each element of ``operand`` is brought into a level that
    holds one tile of it: the Timeloop rule in closed form.

    The one tile loop that does not index the operand multiplies the
    fetches by its trip count if some indexing loop nested inside it has more
    than one trip (the tile then changes whenever it advances); otherwise the
    tile stays put across it (reuse). Works for ints and SymPy sizes
    (``trip > 1`` is written ``tile < dim``).

    >>> fetch_factor(Schedule("os", (8, 8, 8), (4, 2, 4)), "A")   # A re-read for every tj
    4
    >>> fetch_factor(Schedule("os", (8, 8, 8), (4, 2, 8)), "A")   # one K tile: A stays
    1
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="fetch_factor")
    one_of(DataflowError, "operand", operand, OPERANDS, where="fetch_factor")
    return factor(schedule.dataflow, operand, schedule.problem, schedule.tiles)


def factor(dataflow: str, operand: str, problem: tuple, tiles: tuple):
    """:func:`fetch_factor` on raw sizes: ints, SymPy, or NumPy arrays of tiles
    (the tile search evaluates many tilings at once)."""
    order = LOOP_ORDER[dataflow]
    (free,) = [loop for loop in LOOPS if loop not in INDEXED_BY[operand]]
    position = LOOPS.index
    inner = order[order.index(free) + 1:]
    changes = [tiles[position(loop)] < problem[position(loop)] for loop in inner]
    trip = ceil_div(problem[position(free)], tiles[position(free)])
    return _where_any(changes, trip)


def _where_any(conditions: list, value):
    """``value`` if any condition holds, else 1 (ints, NumPy arrays or SymPy)."""
    if not conditions:
        return 1
    if any(isinstance(c, np.ndarray) for c in conditions):
        return np.where(np.logical_or.reduce([np.asarray(c) for c in conditions]), value, 1)
    if all(isinstance(c, (bool, np.bool_)) for c in conditions):
        return value if any(conditions) else 1
    return sympy.Piecewise((value, sympy.Or(*conditions)), (1, True))
