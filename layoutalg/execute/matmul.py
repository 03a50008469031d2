"""``matmul``: a tiled matmul run on an emulated machine, with its counters.

- ``"os"``, ``"ws"``, ``"is"`` run a :class:`layoutalg.dataflow.Schedule` on
  a :class:`~.hierarchy.Hierarchy` (DRAM channels → L2 → registers). The
  executor walks the schedule's event stream (``la.dataflow.events``, the
  one counting rule): every move copies a real tile between the level
  memories, which count what they read and write (per level, operand and
  DRAM channel); every compute multiplies the tiles held at the operands'
  innermost levels and counts the rule's per-MAC accesses (register reads,
  array hops), which no memory can observe from a vectorized product.
  The totals equal ``la.dataflow.traffic(schedule)`` exactly (tested).
- ``"summa"`` runs SUMMA on a PE mesh (:mod:`.summa`).
"""

from __future__ import annotations

import numpy as np

from layoutalg.errors import describe
from layoutalg.execute.counters import Counters
from layoutalg.execute.errors import MachineError
from layoutalg.execute.hierarchy import Hierarchy, Levels

DATAFLOWS = ("os", "ws", "is", "summa")


def matmul(a, b, *, dataflow: str, tiles, machine=None) -> tuple[np.ndarray, Counters]:
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
    if dataflow not in DATAFLOWS:
        raise MachineError(f"matmul: dataflow must be one of {DATAFLOWS}; got {describe(dataflow)}")
    a, b, dtype = _operands(a, b)
    if dataflow == "summa":
        from layoutalg.execute.summa import summa

        return summa(a, b, tiles=tiles, machine=machine, dtype=dtype)
    return run_schedule(a, b, dataflow=dataflow, tiles=tiles, machine=machine, dtype=dtype)


def run_schedule(a, b, *, dataflow, tiles, machine, dtype) -> tuple[np.ndarray, Counters]:
    """Run an OS/WS/IS schedule's events on a :class:`Hierarchy`."""
    from layoutalg.dataflow import reuse
    from layoutalg.dataflow.schedule import Schedule

    hierarchy = Hierarchy.kpu() if machine is None else machine
    if not isinstance(hierarchy, Hierarchy):
        raise MachineError(f"matmul: machine for dataflow {dataflow!r} must be a "
                           f"layoutalg.execute.Hierarchy; got {describe(machine)}")
    if hierarchy.interleave % dtype.itemsize:
        raise MachineError(f"matmul: the channel interleave ({hierarchy.interleave} B) must be a "
                           f"multiple of the element size {dtype.itemsize}")
    problem = (a.shape[0], b.shape[1], a.shape[1])
    schedule = Schedule(dataflow, problem, _tiles(tiles), element_bytes=dtype.itemsize)
    levels = Levels(hierarchy, schedule, dtype)
    levels.load_inputs(a.astype(dtype, copy=False), b.astype(dtype, copy=False))
    innermost = {x: schedule.residency(x)[-1] for x in "ABC"}
    scratch = np.empty(levels.tile_shape("C"), dtype=dtype)
    steps = 0
    for event in reuse.events(schedule):
        if isinstance(event, reuse.Move):
            levels.move(event.operand, event.tile, event.source, event.target)
        elif isinstance(event, reuse.Zero):
            levels.zero(event.operand, event.tile, event.level)
        else:
            step = event.step
            tiles_of = {x: levels.view(innermost[x], x, step.tile(x)) for x in "ABC"}
            c = tiles_of["C"]
            product = scratch[:c.shape[0], :c.shape[1]]
            np.matmul(tiles_of["A"], tiles_of["B"], out=product)
            c += product
            for level, operand, kind, count in reuse.accesses(schedule, event):
                if level == "mac":
                    levels.tally.macs += count
                else:
                    levels.tally.add(level, operand, kind, count)
            steps += 1
    counters = levels.tally.freeze(steps=steps, schedule=schedule,
                                   notes=(str(hierarchy), str(levels.channels)))
    return levels.result(), counters


def _operands(a, b):
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


def _tiles(tiles) -> tuple[int, int, int]:
    if not (isinstance(tiles, (tuple, list)) and len(tiles) == 3 and all(
            isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 1
            for t in tiles)):
        raise MachineError(f"matmul: tiles must be (Ti, Tj, Tk), three positive ints; "
                           f"got {describe(tiles)}")
    return tuple(int(t) for t in tiles)
