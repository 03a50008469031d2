"""A KPU run's operations, bound to the views of one set of level memories.

The counting rule (``la.dataflow.events``) fixes every step's moves,
zero-fills and product from the schedule alone, and a run's memories keep
their places, so the operations are listed once with the tile views they
read and write, and each run of the schedule on those memories only
performs them. ``tests/execute/test_execute_batched.py`` holds the
operations :meth:`Program.walk` names to the rule's events, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

import numpy as np

from layoutalg.dataflow.schedule import INDEXED_BY
from layoutalg.execute.products import Products

#: A move: copy ``here`` into ``there``, or zero ``there`` when ``here`` is None.
Move = tuple[np.ndarray, "np.ndarray | None"]
#: A step: its moves, then the product's operands (see :meth:`Program.walk`).
Step = tuple[list[Move], "np.ndarray | None", "np.ndarray | None", "np.ndarray | None",
             "np.ndarray | None"]


#: A program of at most this many steps is kept; a longer one is walked afresh by each run.
KEPT_STEPS = 1 << 16


class Program:
    """Every step's moves and product, in the order of ``la.dataflow.events``.

    Each step: write back the C tile the step does not need (innermost
    level first), fill A, B and C (outermost level first; a new C tile
    starts at zero), then ``C += A·B`` on the tiles held at each operand's
    innermost level (on a C tile zeroed at this step the product is written
    in place: ``0 + A·B``). After the last step its C tile is written back.
    """

    def __init__(self, levels, steps) -> None:
        self.levels, self.steps = levels, steps
        schedule = steps.schedule
        chains = {x: schedule.residency(x) for x in "ABC"}
        self._fills = {x: list(pairwise(chains[x])) for x in "ABC"}
        self._writebacks = [(level, parent) for parent, level in reversed(self._fills["C"])]
        self._zero_levels = chains["C"][1:]
        self._inner = {x: chains[x][-1] for x in "ABC"}
        self._scratch = np.empty(levels.tile_shape("C"), dtype=levels.dtype)
        self._trimmed: dict[tuple[int, int], np.ndarray] = {}   # the scratch per C tile shape
        self.multiply = Products()   # each product on the calling thread (see .products)
        self._kept = list(self.walk()) if steps.count <= KEPT_STEPS else None

    def walk(self, labels: list | None = None) -> Iterator[Step]:
        """Each step's ``(moves, a, b, c, product)``: its moves, then ``c = a·b``
        (``product`` None) or ``c += a·b`` through ``product``; a last
        ``(moves, None, None, None, None)`` writes back the last C tile.
        ``labels``, if given, gets each operation's event, in order."""
        steps, view = self.steps, self.levels.view
        fills, writebacks, inner = self._fills, self._writebacks, self._inner
        tiles = {x: list(zip(steps.index[INDEXED_BY[x][0]].tolist(),
                             steps.index[INDEXED_BY[x][1]].tolist())) for x in "ABC"}
        new = {x: steps.changed[x].tolist() for x in "ABC"}
        first_touch = steps.first_touch.tolist()
        note = labels.append if labels is not None else (lambda event: None)

        def copy(moves, x, tile, pairs):
            for source, target in pairs:
                moves.append((view(target, x, tile), view(source, x, tile)))
                note(("copy", x, tile, source, target))

        c_tile = None
        for s in range(steps.count):
            moves: list[Move] = []
            if new["C"][s] and s:
                copy(moves, "C", c_tile, writebacks)
            a_tile, b_tile, c_tile = tiles["A"][s], tiles["B"][s], tiles["C"][s]
            for x, tile in (("A", a_tile), ("B", b_tile)):
                if new[x][s]:
                    copy(moves, x, tile, fills[x])
            fresh = bool(new["C"][s] and first_touch[s])
            if fresh:
                for level in self._zero_levels:
                    moves.append((view(level, "C", c_tile), None))
                    note(("zero", "C", c_tile, level))
            elif new["C"][s]:
                copy(moves, "C", c_tile, fills["C"])
            c = view(inner["C"], "C", c_tile)
            product = None if fresh else self._trimmed.setdefault(
                c.shape, self._scratch[:c.shape[0], :c.shape[1]])
            note(("product",))
            yield moves, view(inner["A"], "A", a_tile), view(inner["B"], "B", b_tile), c, product
        moves = []
        if c_tile is not None:
            copy(moves, "C", c_tile, writebacks)
        yield moves, None, None, None, None

    def run(self) -> None:
        """Perform every operation (nothing is counted here)."""
        copyto, add, multiply = np.copyto, np.add, self.multiply
        for moves, a, b, c, product in (self._kept if self._kept is not None else self.walk()):
            for there, here in moves:
                if here is None:
                    there.fill(0)
                else:
                    copyto(there, here)
            if a is None:
                continue
            if product is None:
                multiply(a, b, c)
            else:
                multiply(a, b, product)
                add(c, product, out=c)
