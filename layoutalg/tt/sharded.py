"""Shard specifications: ``ShardSpec`` (HEIGHT / WIDTH / BLOCK), ``NdShardSpec``,
and ``create_sharded_memory_config``, which derives a shard shape from a grid.

A core grid is ``(x, y)`` = (columns, rows), as TT-Metal's ``CoreCoord``;
ROW_MAJOR orientation walks y outer, x inner, COL_MAJOR x outer, y inner.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from layoutalg.errors import ShardSpecError, TTError, describe

STRATEGIES = ("HEIGHT", "WIDTH", "BLOCK")
ORIENTATIONS = ("ROW_MAJOR", "COL_MAJOR")


@dataclass(frozen=True)
class CoreGrid:
    """``ttnn.CoreGrid(y=…, x=…)``: x columns by y rows of cores."""

    x: int
    y: int

    def __post_init__(self) -> None:
        check_grid((self.x, self.y), "core_grid")

    def __iter__(self):
        return iter((self.x, self.y))


def check_grid(grid: object, name: str = "grid") -> tuple[int, int]:
    """``(x, y)`` as two positive ints (a ``CoreGrid`` is accepted)."""
    if isinstance(grid, CoreGrid):
        return (grid.x, grid.y)
    if isinstance(grid, (tuple, list)) and len(grid) == 2 and all(_is_positive(v) for v in grid):
        return (int(grid[0]), int(grid[1]))
    raise TTError(
        f"{name} must be (x, y) = (columns, rows), two positive ints; got {describe(grid)}")


ALIASES = {"COLUMN_MAJOR": "COL_MAJOR", "COLUMN-MAJOR": "COL_MAJOR", "ROW-MAJOR": "ROW_MAJOR"}


def check_choice(value: object, name: str, choices: tuple[str, ...]) -> str:
    """``value`` upper-cased if it names one of ``choices`` (the seed's
    "COLUMN-MAJOR" spelling included)."""
    if isinstance(value, str):
        key = ALIASES.get(value.upper(), value.upper())
        if key in choices:
            return key
    raise TTError(f"{name} must be one of {choices}; got {describe(value)}")


def check_shape(value: object, name: str, rank: int | None = None) -> tuple[int, ...]:
    if not isinstance(value, (tuple, list)) or not value or not all(_is_positive(v) for v in value):
        raise TTError(f"{name} must be a non-empty tuple of positive ints; got {describe(value)}")
    if rank is not None and len(value) != rank:
        raise TTError(f"{name} must have {rank} entries; got {describe(value)}")
    return tuple(int(v) for v in value)


def cores_in_order(grid: tuple[int, int], orientation: str) -> list[tuple[int, int]]:
    """The cores of a grid in orientation order.

    >>> cores_in_order((2, 3), "ROW_MAJOR")[:3], cores_in_order((2, 3), "COL_MAJOR")[:3]
    ([(0, 0), (1, 0), (0, 1)], [(0, 0), (0, 1), (0, 2)])
    """
    gx, gy = check_grid(grid)
    orientation = check_choice(orientation, "orientation", ORIENTATIONS)
    if orientation == "ROW_MAJOR":
        return [(x, y) for y in range(gy) for x in range(gx)]
    return [(x, y) for x in range(gx) for y in range(gy)]


@dataclass(frozen=True, init=False)
class ShardSpec:
    """A 2D shard spec: strategy, core grid, shard shape (elements), orientation.

    >>> ShardSpec("BLOCK", (2, 2), (64, 64))
    ShardSpec(strategy='BLOCK', grid=(2, 2), shard_shape=(64, 64), orientation='ROW_MAJOR')
    """

    strategy: str
    grid: tuple[int, int]
    shard_shape: tuple[int, int]
    orientation: str

    def __init__(self, strategy: str, grid: object, shard_shape: object,
                 orientation: str = "ROW_MAJOR") -> None:
        _set(self, strategy=check_choice(strategy, "strategy", STRATEGIES), grid=check_grid(grid),
             shard_shape=check_shape(shard_shape, "shard_shape", 2),
             orientation=check_choice(orientation, "orientation", ORIENTATIONS))

    @property
    def num_cores(self) -> int:
        return self.grid[0] * self.grid[1]


@dataclass(frozen=True, init=False)
class NdShardSpec:
    """The newer N-d shard spec: a shard shape over every dim of the tensor
    (placed as ``placement.ShardedNd``).

    >>> NdShardSpec((1, 64, 64), (4, 1)).num_cores
    4
    """

    shard_shape: tuple[int, ...]
    grid: tuple[int, int]
    orientation: str

    def __init__(self, shard_shape: object, grid: object, orientation: str = "ROW_MAJOR") -> None:
        _set(self, shard_shape=check_shape(shard_shape, "shard_shape"), grid=check_grid(grid),
             orientation=check_choice(orientation, "orientation", ORIENTATIONS))

    num_cores = ShardSpec.num_cores


def _set(spec, **checked) -> None:
    """Set a frozen shard spec's fields, each checked by the caller in turn."""
    for name, value in checked.items():
        object.__setattr__(spec, name, value)


def create_sharded_memory_config(shape: object, core_grid: object, strategy: str,
                                 orientation: str | None = None,
                                 use_height_and_width_as_shard_shape: bool = False) -> ShardSpec:
    """Derive a ``ShardSpec`` as ``ttnn.create_sharded_memory_config`` does (the
    rules: ``docs/tt.md``, "Deriving a shard shape").

    >>> create_sharded_memory_config((2, 64, 128), (4, 2), "BLOCK").shard_shape
    (64, 32)
    """
    dims = check_shape(shape, "shape")
    if len(dims) < 2:
        raise ShardSpecError(
            f"shape: rank of tensor to shard must be at least 2; got {describe(shape)}")
    gx, gy = check_grid(core_grid, "core_grid")
    kind = check_choice(strategy, "strategy", STRATEGIES)
    order = "ROW_MAJOR" if orientation is None else check_choice(
        orientation, "orientation", ORIENTATIONS)
    *batch, height, width = dims
    if use_height_and_width_as_shard_shape:
        shard = (height, width) if order == "ROW_MAJOR" else (width, height)
        return ShardSpec(kind, (gx, gy), shard, order)
    rows, cols = math.prod(batch) * height, width
    grid = [(gy, "core_grid.y"), (gx, "core_grid.x")]
    if kind == "BLOCK":  # the height by the grid's rows, the width by its columns
        down, across = grid if order == "ROW_MAJOR" else grid[::-1]
    else:  # HEIGHT or WIDTH: one side by all cores
        cores, whole = (gx * gy, "the core count"), (1, "")
        down, across = (cores, whole) if kind == "HEIGHT" else (whole, cores)
    for total, side, (parts, by) in ((rows, "height", down), (cols, "width", across)):
        if total % parts:
            raise ShardSpecError(
                f"core_grid: Invalid sharding core_grid: {kind} sharding ({order}) needs the "
                f"tensor {side} {total} divisible by {by} = {parts}; got shape {dims}")
    return ShardSpec(kind, (gx, gy), (rows // down[0], cols // across[0]), order)


def _is_positive(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= 1


__all__ = ["ORIENTATIONS", "STRATEGIES", "CoreGrid", "NdShardSpec", "ShardSpec",
           "cores_in_order", "create_sharded_memory_config"]
