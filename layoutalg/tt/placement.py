"""Where each page goes: a bank and slot (interleaved) or a core and slot (sharded).

A placement is written once as SymPy-friendly arithmetic (``//`` and ``%``
by constants), so the same code yields both the page/element index maps that
Z3 checks and, evaluated, the concrete page locations.

- ``Interleaved``: page ``p`` → bank ``p % B``, slot ``p // B``.
- ``Sharded2D``: the legacy ShardSpec. Pages form a ``[PH, PW]`` grid cut
  into shards of ``[sph, spw]`` pages, numbered row-major. HEIGHT and WIDTH
  give shard ``k`` to the ``k``-th core in orientation order; BLOCK puts
  shard ``(r, c)`` on core ``(x=c, y=r)`` (ROW_MAJOR) or ``(x=r, y=c)``
  (COL_MAJOR), which is the same order restricted to the cores the shards
  use (TT-Metal shrinks a block grid to the shard grid when it converts the
  spec to N-d sharding). Pages inside a shard are row-major.
- ``ShardedNd``: shards numbered row-major over the N-d shard grid; shard
  ``s`` → core ``s % ncores`` at shard slot ``s // ncores``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy


def strides(sizes) -> list[int]:
    """Row-major strides of ``sizes``."""
    out, running = [], 1
    for size in reversed(sizes):
        out.append(running)
        running *= size
    return out[::-1]


def linear(coords, sizes):
    """Row-major index of ``coords`` in a grid of ``sizes``."""
    return sum((c * s for c, s in zip(coords, strides(sizes))), sympy.Integer(0))


def digits(value, factor):
    """``(value // factor, value % factor)``, skipping the no-op factor 1."""
    if factor == 1:
        return value, 0 * value
    return value // factor, value % factor


def unlinear(index, sizes):
    """Row-major coordinates of ``index``, peeled digit by digit from the
    innermost (each quotient feeds the next, which Z3 reasons about far
    better than independent ``index // stride % size`` terms). The first
    coordinate is not reduced, so an index past the end shows up as a first
    coordinate past its extent."""
    coords, rest = [], index
    for size in reversed(list(sizes)[1:]):
        rest, coordinate = digits(rest, size)
        coords.append(coordinate)
    coords.append(rest)
    return coords[::-1]


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def core_of(k, grid, orientation):
    """Core ``(x, y)`` of the ``k``-th core in orientation order."""
    gx, gy = grid
    if orientation == "ROW_MAJOR":
        return k % gx, k // gx
    return k // gy, k % gy


def index_of_core(x, y, grid, orientation):
    gx, gy = grid
    return y * gx + x if orientation == "ROW_MAJOR" else x * gy + y


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
        return self.forward_id(linear(coords, pages_2d))

    def forward_id(self, page):
        """Bank and slot straight from a page id (no detour through coordinates)."""
        return (page % self.banks,), page // self.banks

    def inverse(self, location, slot, pages_2d):
        (bank,) = location
        page = slot * self.banks + bank
        return unlinear(page, pages_2d), sympy.Lt(page, self.num_pages)


@dataclass(frozen=True)
class Sharded2D:
    """The legacy HEIGHT / WIDTH / BLOCK placement over a 2D page grid."""

    strategy: str
    grid: tuple[int, int]
    orientation: str
    pages_2d: tuple[int, int]
    shard_pages: tuple[int, int]

    kind = "2d"

    @property
    def location(self) -> tuple[tuple[str, int], ...]:
        return (("core_x", self.grid[0]), ("core_y", self.grid[1]))

    @property
    def shard_grid(self) -> tuple[int, int]:
        return (ceil_div(self.pages_2d[0], self.shard_pages[0]),
                ceil_div(self.pages_2d[1], self.shard_pages[1]))

    @property
    def slots(self) -> int:
        return self.shard_pages[0] * self.shard_pages[1]

    def forward(self, coords, pages_2d):
        pr, pc = coords
        sph, spw = self.shard_pages
        sr, sc = pr // sph, pc // spw
        if self.strategy == "BLOCK":
            core = (sc, sr) if self.orientation == "ROW_MAJOR" else (sr, sc)
        else:
            core = core_of(sr * self.shard_grid[1] + sc, self.grid, self.orientation)
        return core, (pr % sph) * spw + pc % spw

    def inverse(self, location, slot, pages_2d):
        x, y = location
        sph, spw = self.shard_pages
        if self.strategy == "BLOCK":
            sr, sc = (y, x) if self.orientation == "ROW_MAJOR" else (x, y)
        else:
            k = index_of_core(x, y, self.grid, self.orientation)
            sr, sc = k // self.shard_grid[1], k % self.shard_grid[1]
        pr, pc = sr * sph + slot // spw, sc * spw + slot % spw
        valid = sympy.And(sympy.Lt(pr, self.pages_2d[0]), sympy.Lt(pc, self.pages_2d[1]))
        return (pr, pc), valid

    def shard_count(self) -> int:
        return self.shard_grid[0] * self.shard_grid[1]


@dataclass(frozen=True)
class ShardedNd:
    """N-d sharding: shard ``s`` → core ``s % ncores``, shard slot ``s // ncores``."""

    grid: tuple[int, int]
    orientation: str
    pages_nd: tuple[int, ...]
    shard_pages: tuple[int, ...]

    kind = "nd"

    @property
    def location(self) -> tuple[tuple[str, int], ...]:
        return (("core_x", self.grid[0]), ("core_y", self.grid[1]))

    @property
    def shard_grid(self) -> tuple[int, ...]:
        return tuple(ceil_div(t, s) for t, s in zip(self.pages_nd, self.shard_pages))

    @property
    def cores(self) -> int:
        return self.grid[0] * self.grid[1]

    @property
    def shard_volume(self) -> int:
        return math.prod(self.shard_pages)

    def shard_count(self) -> int:
        return math.prod(self.shard_grid)

    @property
    def slots(self) -> int:
        return ceil_div(self.shard_count(), self.cores) * self.shard_volume

    def forward(self, coords, pages_2d):
        shard = linear([q // s for q, s in zip(coords, self.shard_pages)], self.shard_grid)
        inside = linear([q % s for q, s in zip(coords, self.shard_pages)], self.shard_pages)
        core = core_of(shard % self.cores, self.grid, self.orientation)
        return core, (shard // self.cores) * self.shard_volume + inside

    def inverse(self, location, slot, pages_2d):
        k = index_of_core(*location, self.grid, self.orientation)
        shard = (slot // self.shard_volume) * self.cores + k
        outer = unlinear(shard, self.shard_grid)
        inner = unlinear(slot % self.shard_volume, self.shard_pages)
        coords = [o * s + i for o, s, i in zip(outer, self.shard_pages, inner)]
        valid = sympy.And(*(sympy.Lt(q, t) for q, t in zip(coords, self.pages_nd)))
        return coords, valid


__all__ = ["Interleaved", "Sharded2D", "ShardedNd", "ceil_div", "linear", "strides", "unlinear"]
