"""Exact per-level, per-operand access counts of a schedule, in closed form.

The totals of the counting rule in :mod:`layoutalg.dataflow.reuse` (the tests
run that rule step by step and compare), tabulated in ``docs/dataflow.md``
("The counting rule") with ``S_X`` an operand's elements, ``R_X`` its fetch
factor and ``F_X = S_X·R_X``. Every count is an int for concrete sizes and a
SymPy expression (``ceiling``, ``Piecewise``) for symbolic ones, which the Z3
proofs take.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import sympy

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.reuse import factor
from layoutalg.dataflow.schedule import INDEXED_BY, LEVELS, LOOPS, OPERANDS, RESIDENCY, Schedule
from layoutalg.errors import DataflowError
from layoutalg.validate import instance_of, one_of

KINDS = {"dram": ("read", "write"), "l2": ("read", "write"), "array": ("hop",),
         "register": ("read", "write")}
KEYS = tuple((level, operand, kind) for level in LEVELS for operand in OPERANDS
             for kind in KINDS[level])


def closed_form(dataflow: str, problem: tuple, tiles: tuple) -> dict[tuple[str, str, str], object]:
    """Access counts keyed ``(level, operand, kind)`` plus ``("mac", "-", "op")``; sizes
    may be ints, SymPy expressions, or NumPy arrays of tiles (one per candidate tiling)."""
    counts: dict[tuple[str, str, str], object] = {key: 0 for key in KEYS}
    macs, at = problem[0] * problem[1] * problem[2], LOOPS.index
    for x in OPERANDS:
        rows, cols = INDEXED_BY[x]
        whole = problem[at(rows)] * problem[at(cols)]
        fetched = whole * factor(dataflow, x, problem, tiles)
        # fills parent → level, and C's write-backs level → parent
        fills, back = (fetched - whole, fetched) if x == "C" else (fetched, 0)
        for parent, level in pairwise(RESIDENCY[dataflow][x]):
            counts[parent, x, "read"] += fills
            counts[level, x, "write"] += fills
            counts[level, x, "read"] += back
            counts[parent, x, "write"] += back
            if "register" in (parent, level):
                counts["array", x, "hop"] += fills + back
        if "register" in RESIDENCY[dataflow][x]:  # the stationary operand
            counts["register", x, "read"] += macs - whole if x == "C" else macs
            if x == "C":
                counts["register", "C", "write"] += macs
            continue
        (free,) = [loop for loop in LOOPS if loop not in (rows, cols)]
        steps_using = ceil_div(problem[at(free)], tiles[at(free)])
        counts["array", x, "hop"] += macs
        counts["l2", x, "read"] += whole * (steps_using - 1) if x == "C" else whole * steps_using
        if x == "C":
            counts["l2", "C", "write"] += whole * steps_using
    counts["mac", "-", "op"] = macs
    return counts


@dataclass(frozen=True)
class Traffic:
    """Accesses of a schedule per level ("dram", "l2", "array": hops into PEs,
    "register"), operand and kind ("read"/"write", or "hop" at the array), in elements.

    >>> t = traffic(Schedule("os", (4, 4, 4), (2, 4, 4)))
    >>> t.get("dram", "B", "read"), t.dram_bytes, t.compulsory_bytes
    (16, 192, 192)
    """

    schedule: Schedule
    counts: tuple[tuple[tuple[str, str, str], object], ...]
    macs: object

    @classmethod
    def from_mapping(cls, schedule: Schedule, counts: Mapping) -> Traffic:
        """Build from a mapping keyed ``(level, operand, kind)`` (missing keys are 0)."""
        items = tuple((key, _tidy(counts.get(key, 0))) for key in KEYS)
        return cls(schedule, items, _tidy(counts.get(("mac", "-", "op"), 0)))

    def get(self, level: str, operand: str, kind: str):
        """One count, e.g. ``get("dram", "C", "write")``."""
        one_of(DataflowError, "level", level, LEVELS, where="Traffic.get")
        one_of(DataflowError, "operand", operand, OPERANDS, where="Traffic.get")
        one_of(DataflowError, "kind", kind, KINDS[level], where="Traffic.get")
        return dict(self.counts)[level, operand, kind]

    def accesses(self, level: str | None = None, operand: str | None = None,
                 kind: str | None = None):
        """Sum of the counts matching the given level, operand and kind (None = all)."""
        if level is not None:
            one_of(DataflowError, "level", level, LEVELS, where="Traffic.accesses")
        if operand is not None:
            one_of(DataflowError, "operand", operand, OPERANDS, where="Traffic.accesses")
        return _tidy(sum(value for (lv, op, kd), value in self.counts
                         if level in (None, lv) and operand in (None, op) and kind in (None, kd)))

    def bytes(self, level: str | None = None, operand: str | None = None,
              kind: str | None = None):
        """:meth:`accesses` times the schedule's element size."""
        return _tidy(self.accesses(level, operand, kind) * self.schedule.element_bytes)

    @property
    def dram_bytes(self):
        """Bytes read from and written to DRAM."""
        return self.bytes("dram")

    @property
    def compulsory_bytes(self):
        """``element_bytes·(MK + KN + MN)``: read A and B once, write C once."""
        s = self.schedule
        return s.element_bytes * (s.size("A") + s.size("B") + s.size("C"))

    def as_dict(self) -> dict[tuple[str, str, str], object]:
        return dict(self.counts)

    def table(self) -> str:
        """A plain-text table: one row per level and kind, one column per operand."""
        rows = [f"{'level':<9} {'kind':<6}" + "".join(f"{op:>14}" for op in OPERANDS)]
        for level in LEVELS:
            for kind in KINDS[level]:
                cells = "".join(f"{self.get(level, op, kind)!s:>14}" for op in OPERANDS)
                rows.append(f"{level:<9} {kind:<6}{cells}")
        rows.append(f"{'mac':<9} {'op':<6}{self.macs!s:>14}")
        return "\n".join(rows)


def traffic(schedule: Schedule) -> Traffic:
    """Exact accesses of ``schedule`` at every level, per operand, in closed form.

    >>> t = traffic(Schedule("ws", (256, 64, 64), (64, 64, 32)))
    >>> t.get("dram", "B", "read") == 64 * 64   # B crosses DRAM once under WS
    True
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="traffic")
    return Traffic.from_mapping(
        schedule, closed_form(schedule.dataflow, schedule.problem, schedule.tiles))


def _tidy(value):
    """Plain ints stay ints; SymPy integers become ints; expressions are kept."""
    return int(value) if isinstance(value, sympy.Integer) else value
