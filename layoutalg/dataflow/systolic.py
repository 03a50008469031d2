"""Cycles of an R×C systolic array (the SCALE-Sim analytical model).

A GEMM ``(M, N, K)`` maps onto the array as a spatial ``Sr × Sc`` block and
a temporal extent ``T`` (SCALE-Sim, Samajdar et al. 2018): OS ``(M, N, K)``,
WS ``(K, N, M)``, IS ``(K, M, N)``, cut into ``⌈Sr/R⌉·⌈Sc/C⌉`` folds of
``R + C + T − 2`` cycles (OS) or ``2R + C + T − 2`` (WS, IS: R more to
preload the stationary operand). A schedule's cycles are the sum over its
steps of each step's ``mi × nj × kk`` block. Compute cycles only: DRAM
bandwidth stalls are outside this model.
"""

from __future__ import annotations

import itertools

import numpy as np

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.schedule import DATAFLOWS, Schedule
from layoutalg.errors import DataflowError, describe
from layoutalg.validate import instance_of, one_of, positive_int, positive_sizes


def mapping(dataflow: str, shape: tuple) -> tuple:
    """SCALE-Sim's ``(Sr, Sc, T)`` for a GEMM ``(M, N, K)``.

    >>> mapping("ws", (256, 64, 32))
    (32, 64, 256)
    """
    one_of(DataflowError, "dataflow", dataflow, DATAFLOWS, where="mapping")
    m, n, k = shape
    return {"os": (m, n, k), "ws": (k, n, m), "is": (k, m, n)}[dataflow]


def systolic_cycles(shape: tuple, dataflow: str, *, rows: int = 16, cols: int = 16) -> int:
    """Cycles of one GEMM ``shape = (M, N, K)`` on a ``rows × cols`` array.

    >>> systolic_cycles((16, 16, 100), "os", rows=16, cols=16)   # one fold: 16 + 16 + 100 − 2
    130
    >>> systolic_cycles((64, 16, 32), "ws", rows=16, cols=16)    # 2 folds of 2·16 + 16 + 64 − 2
    220
    """
    one_of(DataflowError, "dataflow", dataflow, DATAFLOWS, where="systolic_cycles")
    shape = positive_sizes(DataflowError, "shape", shape, ("M", "N", "K"), where="systolic_cycles")
    if not all(isinstance(v, int) for v in shape):
        raise DataflowError(f"systolic_cycles: shape must be concrete ints; got {describe(shape)}")
    rows = positive_int(DataflowError, "rows", rows, where="systolic_cycles")
    cols = positive_int(DataflowError, "cols", cols, where="systolic_cycles")
    return _cycles(dataflow, shape, rows, cols)


def _cycles(dataflow, shape, rows, cols):
    """Cycles for ints or NumPy arrays (no validation): the folds times the
    cycles of one fold, OS ``R + C + T − 2``, WS/IS ``2R + C + T − 2``."""
    spatial_rows, spatial_cols, temporal = mapping(dataflow, shape)
    folds = ceil_div(spatial_rows, rows) * ceil_div(spatial_cols, cols)
    fill = rows if dataflow == "os" else 2 * rows
    return folds * (fill + cols + temporal - 2)


def schedule_cycles(schedule: Schedule, *, rows: int = 16, cols: int = 16) -> int:
    """Cycles of a whole schedule: each step's block run on the array in turn.

    >>> schedule_cycles(Schedule("os", (32, 16, 100), (16, 16, 100)))   # 2 steps of 130
    260
    """
    instance_of(DataflowError, "schedule", schedule, Schedule, where="schedule_cycles")
    if not schedule.is_concrete:
        raise DataflowError(f"schedule_cycles: needs concrete sizes; got {schedule}")
    rows = positive_int(DataflowError, "rows", rows, where="schedule_cycles")
    cols = positive_int(DataflowError, "cols", cols, where="schedule_cycles")
    return int(tiled_cycles(schedule.dataflow, schedule.problem, schedule.tiles, rows, cols))


def tiled_cycles(dataflow: str, problem: tuple, tiles: tuple, rows: int, cols: int):
    """Sum of step cycles without visiting every step: along each dimension the
    steps have ``n − 1`` full tiles and one edge tile, so at most eight block
    shapes occur. Tiles may be NumPy arrays (one entry per tiling)."""
    sides = []
    for dim, tile in zip(problem, tiles):
        trips = ceil_div(dim, tile)
        sides.append(((trips - 1, tile), (1, dim - (trips - 1) * tile)))  # full tiles, the edge
    total = 0
    for (n0, s0), (n1, s1), (n2, s2) in itertools.product(*sides):
        total = total + n0 * n1 * n2 * _cycles(dataflow, (s0, s1, s2), rows, cols)
    return total if isinstance(total, np.ndarray) else int(total)
