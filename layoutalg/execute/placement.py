"""``place`` and ``fetch``: move an array onto a machine by a layout, and back.

The layout maps array coordinates to the machine's placement coordinates
followed by one offset dim. Each element's destination is one flat index
into the machine's storage (viewed as elements), so a placement is one
NumPy scatter per block of elements and no Python loop runs per element.
Layouts whose destination is a sum of per-dimension terms (grids, tiles,
block-cyclic deals) are evaluated per dimension and broadcast, which avoids
evaluating the index expressions on every element.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import numpy as np
import sympy

from layoutalg.core.evaluate import evaluate
from layoutalg.core.index_map import IndexMap
from layoutalg.errors import describe
from layoutalg.execute.errors import CapacityError, MachineError
from layoutalg.execute.machine import Machine

BLOCK_ELEMENTS = 1 << 20


def place(array: np.ndarray, layout: IndexMap, machine: Machine, *, fill=0,
          offsets_in_bytes: bool = False) -> None:
    """Write every element of ``array`` at its slot; padding slots get ``fill``.

    Raises CapacityError naming the memory and bytes when a slot lies past a
    memory's capacity (checked before anything is written).
    """
    array = np.asarray(array)
    _check(array.shape, layout, machine)
    cells = _cells(machine, array.dtype)
    _check_capacity(layout, machine, array.dtype.itemsize, offsets_in_bytes)
    _fill_padding(layout, machine, cells, fill, offsets_in_bytes)
    flat = array.reshape(-1)
    for rows, dest in _destinations(layout, machine, array.dtype.itemsize, offsets_in_bytes):
        cells[dest] = flat[rows]


def fetch(layout: IndexMap, machine: Machine, dtype, *, offsets_in_bytes: bool = False) -> np.ndarray:
    """Read back the array the layout describes."""
    dtype = np.dtype(dtype)
    shape = tuple(layout.domain.extents)
    _check(shape, layout, machine)
    cells = _cells(machine, dtype)
    _check_capacity(layout, machine, dtype.itemsize, offsets_in_bytes)
    out = np.empty(int(np.prod(shape, dtype=np.int64)), dtype=dtype)
    for rows, dest in _destinations(layout, machine, dtype.itemsize, offsets_in_bytes):
        np.take(cells, dest, out=out[rows])
    return out.reshape(shape)


def required_bytes(layout: IndexMap, machine: Machine, itemsize: int,
                   offsets_in_bytes: bool = False) -> np.ndarray:
    """Bytes each memory needs for the layout (the end of its last element)."""
    _check(tuple(layout.domain.extents), layout, machine)
    need = np.zeros(machine.memories, dtype=np.int64)
    for _, memory, offset in _general_blocks(layout, machine):
        start = offset if offsets_in_bytes else offset * itemsize
        np.maximum.at(need, memory, start + itemsize)
    return need


def _check_capacity(layout, machine, itemsize, offsets_in_bytes) -> None:
    scale = 1 if offsets_in_bytes else itemsize
    plan = _separable(layout, machine.shape)
    if plan is not None:
        largest = plan.offset_max
    else:
        largest = max(int(offset.max()) for _, _, offset in _general_blocks(layout, machine))
    if largest * scale + itemsize <= machine.capacity:
        return
    need = required_bytes(layout, machine, itemsize, offsets_in_bytes)
    worst = int(np.argmax(need))
    raise CapacityError(f"{machine.memory_label(worst)} exceeds memory: "
                        f"{int(need[worst])} > {machine.capacity} bytes")


def _cells(machine: Machine, dtype: np.dtype) -> np.ndarray:
    """The machine's storage as one flat array of elements."""
    if machine.capacity % dtype.itemsize:
        raise MachineError(f"capacity {machine.capacity} must be a multiple of the element size "
                           f"{dtype.itemsize} to hold {dtype} elements")
    return machine.storage.reshape(-1).view(dtype)


def _destinations(layout, machine, itemsize, offsets_in_bytes) -> Iterator:
    """Blocks of (slice of flat elements, flat destination cell indices)."""
    per_memory = machine.capacity // itemsize
    plan = _separable(layout, machine.shape)
    if plan is not None:
        yield from plan.destinations(per_memory, itemsize, offsets_in_bytes)
        return
    for rows, memory, offset in _general_blocks(layout, machine):
        if offsets_in_bytes:
            if (offset % itemsize).any():
                raise MachineError(f"layout {layout.label} puts an element at a byte offset "
                                   f"that is not a multiple of its size {itemsize}")
            offset = offset // itemsize
        yield rows, memory * per_memory + offset


def _row_blocks(extents) -> Iterator[tuple[int, int]]:
    inner = int(np.prod(extents[1:], dtype=np.int64)) if len(extents) > 1 else 1
    step = max(1, BLOCK_ELEMENTS // max(1, inner))
    for first in range(0, extents[0], step):
        yield first, min(extents[0], first + step)


def _general_blocks(layout, machine) -> Iterator:
    """Blocks of (slice of flat elements, flat memory index, offset) by evaluation."""
    extents = tuple(int(e) for e in layout.domain.extents)
    inner = int(np.prod(extents[1:], dtype=np.int64))
    for first, last in _row_blocks(extents):
        grid = np.indices((last - first,) + extents[1:], dtype=np.int64).reshape(len(extents), -1)
        grid[0] += first
        image = layout.apply(*grid)
        _check_memory(image[:-1], machine, layout)
        memory = np.ravel_multi_index(tuple(image[:-1]), machine.shape)
        offset = np.asarray(image[-1], dtype=np.int64)
        if (offset < 0).any():
            raise MachineError(f"layout {layout.label} gives a negative offset")
        yield slice(first * inner, last * inner), memory, offset


def _check_memory(coords, machine, layout) -> None:
    for values, extent, name in zip(coords, machine.shape, machine.names):
        if (values < 0).any() or (values >= extent).any():
            raise MachineError(f"layout {layout.label} places an element outside the machine's "
                               f"{name} range [0, {extent})")


class _Separable:
    """A destination that is a sum of per-dimension terms, as 1-D tables."""

    def __init__(self, extents, memory, offset) -> None:
        self.extents = extents
        self.memory = memory
        self.offset = offset
        self.offset_max = offset[0] + sum(int(t.max()) for t in offset[1].values())

    def destinations(self, per_memory, itemsize, offsets_in_bytes) -> Iterator:
        constant = self.memory[0] * per_memory
        tables = {axis: t * per_memory for axis, t in self.memory[1].items()}
        offset_constant, offset_tables = self.offset
        if offsets_in_bytes:
            if offset_constant % itemsize or any((t % itemsize).any() for t in offset_tables.values()):
                raise MachineError("a byte offset is not a multiple of the element size "
                                   f"{itemsize}")
            offset_constant //= itemsize
            offset_tables = {a: t // itemsize for a, t in offset_tables.items()}
        constant += offset_constant
        for axis, table in offset_tables.items():
            tables[axis] = tables.get(axis, 0) + table
        inner = int(np.prod(self.extents[1:], dtype=np.int64))
        for first, last in _row_blocks(self.extents):
            yield slice(first * inner, last * inner), _broadcast(
                (constant, tables), self.extents, first, last)


def _broadcast(terms, extents, first, last) -> np.ndarray:
    """Sum of per-dimension 1-D tables over rows ``first:last``, flattened."""
    constant, tables = terms
    total = np.full((last - first,) + tuple(extents[1:]), constant, dtype=np.int64)
    for axis, table in tables.items():
        part = table[first:last] if axis == 0 else table
        total += part.reshape([-1 if k == axis else 1 for k in range(len(extents))])
    return total.reshape(-1)


def _separable(layout: IndexMap, machine_shape) -> _Separable | None:
    """The per-dimension plan, or None when some term mixes dimensions.

    Every memory coordinate must be separable and provably in range (its
    table extremes), so that the flat memory index is exact.
    """
    extents = tuple(int(e) for e in layout.domain.extents)
    memory_expr = sympy.Integer(0)
    for expr, extent in zip(layout.exprs[:-1], machine_shape):
        table = _tables(expr, layout.domain)
        if table is None:
            return None
        low = table[0] + sum(int(t.min()) for t in table[1].values())
        high = table[0] + sum(int(t.max()) for t in table[1].values())
        if low < 0 or high >= extent:
            return None
        memory_expr = memory_expr * extent + expr
    memory = _tables(memory_expr, layout.domain)
    offset = _tables(layout.exprs[-1], layout.domain)
    if memory is None or offset is None or not extents:
        return None
    if offset[0] + sum(int(t.min()) for t in offset[1].values()) < 0:
        return None
    return _Separable(extents, memory, offset)


@lru_cache(maxsize=256)
def _tables(expr, domain):
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
        tables[axis] = np.broadcast_to(evaluate(part, {symbols[axis]: values}), values.shape).copy()
    return constant, tables


def _fill_padding(layout, machine, cells, fill, offsets_in_bytes) -> None:
    """Fill each memory's span of the layout (its offset extent) with ``fill``."""
    itemsize = cells.dtype.itemsize
    span = int(layout.codomain.extents[-1])
    if offsets_in_bytes:
        span = -(-span // itemsize)
    span = min(span, machine.capacity // itemsize)
    cells.reshape(machine.memories, -1)[:, :span] = fill


def _check(shape, layout: IndexMap, machine: Machine) -> None:
    if not isinstance(layout, IndexMap):
        raise MachineError(f"layout must be an IndexMap; got {describe(layout)}")
    if not isinstance(machine, Machine):
        raise MachineError(f"machine must be a Machine; got {describe(machine)}")
    if not layout.is_concrete:
        raise MachineError(f"layout {layout.label} has symbolic extents; bind them first")
    if tuple(layout.domain.extents) != tuple(shape):
        raise MachineError(f"array shape {tuple(shape)} must equal the layout's domain extents "
                           f"{tuple(layout.domain.extents)}")
    if tuple(layout.codomain.extents[:-1]) != machine.shape:
        raise MachineError(
            f"layout {layout.label} places onto {layout.codomain} but the machine has memories "
            f"{dict(machine.dims)} (the layout's dims before the offset must match)")
