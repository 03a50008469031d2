"""``Steps``: a schedule's loop nest as NumPy arrays, one entry per tile step.

The counting rule of ``la.dataflow.events`` keeps one tile of an operand per
level and refetches it exactly when a step needs another tile than the
previous step; a C tile never touched before starts at zero instead, and a
C tile is written back when the next step needs another one (and after the
last step). Each is a comparison of consecutive steps, so ``Steps`` makes
them for the whole nest at once, and the executor counts all moves with a
few array sums. ``tests/execute/test_execute_batched.py`` checks that the
moves and zero-fills made from ``Steps`` are the rule's events, in order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.dataflow.schedule import INDEXED_BY, LOOPS, OPERANDS


@dataclass(frozen=True, eq=False)
class Steps:
    """The ``count`` tile steps of a concrete schedule, in execution order, as
    ``(count,)`` arrays: per loop name, each step's tile ``index`` and the
    ``extent`` its tile spans (less at an edge); per operand, the tile's
    row-major number in the operand's tile grid (``flat``) and whether the
    step needs another tile than the step before (``changed``, always at step
    0); ``first_touch``: the step's C tile is new.

    >>> from layoutalg.dataflow import Schedule
    >>> s = Steps.of(Schedule("ws", (2, 2, 2), (1, 2, 1)))
    >>> [s.tile("A", i) for i in range(s.count)], s.changed["B"].tolist()
    ([(0, 0), (1, 0), (0, 1), (1, 1)], [True, False, True, False])
    >>> s.first_touch.tolist()
    [True, True, False, False]
    """

    schedule: object
    count: int
    index: dict
    extent: dict
    flat: dict
    changed: dict
    first_touch: np.ndarray

    @classmethod
    def of(cls, schedule) -> Steps:
        """The arrays of ``schedule``'s loop nest (the order of ``la.dataflow.loop_nest``)."""
        order = schedule.loop_order
        grid = np.indices([schedule.trip(loop) for loop in order]).reshape(3, -1)
        index = {loop: grid[order.index(loop)] for loop in LOOPS}
        extent = {loop: np.minimum(schedule.tile(loop),
                                   schedule.dim(loop) - index[loop] * schedule.tile(loop))
                  for loop in LOOPS}
        flat = {x: index[rows] * schedule.trip(cols) + index[cols]
                for x, (rows, cols) in INDEXED_BY.items()}
        changed = {x: np.concatenate(([True], flat[x][1:] != flat[x][:-1])) for x in OPERANDS}
        first_touch = np.zeros(grid.shape[1], dtype=bool)
        first_touch[np.unique(flat["C"], return_index=True)[1]] = True
        return cls(schedule, grid.shape[1], index, extent, flat, changed, first_touch)

    def tile(self, operand: str, step: int) -> tuple[int, int]:
        """The tile ``(row, col)`` of ``operand`` that step number ``step`` uses."""
        rows, cols = INDEXED_BY[operand]
        return int(self.index[rows][step]), int(self.index[cols][step])

    def elements(self, operand: str) -> np.ndarray:
        """``(count,)`` elements of each step's tile of ``operand``."""
        rows, cols = INDEXED_BY[operand]
        return self.extent[rows] * self.extent[cols]

    def fills(self, operand: str) -> np.ndarray:
        """Steps that fetch a tile of ``operand`` into its levels (not a new C tile)."""
        needed = self.changed[operand]
        return needed & ~self.first_touch if operand == "C" else needed

    def writebacks(self) -> np.ndarray:
        """Steps whose C tile is written back after them: the next step needs
        another C tile, or the step is the last."""
        return np.concatenate((self.changed["C"][1:], [True]))

    def compute_kinds(self) -> dict[tuple[int, int, int, bool], tuple[int, int]]:
        """``(mi, nj, kk, first_touch)`` → ``(steps of that kind, one of them)``:
        all a step's accesses in the rule depend on (each extent is the full
        tile's or the edge tile's, so four bits name the kind)."""
        key = self.first_touch.astype(np.int64)
        for loop in LOOPS:
            key = 2 * key + (self.extent[loop] != self.schedule.tile(loop))
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        return {(*(int(self.extent[loop][at]) for loop in LOOPS), bool(self.first_touch[at])):
                (int(n), int(at)) for at, n in zip(first, counts)}
