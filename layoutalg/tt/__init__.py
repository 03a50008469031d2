"""Tenstorrent (TT-Metal / TTNN) tensor layouts: tiles, pages, banks and shards.

    >>> import layoutalg as la
    >>> spec = la.tt.TensorSpec((64, 64), "bfloat16", layout="ROW_MAJOR")
    >>> spec.num_pages
    64
    >>> la.tt.tile_offset(17, 18)
    786

The model, and where it follows TT-Metal rather than the seed document's
prose: ``docs/tt.md``; TTNN's ``MemoryConfig`` (through ``tensor_spec`` /
``MemoryConfig.of``) and the padding and L1-budget checks: ``docs/bridges.md``.
"""

from __future__ import annotations

from layoutalg.errors import ShardSpecError, TTError
from layoutalg.tt.checks import (
    check_aligned,
    check_fits_memory,
    check_holds_pages,
    check_page_count,
    check_pages_bijective,
)
from layoutalg.tt.devices import BLACKHOLE, GRAYSKULL, PRESETS, WORMHOLE_B0, Device, get_device
from layoutalg.tt.dtypes import DTYPES, DType
from layoutalg.tt.l1_budget import L1Budget, check_l1_fit, check_l1_guard
from layoutalg.tt.padding import (
    ShardShape,
    check_padded_to_shards,
    check_padding_disjoint,
    fill_map,
    shard_padded_2d,
    shard_shapes,
)
from layoutalg.tt.sharded import (
    CoreGrid,
    NdShardSpec,
    ShardSpec,
    cores_in_order,
    create_sharded_memory_config,
)
from layoutalg.tt.tensor import TensorSpec
from layoutalg.tt.tiles import FACE_SHAPES, Tile, tile_offset
from layoutalg.tt.ttnn import MemoryConfig, as_layout, tensor_spec

__all__ = [
    "BLACKHOLE", "DTYPES", "FACE_SHAPES", "GRAYSKULL", "PRESETS", "WORMHOLE_B0", "CoreGrid",
    "DType", "Device", "L1Budget", "MemoryConfig", "NdShardSpec", "ShardShape", "ShardSpec",
    "ShardSpecError", "TTError", "TensorSpec", "Tile", "as_layout", "check_aligned",
    "check_fits_memory", "check_holds_pages", "check_l1_fit", "check_l1_guard",
    "check_padded_to_shards", "check_padding_disjoint", "check_page_count",
    "check_pages_bijective", "cores_in_order", "create_sharded_memory_config", "fill_map",
    "get_device", "shard_padded_2d", "shard_shapes", "tensor_spec", "tile_offset",
]
