"""Seed 003 (KPU memory interleaving): the four channel layouts on its worked example,
and XOR-swizzled bank and channel maps.

The worked example: 4 channels, a 1024 × 1024 × 1024 matmul in 64 × 64 fp32
tiles — 16 × 16 × 16 tiles of 16 KB, 64-byte interleave granules (256 beats
per tile). Each option gets the verdict the math gives; where the seed is
wrong, a spec expects REFUTED and says why.
"""

import layoutalg as la
import layoutalg.channel  # noqa: F401 - registers the channel claims
from layoutalg.channel import Banks, ChannelLayout, Interleave, Swizzle

SEED = {"num_channels": 4, "m_tiles": 16, "n_tiles": 16, "k_tiles": 16,
        "tile_bytes": 64 * 64 * 4}
MB = 1 << 20
OS_TILE, OS_BEAT = ("channel_conflict_free", "os", "tile"), ("channel_conflict_free", "os", "beat")


def seed_layout(option, **extra):
    return ChannelLayout(option, **SEED, **extra)


# -- option 1: matrix-level channel groups -------------------------------------------------


@la.spec(claims=[OS_TILE, OS_BEAT, ("channel_conflict_free", "ws", "tile"),
                 ("channel_conflict_free", "is", "tile"), "tiles_disjoint", "channels_fit",
                 "single_channel_tiles"])
def matrix_groups_seed_example():
    """Option 1: A on channels 0–1, B on 2, C on 3, decoded by range (4 MB channels,
    the least that holds B and C): no two operands ever share a channel."""
    return seed_layout("matrix")


@la.spec(claims=[("channel_totals", {0: 4 * MB, 1: 0, 2: 4 * MB, 3: 4 * MB}),
                 ("load_balance", 1.0)], expect=["PROVED", "REFUTED"])
def matrix_groups_leave_channel_1_empty():
    """Option 1's con "uneven channel utilization", measured: with range decoding A
    fills channel 0 before it touches channel 1, and at this size never does —
    channel 1 holds nothing, the others 4 MB each."""
    return seed_layout("matrix")


@la.spec(claims=["tiles_disjoint", "channels_fit"], expect="REFUTED")
def matrix_groups_in_3mb_channels():
    """Option 1 with ``channel_stride = total_memory / num_channels`` for a 12 MB
    memory (3 MB channels): B's 4 MB run past channel 2 into C's channel — the
    seed's "guaranteed no channel conflicts" needs every matrix to fit its group."""
    return seed_layout("matrix", channel_bytes=3 * MB)


# -- option 2: tile round-robin -----------------------------------------------------------------


@la.spec(claims=[OS_TILE, OS_BEAT, ("channel_conflict_free", "is", "tile")], expect="REFUTED")
def round_robin_conflicts():
    """Option 2 conflicts, as the seed warns: A[0,0] is global tile 0 and B[0,0]
    tile 256, both on channel 0, at iteration (ti, tj, tk) = (0, 0, 0); in the
    input-stationary order B[tk,tj] and C[ti,tj] collide at every iteration."""
    return seed_layout("round_robin")


@la.spec(claims=["tiles_disjoint", "channels_fit", "single_channel_tiles",
                 ("channel_totals", {c: 3 * MB for c in range(4)}), ("load_balance", 1.0)])
def round_robin_is_balanced():
    """Option 2's pro, proved: 768 tiles dealt over 4 channels, 3 MB on each."""
    return seed_layout("round_robin")


# -- option 3: iteration-aware even/odd channels ----------------------------------------------


@la.spec(claims=[OS_TILE, OS_BEAT, ("channel_conflict_free", "os", "footprint"),
                 ("channel_conflict_free", "is", "tile"), "tiles_disjoint", "channels_fit",
                 "single_channel_tiles"])
def iteration_aware_seed_example():
    """Option 3 (the seed's recommendation): A on even, B on odd channels, so the
    tiles of every output-stationary iteration sit on different channels, at every
    grain; B and C (input-stationary) never meet either."""
    return seed_layout("iteration_aware")


@la.spec(claims=[("channel_conflict_free", "ws", "tile")], expect="REFUTED")
def iteration_aware_weight_stationary():
    """The guarantee is for output-stationary only: weight-stationary streams A and the
    partial sums C together, and the seed puts C on even channels too
    (C[ti,tj] on 2·((ti+tj) mod 2)): A[0,0] and C[0,0] share channel 0."""
    return seed_layout("iteration_aware")


@la.spec(claims=[("channel_totals", {c: 2 * MB for c in range(4)}, ("A", "B"))])
def seed_totals_count_a_and_b_only():
    """The seed's table — 128 tiles, 2 MB on each channel — is right for A and B."""
    return seed_layout("iteration_aware")


@la.spec(claims=[("channel_totals", {c: 2 * MB for c in range(4)})], expect="REFUTED")
def seed_totals_leave_c_out():
    """Seed error: the table leaves the 256 C tiles out, yet the seed's own
    get_channel puts C[ti,tj] on channel 2·((ti+tj) mod 2): channels 0 and 2
    hold 4 MB, not 2 MB."""
    return seed_layout("iteration_aware")


@la.spec(claims=[("channel_totals", {c: (2 * MB, 3 * MB) for c in range(4)})], expect="REFUTED")
def seed_each_channel_2_to_3_mb():
    """Seed error: "each channel holds 2-3MB" — channel 0 holds 4 MB."""
    return seed_layout("iteration_aware")


@la.spec(claims=[("channel_totals", {0: 4 * MB, 1: 2 * MB, 2: 4 * MB, 3: 2 * MB}),
                 ("load_balance", 4 / 3)])
def iteration_aware_true_totals():
    """What the channels really hold: 4, 2, 4, 2 MB — the fullest is 4/3 of the mean."""
    return seed_layout("iteration_aware")


# -- option 4: hardware interleave with targeted base addresses -------------------------------


@la.spec(claims=[OS_TILE, OS_BEAT, "tiles_disjoint", "channels_fit"])
def hardware_base_addresses():
    """Option 4, the seed's layout_tiles walk on a 64-byte interleave: every A base
    on an even channel, every B base on an odd one (tile grain); streamed in
    lockstep, beat b of A and of B stay an odd number of channels apart (beat
    grain). 3 161 152 B per channel: the walk's gaps cost 15 424 B per channel."""
    return seed_layout("hardware")


@la.spec(claims=["single_channel_tiles", ("channel_conflict_free", "os", "footprint")],
         expect="REFUTED")
def hardware_tiles_touch_every_channel():
    """Option 4's claim holds only for base addresses: a 16 KB tile is 256 granules,
    so it covers all 4 channels; transferred whole, A and B tiles always share
    channels (beat 1 of A[0,0] is on channel 1, like beat 0 of B[0,0])."""
    return seed_layout("hardware")


# -- XOR swizzles (CuTe Swizzle<B,M,S>): shared-memory banks and memory channels -------------


def smem_read(swizzle, *, by="column"):
    """8 threads read a [8 rows × 128 B] tile in 16-byte vectors: ``column`` —
    thread t reads row t, chunk col; ``row`` — thread t reads chunk t of row col."""
    space = la.Space(col=8, thread=8)
    col, thread = space.symbols
    row, chunk = (thread, col) if by == "column" else (col, thread)
    logical = la.IndexMap(space, la.Space(offset=1024), [row * 128 + chunk * 16],
                          name=f"{by} read")
    if swizzle is None:
        return logical
    return la.compose(logical, swizzle.index_map(1024), name=f"{by} read via {swizzle}")


@la.spec(claims=[("bank_conflict_free", Banks(8, 16))], timeout_ms=5000)
def swizzle_128b_column_read():
    """Swizzle<3,4,3> (CuTe's 128-byte swizzle) on 128-byte rows: the 8 chunks of a
    column land in 8 different 16-byte bank groups — conflict-free (one phase of
    8 threads × 16 B is 8 banks of 16 B)."""
    return smem_read(Swizzle(3, 4, 3))


@la.spec(claims=[("bank_conflict_free", Banks(8, 16))], expect="REFUTED")
def unswizzled_column_read():
    """Without the swizzle every row starts at bank 0: the column read is an 8-way
    conflict (threads 0 and 1 both hit bank group 0)."""
    return smem_read(None)


@la.spec(claims=[("bank_conflict_free", Banks(8, 16))], timeout_ms=5000)
def swizzle_128b_row_read():
    """The swizzle keeps row reads conflict-free too (it permutes chunks within a row)."""
    return smem_read(Swizzle(3, 4, 3), by="row")


def fp32_column_read(swizzle):
    """32 threads read column ``col`` of a [32 × 32] fp32 tile (128-byte rows), one
    word each; 32 banks of 4 bytes."""
    space = la.Space(col=32, thread=32)
    col, thread = space.symbols
    logical = la.IndexMap(space, la.Space(offset=4096), [thread * 128 + col * 4],
                          name="fp32 column read")
    if swizzle is None:
        return logical
    return la.compose(logical, swizzle.index_map(4096), name=f"fp32 column read via {swizzle}")


@la.spec(claims=[("bank_conflict_free", Banks(32, 4), "thread")])
def swizzle_fp32_column_read():
    """Swizzle<5,2,5> XORs the row into the word index: a column of a 32 × 32 fp32
    tile spreads over all 32 banks. Proved by Z3 with the XOR encoded bit by bit
    (docs/swizzle.md); before bit operations were in the algebra this claim had to
    enumerate the 1024 (col, thread) points."""
    return fp32_column_read(Swizzle(5, 2, 5))


@la.spec(claims=[("bank_conflict_free", Banks(32, 4))], expect="REFUTED")
def unswizzled_fp32_column_read():
    """Unswizzled, the whole column sits in one bank: a 32-way conflict."""
    return fp32_column_read(None)


def row_streams(decoder):
    """4 DMA streams read column chunk ``col`` of rows 0..3 of a row-major matrix
    with 4 KB rows; the decoder maps addresses to 4 channels."""
    space = la.Space(col=64, stream=4)
    col, stream = space.symbols
    return la.IndexMap(space, la.Space(addr=16384), [stream * 4096 + col * 64],
                       name=f"rows of 4 KB on {decoder}")


@la.spec(claims=[("bank_conflict_free", Interleave(4, 64), "stream")], expect="REFUTED")
def plain_interleave_row_streams():
    """Rows 4 KB apart all start on channel 0 of a 64-byte, 4-channel interleave:
    the 4 streams hit one channel."""
    return row_streams(Interleave(4, 64))


@la.spec(claims=[("bank_conflict_free", Interleave(4, 64, Swizzle(2, 6, 6)), "stream")])
def hashed_interleave_row_streams():
    """A channel hash — Swizzle<2,6,6> XORs address bits 12–13 (the row) into bits
    6–7 (the channel) — spreads the 4 streams over the 4 channels."""
    return row_streams(Interleave(4, 64, Swizzle(2, 6, 6)))
