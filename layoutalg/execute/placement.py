"""``place`` and ``fetch``: move an array onto a machine by a layout, and back.

The layout maps array coordinates to the machine's memory coordinates
followed by the coordinates inside a memory (row-major); nothing runs per
element in Python (see :mod:`.plan`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import MachineError, describe
from layoutalg.execute.analysis import Analysis, analyse, measure, memory_bytes, memory_counts
from layoutalg.execute.machine import Machine
from layoutalg.execute.plan import destinations, plan_for


@dataclass(frozen=True, eq=False)
class Placement:
    """What a :func:`place` did; per-memory figures are computed exactly on request."""

    layout: IndexMap
    machine: Machine
    dtype: np.dtype
    method: str
    _found: Analysis

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def elements(self) -> int:
        return self._found.size

    @property
    def slots(self) -> int:
        """Element slots of the layout's codomain: memories × in-memory span
        (the span counts bytes ÷ element size when offsets are bytes)."""
        return self.machine.memories * (_span_bytes(self._found) // self.itemsize)

    @property
    def padding(self) -> int:
        """Slots that hold no element, if the layout is injective (slots − elements)."""
        return self.slots - self.elements

    def slots_holding(self, value) -> int:
        """Slots of the layout's codomain whose content equals ``value`` now
        (NaN matches NaN): after ``place(..., fill=value)`` with data that
        never equals it, the slots no element reached — the real padding."""
        span = min(_span_bytes(self._found), self.machine.capacity) // self.itemsize
        region = self.machine.storage.reshape(self.machine.memories, -1).view(self.dtype)[:, :span]
        if isinstance(value, float) and np.isnan(value):
            return int(np.count_nonzero(np.isnan(region)))
        return int(np.count_nonzero(region == value))

    def bytes_per_memory(self) -> np.ndarray:
        """Data bytes each memory holds (elements × element size), in memory order."""
        return memory_counts(self._found) * self.itemsize

    def high_water(self) -> np.ndarray:
        """Bytes each memory needs: the end of its last element."""
        return memory_bytes(self._found)


def place(array: np.ndarray, layout: IndexMap, machine: Machine, *, fill=0,
          offsets_in_bytes: bool = False) -> Placement:
    """Write every element of ``array`` at its slot; padding slots get ``fill``.

    Every slot of the layout's codomain is set to ``fill`` first (``None``
    leaves them as they are). Checked before anything is written: the
    array's shape, the layout's memory dims against the machine's, every
    coordinate inside the codomain, and each memory's bytes against its
    capacity (CapacityError names the memory and the bytes).

    >>> import layoutalg as la
    >>> grid = la.split(la.Space(i=6), "i", 4, names=("pe", "offset"))   # 2 PEs, 4 slots
    >>> m = Machine.for_layout(grid, capacity=64, name="PE")
    >>> p = place(np.arange(6, dtype=np.int32), grid, m, fill=-1)
    >>> m.storage.view(np.int32)[:, :4].tolist(), p.padding
    ([[0, 1, 2, 3], [4, 5, -1, -1]], 2)
    """
    array = np.asarray(array)
    if array.dtype.hasobject:
        raise MachineError(f"array must hold fixed-size values (numbers); got dtype "
                           f"{array.dtype}")
    found = analyse(layout, machine, array.dtype.itemsize, offsets_in_bytes)
    if found.extents != array.shape:
        raise MachineError(f"array shape {array.shape} must equal the layout's domain extents "
                           f"{found.extents}")
    plan, cells = _planned(machine, array.dtype, found)
    if fill is not None:   # every in-memory slot of the layout's codomain
        span = min(_span_bytes(found), machine.capacity) // found.itemsize
        try:
            cells.reshape(machine.memories, -1)[:, :span] = fill
        except (TypeError, ValueError, OverflowError):
            raise MachineError(f"fill must be a value of the array's dtype {cells.dtype}; "
                               f"got {describe(fill)}") from None
    plan.scatter(cells, np.ascontiguousarray(array).reshape(-1))
    return Placement(layout, machine, array.dtype, plan.kind, found)


def fetch(layout: IndexMap, machine: Machine, dtype, *,
          offsets_in_bytes: bool = False) -> np.ndarray:
    """Read back the array the layout describes (the inverse of :func:`place`)."""
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        raise MachineError(f"dtype must be a NumPy dtype; got {describe(dtype)}") from None
    found = analyse(layout, machine, dtype.itemsize, offsets_in_bytes)
    plan, cells = _planned(machine, dtype, found)
    out = np.empty(found.size, dtype=dtype)
    plan.gather(cells, out)
    return out.reshape(found.extents)


def required_bytes(layout: IndexMap, machine: Machine, itemsize: int,
                   offsets_in_bytes: bool = False) -> np.ndarray:
    """Bytes each memory needs for the layout (the end of its last element);
    unlike :func:`place`, an overflowing memory is not refused.

    >>> import layoutalg as la
    >>> deal = la.split(la.Space(i=7), "i", 4, names=("bank", "offset"))
    >>> required_bytes(deal, Machine.banks(2, 8), 4).tolist()    # 4 and 3 fp32 elements
    [16, 12]
    """
    return memory_bytes(measure(layout, machine, itemsize, offsets_in_bytes))


def enough_bytes(layout: IndexMap, itemsize: int, offsets_in_bytes: bool = False,
                 memory_dims: int | None = None, *, least: int = 64) -> int:
    """Bytes per memory just large enough for the layout (memories as in
    :meth:`Machine.for_layout`): its fullest memory's need rounded up to 64,
    at least ``least``."""
    probe = Machine.for_layout(layout, capacity=1 << 62, memory_dims=memory_dims)
    need = int(required_bytes(layout, probe, itemsize, offsets_in_bytes).max(initial=0))
    return max(least, ceil_div(need, 64) * 64)


def slots_of(layout: IndexMap, machine: Machine, itemsize: int,
             offsets_in_bytes: bool = False) -> np.ndarray:
    """The flat cell index of every element, row-major over the domain (for
    inspection): cells count ``itemsize``-byte elements from the start of the
    machine's storage, whose rows are ``machine.storage.shape[1]`` bytes.

    >>> import layoutalg as la
    >>> deal = la.split(la.Space(i=5), "i", 2, names=("bank", "offset"))
    >>> m = Machine.banks(3, 64)
    >>> slots_of(deal, m, 4).tolist()    # 16 cells of 4 B per 64-byte bank
    [0, 1, 16, 17, 32]
    """
    found = analyse(layout, machine, int(itemsize), offsets_in_bytes)
    return destinations(found, _reserve(machine, found).shape[1] // found.itemsize)


def _reserve(machine: Machine, found: Analysis) -> np.ndarray:
    """Grow the machine's storage to hold the layout's slots and elements."""
    span = min(_span_bytes(found), machine.capacity)
    return machine.reserve(max(span, found.high_water, 1))


def _planned(machine: Machine, dtype: np.dtype, found: Analysis):
    """The layout's copy plan (which refuses an offset that is not a whole
    element) and the machine's storage as one flat array of elements, grown to
    fit the layout; each memory's bytes must be a whole number of elements."""
    storage = _reserve(machine, found)
    plan = plan_for(found, storage.shape[1] // found.itemsize)
    if storage.shape[1] % found.itemsize:
        raise MachineError(f"each {machine.name}'s {storage.shape[1]} bytes must be a whole "
                           f"number of {found.itemsize}-byte elements: give a capacity that "
                           f"is a multiple of {found.itemsize}")
    return plan, storage.reshape(-1).view(dtype)


def _span_bytes(found: Analysis) -> int:
    """Bytes of the layout's in-memory slots (``fill`` covers them up to the capacity)."""
    codomain = [int(e) for e in found.layout.codomain.extents]
    span = math.prod(codomain[len(found.shape):])   # exact: a huge codomain must not wrap
    return span if found.in_bytes else span * found.itemsize
