"""Bad input: every error names the argument, the rule and the value; the
shard rules quote TT-Metal's own messages."""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg import tt

L1 = {"storage": "L1"}


def tensor(shape=(64, 64), dtype="bfloat16", **kwargs):
    return tt.TensorSpec(shape, dtype, **kwargs)


BAD = [
    # tiles
    (lambda: tt.Tile(32, 8), "tile: Tile size is not valid for TT hardware"),
    (lambda: tt.tile_offset(32, 0), "row must be an int in [0, 32) for a 32x32 tile; got 32"),
    (lambda: tt.tile_offset(0, 16, (8, 16)), "col must be an int in [0, 16) for a 8x16 tile; got 16"),
    (lambda: tt.tile_offset(0, 0, (32,)), "tile must be a (height, width) pair of ints; got (32,)"),
    (lambda: tt.tile_offset(True, 0), "row must be an int in [0, 32)"),
    # tensor specs
    (lambda: tensor(shape=()), "shape must be a non-empty tuple of positive ints; got ()"),
    (lambda: tensor(shape=(4, 0)), "shape must be a non-empty tuple of positive ints; got (4, 0)"),
    (lambda: tensor(dtype="float16"), "dtype must be one of ['bfloat16', 'bfloat4_b'"),
    (lambda: tensor(layout="TILED"), "layout must be one of ('TILE', 'ROW_MAJOR'); got 'TILED'"),
    (lambda: tensor(storage="SRAM"), "storage must be one of ('DRAM', 'L1'); got 'SRAM'"),
    (lambda: tensor(memory="SHARDED"),
     "memory must be 'INTERLEAVED', a ShardSpec or an NdShardSpec; got 'SHARDED'"),
    (lambda: tensor(device="n300"), "device must be one of ['blackhole', 'grayskull', 'wormhole_b0']"),
    (lambda: tensor(dtype="bfloat8_b", layout="ROW_MAJOR"),
     "dtype: BFLOAT4_B and BFLOAT8_B data types are not supported for ROW_MAJOR layout"),
    (lambda: tensor(base_address=-32), "base_address must be an int >= 0; got -32"),
    (lambda: tensor(base_address=48),
     "base_address must be a multiple of the DRAM alignment 32 B on wormhole_b0; got 48"),
    (lambda: tensor().page_location(4), "page must be an int in [0, 4); got 4"),
    (lambda: tensor().pages_by_core(), "pages_by_core: an INTERLEAVED tensor's pages live in banks"),
    (lambda: tensor(dtype="bfloat4_b").index_map(),
     "index_map: bfloat4_b packs two elements per byte"),
    # shard specs
    (lambda: tt.ShardSpec("ROW", (2, 2), (32, 32)),
     "strategy must be one of ('HEIGHT', 'WIDTH', 'BLOCK'); got 'ROW'"),
    (lambda: tt.ShardSpec("BLOCK", (0, 2), (32, 32)),
     "grid must be (x, y) = (columns, rows), two positive ints; got (0, 2)"),
    (lambda: tt.ShardSpec("BLOCK", (2, 2), (32,)), "shard_shape must have 2 entries; got (32,)"),
    (lambda: tt.ShardSpec("BLOCK", (2, 2), (32, 32), "DIAGONAL"),
     "orientation must be one of ('ROW_MAJOR', 'COL_MAJOR'); got 'DIAGONAL'"),
    (lambda: tt.NdShardSpec((), (2, 2)), "shard_shape must be a non-empty tuple of positive ints"),
    # shard spec against the tensor (TT-Metal's validate_shard_spec_with_tensor_shape)
    (lambda: tensor(memory=tt.ShardSpec("HEIGHT", (2, 1), (32, 32)), **L1),
     "memory: Shard width 32 must match physical width 64 for height sharded"),
    (lambda: tensor(memory=tt.ShardSpec("HEIGHT", (1, 1), (32, 64)), **L1),
     "memory: Number of shards along height 2 must not exceed number of cores 1"),
    (lambda: tensor(memory=tt.ShardSpec("WIDTH", (2, 1), (32, 32)), **L1),
     "memory: Shard height 32 must match physical height 64 for width sharded"),
    (lambda: tensor(memory=tt.ShardSpec("WIDTH", (1, 1), (64, 32)), **L1),
     "memory: Number of shards along width 2 must not exceed number of cores 1"),
    (lambda: tensor(memory=tt.ShardSpec("BLOCK", (2, 1), (32, 32)), **L1),
     ("memory: Number of shards along height 2 must not exceed number of rows 1 for row major "
     "orientation!")),
    (lambda: tensor(memory=tt.ShardSpec("BLOCK", (1, 2), (32, 32)), **L1),
     ("memory: Number of shards along width 2 must not exceed number of columns 1 for row major "
     "orientation!")),
    (lambda: tensor((64, 128), memory=tt.ShardSpec("BLOCK", (2, 3), (32, 32), "COL_MAJOR"), **L1),
     ("memory: Number of shards along width 4 must not exceed number of rows 3 for column major "
     "orientation!")),
    (lambda: tensor((96, 64), memory=tt.ShardSpec("BLOCK", (2, 2), (32, 32), "COL_MAJOR"), **L1),
     ("memory: Number of shards along height 3 must not exceed number of columns 2 for column "
     "major orientation!")),
    (lambda: tensor(memory=tt.ShardSpec("BLOCK", (2, 2), (32, 48)), **L1),
     "memory: Physical shard shape [32, 48] must be tile [32, 32] sized!"),
    (lambda: tensor(memory=tt.ShardSpec("BLOCK", (9, 1), (64, 32)), **L1),
     "memory: grid (x=9, y=1) exceeds the wormhole_b0 L1 core grid (x=8, y=10)"),
    (lambda: tensor((64, 416), memory=tt.ShardSpec("WIDTH", (13, 1), (64, 32))),
     "memory: grid (x=13, y=1) exceeds the wormhole_b0 DRAM core grid (x=12, y=1)"),
    (lambda: tensor(memory=tt.NdShardSpec((64,), (2, 2)), **L1),
     "memory: Tensor shape rank (2) must be same as shard shape rank (1)!"),
    (lambda: tensor(memory=tt.NdShardSpec((16, 64), (2, 2)), **L1),
     "memory: Physical shard shape [16, 64] must be tile [32, 32] sized!"),
    # create_sharded_memory_config (TTNN's "Invalid sharding core_grid")
    (lambda: tt.create_sharded_memory_config((100, 64), (1, 3), "BLOCK"),
     ("core_grid: Invalid sharding core_grid: BLOCK sharding (ROW_MAJOR) needs the tensor height "
     "100 divisible by core_grid.y = 3; got shape (100, 64)")),
    (lambda: tt.create_sharded_memory_config((2, 48, 64), (3, 1), "BLOCK"),
     "needs the tensor width 64 divisible by core_grid.x = 3"),
    (lambda: tt.create_sharded_memory_config((96, 64), (2, 3), "BLOCK", "COL_MAJOR"),
     "BLOCK sharding (COL_MAJOR) needs the tensor width 64 divisible by core_grid.y = 3"),
    (lambda: tt.create_sharded_memory_config((10240, 64), (10, 12), "HEIGHT"),
     "HEIGHT sharding (ROW_MAJOR) needs the tensor height 10240 divisible by the core count = 120"),
    (lambda: tt.create_sharded_memory_config((64, 100), (3, 1), "WIDTH"),
     "WIDTH sharding (ROW_MAJOR) needs the tensor width 100 divisible by the core count = 3"),
    (lambda: tt.create_sharded_memory_config((64,), (1, 1), "HEIGHT"),
     "shape: rank of tensor to shard must be at least 2; got (64,)"),
    (lambda: tt.create_sharded_memory_config((64, 64), (2, 2), "DIAGONAL"),
     "strategy must be one of ('HEIGHT', 'WIDTH', 'BLOCK'); got 'DIAGONAL'"),
    (lambda: tt.CoreGrid(x=0, y=2), "core_grid must be (x, y) = (columns, rows)"),
    # devices
    (lambda: tt.Device("x", 0, 1024, (1, 1)), "dram_banks must be a positive int; got 0"),
    (lambda: tt.Device("x", 2, 1024, (1, 1), l1_alignment=24), "l1_alignment must be a power of two; got 24"),
    (lambda: tt.Device("x", 2, 1024, (1,)), "worker_grid must be an (x, y) pair of positive ints"),
    # checks
    (lambda: tt.check_holds_pages(tensor(), (0, 0), [0]), "where must be a bank (an int) for this layout"),
    (lambda: tt.check_holds_pages(tensor(memory=tt.ShardSpec("HEIGHT", (2, 1), (32, 64)), **L1),
                                  1, [0]),
     "where must be a core (x, y) for this layout; got 1"),
    (lambda: tt.check_holds_pages(tensor(), 0, "0"), "pages must be a collection of page ids"),
    (lambda: tt.check_holds_pages(tensor(), 0, [-1]), "pages[0] must be an int >= 0; got -1 in pages=[-1]"),
    (lambda: tt.check_page_count(tensor(), 0), "count must be a positive int; got 0"),
    (lambda: tt.check_aligned(tensor(), 0),
     "alignment must be a positive int; got 0"),
    (lambda: tt.check_fits_memory(tensor(), -1), "capacity must be a positive int of bytes; got -1"),
    (lambda: tt.check_holds_pages("spec", 0, [0]), "subject must be a TensorSpec or a page IndexMap"),
]


@pytest.mark.parametrize(("make", "message"), BAD, ids=[m[:60] for _, m in BAD])
def test_bad_input_names_the_rule(make, message):
    with pytest.raises(la.LayoutError) as caught:
        make()
    assert message in str(caught.value)


def test_shard_errors_are_shard_spec_errors():
    with pytest.raises(tt.ShardSpecError):
        tensor(memory=tt.ShardSpec("HEIGHT", (2, 1), (32, 32)), **L1)
    with pytest.raises(tt.ShardSpecError):
        tt.create_sharded_memory_config((100, 64), (1, 3), "BLOCK")


def test_all_names_are_exported():
    public = {n for n in vars(tt) if n.isidentifier() and not n.startswith("_")} - {
        "annotations", "checks", "devices", "dtypes", "errors", "maps", "placement", "rules",
        "sharded", "tensor", "tiles", "brute", "padding", "ttnn", "ttnn_text", "l1_budget"}
    assert set(tt.__all__) == public


def test_a_float_dtype_width_is_refused_even_after_an_equal_int_spec_was_built():
    """DType("bfloat16", 16.0) == DType("bfloat16", 16) in Python, so a map cache keyed on
    equal specs would hand the float spec the int spec's maps; each spec builds its own."""
    assert tt.DType("bfloat16", 16.0) == tt.DType("bfloat16", 16)
    tt.TensorSpec((64, 64), "bfloat16").index_map()
    with pytest.raises(la.LayoutError, match="got 2048"):
        tt.TensorSpec((64, 64), tt.DType("bfloat16", 16.0)).index_map()
