"""Triton linear layouts (issue 15 item 4): layouts taken from Triton's own tests and docs,
decided by GF(2) rank — a complete proof for their fixed power-of-two sizes.

Sources (triton-lang/triton): ``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``
(blocked, MMA and swizzled shared layouts), ``python/test/gluon/test_lowerings.py`` (a
broadcast ``DistributedLinearLayout``), ``test/Conversion/tma_to_llvm.mlir`` (a layout whose
register broadcast Triton's own comment calls mis-handled), ``include/triton/Tools/LinearLayout.h``.
Bank conflicts follow the CUDA C++ Programming Guide (32 banks of 4 bytes).
"""

import layoutalg as la
import layoutalg.linear  # noqa: F401 - registers the linear claims
from layoutalg.linear import (
    LinearLayout,
    blocked,
    distributed,
    parse_linear_layout,
    swizzled_shared,
)

# LinearLayoutConversionsTest.cpp, TEST_F(..., CTABroadcast): blocked on a 64 × 128 tensor
BLOCKED_64x128 = distributed(reg=[[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]],
                             lane=[[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]],
                             warp=[[0, 4], [0, 8]], block=[[0, 64]])
# TEST_F(..., MMAv2_32x32): the mma.sync m16n8 accumulator on a 32 × 32 tensor
MMA_V2_32x32 = distributed(reg=[[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                           lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])
# TEST_F(..., SharedSwizzled2D_MaxPhaseOnly): 32 × 32, vec 1, perPhase 1, maxPhase 4
SWIZZLED_SHARED = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                           [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]],
                                "block": []})
# 32 × 32 row-major shared memory, and the XOR swizzle with maxPhase 32
ROW_MAJOR_SHARED = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                            [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]})
XOR_SWIZZLED_SHARED = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                               [1, 1], [2, 2], [4, 4], [8, 8], [16, 16]]})
# A register layout reading a column per instruction: lane = row, register = column
COLUMN_READER = distributed(reg=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                            lane=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])


@la.spec(claims=["linear_invertible", "linear_injective", "linear_surjective"])
def blocked_64x128_is_invertible():
    """Triton's CTABroadcast blocked layout: 13 input bits (5 register, 5 lane, 2 warp,
    1 block) onto the 2**13 elements of 64 × 128, rank 13."""
    return BLOCKED_64x128


@la.spec(claims=["linear_invertible", "bijective"])
def mma_v2_accumulator_is_invertible():
    """The MMAv2 (m16n8) accumulator on 32 × 32: every element in one register of one lane —
    by GF(2) rank, and again by Z3 on the layout's XOR index map (``bijective``)."""
    return MMA_V2_32x32


@la.spec(claims=["linear_injective", "linear_surjective", "injective"],
         expect=["REFUTED", "PROVED", "REFUTED"])
def gluon_broadcast_layout_holds_elements_twice():
    """gluon's test_reduce_layouts layout (lane basis 0 is [0, 0]): it covers 64 × 64, but
    lanes 0 and 1 hold the same element — not injective, refuted with that pair (by rank,
    and by Z3 on the index map)."""
    return distributed(reg=[[0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
                       lane=[[0, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
                       warp=[[32, 0], [0, 32]], shape=[64, 64])


@la.spec(claims=[("linear_conversion", SWIZZLED_SHARED)])
def mma_accumulator_into_swizzled_shared():
    """The conversion swizzled⁻¹ ∘ mma exists: each accumulator element has one offset in
    the swizzled tile, and shared(conversion(x)) = mma(x) on every input (by the bases)."""
    return MMA_V2_32x32


@la.spec(claims=[("linear_conversion",
                  parse_linear_layout("#ttg.linear<{register = [[1], [2], [16], [0]], "
                                      "lane = [[0], [0], [0], [0], [0]], warp = [[4], [8]], "
                                      "block = []}>"))],
         expect="REFUTED")
def tensor_index_into_a_register_broadcast_layout():
    """Triton PR #9189 ("Fix more tt.scan layout issues") warns that ``linearize`` /
    ``delinearize`` through the legacy APIs break on broadcast layouts; tma_to_llvm.mlir's
    ``@tma_gather_redundant_indices`` layout (register basis 3 and every lane basis 0) is one
    that Triton's own comment says codegen mishandles. Asking where each of the 32 indices
    lives in it has no single answer: registers 0 and 8 hold index 0, so a⁻¹∘b is refused.
    (The PR's own regression layout was not found; this is the failure it describes.)"""
    return LinearLayout({"i": [[1], [2], [4], [8], [16]]})


@la.spec(claims=[("linear_bank_conflict_free", ROW_MAJOR_SHARED)], expect="REFUTED")
def column_reads_of_row_major_shared_conflict():
    """Lanes are rows: 32 rows of one column of an fp32 row-major 32 × 32 tile are all in
    bank c — a 32-way conflict, refuted with lanes 0 and 1."""
    return COLUMN_READER


@la.spec(claims=[("linear_bank_conflict_free", XOR_SWIZZLED_SHARED),
                 ("linear_bank_conflict_free", XOR_SWIZZLED_SHARED, 2)])
def column_reads_of_xor_swizzled_shared_are_conflict_free():
    """Column c of row r stored at c ^ r: the 32 rows of a column use 32 banks (fp32),
    and fp16's 16 words per 32 lanes as well."""
    return COLUMN_READER


@la.spec(claims=[("linear_equivalent", la.CuteLayout((32, 32), (32, 1)))])
def row_major_shared_is_a_cute_layout():
    """Row-major shared memory is CuTe's (32,32):(32,1) (both flattened first mode fastest):
    equal on every 2**b, and CuTe's values there share no bit, so sums are XORs."""
    return ROW_MAJOR_SHARED


# A transpose through shared memory, in Triton's own encodings (one CTA, 4 warps, 32 × 32):
# stores from #blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1],
# order = [1, 0]}> (a warp writes a row), loads into threadsPerWarp = [32, 1],
# warpsPerCTA = [1, 4], order = [0, 1] (a warp reads a column).
ROW_WRITER = blocked([1, 1], [1, 32], [4, 1], [1, 0], [32, 32])
COLUMN_LOADER = blocked([1, 1], [32, 1], [1, 4], [0, 1], [32, 32])
UNSWIZZLED = swizzled_shared(1, 1, 1, [1, 0], [32, 32])
SWIZZLED_32 = swizzled_shared(1, 1, 32, [1, 0], [32, 32])


@la.spec(claims=["linear_invertible", ("linear_bank_conflict_free", UNSWIZZLED),
                 ("linear_bank_conflict_free", SWIZZLED_32)])
def transpose_stores_rows_without_conflicts():
    """The store side: a warp writes one row of #swizzled_shared (maxPhase 1 or 32); its
    32 consecutive fp32 words fill the 32 banks either way."""
    return ROW_WRITER


@la.spec(claims=[("linear_bank_conflict_free", UNSWIZZLED),
                 ("linear_bank_conflict_free", UNSWIZZLED, 2),
                 ("linear_bank_conflict_free", SWIZZLED_32),
                 ("linear_bank_conflict_free", SWIZZLED_32, 2)],
         expect=["REFUTED", "REFUTED", "PROVED", "PROVED"])
def transpose_loads_columns_conflict_free_only_when_swizzled():
    """The load side: a warp reads one column. Unswizzled, its 32 rows sit in one bank
    (32-way for fp32, 16-way for fp16); with maxPhase 32 row r XORs its columns with r
    and the column spreads over all banks."""
    return COLUMN_LOADER
