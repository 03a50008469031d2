"""Where each page goes: a bank and slot (interleaved) or a core and slot (sharded).

A placement is written once with the core's digit arithmetic
(``layoutalg.core.tiling``: (un)flattening, a round-robin deal), so the same
code yields the index maps Z3 checks and, evaluated, the page locations.
The rules (``docs/tt.md``): ``Interleaved``: page ``p`` → bank ``p % B``,
slot ``p // B``. ``Sharded2D`` (the legacy ShardSpec): shards of the 2D page
grid numbered row-major; HEIGHT and WIDTH give shard ``k`` to the ``k``-th
core in orientation order, BLOCK shard ``(r, c)`` to core ``(x=c, y=r)``
(ROW_MAJOR) or ``(x=r, y=c)`` (COL_MAJOR): TT-Metal shrinks a block grid to
the shard grid when it converts the spec to N-d sharding. ``ShardedNd``:
shard ``s`` of the N-d shard grid → core ``s % ncores``, slot ``s // ncores``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import sympy

from layoutalg.core import tiling
from layoutalg.core.tiling import ceil_div, deal, flatten, flatten_colex, undeal

# SymPy's floor and Mod left unevaluated (core.tiling's lazy=True; see tt.maps)
digits, unflatten = partial(tiling.digits, lazy=True), partial(tiling.unflatten, lazy=True)
unflatten_colex = partial(tiling.unflatten_colex, lazy=True)


def core_of(k, grid, orientation):
    """Core ``(x, y)`` of the ``k``-th core in orientation order (ROW_MAJOR: x fastest)."""
    return tuple((unflatten_colex if orientation == "ROW_MAJOR" else unflatten)(k, grid))


def index_of_core(x, y, grid, orientation):
    return (flatten_colex if orientation == "ROW_MAJOR" else flatten)((x, y), grid)


@dataclass(frozen=True)
class Interleaved:
    """Round-robin pages over banks; every tensor starts at bank 0."""

    num_pages: int
    banks: int

    kind = "2d"

    @property
    def location(self) -> tuple[tuple[str, int], ...]:
        return (("bank", self.banks),)

    @property
    def slots(self) -> int:
        return ceil_div(self.num_pages, self.banks)

    def forward(self, coords, pages_2d):
        return self.forward_id(flatten(coords, pages_2d))

    def forward_id(self, page):
        """Bank and slot straight from a page id (no detour through coordinates)."""
        bank, slot = deal(page, self.banks, lazy=True)
        return (bank,), slot

    def inverse(self, location, slot, pages_2d):
        (bank,) = location
        page = undeal(bank, slot, self.banks, lazy=True)
        return unflatten(page, pages_2d), sympy.Lt(page, self.num_pages)


class _OnCores:
    """Shards on a core grid ``(x, y)``: the location is ``(core_x, core_y)``."""

    @property
    def location(self) -> tuple[tuple[str, int], ...]:
        return (("core_x", self.grid[0]), ("core_y", self.grid[1]))


@dataclass(frozen=True)
class Sharded2D(_OnCores):
    """The legacy HEIGHT / WIDTH / BLOCK placement over a 2D page grid."""

    strategy: str
    grid: tuple[int, int]
    orientation: str
    pages_2d: tuple[int, int]
    shard_pages: tuple[int, int]

    kind = "2d"

    @property
    def shard_grid(self) -> tuple[int, int]:
        return tuple(ceil_div(t, s) for t, s in zip(self.pages_2d, self.shard_pages))

    @property
    def slots(self) -> int:
        return self.shard_pages[0] * self.shard_pages[1]

    def forward(self, coords, pages_2d):
        (sr, ir), (sc, ic) = (digits(q, s) for q, s in zip(coords, self.shard_pages))
        if self.strategy == "BLOCK":
            core = (sc, sr) if self.orientation == "ROW_MAJOR" else (sr, sc)
        else:
            core = core_of(flatten((sr, sc), self.shard_grid), self.grid, self.orientation)
        return core, flatten((ir, ic), self.shard_pages)

    def inverse(self, location, slot, pages_2d):
        x, y = location
        if self.strategy == "BLOCK":
            sr, sc = (y, x) if self.orientation == "ROW_MAJOR" else (x, y)
        else:
            k = index_of_core(x, y, self.grid, self.orientation)
            sr, sc = unflatten(k, self.shard_grid)
        ir, ic = unflatten(slot, self.shard_pages)
        pairs = zip(((sr, ir), (sc, ic)), self.shard_pages)
        pr, pc = (flatten(pair, (None, s)) for pair, s in pairs)
        valid = sympy.And(sympy.Lt(pr, self.pages_2d[0]), sympy.Lt(pc, self.pages_2d[1]))
        return (pr, pc), valid


@dataclass(frozen=True)
class ShardedNd(_OnCores):
    """N-d sharding: shard ``s`` → core ``s % ncores``, shard slot ``s // ncores``."""

    grid: tuple[int, int]
    orientation: str
    pages_nd: tuple[int, ...]
    shard_pages: tuple[int, ...]

    kind = "nd"

    @property
    def shard_grid(self) -> tuple[int, ...]:
        return tuple(ceil_div(t, s) for t, s in zip(self.pages_nd, self.shard_pages))

    @property
    def cores(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def shard_volume(self) -> int:
        return math.prod(self.shard_pages)

    @property
    def slots(self) -> int:
        return ceil_div(math.prod(self.shard_grid), self.cores) * self.shard_volume

    def forward(self, coords, pages_2d):
        outer, inner = zip(*(digits(q, s) for q, s in zip(coords, self.shard_pages)))
        k, round_ = deal(flatten(outer, self.shard_grid), self.cores, lazy=True)
        core = core_of(k, self.grid, self.orientation)
        return core, flatten((round_, flatten(inner, self.shard_pages)), (None, self.shard_volume))

    def inverse(self, location, slot, pages_2d):
        k = index_of_core(*location, self.grid, self.orientation)
        round_, within = digits(slot, self.shard_volume)
        outer = unflatten(undeal(k, round_, self.cores, lazy=True), self.shard_grid)
        inner = unflatten(within, self.shard_pages)
        coords = [flatten((o, i), (None, s)) for o, s, i in zip(outer, self.shard_pages, inner)]
        valid = sympy.And(*(sympy.Lt(q, t) for q, t in zip(coords, self.pages_nd)))
        return coords, valid


__all__ = ["Interleaved", "Sharded2D", "ShardedNd", "core_of", "index_of_core"]
