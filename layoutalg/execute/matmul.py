"""``matmul``: a tiled matmul run on an emulated machine, with its counters,
and its checked arguments (:func:`operands`, :func:`tiles_of`).

- ``"os"``, ``"ws"``, ``"is"`` run a :class:`layoutalg.dataflow.Schedule` on
  a :class:`~.hierarchy.Hierarchy` (DRAM channels → L2 → registers),
  performing the moves, zero-fills and computes of the counting rule
  (``la.dataflow.events``) in its order on real tiles (:mod:`.program`). The
  counts are made in bulk from the loop nest as arrays (:class:`~.steps.Steps`):
  moves per level, operand and DRAM channel by array sums, computes by the
  rule's own per-MAC accesses (``reuse.accesses``) once per kind of step,
  times its steps. Moves, order and totals equal the rule's exactly (tested).
- ``"summa"`` runs SUMMA on a PE mesh (:mod:`.summa`).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import pairwise

import numpy as np

from layoutalg.dataflow import reuse
from layoutalg.dataflow.schedule import LOOPS, OPERANDS, Schedule
from layoutalg.errors import MachineError, describe
from layoutalg.execute.counters import Counters
from layoutalg.execute.hierarchy import Hierarchy, Levels
from layoutalg.execute.program import Program
from layoutalg.execute.steps import Steps
from layoutalg.execute.summa import summa
from layoutalg.validate import is_int, one_of, positive_int

DATAFLOWS = ("os", "ws", "is", "summa")


def matmul(a, b, *, dataflow: str, tiles, machine=None,
           workers: int = 1) -> tuple[np.ndarray, Counters]:
    """``C = A @ B`` (2-D arrays ``M×K`` and ``K×N``, computed in their result
    type) tiled under ``dataflow``: "os", "ws" or "is" on a KPU ``machine``
    (a :class:`Hierarchy`, default ``Hierarchy.kpu()``), or "summa" on a PE mesh
    (a :class:`Machine` with ``pe_row × pe_col`` dims, default ``Machine.wse``),
    where PE ``(r, c)`` owns the ``Ti×Tj`` tile ``C[r, c]`` of ``tiles = (Ti,
    Tj, Tk)`` and each of the ``⌈K/Tk⌉`` steps broadcasts ``Tk`` columns of A
    along the PE rows and ``Tk`` rows of B along the PE columns. ``workers``
    threads share SUMMA's PE rows (result and counts do not depend on it); 1
    for the KPU dataflows, whose steps run in order. Returns ``(C, counters)``:
    ``C`` equals ``numpy.matmul`` up to rounding; ``counters`` is a
    :class:`~.counters.Counters`.

    >>> import numpy as np
    >>> a, b = np.ones((4, 6), np.float32), np.ones((6, 2), np.float32)
    >>> c, n = matmul(a, b, dataflow="os", tiles=(2, 2, 3))
    >>> c.tolist(), n.macs, n.get("dram", "C", "write")
    ([[6.0, 6.0], [6.0, 6.0], [6.0, 6.0], [6.0, 6.0]], 48, 8)
    """
    one_of(MachineError, "dataflow", dataflow, DATAFLOWS, where="matmul")
    workers = positive_int(MachineError, "workers", workers, where="matmul")
    if workers != 1 and dataflow != "summa":
        raise MachineError(f"matmul: workers must be 1 for dataflow {dataflow!r} (its steps run "
                           f"in order; only SUMMA shares PE rows among threads); got {workers}")
    a, b, dtype = operands(a, b)
    if dataflow == "summa":
        return summa(a, b, tiles=tiles_of(tiles), machine=machine, dtype=dtype, workers=workers)
    return run_schedule(a, b, dataflow=dataflow, tiles=tiles, machine=machine, dtype=dtype)


def operands(a, b) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """``A`` and ``B`` as arrays, and the dtype of the product (their result type)."""
    a, b = np.asarray(a), np.asarray(b)
    for name, value in (("A", a), ("B", b)):
        if value.ndim != 2:
            raise MachineError(f"matmul: {name} must be a 2-D array; got shape {value.shape}")
        if value.dtype.kind not in "iuf" or value.size == 0:
            raise MachineError(f"matmul: {name} must be a non-empty array of numbers; "
                               f"got dtype {value.dtype}, shape {value.shape}")
    if a.shape[1] != b.shape[0]:
        raise MachineError(f"matmul: A's columns must equal B's rows; got A {a.shape[0]}×"
                           f"{a.shape[1]} and B {b.shape[0]}×{b.shape[1]}")
    return a, b, np.result_type(a, b)


def tiles_of(tiles) -> tuple[int, int, int]:
    """``(Ti, Tj, Tk)`` as three Python ints, each at least 1."""
    if not (isinstance(tiles, (tuple, list)) and len(tiles) == 3
            and all(is_int(t) and t >= 1 for t in tiles)):
        raise MachineError(f"matmul: tiles must be (Ti, Tj, Tk), three positive ints; "
                           f"got {describe(tiles)}")
    return tuple(int(t) for t in tiles)


def run_schedule(a, b, *, dataflow, tiles, machine, dtype) -> tuple[np.ndarray, Counters]:
    """Run an OS/WS/IS schedule's steps on a :class:`Hierarchy`."""
    hierarchy = Hierarchy.kpu() if machine is None else machine
    if not isinstance(hierarchy, Hierarchy):
        raise MachineError(f"matmul: machine for dataflow {dataflow!r} must be a "
                           f"layoutalg.execute.Hierarchy; got {describe(machine)}")
    if hierarchy.interleave % dtype.itemsize:
        raise MachineError(f"matmul: the channel interleave ({hierarchy.interleave} B) must be a "
                           f"multiple of the element size {dtype.itemsize}")
    problem = (a.shape[0], b.shape[1], a.shape[1])
    schedule = Schedule(dataflow, problem, tiles_of(tiles), element_bytes=dtype.itemsize)
    memo = _memo(hierarchy, schedule, dtype.str)
    levels = Levels(hierarchy, schedule, dtype, memo=memo)
    levels.load_inputs(a.astype(dtype, copy=False), b.astype(dtype, copy=False))
    if "steps" not in memo:
        memo["steps"] = Steps.of(schedule)
    steps = memo["steps"]
    # every step's moves, zero-fills and product, in the order of the rule's
    # events (a Program, made once per set of memories); counted by _count
    kept = levels.memories.kept
    if "program" not in kept:
        kept["program"] = Program(levels, steps)
    kept["program"].run()
    _count(levels, steps)
    counters = levels.tally.freeze(steps=steps.count, schedule=schedule,
                                   notes=(str(hierarchy), str(levels.channels)))
    result = levels.result()
    levels.release()
    return result, counters


@lru_cache(maxsize=4)
def _memo(hierarchy: Hierarchy, schedule, dtype: str) -> dict:
    """What runs of one schedule on one hierarchy and dtype share, made once
    (steps, DRAM maps, tile addresses and bounds, bytes per channel of every
    tile, one finished run's memories with their views and program if its DRAM
    is at most ``POOLED_DRAM_BYTES``). Four schedules are kept."""
    return {}


def _count(levels: Levels, steps) -> None:
    """Count a whole run's moves and products: each fill and write-back of a
    level pair summed over its steps, and each kind of compute step
    (:meth:`~.steps.Steps.compute_kinds`) counted by the rule once, times its steps."""
    schedule = steps.schedule
    for x in OPERANDS:
        filled = steps.fills(x)
        for parent, level in pairwise(schedule.residency(x)):
            levels.count_moves(x, steps.flat[x][filled], steps.elements(x)[filled],
                               parent, level)
    written = steps.writebacks()
    for parent, level in reversed(list(pairwise(schedule.residency("C")))):
        levels.count_moves("C", steps.flat["C"][written], steps.elements("C")[written],
                           level, parent)
    for (mi, nj, kk, first), (n, at) in steps.compute_kinds().items():
        step = reuse.Step(*(int(steps.index[loop][at]) for loop in LOOPS))
        for level, operand, kind, count in reuse.accesses(
                schedule, reuse.Compute(step, (mi, nj, kk), first)):
            if level == "mac":
                levels.tally.macs += n * count
            else:
                levels.tally.add(level, operand, kind, n * count)
