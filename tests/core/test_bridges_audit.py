"""Audit reproducers for the framework bridges and real-bug specs (issue 16): each test
asserts the correct behaviour, so each is red until the defect it names is fixed.

Expected values are derived by hand from the frameworks' code or from plain arithmetic,
never computed by layoutalg. torch-spyre's copy is read from torch-spyre/torch-spyre
``torch_spyre/csrc/spyre_mem.cpp`` (``get_dim_map``, ``get_tile_map``,
``get_device_stride_infos``): the copy's host strides are the ``stride_map`` itself; the
dim_map it recovers only groups device dims under host dims to size the loops, and the
only divisors are ``stride_map[k] / host stride`` (and device sizes).
No false PROVED was found: random padded_to_shards, padding_disjoint and l1_guard cases
agreed with plain enumeration. The defects are a wrong refutation, a layout refused with
a false reason, a size compared with an address, and bad input that escapes as a raw
Python error or is silently accepted.
"""

from __future__ import annotations

import pytest

from layoutalg.errors import LayoutError
from layoutalg.spyre.dma import check_dma_reading
from layoutalg.spyre.torch_spyre import TorchSpyreLayout
from layoutalg.tt import L1Budget, ShardSpec
from layoutalg.errors import TTError
from layoutalg.tt.l1_budget import check_l1_fit, check_l1_guard
from layoutalg.tt.tensor import TensorSpec
from layoutalg.tt.ttnn import MemoryConfig, read_nd_shard_spec
from layoutalg.tt.ttnn_text import parse_memory_config

# -- torch-spyre: a layout the copy handles is refused as a SIGFPE ---------------------------


def test_dma_rule_accepts_a_layout_torch_spyres_copy_places_exactly():
    """A (10, 22) fp16 tensor, rows outermost: device_size [10, 1, 64], stride_map [22, 22, 1].

    By hand, following spyre_mem.cpp: get_dim_map gives [1, -1, 1] (device dim 0, the
    device_rank - 3 dim, is re-read as the stick's torch dim 1; device dim 1 has size 1).
    get_tile_map puts device dims 2 (stick) and 0 (stride 22) under torch dim 1; torch
    dim 0 is not in the tile map, so its 10 rows fold into host_size = 22 * 10 = 220.
    Divisors: 22 / 1 = 22 and 1 / 1 = 1, never zero. Loop sizes: 220 / 22 = 10 rows
    (even), then 220 / 10 = 22 elements of the stick. The copy is host[22 r + c] ->
    device[64 r + c] for r < 10, c < 22: exactly this layout. Yet the bridge refuses it
    ("a copy with this layout divides by zero (SIGFPE, torch-spyre#3401)", while naming
    the divisor 22) and check_dma_reading REFUTES it.
    """
    stl = TorchSpyreLayout([10, 1, 64], stride_map=[22, 22, 1])
    layout = stl.bind([10, 22])  # raises TorchSpyreError today
    assert layout.host_to_device((3, 5)) == (3, 0, 5)  # device[64 * 3 + 5] = host[22 * 3 + 5]
    assert check_dma_reading(layout).proved


# -- tt-metal#54621: the free-L1 guard on a core with no free L1 -----------------------------

# tt-metal#28835's core: "L1 buffer allocated at 974336 and static circular buffer region
# ends at 1089536" on Wormhole (1,499,136 B L1): free L1 = 974,336 - 1,089,536 = -115,200.
CLASH_28835 = L1Budget(1_499_136, circular_buffers=[("static CBs", 1_089_536)],
                       buffers=[("L1 buffers", 1_499_136 - 974_336)])


def test_free_guard_is_not_refuted_with_a_size_it_does_not_admit():
    """The free guard admits a CB of s bytes only if s <= free = -115,200: it admits no size
    at all, so "every size it admits fits" holds. check_l1_guard REFUTES it with
    cb_bytes = 0, a size the guard rejects (guard_map's domain is max(limit, 0) + 1)."""
    verdict = check_l1_guard(CLASH_28835, "free")
    if verdict.refuted:
        assert verdict.counterexample["cb_bytes"] <= CLASH_28835.free, verdict.reason
    assert verdict.proved


# -- L1 fit: a tensor's address is compared with the free L1's size --------------------------


def test_l1_fit_of_a_tensor_at_an_address_is_judged_by_its_bytes():
    """2 height shards of one 32 x 32 bf16 tile: 2,048 B per core. Free L1 on each core:
    1,499,136 - 1,000,000 = 499,136 B, so the tensor fits, as the breakdown itself says
    ("497,088 B to spare"). With base_address=498,000 the verdict is REFUTED with
    bytes = 500,048 (address + bytes compared with the free *size*)."""
    spec = TensorSpec((64, 32), "bfloat16", memory=ShardSpec("HEIGHT", (2, 1), (32, 32)),
                      storage="L1", base_address=498_000)
    budget = L1Budget(1_499_136, buffers=[("other tensors", 1_000_000)])
    verdict = check_l1_fit(spec, budget)
    assert "497,088 B to spare" in verdict.reason
    assert verdict.proved, verdict.counterexample


# -- bad input: one clear LayoutError naming the argument, nothing silently changed ----------


def test_nd_shard_spec_without_shard_shape_is_one_clear_error():
    """Today: TypeError: 'NoneType' object is not iterable."""
    with pytest.raises(LayoutError, match="shard_shape"):
        read_nd_shard_spec({"grid": (2, 1)})
    with pytest.raises(LayoutError, match="shard_shape"):
        MemoryConfig("HEIGHT_SHARDED", "L1", nd_shard_spec={"grid": (2, 1)})


def test_l1_guard_of_a_non_budget_is_one_clear_error():
    """Today: AttributeError: 'str' object has no attribute 'limit'."""
    with pytest.raises(TTError, match="budget"):
        check_l1_guard("P100 core", "free")


def test_l1_budget_refuses_buffers_larger_than_its_l1():
    """L1 buffers are allocated inside L1 (top down, above the reserved region): 5,000 B of
    buffers in a 1,000 B L1 is impossible. Today it is accepted (lowest buffer address
    -4,000) and check_l1_guard later fails with a SpaceError about 'cb_region_end'."""
    with pytest.raises(TTError, match="buffers"):
        L1Budget(1000, buffers=[("x", 5000)])


def test_printed_memory_config_with_a_repeated_field_is_refused():
    """Today the second buffer_type silently replaces the first (L1 becomes DRAM)."""
    text = ("MemoryConfig(memory_layout=TensorMemoryLayout::INTERLEAVED,"
            "buffer_type=BufferType::L1,buffer_type=BufferType::DRAM)")
    with pytest.raises(TTError, match="buffer_type"):
        parse_memory_config(text)


def test_an_enum_of_another_type_is_refused():
    """'TensorMemoryLayout::L1' is not a BufferType; today the prefix is dropped and it is
    read as BufferType::L1."""
    with pytest.raises(TTError, match="buffer_type"):
        MemoryConfig("INTERLEAVED", "TensorMemoryLayout::L1")


def test_per_core_budget_keys_must_be_cores():
    """A budget dict is {(x, y): L1Budget}; today the key 'a' is accepted and the verdict
    speaks of 'core a'."""
    with pytest.raises(TTError, match="budget"):
        check_l1_fit(10, {"a": L1Budget(1000)})

