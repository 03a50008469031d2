"""How to move an array to and from the machine's cells, fastest exact way first.

A plan turns an :class:`~.analysis.Analysis` and the machine's row length
(cells per memory) into NumPy copies: **strided** (few strided views, when
each axis's table is a few mixed-radix progressions), **broadcast** (the
tables' broadcast sum, one scatter per block of rows) or **general** (the
map evaluated per block of rows). Every plan is exact: the strided form is
checked against the tables it replaces, the others use them or the map.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.lib.stride_tricks import as_strided

from layoutalg.core.bounds import INT64_LIMIT
from layoutalg.core.tiling import row_major_strides
from layoutalg.errors import MachineError
from layoutalg.execute.analysis import Analysis, _row_blocks, _weighted

MAX_SEGMENTS = 64   # progressions per axis before a table counts as irregular
MAX_COPIES = 4096   # strided copies per placement before falling back to scatter

Dims = tuple[tuple[int, int], ...]  # (size, stride), outermost first


@dataclass(frozen=True)
class Segment:
    """Elements ``[start, start + length)`` of one axis: table value
    ``base + Σ stride_k · digit_k`` over the mixed-radix digits of the index."""

    start: int
    length: int
    base: int
    dims: Dims


def progressions(table: np.ndarray) -> list[Segment] | None:
    """Cover ``table`` with mixed-radix progressions, or None if it takes too many.

    >>> [(s.start, s.length, s.base, s.dims) for s in progressions(np.array([0, 1, 10, 11, 20]))]
    [(0, 4, 0, ((2, 10), (2, 1))), (4, 1, 20, ())]
    """
    segments, start, n = [], 0, len(table)
    while start < n:
        length, dims = _block(table[start:])
        segments.append(Segment(start, length, int(table[start]), _coalesce(dims)))
        start += length
        if len(segments) > MAX_SEGMENTS:
            return None
    return segments


def _block(u: np.ndarray) -> tuple[int, Dims]:
    """The longest prefix of ``u`` that is one mixed-radix progression."""
    n = len(u)
    if n == 1:
        return 1, ()
    steps = np.diff(u)
    breaks = np.flatnonzero(steps != steps[0])
    size = int(breaks[0]) + 1 if breaks.size else n
    dims = [(size, int(steps[0]))]
    while n // size >= 2:
        count = n // size
        rows = u[:count * size].reshape(count, size)
        starts = rows[:, 0]
        step = int(starts[1] - starts[0])
        same = np.all(rows - starts[:, None] == rows[0] - starts[0], axis=1)
        regular = starts - starts[0] == step * np.arange(count)
        bad = np.flatnonzero(~(same & regular))
        repeat = int(bad[0]) if bad.size else count
        if repeat < 2:
            break
        dims.append((repeat, step))
        size *= repeat
        if repeat < count:
            break
    return size, tuple(reversed(dims))


def _coalesce(dims: Dims) -> Dims:
    """Merge an outer dim into the next when it continues it (fewer, longer loops)."""
    merged: list[tuple[int, int]] = []
    for size, stride in reversed(dims):  # innermost first
        if merged and stride == merged[-1][0] * merged[-1][1]:
            inner_size, inner_stride = merged.pop()
            merged.append((inner_size * size, inner_stride))
        elif size > 1:
            merged.append((size, stride))
    return tuple(reversed(merged))


class StridedPlan:
    """A few strided copies: one per combination of per-axis segments."""

    kind = "strided"

    def __init__(self, extents, base: int, segments: list[list[Segment]]) -> None:
        self.extents = extents
        self.copies = []
        element_strides = row_major_strides(extents)
        for combo in itertools.product(*segments):
            start = sum(s.start * e for s, e in zip(combo, element_strides))
            dims = [dim for segment in combo for dim in segment.dims]
            array_strides = [step * s for segment, step in zip(combo, element_strides)
                             for s in row_major_strides([size for size, _ in segment.dims])]
            self.copies.append((base + sum(s.base for s in combo), tuple(d[0] for d in dims),
                                tuple(d[1] for d in dims), start, tuple(array_strides)))

    def _views(self, cells: np.ndarray, flat: np.ndarray) -> Iterator:
        size = cells.itemsize
        for offset, shape, cell_strides, start, array_strides in self.copies:
            there = as_strided(cells[offset:], shape, [s * size for s in cell_strides])
            here = as_strided(flat[start:], shape, [s * size for s in array_strides])
            yield there, here

    def scatter(self, cells, source) -> None:
        for there, here in self._views(cells, source):
            there[...] = here

    def gather(self, cells, out) -> None:
        for there, here in self._views(cells, out):
            here[...] = there


class BlockPlan:
    """Scatters and gathers block by block of rows, through the destination
    cells that a subclass's ``_blocks()`` yields for each block."""

    def scatter(self, cells, source) -> None:
        for rows, dest in self._blocks():
            cells[dest] = source[rows]

    def gather(self, cells, out) -> None:
        for rows, dest in self._blocks():
            np.take(cells, dest, out=out[rows])


class BroadcastPlan(BlockPlan):
    """Destination cells as the broadcast sum of per-axis tables, by blocks of rows."""

    kind = "broadcast"

    def __init__(self, extents, constant: int, tables: dict[int, np.ndarray]) -> None:
        self.extents, self.constant, self.tables = extents, constant, tables

    def _blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        inner = int(np.prod(self.extents[1:], dtype=np.int64))
        for first, last in _row_blocks(self.extents):
            total = np.full((last - first,) + tuple(self.extents[1:]), self.constant,
                            dtype=np.int64)
            for axis, table in self.tables.items():
                part = table[first:last] if axis == 0 else table
                total += part.reshape([-1 if k == axis else 1 for k in range(len(self.extents))])
            yield slice(first * inner, last * inner), total.reshape(-1)


class GeneralPlan(BlockPlan):
    """Evaluate the map per block of rows (maps whose terms mix dimensions)."""

    kind = "general"

    def __init__(self, found: Analysis, row: int) -> None:
        self.found, self.row = found, row

    def _blocks(self) -> Iterator[tuple[slice, np.ndarray]]:
        for rows, memory, offset in self.found.blocks():
            yield rows, memory * self.row + _to_elements(offset, self.found)


def destinations(found: Analysis, row: int) -> np.ndarray:
    """The flat cell index of every element (row-major over the domain)."""
    return np.concatenate([dest for _, dest in GeneralPlan(found, row)._blocks()])


@lru_cache(maxsize=128)
def plan_for(found: Analysis, row: int) -> StridedPlan | BlockPlan:
    """The fastest exact plan for ``found`` on cells with ``row`` cells per memory."""
    if not found.separable:
        return GeneralPlan(found, row)
    terms = _cell_tables(found, row)
    if terms is None:
        return GeneralPlan(found, row)
    constant, tables = terms
    segments = [progressions(tables[axis]) if axis in tables
                else [Segment(0, extent, 0, ((extent, 0),) if extent > 1 else ())]
                for axis, extent in enumerate(found.extents)]
    if None in segments or math.prod(map(len, segments)) > MAX_COPIES:
        return BroadcastPlan(found.extents, constant, tables)
    return StridedPlan(found.extents, constant, segments)


def _cell_tables(found: Analysis, row: int):
    """Per-axis tables of the flat cell index ``memory·row + offset``, or None
    (byte offsets not on elements, or tables whose partial sums could pass
    int64: those scatter per element instead)."""
    inner = found.inner
    if found.in_bytes:
        size = found.itemsize
        constant, tables = inner
        if constant % size or any((t % size).any() for t in tables.values()):
            return None
        inner = constant // size, {a: t // size for a, t in tables.items()}
    return _weighted([found.memory, inner], [row, 1], INT64_LIMIT)


def _to_elements(offset: np.ndarray, found: Analysis) -> np.ndarray:
    if not found.in_bytes:
        return offset
    if (offset % found.itemsize).any():
        raise MachineError(f"layout {found.layout.label} puts an element at a byte offset that "
                           f"is not a multiple of its size {found.itemsize}")
    return offset // found.itemsize

