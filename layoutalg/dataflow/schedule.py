"""A tiled matmul schedule: which operand stays in the PEs and the loop order.

``C[M×N] = A[M×K] · B[K×N]`` is cut into ``Ti × Tj × Tk`` tiles (edge tiles
smaller) and run as three tile loops. A dataflow fixes the loop order
(``LOOP_ORDER``), the stationary operand (``STATIONARY``) and the levels
holding one tile of each operand (``RESIDENCY``): the seed's allocations,
its capacity constraints count exactly these tiles; IS is WS with A and B
exchanged (table in ``docs/dataflow.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from layoutalg.core.space import Space
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import DataflowError
from layoutalg.validate import one_of, positive_int, positive_sizes
from layoutalg.verify.combinators import permute

DATAFLOWS = ("os", "ws", "is")
LOOPS = ("ti", "tj", "tk")
OPERANDS = ("A", "B", "C")
LEVELS = ("dram", "l2", "array", "register")

#: The tile loops that index each operand: A[ti, tk], B[tk, tj], C[ti, tj].
INDEXED_BY = {"A": ("ti", "tk"), "B": ("tk", "tj"), "C": ("ti", "tj")}
LOOP_ORDER = {"os": ("ti", "tj", "tk"), "ws": ("tk", "tj", "ti"), "is": ("tk", "ti", "tj")}
STATIONARY = {"os": "C", "ws": "B", "is": "A"}
#: Storage levels holding one tile of each operand, outermost first. A fill
#: of a level comes from the level before it in this chain.
RESIDENCY = {
    "os": {"A": ("dram", "l2"), "B": ("dram", "l2"), "C": ("dram", "l2", "register")},
    "ws": {"A": ("dram", "l2"), "B": ("dram", "register"), "C": ("dram", "l2")},
    "is": {"A": ("dram", "register"), "B": ("dram", "l2"), "C": ("dram", "l2")},
}


@dataclass(frozen=True)
class Schedule:
    """A tiled matmul under ``dataflow`` "os", "ws" or "is" (output-, weight-,
    input-stationary): ``problem`` ``(M, N, K)`` for ``C[M×N] = A[M×K]·B[K×N]`` in
    ``tiles`` ``(Ti, Tj, Tk)``, ints or positive integer symbols (``la.extents``),
    a concrete tile at most its dimension; ``element_bytes`` per element.

    >>> s = Schedule("ws", (256, 64, 64), (64, 32, 64))
    >>> s.loop_order, s.stationary, s.trips
    (('tk', 'tj', 'ti'), 'B', (4, 2, 1))
    """

    dataflow: str
    problem: tuple
    tiles: tuple
    element_bytes: int = field(default=4, kw_only=True)

    def __post_init__(self) -> None:
        one_of(DataflowError, "dataflow", self.dataflow, DATAFLOWS, where="Schedule")
        problem = positive_sizes(DataflowError, "problem", self.problem, ("M", "N", "K"),
                                 where="Schedule")
        tiles = positive_sizes(DataflowError, "tiles", self.tiles, ("Ti", "Tj", "Tk"),
                               where="Schedule")
        for tile_name, tile, dim_name, dim in zip(("Ti", "Tj", "Tk"), tiles, "MNK", problem):
            if isinstance(tile, int) and isinstance(dim, int) and tile > dim:
                raise DataflowError(
                    f"Schedule: tile {tile_name} must be at most {dim_name}={dim} (a larger tile "
                    f"only holds padding; use {tile_name}={dim}); got {tile}")
        positive_int(DataflowError, "element_bytes", self.element_bytes, where="Schedule")
        object.__setattr__(self, "problem", problem)
        object.__setattr__(self, "tiles", tiles)

    # -- sizes ---------------------------------------------------------------------

    M = property(lambda self: self.problem[0])
    N = property(lambda self: self.problem[1])
    K = property(lambda self: self.problem[2])

    @property
    def is_concrete(self) -> bool:
        return all(isinstance(v, int) for v in self.problem + self.tiles)

    @property
    def trips(self) -> tuple:
        """Tile counts ``(⌈M/Ti⌉, ⌈N/Tj⌉, ⌈K/Tk⌉)`` of the loops ti, tj, tk."""
        return tuple(ceil_div(d, t) for d, t in zip(self.problem, self.tiles))

    def dim(self, loop: str):
        """The matrix dimension a tile loop walks: ti → M, tj → N, tk → K."""
        return self.problem[LOOPS.index(loop)]

    def tile(self, loop: str):
        return self.tiles[LOOPS.index(loop)]

    def trip(self, loop: str):
        return self.trips[LOOPS.index(loop)]

    def size(self, operand: str):
        """Elements of a whole operand matrix: A M·K, B K·N, C M·N."""
        rows, cols = INDEXED_BY[operand]
        return self.dim(rows) * self.dim(cols)

    def tile_elements(self, operand: str):
        """Elements of one full tile of ``operand``."""
        rows, cols = INDEXED_BY[operand]
        return self.tile(rows) * self.tile(cols)

    # -- the dataflow --------------------------------------------------------------

    @property
    def loop_order(self) -> tuple[str, str, str]:
        return LOOP_ORDER[self.dataflow]

    @property
    def stationary(self) -> str:
        """The operand held in the PE registers."""
        return STATIONARY[self.dataflow]

    def residency(self, operand: str) -> tuple[str, ...]:
        """Storage levels holding a tile of ``operand``, DRAM first."""
        return RESIDENCY[self.dataflow][operand]

    def resident_in(self, level: str) -> tuple[str, ...]:
        """Operands that keep a tile in ``level`` ("l2" or "register")."""
        return tuple(x for x in OPERANDS if level in self.residency(x))

    def bind(self, **values: int) -> Schedule:
        """The schedule with symbolic sizes replaced by numbers."""
        env = {sympy.Symbol(k, integer=True, positive=True): v for k, v in values.items()}
        sub = [v if isinstance(v, int) else sympy.sympify(v).xreplace(env)
               for v in self.problem + self.tiles]
        return Schedule(self.dataflow, tuple(sub[:3]), tuple(sub[3:]),
                        element_bytes=self.element_bytes)

    @property
    def assumptions(self) -> tuple[sympy.Basic, ...]:
        """``Ti ≤ M``, ``Tj ≤ N``, ``Tk ≤ K`` where a side is symbolic (the
        checks assume them; concrete tiles are validated instead)."""
        return tuple(sympy.Le(t, d, evaluate=False) for t, d in zip(self.tiles, self.problem)
                     if not (isinstance(t, int) and isinstance(d, int)))

    def index_map(self):
        """The loop nest: loop indices (outermost first; row-major order is execution
        order) → tile coordinates ``(ti, tj, tk)``; ``check_bijective`` on it proves
        the schedule visits every tile triple exactly once.

        >>> print(Schedule("ws", (4, 4, 4), (2, 2, 4)).index_map().formula())
        (tk, tj, ti) ↦ (ti, tj, tk)
        """
        nest = Space(**{loop: self.trip(loop) for loop in self.loop_order})
        return permute(nest, list(LOOPS)).renamed(f"loop nest of {self.label}")

    @property
    def label(self) -> str:
        """``WS 256×64×64 in 64×64×32 tiles``."""
        dims, tiles = ("×".join(map(str, sizes)) for sizes in (self.problem, self.tiles))
        return f"{self.dataflow.upper()} {dims} in {tiles} tiles"

    def __str__(self) -> str:
        return self.label
