"""torch-spyre's copy of a sparse layout, in layoutalg's (dim_map) form and in torch-spyre's.

The hand traces follow ``get_dim_map``, ``get_tile_map`` and ``get_device_stride_infos``
in torch-spyre/torch-spyre ``torch_spyre/csrc/spyre_mem.cpp`` at commit
0583ae3aa6e63306941490db7232f08231abcd00, one line at a time. The two forms of
``SpyreTensorLayout([512, 256], [256, 1], fp16, [0, 1, -1])`` come from torch-spyre's
``tests/tensor/test_tensor_layout.py`` ``test_sparse_dim_order`` (dim_map era:
``device_size [256, 512, 64]``, ``dim_map [1, 0, -1]``; stride_map era:
``device_size [256, 1, 512, 64]``, ``stride_map [1, -1, 256, -1]``); the same file's
``test_to_spyre_layout`` round-trips a tensor through the stride_map-era sparse layout
on the device. The copy runs each nest ``(sizes, host offset, device offset)`` with host
strides ``stride_map`` (1 where -1) and the device's row-major strides
(``DataConversionStrideInfo``); ``_replay`` does that here, sharing no code with
``layoutalg.spyre.dma``'s comparison.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st
from row_major_steps import row_major_steps

from layoutalg.spyre import check_dma_reading, default_layout, to_torch_spyre
from layoutalg.spyre.dma import CopyPlan, copy_plan
from layoutalg.spyre.dma_sparse import sparse_note, torch_spyre_sparse_form


def _replay(plan, device_size, stride_map):
    """The copy's moves as a list of (host offset, device slot), nest by nest."""
    host = [1 if s == -1 else s for s in stride_map]
    dev = row_major_steps(device_size)
    return [(h_off + sum(i * s for i, s in zip(idx, host)),
             d_off + sum(i * s for i, s in zip(idx, dev)))
            for sizes, h_off, d_off in plan.boxes
            for idx in itertools.product(*(range(n) for n in sizes))]


def _homes(layout):
    """{host element: (host offset, device slot)} walked through ``host_to_device``."""
    steps = row_major_steps(layout.device_size)
    return {h: (sum(a * s for a, s in zip(h, layout.stride)),
                sum(c * s for c, s in zip(layout.host_to_device(h), steps)))
            for h in itertools.product(*(range(n) for n in layout.size))}


# (5, 30) fp16, dim order [0, 1, -1]. dim_map form: device [30, 5, 64], stride_map
# [1, 30, -1]. get_dim_map (stick_dim_index = 3 - 3 = 0): host dim 0 (stride 30) is the
# largest stride <= 30 on device dim 1; host dim 1 (stride 1) on device dim 0; then
# dim_map[0] = dim_map[2] = -1: (-1, 0, -1). get_tile_map: [[1], []]. The host loop
# skips dim 1 (no tiles); dim 0: tile dim 1, 30 / 30 = 1, 5 elements -> dcsi_sizes[1] = 5.
# One nest (1, 5, 1): host 30·b to slot 64·b, column 0 only.
DIM_MAP_FORM = CopyPlan((-1, 0, -1), ((1, 0, 1),), (((1, 5, 1), 0, 0),), None)
# torch-spyre's form: device [30, 1, 5, 64], stride_map [1, -1, 30, -1]. stick_dim_index
# 4 - 3 = 1 is the size-1 dim (skipped), so dim_map (1, -1, 0, -1) stays; tiles
# [[2], [0]]; host dim 1: device dim 0, 1 / 1 = 1, 30 elements -> 30; host dim 0: device
# dim 2, 30 / 30 = 1, 5 elements -> 5. One nest (30, 1, 5, 1): host a + 30·b to slot
# 320·a + 64·b, which is where the layout puts element (b, a).
TORCH_SPYRE_FORM = CopyPlan((1, -1, 0, -1), ((0, 1, 1), (2, 0, 1)),
                            (((30, 1, 5, 1), 0, 0),), None)


def test_dim_map_form_of_5_by_30_moves_column_0_only():
    layout = default_layout([5, 30], "float16", [0, 1, -1])
    assert (layout.device_size, layout.stride_map) == ((30, 5, 64), (1, 30, -1))
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    assert plan == DIM_MAP_FORM
    assert _replay(plan, layout.device_size, layout.stride_map) == [
        (0, 0), (30, 64), (60, 128), (90, 192), (120, 256)]


def test_torch_spyres_form_of_5_by_30_moves_every_element_once_to_its_slot():
    plan = copy_plan((5, 30), (30, 1), (30, 1, 5, 64), (1, -1, 30, -1))
    assert plan == TORCH_SPYRE_FORM
    moves = _replay(plan, (30, 1, 5, 64), (1, -1, 30, -1))
    assert sorted(moves) == sorted((30 * b + a, 320 * a + 64 * b)
                                   for b in range(5) for a in range(30))


def test_rank_1_sparse_both_forms_by_hand():
    """[5] fp16, order [0, -1]. dim_map form [5, 64] / [1, -1]: stick_dim_index 0 holds
    host dim 0 and is re-read as -1, no tiles: one nest (1, 1), element 0 only.
    torch-spyre's form [1, 5, 64] / [-1, 1, -1]: dim_map (-1, 0, -1), nest (1, 5, 1)."""
    layout = default_layout([5], "float16", [0, -1])
    assert (layout.device_size, layout.stride_map) == ((5, 64), (1, -1))
    assert copy_plan((5,), (1,), (5, 64), (1, -1)) == CopyPlan((-1, -1), (), (((1, 1), 0, 0),),
                                                               None)
    assert torch_spyre_sparse_form((5, 64), (1, -1)) == ((1, 5, 64), (-1, 1, -1))
    assert copy_plan((5,), (1,), (1, 5, 64), (-1, 1, -1)) == CopyPlan(
        (-1, 0, -1), ((1, 0, 1),), (((1, 5, 1), 0, 0),), None)


def test_both_forms_are_torch_spyres_own_and_the_bridge_exports_the_second():
    layout = default_layout([512, 256], "float16", [0, 1, -1])
    assert (layout.device_size, layout.dim_map) == ((256, 512, 64), (1, 0, -1))
    assert torch_spyre_sparse_form(layout.device_size, layout.stride_map) == (
        (256, 1, 512, 64), (1, -1, 256, -1))
    exported = to_torch_spyre(layout)  # the form torch-spyre's copy moves whole
    assert (exported.device_size, exported.stride_map) == ((256, 1, 512, 64), (1, -1, 256, -1))
    assert torch_spyre_sparse_form((4, 512, 64), (64, 256, 1)) is None  # dense: no form


def test_the_refutation_says_which_dim_is_lost_and_names_torch_spyres_form():
    verdict = check_dma_reading(default_layout([5, 30], "float16", [0, 1, -1]))
    assert verdict.refuted and verdict.counterexample == {"h0": 0, "h1": 1}
    assert "device dim 0, torch dim 1's" in verdict.reason
    assert "device_size=[30, 1, 5, 64], stride_map=[1, -1, 30, -1]" in verdict.reason
    dense = check_dma_reading(default_layout([5, 30], "float16"))
    assert dense.proved and "synthetic" not in dense.reason
    assert sparse_note((30, 5, 64), (1, 30, -1), (-1, 0, -1), (1, 0, -1)).startswith(" (")
    assert sparse_note((4, 512, 64), (64, 256, 1), (1, 0, 1), (1, 0, 1)) == ""


@st.composite
def sparse_defaults(draw):
    size = draw(st.lists(st.integers(1, 7), min_size=1, max_size=3))
    order = list(draw(st.permutations(range(len(size)))))
    dtype = draw(st.sampled_from(["float16", "float32", "int8"]))
    return default_layout(size, dtype, order + [-1])


@settings(max_examples=150, deadline=None)
@given(sparse_defaults())
def test_sparse_copy_in_each_form(layout):
    """torch-spyre's form is copied whole; the dim_map form moves exactly the elements
    whose coordinate on the torch dim at device dim ``device_rank - 3`` is 0, and
    check_dma_reading refutes it saying so."""
    if layout.device_rank < 2:  # all sizes 1: a single stick
        return
    homes = _homes(layout)
    sizes, strides = torch_spyre_sparse_form(layout.device_size, layout.stride_map)
    plan = copy_plan(layout.size, layout.stride, sizes, strides)
    assert plan.failure is None
    moves = _replay(plan, sizes, strides)
    assert sorted(moves) == sorted(homes.values())
    tile = layout.device_rank - 3 if layout.device_rank > 2 else 0
    lost = layout.dim_map[tile]
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    moves = _replay(plan, layout.device_size, layout.stride_map)
    assert sorted(moves) == sorted(home for h, home in homes.items() if h[lost] == 0)
    verdict = check_dma_reading(layout)
    assert verdict.refuted and f"torch dim {lost}:" in verdict.reason
