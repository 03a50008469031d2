"""The counting rule: one place that says what moves where, step by step.

The analytical model (:func:`layoutalg.dataflow.traffic`) is its closed form
and the executor counts by it; the tests show the three agree exactly. The
rule in full is in ``docs/dataflow.md`` ("The counting rule"): each level an
operand is resident in (``RESIDENCY``) holds one tile of it; at every step a
level holding another C tile writes it back (innermost first), a level
holding another tile fetches the needed one from its parent (outermost
first; a C tile never touched before starts at zero, no access), then the
step's MACs run (:func:`accesses`); after the last step C is written back.
A move of n elements is n reads at its source, n writes at its target, and
n array hops when one end is the registers. Hence the Timeloop rule
(:func:`fetch_factor`): a level refetches a tile exactly when the index of
a loop that indexes it changes.

For an executor: perform each event of :func:`events` on the emulated
memories and add :func:`accesses` of it to the counters; the totals equal
:func:`simulate` and :func:`layoutalg.dataflow.traffic` exactly.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise, product

import numpy as np
import sympy

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.schedule import INDEXED_BY, LOOP_ORDER, LOOPS, OPERANDS, Schedule
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
    """``elements`` of one operand tile copied from ``source`` to ``target``;
    ``purpose`` is "fill" (bring a tile in) or "writeback" (C partial sums out)."""

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
        return math.prod(self.shape)


Event = Move | Zero | Compute


def loop_nest(schedule: Schedule) -> Iterator[Step]:
    """The steps of the schedule in execution order.

    >>> [tuple(vars(s).values()) for s in loop_nest(Schedule("ws", (2, 2, 2), (1, 2, 1)))]
    [(0, 0, 0), (1, 0, 0), (0, 0, 1), (1, 0, 1)]
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="loop_nest")
    concrete_sizes(DataflowError, "loop_nest", schedule, *schedule.problem, *schedule.tiles)
    order = schedule.loop_order
    for values in product(*(range(schedule.trip(loop)) for loop in order)):
        yield Step(**dict(zip(order, values)))


def extent(schedule: Schedule, loop: str, index: int) -> tuple[int, int]:
    """Element range ``[start, stop)`` of tile ``index`` along ``loop`` (edge tiles trimmed)."""
    start = index * schedule.tile(loop)
    return start, min(start + schedule.tile(loop), schedule.dim(loop))


def tile_bounds(schedule: Schedule, operand: str, tile: Tile) -> tuple[tuple[int, int], ...]:
    """Row and column element ranges of an operand tile (what the executor slices)."""
    rows, cols = INDEXED_BY[operand]
    return extent(schedule, rows, tile[0]), extent(schedule, cols, tile[1])


def tile_elements(schedule: Schedule, operand: str, tile: Tile) -> int:
    return math.prod(stop - start for start, stop in tile_bounds(schedule, operand, tile))


def events(schedule: Schedule) -> Iterator[Event]:
    """Every move, zero-fill and compute of the schedule, in order (the rule above)."""
    held: dict[tuple[str, str], Tile | None] = {
        (x, level): None for x in OPERANDS for level in schedule.residency(x)[1:]}
    touched: set[Tile] = set()

    def write_back(keep):  # C tiles other than ``keep``, innermost level first
        for parent, level in reversed(list(pairwise(schedule.residency("C")))):
            old = held["C", level]
            if old is not None and old != keep:
                yield Move("C", old, tile_elements(schedule, "C", old), level, parent, "writeback")
                held["C", level] = None

    for step in loop_nest(schedule):
        yield from write_back(step.tile("C"))
        for operand in OPERANDS:
            needed = step.tile(operand)
            for parent, level in pairwise(schedule.residency(operand)):
                if held[operand, level] == needed:
                    continue
                elements = tile_elements(schedule, operand, needed)
                if operand == "C" and needed not in touched:
                    yield Zero("C", needed, elements, level)
                else:
                    yield Move(operand, needed, elements, parent, level, "fill")
                held[operand, level] = needed
        first = step.tile("C") not in touched
        touched.add(step.tile("C"))
        spans = (extent(schedule, loop, step.index(loop)) for loop in LOOPS)
        yield Compute(step, tuple(stop - start for start, stop in spans), first)
    yield from write_back(None)


def accesses(schedule: Schedule, event: Event) -> list[tuple[str, str, str, int]]:
    """The accesses one event makes, ``(level, operand, kind, count)``: "read" or
    "write" at the storage levels, "hop" at the array (an element entering a PE),
    and a ``Compute``'s MACs as ``("mac", "-", "op", n)``."""
    if isinstance(event, Zero):
        return []
    if isinstance(event, Move):
        n = event.elements
        found = [(event.source, event.operand, "read", n),
                 (event.target, event.operand, "write", n)]
        if "register" in (event.source, event.target):
            found.append(("array", event.operand, "hop", n))
        return found
    mi, nj, _ = event.shape
    macs, first = event.macs, event.first_touch
    found = [("mac", "-", "op", macs)]
    for x in OPERANDS:
        elements = tile_elements(schedule, x, event.step.tile(x))
        if x == schedule.stationary == "C":
            found += [("register", "C", "read", macs - (mi * nj if first else 0)),
                      ("register", "C", "write", macs)]
        elif x == schedule.stationary:
            found.append(("register", x, "read", macs))
        elif x == "C":
            found += [("l2", "C", "read", 0 if first else elements), ("array", "C", "hop", macs),
                      ("l2", "C", "write", elements)]
        else:
            found += [("l2", x, "read", elements), ("array", x, "hop", macs)]
    return found


def simulate(schedule: Schedule) -> Counter:
    """The rule's accesses over the whole loop nest, a ``Counter`` keyed by ``(level,
    operand, kind)`` (MACs under ``("mac", "-", "op")``): what an executor must count,
    and what :func:`layoutalg.dataflow.traffic` gives in closed form."""
    instance_of(DataflowError, "schedule", schedule, Schedule, where="simulate")
    total: Counter = Counter()
    for event in events(schedule):
        for level, operand, kind, count in accesses(schedule, event):
            total[level, operand, kind] += count
    return total


def fetch_factor(schedule: Schedule, operand: str):
    """How many times each element of ``operand`` is brought into a level that
    holds one tile of it, the Timeloop rule in closed form: the trip count of
    the one tile loop that does not index it if some indexing loop nested inside
    has more than one trip (``tile < dim``), else 1 (reuse). Ints or SymPy.

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
    order, at = LOOP_ORDER[dataflow], LOOPS.index
    (free,) = [loop for loop in LOOPS if loop not in INDEXED_BY[operand]]
    conditions = [tiles[at(loop)] < problem[at(loop)] for loop in order[order.index(free) + 1:]]
    value = ceil_div(problem[at(free)], tiles[at(free)])
    # value if any condition holds, else 1 (ints, NumPy arrays or SymPy)
    if not conditions:
        return 1
    if any(isinstance(c, np.ndarray) for c in conditions):
        return np.where(np.logical_or.reduce([np.asarray(c) for c in conditions]), value, 1)
    if all(isinstance(c, (bool, np.bool_)) for c in conditions):
        return value if any(conditions) else 1
    return sympy.Piecewise((value, sympy.Or(*conditions)), (1, True))
