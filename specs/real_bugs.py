"""Real bugs from the frameworks' trackers, caught by shipped specs (issue 16, item 4).

Each bug is a pair: a spec that REFUTES the buggy behaviour with a concrete
counterexample (declared ``expect="REFUTED"``), and a spec that PROVES the fixed
one. Figures come from the reports where they give them (messages, sizes,
addresses); where a report gives no example (tt-metal#24425) or no mechanism
(tt-metal#53110's fill addressing) the case or the model is ours, and each
spec says so. Fixes named here are proposed fixes in open PRs (tt-metal#54991,
cutlass#3622), not merged ones. docs/real-bugs.md links each report to its
specs. pytorch#194457 (DTensor) lives in specs/dtensor.py.
"""

import layoutalg as la
from layoutalg.core.cute_layout import parse_layout
from layoutalg.core.cute_tiling import zipped_divide
from layoutalg.spyre import SpyreLayout, default_layout
from layoutalg.tt import L1Budget, ShardSpec, tensor_spec


# -- tenstorrent/tt-metal#24425: a WIDTH_SHARDED tensor's padded width ----------------------

WIDTH_24425 = {"memory_layout": "WIDTH_SHARDED", "buffer_type": "L1",
               "shard_spec": {"grid": ((0, 0), (1, 0)), "shape": (32, 64)}}


@la.spec(claims=["padded_to_shards"], expect="REFUTED")
def tt_metal_24425_padded_to_tiles():
    """tt-metal#24425: TTNN pads a width-sharded tensor's width to tiles (alignment +
    logical shape), not to cores × shard width. The report gives no example: the case here,
    [32, 70] in shards of 64 on 2 cores, is ours. Padded to tiles it is 96 wide, but its 2
    shards span 2 × 64 = 128 columns. REFUTED: shard column 1's columns 32–63 lie past the
    padded width."""
    return tensor_spec((32, 70), "bfloat16", WIDTH_24425)


@la.spec(claims=[("padded_to_shards", (32, 128))])
def tt_metal_24425_padded_to_shards():
    """The fix the report asks for (padded width = shards × shard width, alignment to the
    shard shape), on our [32, 70] case: the padded [32, 128] splits into the 2 shards of 64
    exactly, each column once."""
    return tensor_spec((32, 70), "bfloat16", WIDTH_24425)


# -- tenstorrent/tt-metal#53110: padding fill on BLOCK_SHARDED data ------------------------

BLOCK_53110 = {"memory_layout": "BLOCK_SHARDED", "buffer_type": "L1",
               "shard_spec": {"grid": ((0, 0), (1, 1)), "shape": (64, 128),
                              "orientation": "COL_MAJOR"}}
# Our model of the fill's addressing: a padded page p goes to the (p // 8)-th core (COL_MAJOR
# order), slot p % 8: runs of a shard's 8 pages, as HEIGHT sharding would deal them. It
# reproduces both symptoms the report measured (data overwritten; 50 % of padding left).
FILL_53110 = ShardSpec("HEIGHT", (2, 2), (32, 256), "COL_MAJOR")


@la.spec(claims=[("padding_disjoint", FILL_53110)], expect="REFUTED")
def tt_metal_53110_fill_pad_block_sharded():
    """tt-metal#53110: fill_implicit_tile_padding on a BLOCK_SHARDED [1, 1, 100, 256]
    bf16 tensor (grid 2 × 2 COL_MAJOR, shards of 64 × 128) overwrites data. The report
    gives the tensor and the symptoms; how the fill addresses pages (FILL_53110, runs of a
    shard's pages dealt as HEIGHT sharding would) is our reading, chosen because it
    reproduces both symptoms, not taken from TT-Metal's code. REFUTED with a padding
    element that fill writes where a data element lives, e.g. (0, 0, 100, 0) on core
    (1, 1) over data element (0, 0, 68, 128)."""
    return tensor_spec((1, 1, 100, 256), "bfloat16", BLOCK_53110)


@la.spec(claims=["padding_disjoint"])
def tt_metal_53110_fill_by_the_tensors_placement():
    """The fix, as we model it: the fill addresses padding through the tensor's own
    block-sharded placement; no padding write lands on data, on any core."""
    return tensor_spec((1, 1, 100, 256), "bfloat16", BLOCK_53110)


# -- tenstorrent/tt-metal#54621 and #28835: free L1, not max L1, and a breakdown -----------

# P100 core (0, 0) in #54621: "L1 buffer allocated at 1378048 and static circular buffer
# region ends at 1430656" with wo's (2048, 320) bf16 shard as the CB (1,310,720 B): the CB
# region starts at 1,430,656 − 1,310,720 = 119,936 (base address and other CBs); L1 buffers
# take 1,572,864 − 1,378,048 = 194,816 B from the top of Blackhole's 1,572,864 B L1.
P100_CORE = L1Budget(device="blackhole", reserved=119_936, buffers=[("L1 buffers", 194_816)])


@la.spec(claims=[("l1_guard_sound", "max")], expect="REFUTED")
def tt_metal_54621_max_l1_guard():
    """tt-metal#54621: to_memory_config admits a CB when it fits max L1, which TTNN computes
    as L1 size minus the base address only (as the diff of tt-metal#54991 shows). Here the
    limit is L1 size minus ``reserved`` = 1,572,864 − 119,936 = 1,452,928 B, where 119,936
    holds the base address *and* the other CBs (the report does not separate them), so
    TTNN's limit is at least as large: every size this guard admits, TTNN's admits too.
    REFUTED with a CB size it admits whose region ends above the lowest L1 buffer, with the
    core's breakdown."""
    return P100_CORE


@la.spec(claims=[("l1_holds", 1_310_720)], expect="REFUTED")
def tt_metal_54621_wo_shard_cb():
    """wo's shard as a CB, 2048 × 320 × 2 = 1,310,720 B: the clash of the report, broken
    down (tt-metal#28835): 119,936 + 194,816 + 1,310,720 = 1,625,472 B, 52,608 B over."""
    return P100_CORE


@la.spec(claims=[("l1_guard_sound", "free")])
def tt_metal_54621_free_l1_guard():
    """The proposed fix (tt-metal#54991, an open PR; get_max_l1_space): admit a CB only if
    it fits the free L1 between the CB region and the lowest L1 buffer; proved for every
    size."""
    return P100_CORE


@la.spec(claims=[("l1_holds", 0)], expect="REFUTED")
def tt_metal_28835_clash_breakdown():
    """tt-metal#28835's message, "L1 buffer allocated at 974336 and static circular buffer
    region ends at 1089536" on Wormhole, given the breakdown it asks for: CBs 1,089,536 +
    L1 buffers 524,800 = 1,614,336 of 1,499,136 B, 115,200 B over."""
    return L1Budget(device="wormhole_b0", circular_buffers=[("static CBs", 1_089_536)],
                    buffers=[("L1 buffers", 1_499_136 - 974_336)])


# -- torch-spyre/torch-spyre#3401: an invalid SpyreTensorLayout, then SIGFPE ---------------


@la.spec(claims=["bijective", "spyre_dma_reading"], expect=["PROVED", "REFUTED"])
def torch_spyre_3401_layout_the_dma_misreads():
    """torch-spyre#3401: SpyreTensorLayout(device_size=[1, 4, 128, 64, 64], stride_map=
    [2097152, 524288, 1, 8192, 128]) for a (1, 4, 4096, 128) fp16 tensor is a fine
    bijection (sticks down the rows), but torch-spyre's copy (spyre_mem.cpp) groups device
    dim 2 under torch dim 2 (host stride 128) and divides by stride_map[2] / 128 = 1 / 128
    = 0: SIGFPE. REFUTED with that divisor (the copy never runs, so no element is moved).
    The bridge (TorchSpyreLayout.bind) refuses it at construction with that rule."""
    return SpyreLayout.from_stride_map([1, 4, 4096, 128], "float16", [1, 4, 128, 64, 64],
                                       [2097152, 524288, 1, 8192, 128])


@la.spec(claims=["bijective", "spyre_dma_reading"])
def torch_spyre_3401_sticks_down_the_rows():
    """The same arrangement as torch-spyre's constructor builds it (dim_order [0, 1, 3, 2]):
    the stick dim's tiles sit where get_dim_map looks for them, no divisor is 0, and the
    copy moves every element once to its slot (proved)."""
    return default_layout([1, 4, 4096, 128], "float16", [0, 1, 3, 2])


@la.spec(claims=["bijective", "spyre_dma_reading"])
def torch_spyre_3401_default_layout():
    """The default layout of the same tensor (sticks along the rows' 128 elements)."""
    return default_layout([1, 4, 4096, 128], "float16")


# -- NVIDIA/cutlass#3513: a dynamic tiler on a static layout -------------------------------

LAYOUT_3513 = parse_layout("(12,(4,8)):(7,(1,30))")


@la.spec(claims=[("cute_equivalent", LAYOUT_3513)], expect="REFUTED")
def cutlass_3513_dynamic_tiler_result():
    """cutlass#3513: zipped_divide((12,(4,8)):(7,(1,30)), 128) with a dynamic tiler returns
    ((12,4,2),(1,1,3)):((7,1,30),(896,11,90)) with no diagnostic. A divide re-indexes its
    layout; REFUTED: sizes differ, 288 vs 384 (layoutalg's zipped_divide refuses 128 with
    CuTe's shape divisibility condition)."""
    return parse_layout("((12,4,2),(1,1,3)):((7,1,30),(896,11,90))")


@la.spec(claims=[("cute_equivalent", LAYOUT_3513)])
def cutlass_3513_compatible_tiler():
    """The proposed fix (cutlass#3622, an open PR) checks divisibility at run time; a
    compatible dynamic tiler, 12, returns the layout itself: every one of the 384 indices
    to the same offset."""
    return zipped_divide(LAYOUT_3513, 12)
