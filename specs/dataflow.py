"""Matmul dataflows (seed 004): concrete schedules, the seed's validation cases, its traps.

Hardware: 256 KiB of L2, 64 KiB of PE registers (16×16 PEs × 256 B), fp32,
Eyeriss-normalized access costs. Tiles come from ``la.dataflow.optimize``
(least energy under the seed's capacity constraints).
"""

import layoutalg as la
from layoutalg import dataflow as df

CAPACITIES = df.Capacities(l2_bytes=256 * 1024, register_bytes=16 * 16 * 256)
BERT_QKV = (128, 768, 768)
SEED_BATCH = (256, 64, 64)
SEED_DEEP_K = (1, 512, 4096)


def best(shape, dataflow):
    return df.optimize(shape, dataflow, CAPACITIES).schedule


CLAIMS = ["bijective", "meets_compulsory", "stationary_once", ("tiles_fit", CAPACITIES)]


@la.spec(claims=CLAIMS)
def bert_qkv_output_stationary():
    """BERT Q/K/V projection [128, 768, 768] under OS with optimized tiles: the loop
    nest visits every tile once, moves at least the compulsory data, writes C to DRAM
    exactly once, and every step's tiles fit."""
    return best(BERT_QKV, "os")


@la.spec(claims=CLAIMS)
def bert_qkv_weight_stationary():
    """The same projection under WS: B (the weights) crosses DRAM exactly once."""
    return best(BERT_QKV, "ws")


@la.spec(claims=CLAIMS)
def bert_qkv_input_stationary():
    """The same projection under IS: A (the activations) crosses DRAM exactly once."""
    return best(BERT_QKV, "is")


# -- the seed's validation cases (§6.2), with the verdict the exact model gives --------


@la.spec(claims=[("energy_below", best(SEED_BATCH, "os"))])
def seed_batch_ws_uses_less_energy_than_os():
    """Seed test 'WS vs OS – Batch Processing' (256, 64, 64): WS < OS in energy.
    Holds: 14,069,760 < 15,187,968 (both read every operand from DRAM once; WS saves
    the per-MAC register write of C and never stages B in L2)."""
    return best(SEED_BATCH, "ws")


@la.spec(claims=[("reuse_above", best(SEED_BATCH, "os"), "B", 2)], expect="REFUTED")
def seed_batch_ws_reuses_b_twice_as_much_as_os():
    """Seed assertion ws.reuse_B > 2·os.reuse_B at (256, 64, 64): false. The tiles
    (256, 64, 64) cover the whole problem in one step under both dataflows, so both
    read B from DRAM exactly once (4096 elements): equal reuse."""
    return best(SEED_BATCH, "ws")


@la.spec(claims=[("energy_below", best(SEED_DEEP_K, "ws"))], expect="REFUTED")
def seed_deep_k_os_uses_less_energy_than_ws():
    """Seed test 'WS vs OS – Deep Accumulation' (1, 512, 4096): OS < WS in energy.
    False: OS 460,254,208 vs WS 440,061,952. With Tj = N = 512 WS keeps each partial
    sum in L2 and never round-trips C to DRAM, while OS streams all 2 M elements of B
    through L2 (write + read, 6 each) to reuse them only once (M = 1)."""
    return best(SEED_DEEP_K, "os")


# -- the seed's reuse factors: traffic below what must move --------------------------


@la.spec(claims=[("meets_compulsory", "B")], expect="REFUTED")
def seed_ws_reuse_factor_for_b():
    """Seed §2.2 reuse_B = ⌈M/Ti⌉·⌈K/Tk⌉ under WS, on (1, 512, 4096) with WS's tiles
    (1, 512, 32): it implies B crosses DRAM as 16,384 elements, but B has
    4096·512 = 2,097,152. B tiles at different tk are different data."""
    return df.SeedReuse(best(SEED_DEEP_K, "ws"))


@la.spec(claims=[("meets_compulsory", "A")], expect="REFUTED")
def seed_ws_reuse_factor_for_a():
    """Seed reuse_A = ⌈Tj/array_cols⌉ under WS (16 columns): with Tj = 512 it implies
    A crosses DRAM as 4096/32 = 128 elements, fewer than its 4096."""
    return df.SeedReuse(best(SEED_DEEP_K, "ws"))


@la.spec(claims=[("meets_compulsory", "A")], expect="REFUTED")
def seed_batch_ws_reuse_factor_for_a():
    """Even on the seed's own batch case (256, 64, 64), one 256×64×64 step: reuse_A =
    ⌈64/16⌉ = 4 implies 4096 elements of A cross DRAM; A has 256·64 = 16,384."""
    return df.SeedReuse(best(SEED_BATCH, "ws"))


@la.spec(claims=["meets_compulsory", "stationary_once"])
def exact_ws_model_of_the_same_schedule():
    """The exact model of the WS schedule of (1, 512, 4096) above: B crosses DRAM
    once, and no operand moves less than its compulsory traffic."""
    return best(SEED_DEEP_K, "ws")


# -- capacity: the seed's OS constraint alone does not make the tiles fit -------------


@la.spec(claims=[("tiles_fit", CAPACITIES)], expect="REFUTED")
def os_tiles_meeting_only_the_seed_l2_constraint():
    """OS (1024, 1024, 1024) with tiles (256, 128, 64): Ti·Tk + Tk·Tj + Ti·Tj = 57,344
    elements = 229,376 B fit the 256 KiB L2 (the seed's only OS constraint), but the
    stationary C tile needs 131,072 B of registers, twice the 65,536 there are."""
    return df.Schedule("os", (1024, 1024, 1024), (256, 128, 64))


@la.spec(claims=[("tiles_fit", CAPACITIES)], expect="REFUTED")
def ws_tiles_overflow_l2():
    """WS (512, 512, 512) with tiles (512, 128, 128): B's 128×128 tile fills the 64 KiB
    of registers exactly, but the A and C tiles need (512·128 + 512·128)·4 = 524,288 B
    of L2, twice its 262,144."""
    return df.Schedule("ws", (512, 512, 512), (512, 128, 128))
