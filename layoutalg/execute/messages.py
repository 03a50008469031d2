"""Layout transforms executed as messages between PEs.

A mesh transform (``la.mesh.create_transform``) is a table of blocks: ``rows
× cols`` elements read from a source PE at ``src_offset + r·src_stride +
c·size`` and written to a destination PE at ``dst_offset + r·dst_stride +
c·size`` (bytes). :func:`execute_transform` performs all blocks as one
gather and one scatter, and counts what actually moved from the executed
cells (not from the transform's cost model, which the tests hold them to).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.core.tiling import ceil_div
from layoutalg.errors import CapacityError, MachineError, describe
from layoutalg.execute.counters import WAVELET_BYTES
from layoutalg.execute.machine import WSE_SRAM_BYTES, Machine
from layoutalg.execute.placement import enough_bytes, fetch, place


@dataclass(frozen=True)
class TransformCounters:
    """What a transform moved, named as in the mesh cost model (``TransferCost``):
    remote ``bytes`` (between PEs), ``local_bytes`` (inside a PE), ``messages``
    (PE pairs that exchange data), 32-bit ``wavelets`` (``⌈bytes / 4⌉`` per
    message), ``byte_hops`` and ``wavelet_hops`` (× Manhattan hops), the
    longest route ``max_hops``, and every element delivered (``elements``)."""

    elements: int
    bytes: int
    local_bytes: int
    messages: int
    wavelets: int
    byte_hops: int
    wavelet_hops: int
    max_hops: int


def mesh_for(layout, shape, element_size: int, capacity: int | None = None) -> Machine:
    """A WSE mesh of the layout's PE grid, ``capacity`` bytes each (default the
    WSE's 48 KB, or the layout's largest need if more; ``place`` still checks)."""
    m = layout.index_map(tuple(shape), element_size=element_size)
    if capacity is None:
        capacity = enough_bytes(m, element_size, True, 2, least=WSE_SRAM_BYTES)
    return Machine.wse(*(int(e) for e in m.codomain.extents[:2]), sram_bytes=capacity)


def execute_transform(transform, source: Machine, target: Machine) -> TransformCounters:
    """Move the bytes a transform's blocks describe from ``source`` (holding the
    tensor under ``transform.source``) to ``target`` (then under ``transform.target``)."""
    blocks = transform.blocks
    size = int(blocks.element_size)
    for name, machine, layout in (("source", source, transform.source),
                                  ("target", target, transform.target)):
        if not isinstance(machine, Machine) or machine.shape != (layout.pe_rows, layout.pe_cols):
            raise MachineError(f"execute_transform: {name} must be a Machine of "
                               f"{layout.pe_rows}×{layout.pe_cols} PEs for {layout}; "
                               f"got {describe(machine)}")
    counts = (blocks.rows * blocks.cols).astype(np.int64)
    total = int(counts.sum())
    block = np.repeat(np.arange(len(counts)), counts)
    local = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    r, c = local // blocks.cols[block], local % blocks.cols[block]
    src_byte = blocks.src_offset[block] + r * blocks.src_stride[block] + c * size
    dst_byte = blocks.dst_offset[block] + r * blocks.dst_stride[block] + c * size
    src_pe = (blocks.src_row[block], blocks.src_col[block])
    dst_pe = (blocks.dst_row[block], blocks.dst_col[block])
    need = max(int(dst_byte.max(initial=-size)) + size, 1)
    if need > target.capacity:
        worst = int(np.ravel_multi_index(tuple(p[np.argmax(dst_byte)] for p in dst_pe),
                                         target.shape))
        raise CapacityError(target.overflow(worst, need))
    src_cells = _cells(source, size, int(src_byte.max(initial=0)) + size)
    dst_cells = _cells(target, size, need)
    src_row_cells = src_cells.size // source.memories
    dst_row_cells = dst_cells.size // target.memories
    src_flat = np.ravel_multi_index(src_pe, source.shape) * src_row_cells + src_byte // size
    dst_flat = np.ravel_multi_index(dst_pe, target.shape) * dst_row_cells + dst_byte // size
    dst_cells[dst_flat] = src_cells[src_flat]   # gather first: safe even if the meshes alias
    return _count(src_pe, dst_pe, source.shape[1], target.shape[1], target.memories, size, total)


def run_transform(array, transform, *, capacity: int | None = None):
    """Place ``array`` by the transform's source layout, execute it, fetch by the target.

    Returns ``(fetched, counters, target_machine)``; ``fetched`` has the
    target index map's domain shape (a replicated target adds two copy dims
    in front) and equals ``array`` in every copy when the transform is right.
    ``capacity`` is bytes per PE (default: 48 KB, or more if the tiles need it)."""
    array = np.asarray(array)
    shape = tuple(transform.shape)
    if array.shape != shape:
        raise MachineError(f"run_transform: array shape {array.shape} must equal the "
                           f"transform's tensor shape {shape}")
    size = array.dtype.itemsize
    if size != transform.blocks.element_size:
        raise MachineError(f"run_transform: array elements are {size} B but the transform moves "
                           f"{transform.blocks.element_size} B elements ({transform.dtype})")
    src_map = transform.source.index_map(shape, element_size=size)
    dst_map = transform.target.index_map(shape, element_size=size)
    source = mesh_for(transform.source, shape, size, capacity)
    target = mesh_for(transform.target, shape, size, capacity)
    if src_map.domain.rank != len(shape):   # a replicated source: every copy holds the tensor
        array = np.broadcast_to(array, tuple(src_map.domain.extents))
    place(array, src_map, source, offsets_in_bytes=True)
    counters = execute_transform(transform, source, target)
    fetched = fetch(dst_map, target, array.dtype, offsets_in_bytes=True)
    return fetched, counters, target


def _cells(machine: Machine, size: int, nbytes: int) -> np.ndarray:
    storage = machine.reserve(min(machine.capacity, max(nbytes, 1)))
    return storage.reshape(-1).view(np.dtype(f"V{size}"))


def _count(src_pe, dst_pe, src_cols, dst_cols, dst_pes, size, total) -> TransformCounters:
    hops = np.abs(src_pe[0] - dst_pe[0]) + np.abs(src_pe[1] - dst_pe[1])
    remote = hops > 0
    pair = ((src_pe[0] * src_cols + src_pe[1]) * dst_pes + dst_pe[0] * dst_cols + dst_pe[1])[remote]
    keys, inverse, elements = np.unique(pair, return_inverse=True, return_counts=True)
    message_bytes = elements * size
    message_hops = np.zeros(len(keys), dtype=np.int64)
    message_hops[inverse] = hops[remote]
    wavelets = ceil_div(message_bytes, WAVELET_BYTES)
    return TransformCounters(
        elements=total, bytes=int(message_bytes.sum()), local_bytes=int((~remote).sum()) * size,
        messages=len(keys), wavelets=int(wavelets.sum()),
        byte_hops=int((message_bytes * message_hops).sum()),
        wavelet_hops=int((wavelets * message_hops).sum()), max_hops=int(hops.max(initial=0)))
