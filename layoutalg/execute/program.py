"""A KPU run's operations, bound to the views of one set of level memories.

The counting rule (``la.dataflow.events``) fixes every step's moves,
zero-fills and product from the schedule alone, and a run's memories keep
their places (one slot per operand and level; a tile's DRAM address), so
the operations can be listed once with the tile views they read and write,
and a run of the same schedule on the same memories only performs them:
no per-step lookups. :attr:`Program.labels` names each operation as the
rule's event does; ``tests/execute/test_execute_batched.py`` holds them to
``la.dataflow.events``, in order.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from layoutalg.dataflow.schedule import INDEXED_BY
from layoutalg.execute.products import Products

#: A move: copy ``here`` into ``there``, or zero ``there`` when ``here`` is None.
Move = tuple[np.ndarray, "np.ndarray | None"]


class Program:
    """Every step's moves and product, in the order of ``la.dataflow.events``.

    Each step: write back the C tile the step does not need (innermost
    level first), fill A, B and C (outermost level first; a new C tile
    starts at zero), then ``C += A·B`` on the tiles held at each operand's
    innermost level (on a C tile zeroed at this step the product is written
    in place: ``0 + A·B``). After the last step its C tile is written back.
    """

    def __init__(self, levels, steps) -> None:
        schedule = steps.schedule
        chains = {x: schedule.residency(x) for x in "ABC"}
        fills = {x: list(pairwise(chains[x])) for x in "ABC"}
        writebacks = [(level, parent) for parent, level in reversed(fills["C"])]
        zero_levels = chains["C"][1:]
        inner = {x: chains[x][-1] for x in "ABC"}
        tiles = {x: list(zip(steps.index[INDEXED_BY[x][0]].tolist(),
                             steps.index[INDEXED_BY[x][1]].tolist())) for x in "ABC"}
        new = {x: steps.changed[x].tolist() for x in "ABC"}
        first_touch = steps.first_touch.tolist()
        view = levels.view
        scratch = np.empty(levels.tile_shape("C"), dtype=levels.dtype)
        trimmed: dict[tuple[int, int], np.ndarray] = {}   # the scratch for each C tile shape
        self.multiply = Products()   # each product on the calling thread (see .products)
        self.steps: list[tuple[list[Move], np.ndarray, np.ndarray, np.ndarray,
                               np.ndarray | None]] = []
        self.labels: list[tuple] = []

        def copy(moves, x, tile, source, target):
            moves.append((view(target, x, tile), view(source, x, tile)))
            self.labels.append(("copy", x, tile, source, target))

        c_tile = None
        for s in range(steps.count):
            moves: list[Move] = []
            if new["C"][s] and s:
                for source, target in writebacks:
                    copy(moves, "C", c_tile, source, target)
            a_tile, b_tile, c_tile = tiles["A"][s], tiles["B"][s], tiles["C"][s]
            for x, tile in (("A", a_tile), ("B", b_tile)):
                if new[x][s]:
                    for source, target in fills[x]:
                        copy(moves, x, tile, source, target)
            fresh = bool(new["C"][s] and first_touch[s])
            if fresh:
                for level in zero_levels:
                    moves.append((view(level, "C", c_tile), None))
                    self.labels.append(("zero", "C", c_tile, level))
            elif new["C"][s]:
                for source, target in fills["C"]:
                    copy(moves, "C", c_tile, source, target)
            c = view(inner["C"], "C", c_tile)
            product = None if fresh else trimmed.setdefault(
                c.shape, scratch[:c.shape[0], :c.shape[1]])
            self.steps.append((moves, view(inner["A"], "A", a_tile),
                               view(inner["B"], "B", b_tile), c, product))
            self.labels.append(("product",))
        self.last: list[Move] = []
        if c_tile is not None:
            for source, target in writebacks:
                copy(self.last, "C", c_tile, source, target)

    def run(self) -> None:
        """Perform every operation (nothing is counted here)."""
        copyto, add, multiply = np.copyto, np.add, self.multiply
        for moves, a, b, c, product in self.steps:
            for there, here in moves:
                if here is None:
                    there.fill(0)
                else:
                    copyto(there, here)
            if product is None:
                multiply(a, b, c)
            else:
                multiply(a, b, product)
                add(c, product, out=c)
        for there, here in self.last:
            copyto(there, here)
