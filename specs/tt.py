"""Tenstorrent (TT-Metal / TTNN) layouts: every example of the seed document
(seeds/002), the real system's rules where the seed's prose differs, and
known-bad layouts each expected REFUTED.

Claims beyond the core ones (registered by ``layoutalg.tt``):
``("page_count", n)``, ``("holds_pages", bank_or_core, pages)``,
``"pages_bijective"``, ``("pages_aligned"[, bytes])``, ``("fits_device"[, bytes])``.
"""

import layoutalg as la
import layoutalg.tt as tt  # registers the family's claims before the decorators run

SEED_DEVICE = tt.Device("seed_3_banks", dram_banks=3, l1_bytes=1 << 20, worker_grid=(2, 2))

# Seed §4.2, Figure 4: 16 tile pages (4 × 4), 2 × 2 pages per shard, a 2 × 2 grid.
SEED_BLOCK = tt.ShardSpec("BLOCK", (2, 2), (64, 64))


def seed_block_tensor():
    return tt.TensorSpec((128, 128), "bfloat16", memory=SEED_BLOCK, storage="L1")


# -- §3 tensor layout ------------------------------------------------------------------


@la.spec(claims=[("page_count", 64), "bijective", "pages_aligned"])
def seed_row_major_64x64():
    """§3.1: a 64×64 row-major tensor has one page per row: 64 pages."""
    return tt.TensorSpec((64, 64), "bfloat16", layout="ROW_MAJOR")


@la.spec(claims=[("page_count", 4), "bijective"])
def seed_tiled_64x64():
    """§3.2: a 64×64 tensor in 32×32 tiles has 4 pages."""
    return tt.TensorSpec((64, 64), "bfloat16")


@la.spec(claims=[("page_count", 12), "bijective", "pages_bijective"])
def tiled_pads_last_two_dims_first():
    """[3, 40, 50] tiled pads each batch to [64, 64] before flattening:
    2D [192, 64], 6 × 2 = 12 tiles (padding a flat [120, 50] would give 8)."""
    return tt.TensorSpec((3, 40, 50), "bfloat16")


@la.spec(claims=[("page_count", 8)], expect="REFUTED")
def flattening_before_padding_is_wrong():
    """Padding the flattened [120, 50] instead of each [40, 50] predicts 8 tiles;
    the tensor has 12."""
    return tt.TensorSpec((3, 40, 50), "bfloat16")


@la.spec(claims=[("page_count", 8), "bijective"])
def short_tiles_16x32():
    """16×32 tiles (two 16×16 faces side by side): each [32, 50] float32 batch
    pads to [32, 64], 2 × 2 tiles, so [2, 32, 50] has 8 pages."""
    return tt.TensorSpec((2, 32, 50), "float32", tile=(16, 32))


# -- §4.1 interleaved ---------------------------------------------------------------------


@la.spec(claims=[("holds_pages", 0, [0, 3]), ("holds_pages", 1, [1]), ("holds_pages", 2, [2]),
                 "pages_bijective", "bijective"])
def seed_four_pages_over_three_banks():
    """§4.1, Figure 3: pages P0..P3 over banks 0..2; P3 wraps to bank 0."""
    return tt.TensorSpec((64, 64), "bfloat16", device=SEED_DEVICE)


@la.spec(claims=[("holds_pages", 0, [0, 3])])
def next_tensor_starts_at_bank_0_too():
    """§4.1: allocation of every tensor begins with the first bank (the model
    has no allocator state: a tensor's page 0 is always on bank 0)."""
    return tt.TensorSpec((32, 128), "float32", device=SEED_DEVICE)


@la.spec(claims=["bijective", "pages_aligned", "fits_device"])
def row_major_rows_aligned_in_dram():
    """A ROW_MAJOR [100, 50] bfloat16 tensor: 100-byte rows, each in a 128-byte
    slot (DRAM alignment 32 B on Wormhole) of one of 12 banks."""
    return tt.TensorSpec((100, 50), "bfloat16", layout="ROW_MAJOR")


@la.spec(claims=[("pages_aligned", 32)], expect="REFUTED")
def packed_rows_break_dram_alignment():
    """The seed says pages are "stored consecutively within a buffer". Packing
    100-byte pages back to back in a bank puts page 12 (bank 0's second page)
    at address 100, which is not 32-byte aligned: TT-Metal pads each page to
    the alignment instead."""
    domain = la.Space(page=100)
    (p,) = domain.symbols
    codomain = la.Space(bank=12, address=9 * 100)
    return la.IndexMap(domain, codomain, [p % 12, (p // 12) * 100], name="packed_rows")


@la.spec(claims=["bijective", "pages_aligned", "fits_device"])
def bfloat8_b_tiles_on_blackhole():
    """bfloat8_b tiles are 1024 mantissa bytes after a 64-byte exponent section
    (1088 B); Blackhole DRAM aligns pages to 64 B, so each takes 1152 B."""
    return tt.TensorSpec((3, 40, 50), "bfloat8_b", device="blackhole")


@la.spec(claims=["bijective", "fits_device"])
def interleaved_1024x1024_blackhole():
    """A 1024×1024 bfloat16 tensor, 1024 tiles over Blackhole's 8 DRAM banks,
    proved element by element (a million elements, no enumeration)."""
    return tt.TensorSpec((1024, 1024), "bfloat16", device="blackhole")


# -- §4.2 sharding ---------------------------------------------------------------------


@la.spec(claims=[("holds_pages", (0, 0), [0, 1, 4, 5]), ("holds_pages", (1, 0), [2, 3, 6, 7]),
                 ("holds_pages", (0, 1), [8, 9, 12, 13]), ("holds_pages", (1, 1), [10, 11, 14, 15]),
                 "pages_bijective", "bijective"])
def seed_block_figure():
    """§4.2, Figure 4: core (x=0, y=0) holds 0, 1, 4, 5 and core (x=1, y=0)
    holds 2, 3, 6, 7 — what the figure shows and TT-Metal computes."""
    return seed_block_tensor()


@la.spec(claims=[("holds_pages", (0, 1), [2, 3, 7, 8])], expect="REFUTED")
def seed_block_sentence():
    """§4.2's sentence "Core (0,1) holds pages 2, 3, 7, and 8" is wrong: Z3
    finds page 3 on core (x=1, y=0). (Read as (row, col) the core is right
    but the pages are 2, 3, 6, 7.)"""
    return seed_block_tensor()


@la.spec(claims=[("holds_pages", (1, 0), [2, 3, 7, 8])], expect="REFUTED")
def seed_block_sentence_read_as_row_col():
    """Even read as (row 0, column 1), the sentence's pages are wrong: 6 and 7
    are on that core, 8 is not."""
    return seed_block_tensor()


@la.spec(claims=[("holds_pages", (0, 0), [0, 1, 4, 5])], expect="REFUTED")
def seed_code_is_not_the_figure():
    """§4.2.1's code — create_sharded_memory_config(32x32, CoreGrid(y=2, x=2),
    BLOCK, use_height_and_width_as_shard_shape=True) on a 64×64 tensor — makes
    32×32 shards: one tile per core, so it does not build Figure 4 (core (0, 0)
    holds only page 0). (``32x32`` is not even Python; read as (32, 32).)"""
    memory = tt.create_sharded_memory_config(
        (32, 32), tt.CoreGrid(x=2, y=2), "BLOCK", use_height_and_width_as_shard_shape=True)
    return tt.TensorSpec((64, 64), "bfloat16", memory=memory, storage="L1")


@la.spec(claims=["bijective", ("holds_pages", (3, 0), [])])
def height_sharded_uneven():
    """HEIGHT: [3, 40, 50] tiled → 2D [192, 64] in 64-row shards on a 4×1 grid:
    3 shards, core (3, 0) stays empty."""
    return tt.TensorSpec((3, 40, 50), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("HEIGHT", (4, 1), (64, 64)))


@la.spec(claims=["bijective", "pages_aligned", ("holds_pages", (3, 1), [7, 15, 23])])
def width_sharded_row_major_uneven():
    """WIDTH, ROW_MAJOR: [3, 1000] float32 in 128-wide shards on 4×2 cores: a
    page is 128 elements of a row (8 pages per row); the last shard is 104
    wide, so each of its pages ends in 24 padding elements."""
    return tt.TensorSpec((3, 1000), "float32", layout="ROW_MAJOR", storage="L1",
                         memory=tt.ShardSpec("WIDTH", (4, 2), (3, 128)))


@la.spec(claims=["bijective", "pages_bijective", "fits_device"])
def block_sharded_uneven():
    """BLOCK: [1000, 900] bfloat16 in 128×128 shards on 8×8 cores: the last
    shard row is 104 high, the last shard column 4 tiles wide with 4 padded columns."""
    return tt.TensorSpec((1000, 900), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("BLOCK", (8, 8), (128, 128)))


@la.spec(claims=[("holds_pages", (0, 1), [2, 3, 6, 7]), ("holds_pages", (1, 0), [8, 9, 12, 13])])
def block_col_major_transposes_the_grid():
    """BLOCK with COL_MAJOR orientation: shard (row r, column c) goes to core
    (x=r, y=c), so the figure's second shard lands on core (0, 1)."""
    return tt.TensorSpec((128, 128), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("BLOCK", (2, 2), (64, 64), "COL_MAJOR"))


@la.spec(claims=["bijective", ("holds_pages", (0, 0), [0, 1, 3, 4, 12, 13, 15, 16, 24, 25, 27, 28])])
def nd_sharded_round_robin():
    """N-d sharding: [3, 100, 70] in [2, 64, 64] shards on 2×2 cores. 8 shards
    deal round-robin; core (0, 0) takes shards 0 and 4 (the second half-empty)."""
    return tt.TensorSpec((3, 100, 70), "bfloat16", storage="L1",
                         memory=tt.NdShardSpec((2, 64, 64), (2, 2)))


@la.spec(claims=["bijective", ("holds_pages", (3, 1), [11, 15])])
def derived_block_shard_shape():
    """create_sharded_memory_config((2, 64, 128), CoreGrid(x=4, y=2), BLOCK)
    derives 64×32 shards (2 × 1 tiles): shard (row 1, column 3) of the 2 × 4
    shard grid sits on core (x=3, y=1) and holds pages 11 and 15."""
    memory = tt.create_sharded_memory_config((2, 64, 128), tt.CoreGrid(x=4, y=2), "BLOCK")
    return tt.TensorSpec((2, 64, 128), "bfloat16", memory=memory, storage="L1")


# -- L1 capacity -----------------------------------------------------------------------


@la.spec(claims=["fits_device"], expect="REFUTED")
def height_shard_overflows_l1():
    """[8192, 1024] bfloat16 height-sharded over 8 cores: 1024×1024 shards of
    2 MiB each, beyond Wormhole's 1,499,136 B of L1 per core."""
    return tt.TensorSpec((8192, 1024), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("HEIGHT", (8, 1), (1024, 1024)))


@la.spec(claims=["fits_device", "bijective"])
def same_tensor_fits_on_16_cores():
    """The same tensor over 16 cores: 1 MiB shards fit."""
    return tt.TensorSpec((8192, 1024), "bfloat16", storage="L1",
                         memory=tt.ShardSpec("HEIGHT", (8, 2), (512, 1024)))
