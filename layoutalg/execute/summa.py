"""SUMMA on a PE mesh, as the Cerebras GEMM example runs it (docs/execute.md).

PE ``(r, c)`` of a ``Pr × Pc`` mesh owns the ``Ti × Tj`` tile ``C[r, c]``; K is
cut into ``S = ⌈K/Tk⌉`` panels, A's tile ``(r, s)`` on PE ``(r, s mod Pc)`` and
B's tile ``(s, c)`` on PE ``(s mod Pr, c)`` (a square mesh with ``K = P·Tk`` is
the example's layout exactly). Step ``s`` broadcasts each A tile along its PE
row and each B tile along its PE column; every PE accumulates
``C += A_recv · B_recv``. A PE row's products are one batched
``numpy.matmul`` reading the owners' tiles through broadcast views (a
received tile is bit for bit the owner's); the receive buffers are still
reserved, so the capacity check is real, and their writes counted. PE rows
never read each other's C and each runs its steps in order, so ``workers``
threads sharing the rows give the step-by-step result bit for bit. Edge
tiles are padded with zeros (never counted). A broadcast counts one message
from the owner to each other PE of its line, in closed form over the steps
(``tests/execute/test_execute_matmul.py`` holds them to a loop).
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from itertools import accumulate, pairwise

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import ceil_div, digits, flatten
from layoutalg.errors import CapacityError, MachineError, describe
from layoutalg.execute.counters import WAVELET_BYTES, Counters, Messages, Tally
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import fetch, place


def summa(a: np.ndarray, b: np.ndarray, *, tiles, machine: Machine | None,
          dtype, workers: int = 1) -> tuple[np.ndarray, Counters]:
    """SUMMA ``C = A @ B`` on a mesh (see the module doc); called by ``matmul``."""
    (M, K), N = a.shape, b.shape[1]
    Ti, Tj, Tk = tiles   # checked by matmul
    for name, tile, dim_name, dim in (("Ti", Ti, "M", M), ("Tj", Tj, "N", N), ("Tk", Tk, "K", K)):
        if tile > dim:
            raise MachineError(f"matmul: tile {name} must be at most {dim_name}={dim}; got {tile}")
    rows, cols, steps = ceil_div(M, Ti), ceil_div(N, Tj), ceil_div(K, Tk)
    mesh = Machine.wse(rows, cols) if machine is None else machine
    if not isinstance(mesh, Machine) or mesh.shape != (rows, cols):
        raise MachineError(f"matmul: SUMMA with tiles (Ti={Ti}, Tj={Tj}) puts C on a "
                           f"{rows}×{cols} PE mesh; machine must be a Machine of that shape; "
                           f"got {describe(mesh)}")
    e = dtype.itemsize
    layout = _layout(Ti, Tj, Tk, rows, cols, steps)
    if layout.end * e > mesh.capacity:
        raise CapacityError(f"{mesh.overflow(0, layout.end * e)} ({layout.describe(e)})")
    mesh.reserve(layout.end * e)
    if M % Ti or N % Tj or K % Tk:
        mesh.clear()   # edge tiles are padded with zeros, which add nothing to C
    place(a.astype(dtype, copy=False), layout.map("A", M, K), mesh, fill=None)
    place(b.astype(dtype, copy=False), layout.map("B", K, N), mesh, fill=None)
    cells = mesh.storage.reshape(rows, cols, -1).view(dtype)
    _multiply(layout.region(cells, "A"), layout.region(cells, "B"), layout.region(cells, "C"),
              steps, int(workers))
    tally = Tally(e)
    _count(tally, (M, N, K), (Ti, Tj, Tk), e)
    tally.macs = M * N * K
    result = fetch(layout.map("C", M, N), mesh, dtype)
    note = f"SUMMA on {rows}×{cols} {mesh.plural} of {mesh.capacity} B: {layout.describe(e)}"
    return result, tally.freeze(steps=steps, notes=(note,))


def _multiply(a_tiles: np.ndarray, b_tiles: np.ndarray, c_tiles: np.ndarray, steps: int,
              workers: int) -> None:
    """``C[r, c] = Σ_s A[r, s] · B[s, c]`` over the steps in order, on the PE
    memories: the first step writes C, the later ones add to it."""
    rows, cols = c_tiles.shape[:2]

    def run_rows(first: int, stop: int) -> None:
        product = np.empty_like(c_tiles[0])
        for r in range(first, stop):
            c = c_tiles[r]
            for s in range(steps):
                a_recv = a_tiles[r, s % cols, s // cols][None]   # from the row's owner
                b_recv = b_tiles[s % rows, :, s // rows]         # from each column's owner
                if s == 0:
                    np.matmul(a_recv, b_recv, out=c)
                else:
                    np.matmul(a_recv, b_recv, out=product)
                    c += product

    workers = min(workers, rows)
    bounds = [rows * w // workers for w in range(workers + 1)]
    if workers == 1:
        return run_rows(0, rows)
    with ThreadPoolExecutor(workers) as pool:
        for done in [pool.submit(run_rows, lo, hi) for lo, hi in pairwise(bounds)]:
            done.result()


def _count(tally: Tally, problem, tiles, e: int) -> None:
    """Add every step's messages and SRAM accesses, grouped by what a step's
    counts depend on: its depth (``Tk``, the last step's may be less) and
    the owners' column ``s mod Pc`` (A) and row ``s mod Pr`` (B)."""
    (M, N, K), (Ti, Tj, Tk) = problem, tiles
    rows, cols, steps = ceil_div(M, Ti), ceil_div(N, Tj), ceil_div(K, Tk)
    row_sizes = [min(Ti, M - Ti * r) for r in range(rows)]
    col_sizes = [min(Tj, N - Tj * c) for c in range(cols)]
    full = K // Tk
    groups = [(Tk, range(full))] + ([(K - full * Tk, range(full, steps))] if K % Tk else [])
    for operand, sizes, line in (("A", row_sizes, cols), ("B", col_sizes, rows)):
        messages = Messages()
        for depth, span in groups:
            hops = _hops_from_owners(span, line)
            tile_bytes = [size * depth * e for size in sizes]   # one tile per PE row (column)
            messages = messages + _broadcast(tile_bytes, line - 1, len(span), hops)
        tally.send(operand, messages)
    tally.add("sram", "A", "write", M * K * (cols - 1))   # receivers store the tile
    tally.add("sram", "B", "write", K * N * (rows - 1))
    tally.add("sram", "A", "read", M * K * cols)          # every PE multiplies it
    tally.add("sram", "B", "read", K * N * rows)
    tally.add("sram", "C", "read", M * N * (steps - 1))   # accumulate (not at the first step)
    tally.add("sram", "C", "write", M * N * steps)


def _hops_from_owners(span: range, line: int) -> int:
    """Σ over the steps ``s`` in ``span`` of Σ_p |p − s mod line|: the links
    from each step's owner to every PE of a line of ``line`` PEs."""
    owners = [0] * line
    for start in range(min(line, len(span))):   # steps whose owner is span[start] mod line
        owners[(span.start + start) % line] = len(range(span.start + start, span.stop, line))
    # Σ_p |p − o| over p < line: o(o + 1)/2 links on one side, (line−1−o)(line−o)/2 on the other
    return sum(n * (o * (o + 1) + (line - 1 - o) * (line - o)) // 2 for o, n in enumerate(owners))


def _broadcast(tile_bytes: list[int], receivers: int, steps: int, hops: int) -> Messages:
    """``steps`` steps, each sending every tile from its owner to the
    ``receivers`` other PEs of its line: one message per receiver, over
    ``hops`` links in all per tile (summed over the steps)."""
    wavelets = sum(ceil_div(n, WAVELET_BYTES) for n in tile_bytes)
    total = sum(tile_bytes)
    return Messages(len(tile_bytes) * receivers * steps, total * receivers * steps,
                    wavelets * receivers * steps, len(tile_bytes) * hops, total * hops,
                    wavelets * hops)


@lru_cache(maxsize=16)
def _layout(Ti, Tj, Tk, rows, cols, steps) -> _Layout:
    """The layout of a tiling, made once (its maps are SymPy expressions)."""
    return _Layout(Ti, Tj, Tk, rows, cols, steps)


class _Layout:
    """Where each PE keeps its tiles (element offsets in its memory): its A
    tiles, its B tiles, its C tile and the two receive buffers, one after
    another, each tile row-major."""

    def __init__(self, Ti, Tj, Tk, rows, cols, steps) -> None:
        self.Ti, self.Tj, self.Tk, self.rows, self.cols = Ti, Tj, Tk, rows, cols
        self.a_slots, self.b_slots = ceil_div(steps, cols), ceil_div(steps, rows)
        self.shapes = {"A": (self.a_slots, Ti, Tk), "B": (self.b_slots, Tk, Tj), "C": (Ti, Tj),
                       "RA": (Ti, Tk), "RB": (Tk, Tj)}
        self.sizes = {name: math.prod(shape) for name, shape in self.shapes.items()}
        *starts, self.end = accumulate(self.sizes.values(), initial=0)
        self.start = dict(zip(self.sizes, starts))

    def describe(self, e: int) -> str:
        return (f"{self.a_slots} A tile(s) {self.Ti}×{self.Tk}, {self.b_slots} B tile(s) "
                f"{self.Tk}×{self.Tj}, C {self.Ti}×{self.Tj} and two receive buffers "
                f"of {e} B elements per PE")

    def region(self, cells: np.ndarray, name: str) -> np.ndarray:
        part = cells[:, :, self.start[name]:self.start[name] + self.sizes[name]]
        return part.reshape(self.rows, self.cols, *self.shapes[name])

    @lru_cache(maxsize=16)   # noqa: B019 - few layouts, each kept by _layout anyway
    def map(self, operand: str, rows: int, cols: int) -> IndexMap:
        """Where each element of an operand of ``rows × cols`` lives:
        A[i, k] → PE (i // Ti, (k // Tk) mod Pc), slot (k // Tk) // Pc;
        B[k, j] → PE ((k // Tk) mod Pr, j // Tj), slot (k // Tk) // Pr;
        C[i, j] → PE (i // Ti, j // Tj)."""
        tr, tc = self.shapes[operand][-2:]
        dom = Space(**dict(zip({"A": "ik", "B": "kj", "C": "ij"}[operand], (rows, cols))))
        (tile_r, r), (tile_c, c) = (digits(x, t) for x, t in zip(dom.symbols, (tr, tc)))
        if operand == "A":
            pe, slot = (tile_r, tile_c % self.cols), tile_c // self.cols
        elif operand == "B":
            pe, slot = (tile_r % self.rows, tile_c), tile_r // self.rows
        else:
            pe, slot = (tile_r, tile_c), 0
        offset = self.start[operand] + flatten((slot, r, c), (None, tr, tc))
        return IndexMap(dom, Space(pe_row=self.rows, pe_col=self.cols, offset=self.end),
                        [*pe, offset], name=f"SUMMA {operand}")
