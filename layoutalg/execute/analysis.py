"""Where a layout's elements land on a machine, worked out once per layout.

:func:`analyse` checks every coordinate against the codomain's extents and
measures each memory's high-water mark, before anything is written. When
every codomain expression is a sum of per-dimension terms (grids, tiles,
block-cyclic deals, Spyre sticks, CuTe strides), it keeps one small table
per domain dimension instead of an array per element: the checks read table
extremes, and the plans (:mod:`.plan`) copy by strided views or broadcast
sums. Otherwise the map is evaluated on blocks of elements.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy

from layoutalg.core.bounds import INT64_LIMIT
from layoutalg.core.evaluate import evaluate, narrow
from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import row_major_strides
from layoutalg.errors import CapacityError, MachineError, PlacementError, describe
from layoutalg.execute.machine import Machine
from layoutalg.validate import boolean
from layoutalg.verify.result import point_text

BLOCK_ELEMENTS = 1 << 20
# In-memory offsets must stay NumPy int64 through ``offset * scale + itemsize``
# (scale and itemsize divide 64): a larger one fits no memory anyway.
MAX_OFFSET = (INT64_LIMIT - 64) // 64

Terms = tuple[int, dict[int, np.ndarray]]  # constant, {domain axis: table}


@dataclass(frozen=True, eq=False)
class Analysis:
    """A checked layout on a machine shape.

    ``memory`` and ``inner`` are per-axis tables of the flat memory index
    and of the in-memory offset (elements, or bytes when ``in_bytes``), or
    None when the map is not separable (then ``evaluate`` is used).
    """

    layout: IndexMap
    shape: tuple[int, ...]
    extents: tuple[int, ...]
    itemsize: int
    in_bytes: bool
    memory: Terms | None
    inner: Terms | None
    high_water: int  # bytes the fullest memory needs

    @property
    def separable(self) -> bool:
        return self.memory is not None

    @property
    def size(self) -> int:
        return int(np.prod(self.extents, dtype=np.int64))

    def blocks(self) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
        """(flat element slice, memory index, in-memory offset) for blocks of rows."""
        yield from _blocks(self.layout, self.shape, self.extents)


def analyse(layout: IndexMap, machine: Machine, itemsize: int, in_bytes: bool) -> Analysis:
    """Check ``layout`` against ``machine`` and measure it (cached per layout).

    Raises MachineError for a layout that does not suit the machine or puts
    an element outside its codomain, CapacityError (naming the memory and
    the bytes) when some memory would overflow.
    """
    check_pairing(layout, machine)
    if 64 % itemsize:
        raise MachineError(f"element size must divide 64 bytes (1, 2, 4, 8, 16 …); "
                           f"got {itemsize}")
    in_bytes = boolean(MachineError, "offsets_in_bytes", in_bytes)
    found = _analyse(layout, machine.shape, itemsize, in_bytes)
    if found.high_water > machine.capacity:
        need = memory_bytes(found)
        worst = int(np.argmax(need))
        raise CapacityError(machine.overflow(worst, int(need[worst])))
    return found


def measure(layout: IndexMap, machine: Machine, itemsize: int, in_bytes: bool) -> Analysis:
    """:func:`analyse` without the capacity check (to say by how much a layout overflows)."""
    check_pairing(layout, machine)
    return _analyse(layout, machine.shape, int(itemsize),
                    boolean(MachineError, "offsets_in_bytes", in_bytes))


def check_pairing(layout: IndexMap, machine: Machine) -> None:
    if not isinstance(layout, IndexMap):
        raise MachineError(f"layout must be an IndexMap; got {describe(layout)}")
    if not isinstance(machine, Machine):
        raise MachineError(f"machine must be a Machine; got {describe(machine)}")
    if not layout.is_concrete:
        raise MachineError(f"layout {layout.label} has symbolic extents; bind them first "
                           f"with .bind(...)")
    if layout.codomain.rank <= machine.rank:
        raise MachineError(
            f"layout {layout.label} places onto {layout.codomain} but the machine's memories are "
            f"picked by {machine.rank} dims {dict(machine.dims)}: the layout needs at least one "
            f"more dim to address inside a memory")
    if tuple(layout.codomain.extents[:machine.rank]) != machine.shape:
        raise MachineError(
            f"layout {layout.label} places onto {layout.codomain} but the machine has memories "
            f"{dict(machine.dims)} (the layout's first {machine.rank} dims must match them)")


def memory_bytes(found: Analysis) -> np.ndarray:
    """Bytes each memory needs: the end of its last element (0 if it holds none)."""
    need = np.zeros(math.prod(found.shape), dtype=np.int64)
    scale = 1 if found.in_bytes else found.itemsize
    for _, memory, offset in found.blocks():
        np.maximum.at(need, memory, offset * scale + found.itemsize)
    return need


def memory_counts(found: Analysis) -> np.ndarray:
    """Elements each memory receives (counting every element, collisions included)."""
    memories = math.prod(found.shape)
    counts = np.zeros(memories, dtype=np.int64)
    if found.separable:
        # The flat memory index is a sum of independent per-axis terms, so its
        # histogram over the whole domain is the convolution of theirs (an axis
        # without a term multiplies every count by its extent).
        constant, tables = found.memory
        hist = np.full(1, math.prod(e for a, e in enumerate(found.extents) if a not in tables))
        for table in tables.values():
            hist = np.convolve(hist, np.bincount(table - table.min()))
        low = constant + sum(int(t.min()) for t in tables.values())
        counts[low:low + len(hist)] = hist[:memories - low]
        return counts
    for _, memory, _ in found.blocks():
        counts += np.bincount(memory, minlength=memories)
    return counts


@lru_cache(maxsize=128)
def _analyse(layout: IndexMap, shape: tuple[int, ...], itemsize: int, in_bytes: bool) -> Analysis:
    extents = tuple(int(e) for e in layout.domain.extents)
    separable = _separable(layout, shape, extents)
    scale = 1 if in_bytes else itemsize
    if separable is not None:
        memory, inner = separable
        top = inner[0] + sum(int(t.max()) for t in inner[1].values())
        return Analysis(layout, shape, extents, itemsize, in_bytes, memory, inner,
                        top * scale + itemsize)
    top = max((int(o.max()) for _, _, o in _blocks(layout, shape, extents) if o.size),
              default=-1)
    return Analysis(layout, shape, extents, itemsize, in_bytes, None, None,
                    top * scale + itemsize if top >= 0 else 0)


def _separable(layout: IndexMap, shape, extents):
    """Per-axis tables of the memory index and the offset, or None.

    Every codomain coordinate must be separable; its table extremes are then
    its exact extremes, so the range check is exact too.
    """
    if not extents:
        return None
    codomain = tuple(int(e) for e in layout.codomain.extents)
    per_coordinate = []
    for k, expr in enumerate(layout.exprs):
        terms = _tables(expr, layout.domain)
        if terms is None:
            return None
        constant, tables = terms
        low = constant + sum(int(t.min()) for t in tables.values())
        high = constant + sum(int(t.max()) for t in tables.values())
        if low < 0 or high >= codomain[k]:   # the element at the extreme is outside
            value, pick = (low, np.argmin) if low < 0 else (high, np.argmax)
            _outside(layout, k, value, tuple(int(pick(tables[a])) if a in tables else 0
                                             for a in range(len(extents))))
        per_coordinate.append(terms)
    rank = len(shape)
    memory = _weighted(per_coordinate[:rank], row_major_strides(codomain[:rank]))
    inner = _weighted(per_coordinate[rank:], row_major_strides(codomain[rank:]))
    return None if memory is None or inner is None else (memory, inner)


def _weighted(terms_list, weights, limit: int = MAX_OFFSET) -> Terms | None:
    """The per-axis tables of ``Σ weight·coordinate``, or None when a partial
    sum could pass ``limit`` (then the layout is evaluated per element, exactly).
    A weight past ``limit`` within reach only ever multiplies 0: it is skipped,
    as in :func:`_offsets` (its int64 product would overflow)."""
    reach = sum((abs(c) + sum(max(-int(t.min()), int(t.max())) for t in parts.values())) * w
                for (c, parts), w in zip(terms_list, weights))
    if reach > limit:
        return None
    constant, tables = 0, {}
    for (c, parts), w in zip(terms_list, weights):
        if w > limit:   # c == 0 and every table is 0, or the reach would pass the limit
            continue
        constant += c * w
        for axis, table in parts.items():
            tables[axis] = tables.get(axis, 0) + table * w
    return constant, tables


def _outside(layout: IndexMap, k: int, value: int, point) -> None:
    name, extent = layout.codomain.names[k], layout.codomain.extents[k]
    raise PlacementError(
        f"layout {layout.label} places element {point_text(layout.domain.names, point)} at "
        f"{name}={value}, outside the codomain's {name} range [0, {extent})")


@lru_cache(maxsize=1024)
def _tables(expr, domain) -> Terms | None:
    """(constant, {axis: table}) when every term of ``expr`` uses ≤ 1 dimension."""
    symbols = domain.symbols
    constant = 0
    groups: dict[int, sympy.Expr] = {}
    for term in sympy.Add.make_args(sympy.expand(expr)):
        used = [k for k, s in enumerate(symbols) if s in term.free_symbols]
        if len(used) > 1:
            return None
        if not used:
            if not term.is_Integer:
                return None
            constant += int(term)
        else:
            groups[used[0]] = groups.get(used[0], 0) + term
    tables = {}
    for axis, part in groups.items():
        values = np.arange(int(domain.extents[axis]), dtype=np.int64)
        tables[axis] = np.broadcast_to(evaluate(part, {symbols[axis]: values}), values.shape)
        if tables[axis].dtype == object:
            return None  # a term past int64: evaluate whole coordinates instead
    return constant, {axis: np.ascontiguousarray(t, dtype=np.int64) for axis, t in tables.items()}


def _row_blocks(extents) -> Iterator[tuple[int, int]]:
    inner = int(np.prod(extents[1:], dtype=np.int64))
    step = max(1, BLOCK_ELEMENTS // max(1, inner))
    for first in range(0, extents[0], step):
        yield first, min(extents[0], first + step)


def _blocks(layout: IndexMap, shape, extents) -> Iterator:
    """(flat element slice, flat memory index, in-memory offset) by evaluation, checked."""
    codomain = tuple(int(e) for e in layout.codomain.extents)
    rank = len(shape)
    if not extents:   # a rank-0 tensor: one element
        ranges, grid = [(0, 1)], np.zeros((0, 1), dtype=np.int64)
    else:
        ranges = list(_row_blocks(extents))
    inner_size = int(np.prod(extents[1:], dtype=np.int64))
    for first, last in ranges:
        if extents:
            grid = np.indices((last - first,) + extents[1:], dtype=np.int64).reshape(
                len(extents), -1)
            grid[0] += first
        # Exact images (object arrays past int64), so none wraps into range.
        image = [narrow(np.broadcast_to(v, (grid.shape[1],))) for v in layout.apply(*grid)]
        for k, values in enumerate(image):
            bad = np.flatnonzero((values < 0) | (values >= codomain[k]))
            if bad.size:
                point = tuple(int(g[bad[0]]) for g in grid)
                _outside(layout, k, int(values[bad[0]]), point)
        memory = np.zeros(grid.shape[1], dtype=np.int64)
        for values, extent in zip(image[:rank], codomain[:rank]):
            memory = memory * extent + values.astype(np.int64)  # < the memories: fits
        offset = _offsets(layout, grid, image[rank:], codomain[rank:])
        yield slice(first * inner_size, last * inner_size), memory, offset


def _offsets(layout: IndexMap, grid: np.ndarray, image, extents) -> np.ndarray:
    """Row-major in-memory offsets of in-range coordinates, as int64 — or
    CapacityError naming the element when one is past any memory."""
    n = grid.shape[1]
    strides = row_major_strides(extents)
    reach = sum(int(v.max()) * w for v, w in zip(image, strides)) if n else 0
    if reach <= MAX_OFFSET:
        offset = np.zeros(n, dtype=np.int64)
        for values, stride in zip(image, strides):
            if stride <= MAX_OFFSET:   # a larger stride only ever multiplies 0 here
                offset += values.astype(np.int64) * stride
        return offset
    offset = np.zeros(n, dtype=object)   # Python ints: exact however large
    for values, stride in zip(image, strides):
        offset = offset + values.astype(object) * stride
    k = int(np.argmax(offset))
    if offset[k] > MAX_OFFSET:
        point = tuple(int(g[k]) for g in grid)
        raise CapacityError(
            f"layout {layout.label} places element {point_text(layout.domain.names, point)} at "
            f"in-memory offset {offset[k]}, past what any memory holds (offsets must stay "
            f"below {MAX_OFFSET + 1})")
    return offset.astype(np.int64)
