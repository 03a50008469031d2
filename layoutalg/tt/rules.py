"""The rules a shard spec must meet for a given tensor, as TT-Metal checks them,
and the placement each memory config builds.

The messages quote TT-Metal's ``TensorSpec`` / ``TensorLayout`` checks
(``validate_shard_spec_with_tensor_shape``, the tile-size check of the
physical shard shape, ``BufferDistributionSpec``) after naming the argument.
"""

from __future__ import annotations

from layoutalg.core.tiling import ceil_div
from layoutalg.errors import ShardSpecError, describe
from layoutalg.tt.placement import Interleaved, Sharded2D, ShardedNd
from layoutalg.tt.sharded import NdShardSpec, ShardSpec


def check_grid_fits(spec) -> None:
    """The shard grid lies inside the device's core grid for the storage."""
    gx, gy = spec.memory.grid
    cx, cy = spec.device.core_grid(spec.storage)
    if gx > cx or gy > cy:
        raise ShardSpecError(
            f"memory: grid (x={gx}, y={gy}) exceeds the {spec.device.name} {spec.storage} core "
            f"grid (x={cx}, y={cy}); got {describe(spec.memory)}")


def check_tile_sized(spec, shard_hw: tuple[int, int]) -> None:
    th, tw = spec.tile.shape
    if spec.layout == "TILE" and (shard_hw[0] % th or shard_hw[1] % tw):
        raise ShardSpecError(
            f"memory: Physical shard shape {list(shard_hw)} must be tile {list(spec.tile.shape)} "
            f"sized! (TILE layout pages are whole tiles); got {describe(spec.memory)}")


def check_shard_2d(spec, memory: ShardSpec) -> None:
    """``validate_shard_spec_with_tensor_shape`` for HEIGHT / WIDTH / BLOCK."""
    height, width = spec.physical_2d
    sh, sw = memory.shard_shape
    cores = memory.num_cores
    along_h, along_w = ceil_div(height, sh), ceil_div(width, sw)
    problem = None
    if memory.strategy != "BLOCK":  # HEIGHT keeps the whole width and splits the height
        split, kept, shard, whole, count = (
            ("height", "width", sw, width, along_h) if memory.strategy == "HEIGHT"
            else ("width", "height", sh, height, along_w))
        if shard != whole:
            problem = f"Shard {kept} {shard} must match physical {kept} {whole} for {split} sharded"
        elif count > cores:
            problem = (f"Number of shards along {split} {count} must not exceed number of "
                       f"cores {cores}")
    else:
        (gx, gy), row_major = memory.grid, memory.orientation == "ROW_MAJOR"
        down, across = ((gy, "rows"), (gx, "columns"))[::1 if row_major else -1]
        how = "row major" if row_major else "column major"
        for count, (limit, unit), side in ((along_h, down, "height"), (along_w, across, "width")):
            if count > limit:
                problem = (f"Number of shards along {side} {count} must not exceed number of "
                           f"{unit} {limit} for {how} orientation!")
                break
    if problem:
        raise ShardSpecError(
            f"memory: {problem} (physical shape {[height, width]}); got {describe(memory)}")
    check_tile_sized(spec, memory.shard_shape)


def check_shard_nd(spec, memory: NdShardSpec) -> None:
    shard = memory.shard_shape
    if len(shard) != spec.rank:
        raise ShardSpecError(
            f"memory: Tensor shape rank ({spec.rank}) must be same as shard shape rank "
            f"({len(shard)})!; got {describe(memory)}")
    check_tile_sized(spec, (shard[-2] if spec.rank >= 2 else spec.tile.height, shard[-1]))


def page_width(spec) -> int:
    """Elements per page row: the tile width, or a ROW_MAJOR page's width."""
    memory = spec.memory
    if spec.layout == "TILE":
        return spec.tile.width
    if isinstance(memory, ShardSpec) and memory.strategy != "HEIGHT":
        return memory.shard_shape[1]
    if isinstance(memory, NdShardSpec):
        return memory.shard_shape[-1]
    return spec.physical_2d[1]


def build_placement(spec):
    """Validate ``spec.memory`` against the tensor and build its placement."""
    memory = spec.memory
    if memory == "INTERLEAVED":
        return Interleaved(spec.num_pages, spec.device.banks(spec.storage))
    check_grid_fits(spec)
    ph, pw = spec.page_shape
    if isinstance(memory, ShardSpec):
        check_shard_2d(spec, memory)
        sh, sw = memory.shard_shape
        return Sharded2D(memory.strategy, memory.grid, memory.orientation, spec.pages_2d,
                         (ceil_div(sh, ph), ceil_div(sw, pw)))
    check_shard_nd(spec, memory)
    shard = list(memory.shard_shape)
    shard[-1] = ceil_div(shard[-1], pw)
    if spec.rank >= 2:
        shard[-2] = ceil_div(shard[-2], ph)
    return ShardedNd(memory.grid, memory.orientation, spec.pages_nd, tuple(shard))


__all__ = ["build_placement", "page_width"]
