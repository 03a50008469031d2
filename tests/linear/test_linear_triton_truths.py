"""Truths pinned from Triton's own documentation and unit tests (triton-lang/triton).

Every expected value here is typed from Triton's text or derived by hand from
the rule it states, never computed by layoutalg:

- ``include/triton/Tools/LinearLayout.h`` (doc comments): the 4×4 swizzle
  table, the 1-D "transpose" example, the broadcast example, the GF(2)
  product ``|1 2 14 12| × 6 = 12``, the out-dim-size inference rule, and
  the product examples ``identity1D(4) * zeros1D(2)`` (``x % 4``) and
  ``zeros1D(2) * identity1D(4)`` (``x / 2``).
- ``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``: register
  layouts of blocked and MMA encodings and swizzled shared layouts, with the
  verdicts that follow from their shapes (a ``toLinearLayout`` of shape
  ``S`` covers ``S``; zero bases mean broadcast).
- ``python/test/gluon/test_lowerings.py``: the broadcast ``DistributedLinearLayout``
  of ``test_reduce_layouts`` (lane basis 0 is ``[0, 0]``).
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.linear import (
    ConversionError, LinearLayout, bank_conflicts, check_conversion, check_equivalent,
    check_injective, check_invertible, check_surjective, convert, distributed,
)
from oracles import linear as brute

# -- LinearLayout.h ---------------------------------------------------------------------------

# "Here's an example LL where we have 4 warps and 4 threads per warp ...":
# L(t=1)=(1,1), L(t=2)=(2,2), L(w=1)=(0,1), L(w=2)=(0,2); the header's whole table, row t.
SWIZZLE_TABLE = [
    [(0, 0), (0, 1), (0, 2), (0, 3)],
    [(1, 1), (1, 0), (1, 3), (1, 2)],
    [(2, 2), (2, 3), (2, 0), (2, 1)],
    [(3, 3), (3, 2), (3, 1), (3, 0)],
]
HEADER_SWIZZLE = LinearLayout({"t": [[1, 1], [2, 2]], "w": [[0, 1], [0, 2]]})


def test_header_swizzle_table():
    for t in range(4):
        for w in range(4):
            assert HEADER_SWIZZLE(t=t, w=w) == SWIZZLE_TABLE[t][w]
    # "(t, w) -> (t, w ⊕ t)", a bijection
    assert check_invertible(HEADER_SWIZZLE).proved
    assert brute.check_invertible(HEADER_SWIZZLE).proved


def test_header_1d_transpose_example():
    # bases [L(1), L(2), L(4), L(8)] = [4, 8, 1, 2]; L(x) = 0 4 8 C 1 5 9 D 2 6 A E 3 7 B F
    layout = LinearLayout({"x": [[4], [8], [1], [2]]})
    assert [layout(x=x)[0] for x in range(16)] == [
        0x0, 0x4, 0x8, 0xC, 0x1, 0x5, 0x9, 0xD, 0x2, 0x6, 0xA, 0xE, 0x3, 0x7, 0xB, 0xF]
    assert check_invertible(layout).proved


def test_header_broadcast_example_is_not_injective():
    # "A 2D -> 1D broadcasted layout. L(x,y) = x": y's bases are 0
    layout = LinearLayout({"x": [[1], [2]], "y": [[0], [0]]})
    assert [layout(x=x, y=y)[0] for x in range(4) for y in range(4)] == [
        x for x in range(4) for _ in range(4)]
    verdict = check_injective(layout)
    assert verdict.refuted
    assert verdict.counterexample == {"x": 0, "y": 0, "x'": 0, "y'": 1}
    assert check_surjective(layout).proved


def test_header_gf2_product():
    # "| 1 2 14 12 | × 6 = (1 × 0) ⊕ (2 × 1) ⊕ (14 × 1) ⊕ (12 × 0) = 12"
    layout = LinearLayout({"a": [[1], [2], [14], [12]]})
    assert layout(a=6) == (12,)


def test_header_out_dim_sizes_inferred():
    # "L(in1=1) = (out1=1, out2=0), L(in1=2) = (out1=5, out2=1), L(in1=4) = (out1=2, out2=2)
    # ... the largest values for out1 and out2, namely 5 and 2, ... These are 8 and 4."
    layout = LinearLayout({"in1": [[1, 0], [5, 1], [2, 2]]}, ["out1", "out2"])
    assert layout.out_dims == (("out1", 8), ("out2", 4))
    # getOutDimSize's example: bases 1, 4 (in0) and 2, 8 (in1) cover [0, 16)
    covering = LinearLayout({"in0": [[1], [4]], "in1": [[2], [8]]})
    assert covering.out_dims == (("dim0", 16),) and covering(in0=3, in1=3) == (15,)
    assert check_surjective(covering).proved


def test_header_products():
    # identity1D(4, "i", "o") * zeros1D(2, "i", "o") => L(x) = x % 4 for x in [0,8)
    mod4 = LinearLayout({"i": [[1], [2], [0]]}, {"o": 4})
    assert [mod4(i=x)[0] for x in range(8)] == [x % 4 for x in range(8)]
    # zeros1D(2, "i", "o") * identity1D(4, "i", "o") => L(x) = x / 2 for x in [0,8)
    half = LinearLayout({"i": [[0], [1], [2]]}, {"o": 4})
    assert [half(i=x)[0] for x in range(8)] == [x // 2 for x in range(8)]
    assert check_injective(mod4).refuted and check_injective(half).refuted


# -- LinearLayoutConversionsTest.cpp ----------------------------------------------------------

# TEST_F(LinearLayoutConversionsTest, MMAv2_32x32)
MMA_V2_32x32 = distributed(reg=[[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]],
                           lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]])
# TEST_F(LinearLayoutConversionsTest, CTABroadcast): blocked on [64, 128]
CTA_BROADCAST = distributed(reg=[[1, 0], [2, 0], [4, 0], [0, 16], [0, 32]],
                            lane=[[8, 0], [16, 0], [32, 0], [0, 1], [0, 2]],
                            warp=[[0, 4], [0, 8]], block=[[0, 64]])
# TEST_F(LinearLayoutConversionsTest, ShapeSmallerThanLayout): "the log2(64/8) = 3 most
# major bases are 0"
SMALLER_THAN_LAYOUT = distributed(reg=[[1], [2]], lane=[[4], [0]], warp=[[0], [0]])
# TEST_F(LinearLayoutConversionsTest, SharedSwizzled2D_MaxPhaseOnly): 32 × 32, maxPhase 4
SWIZZLED_MAX_PHASE_4 = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                                [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]],
                                     "block": []})


def test_tensor_sized_layouts_are_invertible():
    assert MMA_V2_32x32.out_dims == (("dim0", 32), ("dim1", 32))
    assert CTA_BROADCAST.out_dims == (("dim0", 64), ("dim1", 128))
    for layout in (MMA_V2_32x32, CTA_BROADCAST, SWIZZLED_MAX_PHASE_4):
        assert check_invertible(layout).proved
        assert brute.check_invertible(layout).proved


def test_mma_v2_places_by_hand():
    # lane = 4·g + q holds rows g (and g + 8), columns 2q, 2q + 1 (bases above):
    # lane 5 = (g=1, q=1), register 1 → (1, 3); register 2 → row + 8
    assert MMA_V2_32x32(lane=5, register=1) == (1, 3)
    assert MMA_V2_32x32(lane=5, register=3) == (9, 3)


def test_shape_smaller_than_layout_is_broadcast():
    verdict = check_injective(SMALLER_THAN_LAYOUT)
    assert verdict.refuted
    # lane bit 1 has basis 0: lanes 0 and 2 hold the same element
    assert verdict.counterexample["lane"] == 0 and verdict.counterexample["lane'"] == 2
    assert check_surjective(SMALLER_THAN_LAYOUT).proved


def test_swizzled_shared_by_hand():
    # vec = 1, perPhase = 1, maxPhase = 4: row r's columns are XORed with r % 4
    for offset in range(1024):
        r, c = divmod(offset, 32)
        assert SWIZZLED_MAX_PHASE_4(offset=offset) == (r, c ^ (r % 4))


def test_conversion_from_mma_into_swizzled_shared():
    assert check_conversion(SWIZZLED_MAX_PHASE_4, MMA_V2_32x32).proved
    to_smem = convert(SWIZZLED_MAX_PHASE_4, MMA_V2_32x32)
    # lane 5, register 3 holds (9, 3): row 9 (phase 1) stores column 3 at 3 ^ 1 = 2
    assert to_smem(lane=5, register=3) == (9 * 32 + 2, 0)


def test_conversion_into_a_broadcast_layout_is_refused():
    with pytest.raises(ConversionError, match="not injective"):
        convert(SMALLER_THAN_LAYOUT, LinearLayout({"x": [[1], [2]]}))
    verdict = check_conversion(SMALLER_THAN_LAYOUT, LinearLayout({"x": [[1], [2]]}))
    assert verdict.refuted and verdict.counterexample["lane'"] == 2


# -- python/test/gluon/test_lowerings.py ----------------------------------------------------

# test_reduce_layouts' "linear_layout" (M = N = 64)
GLUON_BROADCAST = distributed(reg=[[0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
                              lane=[[0, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
                              warp=[[32, 0], [0, 32]], shape=[64, 64])


def test_gluon_broadcast_layout_lanes_0_and_1_collide():
    verdict = check_injective(GLUON_BROADCAST)
    assert verdict.refuted
    assert verdict.counterexample == {"register": 0, "lane": 0, "warp": 0, "block": 0,
                                      "register'": 0, "lane'": 1, "warp'": 0, "block'": 0}
    assert GLUON_BROADCAST(lane=1) == GLUON_BROADCAST(lane=0) == (0, 0)
    assert check_surjective(GLUON_BROADCAST).proved   # every element of 64 × 64 is held


# -- bank conflicts, by hand (CUDA C++ Programming Guide: 32 banks of 4 bytes) ---------------

# Each lane a row, registers the columns: a column of a 32 × 32 tile per instruction.
COLUMN_READER = distributed(reg=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                            lane=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])
ROW_MAJOR = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                     [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]})
# maxPhase 32: element (r, c) at offset 32 r + (c ^ r)
XOR_SWIZZLED = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                        [1, 1], [2, 2], [4, 4], [8, 8], [16, 16]]})


def test_bank_conflicts_by_hand():
    # fp32, row-major: offset 32 r + c is bank c for every row: 32 rows, one bank, 32 words
    assert bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=4).degree == 32
    # fp16: bank (16 r + c // 2) % 32: even rows one bank, odd rows another, 16 words each
    assert bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=2).degree == 16
    # swizzled: row r puts column c at c ^ r, so the 32 rows use 32 banks
    assert bank_conflicts(COLUMN_READER, XOR_SWIZZLED, element_bytes=4).degree == 1
    for element_bytes, degree in ((4, 32), (2, 16)):
        assert brute.bank_conflict_degree(COLUMN_READER, ROW_MAJOR,
                                          element_bytes=element_bytes) == degree


def test_bank_conflict_witness_replays():
    found = bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=4)
    lane = found.witness["lane'"]
    # plain ints: lane 0 stores (0, 0) at byte 0, lane `lane` stores (lane, 0) at 128·lane
    assert (COLUMN_READER(lane=lane)) == (lane, 0)
    assert (lane * 32 * 4 // 4) % 32 == 0 and lane != 0


def test_cute_row_major_matches_the_shared_layout():
    # CuTe (32,32):(1,32) sends i = c + 32 r to 32 r + c: flattened dim0 + 32·dim1 of the
    # row-major shared layout's transpose; ROW_MAJOR's outputs flatten as r + 32·c.
    assert check_equivalent(ROW_MAJOR, la.CuteLayout((32, 32), (32, 1))).proved
    refuted = check_equivalent(ROW_MAJOR, la.CuteLayout((32, 32), (1, 32)))
    # flat index 1 is offset 1 (ROW_MAJOR's one in dim); the counterexample holds in dims only
    assert refuted.refuted and refuted.counterexample == {"offset": 1}
    assert "flat index 1 " in refuted.reason
