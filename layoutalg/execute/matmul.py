"""``matmul``: a tiled matmul run on an emulated machine, with its counters.

- ``"os"``, ``"ws"``, ``"is"`` run a :class:`layoutalg.dataflow.Schedule` on
  a :class:`~.hierarchy.Hierarchy` (DRAM channels → L2 → registers). The
  executor performs the moves, zero-fills and computes of the counting rule
  (``la.dataflow.events``) in its order, step by step: every move copies a
  real tile between the level memories and every compute multiplies the
  tiles held at the operands' innermost levels (:mod:`.products`). Which steps move what is
  read off :class:`~.steps.Steps` (the loop nest as arrays), and the counts
  are made in bulk from the same arrays: the moves per level, operand and
  DRAM channel with array sums, the computes with the rule's own per-MAC
  accesses (``reuse.accesses``) once per kind of step, times the steps of
  that kind. The moves and their order equal the rule's events and the
  totals equal ``la.dataflow.traffic(schedule)`` exactly (tested).
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
from layoutalg.execute.operands import operands, tiles_of
from layoutalg.execute.program import Program
from layoutalg.execute.steps import Steps
from layoutalg.execute.summa import summa
from layoutalg.validate import one_of, positive_int

DATAFLOWS = ("os", "ws", "is", "summa")


def matmul(a, b, *, dataflow: str, tiles, machine=None,
           workers: int = 1) -> tuple[np.ndarray, Counters]:
    """``C = A @ B`` tiled under ``dataflow`` on an emulated machine.

    Args:
        a, b: 2-D arrays, ``M×K`` and ``K×N`` (same numeric dtype family;
            the result type of the two is used).
        dataflow: "os", "ws" or "is" on a KPU :class:`Hierarchy`, or
            "summa" on a PE mesh :class:`Machine`.
        tiles: ``(Ti, Tj, Tk)``. For SUMMA, PE ``(r, c)`` owns the ``Ti×Tj``
            tile ``C[r, c]``, so the mesh is ``⌈M/Ti⌉ × ⌈N/Tj⌉`` PEs, and each
            of the ``⌈K/Tk⌉`` steps broadcasts ``Tk`` columns of A along the PE
            rows and ``Tk`` rows of B along the PE columns.
        machine: a Hierarchy (default ``Hierarchy.kpu()``) or, for SUMMA, a
            Machine with ``pe_row × pe_col`` dims (default ``Machine.wse``).
        workers: threads SUMMA's PE rows are shared among (the result and
            the counts do not depend on it). The KPU dataflows run their
            steps in order, so for them it must be 1; their tile products
            of at most 2^22 multiply-adds run on the calling thread, larger
            ones on BLAS's threads (see :mod:`.products`).

    Returns:
        ``(C, counters)``: ``C`` equals ``numpy.matmul`` up to rounding;
        ``counters`` holds accesses per level and operand, DRAM bytes per
        channel, messages between PEs and MACs (:class:`~.counters.Counters`).

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
        return summa(a, b, tiles=tiles, machine=machine, dtype=dtype, workers=workers)
    return run_schedule(a, b, dataflow=dataflow, tiles=tiles, machine=machine, dtype=dtype)


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
    steps = memo.get("steps")
    if steps is None:
        steps = memo["steps"] = Steps.of(schedule)
    _perform(levels, steps)
    _count(levels, steps)
    counters = levels.tally.freeze(steps=steps.count, schedule=schedule,
                                   notes=(str(hierarchy), str(levels.channels)))
    result = levels.result()
    levels.release()
    return result, counters


def _perform(levels: Levels, steps) -> None:
    """Perform every step's moves, zero-fills and product on the level
    memories, in the order of ``la.dataflow.events`` (:class:`~.program.Program`,
    made once per set of memories). Nothing is counted here (see :func:`_count`)."""
    program = levels.memories.kept.get("program")
    if program is None:
        program = levels.memories.kept["program"] = Program(levels, steps)
    program.run()


@lru_cache(maxsize=4)
def _memo(hierarchy: Hierarchy, schedule, dtype: str) -> dict:
    """What runs of one schedule on one hierarchy share (its steps, DRAM maps,
    tile addresses and bounds, bytes per channel of every tile, and one finished
    run's memories with their views and program, if its DRAM is at most
    ``POOLED_DRAM_BYTES``, 32 MiB): all fixed by the three, so made once
    (:class:`Levels` fills it). Four schedules are kept."""
    return {}


def _count(levels: Levels, steps) -> None:
    """Add what :func:`_perform` moved and multiplied, a whole run at a time:
    each fill and write-back of a level pair summed over its steps, and each
    kind of compute step (see :meth:`~.steps.Steps.compute_kinds`) counted by
    the rule once, times the steps of that kind."""
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
