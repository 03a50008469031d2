"""Which elements a picture draws: all of a small layout, samples of a large one.

A picture has at most ``side`` cells a side. An even step would mix neighbouring
tiles into confetti; ``aligned_grid`` finds where the memory changes along the
first row and column and, when the tiles are fewer than the cells, gives each
tile whole cells (for tilings that are the same in every row and column).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from layoutalg.core.evaluate import as_int64
from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import flatten, unflatten

ALIGN_LIMIT = 1 << 16  # elements along one side evaluated to find the tile borders


def evaluate_at(m: IndexMap, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """The images of the drawn cells (rows, cols), one row of int64 per cell."""
    coords = element_coords(m, rows, cols)
    images = np.stack([np.broadcast_to(v, rows.shape) for v in m.apply(*coords)], axis=1)
    return as_int64(images, f"images of {m.label} (to draw them)")


def element_coords(m: IndexMap, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, ...]:
    """The domain coordinates of the drawn cells, one array per domain dim."""
    extents = [int(e) for e in m.domain.extents]
    if m.domain.rank == 0:
        return ()
    if m.domain.rank == 1:
        return (rows * _grid(m)[1] + cols,)
    # Exact on object arrays (Python ints) past int64: no wrap-around.
    return (*unflatten(rows, extents[:-1]), cols)


def _index_dtype(m: IndexMap):
    """int64 for element numbers that fit it with room to spare, else exact
    Python ints (object arrays): a 2**64-element layout must not wrap."""
    return np.int64 if math.prod(int(e) for e in m.domain.extents) < 2**62 else object


def _grid(m: IndexMap) -> tuple[int, int]:
    """Rows and columns of the drawing: rank 1 as rows of 32, rank 2 as it
    is, higher ranks with every dim but the last folded into rows."""
    extents = [int(e) for e in m.domain.extents]
    if not extents:
        return 1, 1
    if len(extents) == 1:
        width = min(32, extents[0])
        return -(-extents[0] // width), width
    return math.prod(extents[:-1]), extents[-1]


@dataclass(frozen=True)
class Grid:
    """The drawn cells: the first element row (column) of each drawn row
    (column), and the rows and columns of elements in all."""

    row_starts: np.ndarray
    col_starts: np.ndarray
    n_rows: int
    n_cols: int

    @property
    def sampled(self) -> bool:
        return len(self.row_starts) < self.n_rows or len(self.col_starts) < self.n_cols

    def block(self) -> tuple[int, int, bool]:
        """The largest block of elements a cell stands for (rows, columns), and
        whether every cell but the last of a row or column stands for that much."""
        rows = np.diff(np.append(self.row_starts, self.n_rows))
        cols = np.diff(np.append(self.col_starts, self.n_cols))
        even = bool(np.all(rows[:-1] == rows.max()) and np.all(cols[:-1] == cols.max()))
        return int(rows.max()), int(cols.max()), even

    def points(self, m: IndexMap) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(element rows, element cols, cell rows, cell cols) of the drawn cells;
        rank 1 stops at its last element."""
        kind = _index_dtype(m)
        rr, cc = np.meshgrid(np.asarray(self.row_starts).astype(kind),
                             np.asarray(self.col_starts).astype(kind), indexing="ij")
        ir, ic = np.meshgrid(np.arange(len(self.row_starts)), np.arange(len(self.col_starts)),
                             indexing="ij")
        rows, cols, ir, ic = rr.ravel(), cc.ravel(), ir.ravel(), ic.ravel()
        if m.domain.rank == 1:
            inside = rows * self.n_cols + cols < int(m.domain.extents[0])
            rows, cols, ir, ic = rows[inside], cols[inside], ir[inside], ic[inside]
        return rows, cols, ir, ic

    def cell_of(self, m: IndexMap, point: tuple[int, ...]) -> tuple[int, int]:
        """The (row, column) of the cell whose block holds the element ``point``."""
        extents = [int(e) for e in m.domain.extents]
        if len(extents) == 1:
            row, col = divmod(point[0], self.n_cols)
        else:
            row, col = flatten(point[:-1], extents[:-1]), point[-1]
        return (int(np.searchsorted(self.row_starts, row, side="right")) - 1,
                int(np.searchsorted(self.col_starts, col, side="right")) - 1)


def aligned_grid(m: IndexMap, side: int) -> Grid:
    """The cells to draw: every element when the grid fits in ``side``², else
    samples aligned to the tiles where they can be (see the module docstring),
    else evenly spaced."""
    n_rows, n_cols = _grid(m)
    return Grid(_along(m, n_rows, side, True), _along(m, n_cols, side, False), n_rows, n_cols)


def _along(m: IndexMap, n: int, side: int, row_axis: bool) -> np.ndarray:
    if n <= side:
        return np.arange(n)
    even = np.arange(0, n, -(-n // side))
    if n > ALIGN_LIMIT or m.codomain.rank < 2 or _index_dtype(m) is object:
        return even
    line = np.arange(n, dtype=np.int64)
    zero = np.zeros_like(line)
    rows, cols = (line, zero) if row_axis else (zero, line)
    try:
        memory = evaluate_at(m, rows, cols)[:, :-1]
    except Exception:  # noqa: BLE001 - the line cannot be evaluated: sample evenly
        return even
    return tile_samples(memory, side, even)


def tile_samples(memory: np.ndarray, side: int, even: np.ndarray) -> np.ndarray:
    """The first index of each cell along a line whose elements lie in
    ``memory`` (one row per element): each run of one memory gets
    ``side // runs`` cells (at most one per element); ``even`` when the runs
    outnumber ``side``.

    >>> tile_samples(np.array([[0]] * 6 + [[1]] * 6), 4, None).tolist()
    [0, 3, 6, 9]
    """
    changes = np.flatnonzero(np.any(memory[1:] != memory[:-1], axis=1)) + 1
    starts = np.concatenate(([0], changes))
    if len(starts) > side:
        return even
    ends = np.append(starts[1:], len(memory))
    counts = np.minimum(side // len(starts), ends - starts)
    return np.concatenate([start + np.arange(count) * (end - start) // count
                           for start, end, count in zip(starts, ends, counts)])
