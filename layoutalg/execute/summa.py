"""SUMMA on a PE mesh, as the Cerebras GEMM example runs it.

PE ``(r, c)`` of a ``Pr × Pc`` mesh owns the ``Ti × Tj`` tile ``C[r, c]``. K is
cut into ``S = ⌈K/Tk⌉`` panels; A's tile ``(r, s)`` lives on PE
``(r, s mod Pc)`` and B's tile ``(s, c)`` on PE ``(s mod Pr, c)`` (block-cyclic
over K, so a square mesh with ``K = P·Tk`` is the example's layout exactly).
Step ``s``: the owner of each A tile broadcasts it along its PE row, the
owner of each B tile along its PE column, every PE copies what it receives
into its receive buffers and accumulates ``C += A_recv · B_recv``.

Every PE computes at once: a step is one batched ``numpy.matmul`` over the
stacked ``(Pr, Pc, ·, ·)`` tiles of the mesh's memory — no Python loop per
PE or element. A received tile is bit for bit the owner's tile, so the
batched product reads the owners' tiles through broadcast views instead of
first copying them into every PE's receive buffer (that copy costs as much
as the product); the receive buffers are still reserved in every PE's
memory, so the capacity check is the real one, and their writes are
counted. Edge tiles are padded with zeros
in the PE memories (the padding never enters a count). Broadcasts are
counted as one message from the owner to each other PE of the row (column):
bytes, 32-bit wavelets, Manhattan hops and bytes × hops.
"""

from __future__ import annotations

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import describe
from layoutalg.execute.counters import Counters, Messages, Tally
from layoutalg.execute.errors import CapacityError, MachineError
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import fetch, place


def summa(a: np.ndarray, b: np.ndarray, *, tiles, machine: Machine | None,
          dtype) -> tuple[np.ndarray, Counters]:
    """SUMMA ``C = A @ B`` on a mesh (see the module doc); called by ``matmul``."""
    from layoutalg.execute.matmul import _tiles

    (M, K), N = a.shape, b.shape[1]
    Ti, Tj, Tk = _tiles(tiles)
    for name, tile, dim_name, dim in (("Ti", Ti, "M", M), ("Tj", Tj, "N", N), ("Tk", Tk, "K", K)):
        if tile > dim:
            raise MachineError(f"matmul: tile {name} must be at most {dim_name}={dim}; got {tile}")
    rows, cols, steps = -(-M // Ti), -(-N // Tj), -(-K // Tk)
    mesh = Machine.wse(rows, cols) if machine is None else machine
    if not isinstance(mesh, Machine) or mesh.shape != (rows, cols):
        raise MachineError(f"matmul: SUMMA with tiles (Ti={Ti}, Tj={Tj}) puts C on a "
                           f"{rows}×{cols} PE mesh; machine must be a Machine of that shape; "
                           f"got {describe(mesh)}")
    e = dtype.itemsize
    layout = _Layout(Ti, Tj, Tk, rows, cols, steps)
    if layout.end * e > mesh.capacity:
        raise CapacityError(f"{mesh.overflow(0, layout.end * e)} ({layout.describe(e)})")
    mesh.reserve(layout.end * e)
    if M % Ti or N % Tj or K % Tk:
        mesh.clear()   # edge tiles are padded with zeros, which add nothing to C
    place(a.astype(dtype, copy=False), layout.a_map(M, K), mesh, fill=None)
    place(b.astype(dtype, copy=False), layout.b_map(K, N), mesh, fill=None)
    cells = mesh.storage.reshape(rows, cols, -1).view(dtype)
    a_tiles = layout.region(cells, "A")
    b_tiles = layout.region(cells, "B")
    c_tile = layout.region(cells, "C")
    c_tile[...] = 0
    product = np.empty_like(c_tile)
    tally = Tally(e)
    row_sizes = _sizes(M, Ti, rows)
    col_sizes = _sizes(N, Tj, cols)
    for s in range(steps):
        depth = min(Tk, K - s * Tk)
        a_recv = a_tiles[:, s % cols, s // cols][:, None]   # broadcast along PE rows
        b_recv = b_tiles[s % rows, :, s // rows][None, :]   # broadcast along PE columns
        np.matmul(a_recv, b_recv, out=product)
        c_tile += product
        _count_step(tally, s, depth, row_sizes, col_sizes, e)
    tally.macs = M * N * K
    result = fetch(layout.c_map(M, N), mesh, dtype)
    note = f"SUMMA on {rows}×{cols} {mesh.plural} of {mesh.capacity} B: {layout.describe(e)}"
    return result, tally.freeze(steps=steps, notes=(note,))


def _sizes(dim: int, tile: int, count: int) -> np.ndarray:
    """Real extents of the ``count`` tiles along a dim (the last one trimmed)."""
    return np.minimum(tile, dim - tile * np.arange(count, dtype=np.int64))


def _count_step(tally: Tally, s: int, depth: int, row_sizes, col_sizes, e: int) -> None:
    rows, cols = len(row_sizes), len(col_sizes)
    M, N = int(row_sizes.sum()), int(col_sizes.sum())
    root_col, root_row = s % cols, s % rows
    col_hops = np.abs(np.arange(cols) - root_col)   # A: along each row from its owner
    row_hops = np.abs(np.arange(rows) - root_row)   # B: along each column from its owner
    a_bytes = row_sizes * depth * e                 # one A tile per PE row
    b_bytes = col_sizes * depth * e                 # one B tile per PE column
    tally.send("A", _broadcast(a_bytes, col_hops))
    tally.send("B", _broadcast(b_bytes, row_hops))
    tally.add("sram", "A", "write", M * depth * (cols - 1))   # receivers store the tile
    tally.add("sram", "B", "write", depth * N * (rows - 1))
    tally.add("sram", "A", "read", M * depth * cols)          # every PE multiplies it
    tally.add("sram", "B", "read", depth * N * rows)
    tally.add("sram", "C", "read", M * N if s else 0)         # accumulate (zero at first)
    tally.add("sram", "C", "write", M * N)


def _broadcast(tile_bytes: np.ndarray, hops: np.ndarray) -> Messages:
    """Each tile sent from its owner to every other PE of its line: one
    message per receiver, ``hops[p]`` links to receiver ``p`` (0 for the owner)."""
    receivers = len(hops) - 1
    wavelets = -(-tile_bytes // 4)
    return Messages(len(tile_bytes) * receivers, int(tile_bytes.sum()) * receivers,
                    int(wavelets.sum()) * receivers, len(tile_bytes) * int(hops.sum()),
                    int(tile_bytes.sum()) * int(hops.sum()), int(wavelets.sum()) * int(hops.sum()))


class _Layout:
    """Where each PE keeps its tiles (element offsets in its memory)."""

    def __init__(self, Ti, Tj, Tk, rows, cols, steps) -> None:
        self.Ti, self.Tj, self.Tk, self.rows, self.cols = Ti, Tj, Tk, rows, cols
        self.a_slots, self.b_slots = -(-steps // cols), -(-steps // rows)
        sizes = {"A": self.a_slots * Ti * Tk, "B": self.b_slots * Tk * Tj, "C": Ti * Tj,
                 "RA": Ti * Tk, "RB": Tk * Tj}
        self.start, offset = {}, 0
        for name, size in sizes.items():
            self.start[name] = offset
            offset += size
        self.sizes, self.end = sizes, offset

    def describe(self, e: int) -> str:
        return (f"{self.a_slots} A tile(s) {self.Ti}×{self.Tk}, {self.b_slots} B tile(s) "
                f"{self.Tk}×{self.Tj}, C {self.Ti}×{self.Tj} and two receive buffers "
                f"of {e} B elements per PE")

    def region(self, cells: np.ndarray, name: str) -> np.ndarray:
        part = cells[:, :, self.start[name]:self.start[name] + self.sizes[name]]
        shapes = {"A": (self.a_slots, self.Ti, self.Tk), "B": (self.b_slots, self.Tk, self.Tj),
                  "C": (self.Ti, self.Tj), "RA": (self.Ti, self.Tk), "RB": (self.Tk, self.Tj)}
        return part.reshape(self.rows, self.cols, *shapes[name])

    def _codomain(self) -> Space:
        return Space(pe_row=self.rows, pe_col=self.cols, offset=self.end)

    def a_map(self, M: int, K: int) -> IndexMap:
        """A[i, k] → PE (i // Ti, (k // Tk) mod Pc), slot (k // Tk) // Pc."""
        dom = Space(i=M, k=K)
        i, k = dom.symbols
        Ti, Tk, cols = self.Ti, self.Tk, self.cols
        offset = self.start["A"] + (k // Tk // cols) * Ti * Tk + (i % Ti) * Tk + k % Tk
        return IndexMap(dom, self._codomain(), [i // Ti, (k // Tk) % cols, offset],
                        name="SUMMA A")

    def b_map(self, K: int, N: int) -> IndexMap:
        """B[k, j] → PE ((k // Tk) mod Pr, j // Tj), slot (k // Tk) // Pr."""
        dom = Space(k=K, j=N)
        k, j = dom.symbols
        Tj, Tk, rows = self.Tj, self.Tk, self.rows
        offset = self.start["B"] + (k // Tk // rows) * Tk * Tj + (k % Tk) * Tj + j % Tj
        return IndexMap(dom, self._codomain(), [(k // Tk) % rows, j // Tj, offset],
                        name="SUMMA B")

    def c_map(self, M: int, N: int) -> IndexMap:
        """C[i, j] → PE (i // Ti, j // Tj), row-major in its C tile."""
        dom = Space(i=M, j=N)
        i, j = dom.symbols
        offset = self.start["C"] + (i % self.Ti) * self.Tj + j % self.Tj
        return IndexMap(dom, self._codomain(), [i // self.Ti, j // self.Tj, offset],
                        name="SUMMA C")
