"""The torch-spyre bridge and sparse layouts: torch-spyre's form goes out and comes back.

Pinned forms are traced by hand from torch-spyre/torch-spyre
``torch_spyre/csrc/spyre_tensor_impl.cpp`` ``SpyreTensorLayout::init`` at commit
049b02ded77ce12f1c99cc3be52c857f0b9ffed7 (dim order ``[o0, …, o(r-1), -1]``: host_rank
= r + 1, device_size ``[n(o1), …, n(o(r-1)), 1, n(o0), E]`` (the ``-1`` has extent 1),
stride_map ``[s(o1), …, s(o(r-1)), -1, s(o0), -1]``) and checked against torch-spyre's
own ``tests/tensor/test_tensor_layout.py`` (stride_map era): ``test_sparse_dim_order``
(``[512, 256]``, ``[0, 1, -1]`` → ``[256, 1, 512, 64]`` by ``[1, -1, 256, -1]``) and the
dense ``test_default_layout`` / ``test_dim_order`` rows. The copy is replayed by hand
here (host strides = stride_map, 1 where -1; device strides row-major; spyre_mem.cpp
``get_device_stride_infos`` at 0583ae3), sharing no code with ``dma._compare``.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from row_major_steps import row_major_steps

import layoutalg as la
from layoutalg.spyre import (
    TorchSpyreError,
    TorchSpyreLayout,
    check_dma_reading,
    default_layout,
    from_torch_spyre,
    to_torch_spyre,
)
from layoutalg.spyre.dma import copy_plan
from layoutalg.spyre.dma_sparse import family_sparse_form, torch_spyre_form

# (size, dim_order, torch-spyre's device_size, stride_map): init@049b02d by hand
SPARSE = [
    # rank 1: i = 1 gives the -1's extent 1 at device dim 0; o0 = 0 at device dim 1
    ((5,), [0, -1], (1, 5, 64), (-1, 1, -1)),
    # rank 2: torch-spyre's test_sparse_dim_order
    ((512, 256), [0, 1, -1], (256, 1, 512, 64), (1, -1, 256, -1)),
    # rank 2, the other order: n(o1) = 5 (stride 30), 1, n(o0) = 30 (stride 1)
    ((5, 30), [1, 0, -1], (5, 1, 30, 64), (30, -1, 1, -1)),
    # rank 3, [4, 6, 10] (strides 60, 10, 1) by [2, 0, 1, -1]: n(0), n(1), 1, n(2), E
    ((4, 6, 10), [2, 0, 1, -1], (4, 6, 1, 10, 64), (60, 10, -1, 1, -1)),
]
# torch-spyre's test_default_layout / test_dim_order (stride_map era), fp16
DENSE = [
    ((128,), None, (2, 64), (64, 1)),
    ((120,), None, (2, 64), (64, 1)),
    ((512, 240), None, (4, 512, 64), (64, 240, 1)),
    ((512, 256), [1, 0], (8, 256, 64), (16384, 1, 256)),
    ((512, 8, 240), None, (8, 4, 512, 64), (240, 64, 1920, 1)),
    ((512, 8, 256), [1, 0, 2], (512, 4, 8, 64), (2048, 64, 256, 1)),
    ((512, 8, 256), [1, 2, 0], (256, 8, 8, 64), (1, 131072, 256, 2048)),
    ((512, 8, 256), [2, 1, 0], (8, 8, 256, 64), (256, 131072, 1, 2048)),
]


def _moves(size, stride, device_size, stride_map):
    """Every (host offset, device slot) torch-spyre's copy moves, nest by nest."""
    plan = copy_plan(size, stride, device_size, stride_map)
    assert plan.failure is None
    host = [1 if s == -1 else s for s in stride_map]
    dev = row_major_steps(device_size)
    return [(h + sum(i * s for i, s in zip(idx, host)), d + sum(i * s for i, s in zip(idx, dev)))
            for sizes, h, d in plan.boxes for idx in itertools.product(*map(range, sizes))]


def _prod(sizes):
    product = 1
    for n in sizes:
        product *= n
    return product


def _homes(layout):
    """(host offset, device slot) of every element, through ``host_to_device``."""
    steps = row_major_steps(layout.device_size)
    return sorted((sum(a * s for a, s in zip(h, layout.stride)),
                   sum(c * s for c, s in zip(layout.host_to_device(h), steps)))
                  for h in itertools.product(*map(range, layout.size)))


@pytest.mark.parametrize("size, order, device_size, stride_map", SPARSE + DENSE)
def test_export_is_torch_spyres_form_and_reads_back(size, order, device_size, stride_map):
    layout = default_layout(size, "float16", order)
    stl = to_torch_spyre(layout)
    assert (stl.device_size, stl.stride_map) == (device_size, stride_map)
    assert TorchSpyreLayout(device_size, stride_map=stride_map).bind(size) == layout
    for form in ("stride_map", "dim_map", "both"):
        text = str(to_torch_spyre(layout, form=form))
        assert from_torch_spyre(text, size) == layout
    if layout.numel <= 4096:
        assert sorted(_moves(size, layout.stride, device_size, stride_map)) == _homes(layout)


@pytest.mark.parametrize("size, order, device_size, stride_map", SPARSE)
def test_the_exported_sparse_form_is_copied_whole_and_the_short_form_is_not(
        size, order, device_size, stride_map):
    layout = default_layout(size, "float16", order)
    held = torch_spyre_form(layout)
    assert (held.device_size, held.stride_map) == (device_size, stride_map)
    assert check_dma_reading(held).proved
    plan = copy_plan(size, layout.stride, device_size, stride_map)
    assert sum(_prod(sizes) for sizes, _, _ in plan.boxes) == layout.numel
    # this family's shorter form: the copy runs fewer moves than elements
    short = copy_plan(size, layout.stride, layout.device_size, layout.stride_map)
    assert sum(_prod(sizes) for sizes, _, _ in short.boxes) < layout.numel
    assert check_dma_reading(layout).refuted


def test_the_short_sparse_form_is_refused_naming_the_rule_the_value_and_the_fix():
    """[5, 30] by [0, 1, -1]: the copy of [30, 5, 64] / [1, 30, -1] is one nest (1, 5, 1),
    5 moves for 150 elements (test_spyre_dma_sparse's hand trace)."""
    with pytest.raises(TorchSpyreError, match=(
            r"stride_map=\[1, 30, -1\]: torch-spyre's copy must move every host element, .* "
            r"make 5 moves for the 150 elements of size=\[5, 30\], so 145 would be lost .*"
            r"device_size=\[30, 1, 5, 64\], stride_map=\[1, -1, 30, -1\]")) as info:
        TorchSpyreLayout([30, 5, 64], stride_map=[1, 30, -1]).bind([5, 30])
    assert "\n" not in str(info.value) and isinstance(info.value, la.LayoutError)
    with pytest.raises(TorchSpyreError, match=r"must move every host element"):
        from_torch_spyre("SpyreTensorLayout(device_size=[256, 512, 64], dim_map =[1, 0, -1], "
                         "device_dtype=DataFormats.SEN169_FP16)", [512, 256])


def test_forms_that_disagree_are_named_in_the_form_given():
    with pytest.raises(TorchSpyreError, match=r"stride_map\[2\] = 255 disagrees with dim_map="
                                              r"\[1, -1, 0, -1\], which gives 256 there"):
        TorchSpyreLayout([256, 1, 512, 64], dim_map=[1, -1, 0, -1],
                         stride_map=[1, -1, 255, -1]).bind([512, 256])


def test_what_is_and_is_not_read_as_torch_spyres_sparse_form():
    assert family_sparse_form((1, 5, 64), (-1, 1, -1)) == ((5, 64), (1, -1), None)
    assert family_sparse_form((4, 6, 1, 10, 64), None, (0, 1, -1, 2, -1)) == (
        (4, 6, 10, 64), None, (0, 1, 2, -1))
    assert family_sparse_form((5, 64), (1, -1)) is None  # rank 2: no dim at rank - 3
    assert family_sparse_form((2, 5, 64), (64, 1, -1)) is None  # that dim is not size 1
    # torch-spyre's dense [512, 8, 256] by [0, 2, 1] (test_dim_order) has a size-1 device
    # dim there, but its stick dim has a stride: nothing is dropped, and it binds
    assert family_sparse_form((256, 1, 512, 64), (1, 16384, 2048, 256)) is None
    bound = TorchSpyreLayout([256, 1, 512, 64], stride_map=[1, 16384, 2048, 256]).bind(
        [512, 8, 256])
    want = default_layout([512, 8, 256], "float16", [0, 2, 1])
    assert la.check_equivalent(bound.index_map(), want.index_map()).proved
    # torch-spyre keeps size-1 host dims: [5, 1] (init@049b02d: extent ⌈1/64⌉ = 1, stride
    # -1 on the stick dim) reads as this family's [5, 1] sparse layout, the same slots
    assert TorchSpyreLayout([1, 5, 64], stride_map=[-1, 1, -1]).bind([5, 1]) == default_layout(
        [5, 1], "float16", [0, 1, -1])


@st.composite
def defaults(draw):
    size = draw(st.lists(st.integers(1, 9), min_size=1, max_size=3))
    order = list(draw(st.permutations(range(len(size)))))
    sparse = draw(st.booleans())
    dtype = draw(st.sampled_from(["float16", "float32", "int8", "bfloat16"]))
    return default_layout(size, dtype, order + [-1] * sparse)


@settings(max_examples=150, deadline=None)
@given(defaults(), st.sampled_from(["stride_map", "dim_map", "both"]))
def test_round_trip_and_whole_copy_of_every_default(layout, form):
    """Ours → torch-spyre's form → ours is the identity; the exported form's copy moves
    every element once to its slot (replayed here), and check_dma_reading agrees."""
    stl = to_torch_spyre(layout, form=form)
    for bound in (stl.bind(layout.size, layout.stride), TorchSpyreLayout.of(str(stl)).bind(
            layout.size)):
        # a device dim of size 1 moves nothing: the stride_map form does not say which torch
        # dim it belongs to (test_spyre_bridge's round trip), so those entries are not compared
        assert (bound.device_size, bound.stride_map) == (layout.device_size, layout.stride_map)
        assert [d for d, n in zip(bound.dim_map, bound.device_size) if n > 1] == [
            d for d, n in zip(layout.dim_map, layout.device_size) if n > 1]
        assert bound == layout or form == "stride_map"
    held = to_torch_spyre(layout)
    if layout.device_rank >= 2:  # else all sizes 1: one stick [E] by [-1], exported as is
        assert (held.stride_map[-1] == -1) == (len(held.device_size) == layout.device_rank + 1)
        assert sorted(_moves(layout.size, layout.stride, held.device_size,
                             held.stride_map)) == _homes(layout)
        assert check_dma_reading(torch_spyre_form(layout)).proved


@settings(max_examples=120, deadline=None)
@given(defaults())
def test_bind_refuses_the_fields_as_this_family_writes_them_exactly_when_the_copy_loses(layout):
    """Given this family's own fields (no size-1 dim added), ``bind`` accepts exactly the
    layouts whose copy check_dma_reading proves (dense ones), and refuses the sparse ones
    it refutes, the elements lost counted by the replay here."""
    fields = TorchSpyreLayout(layout.device_size, stride_map=layout.stride_map,
                              device_dtype=to_torch_spyre(layout).device_dtype)
    verdict = check_dma_reading(layout)
    try:
        bound = fields.bind(layout.size, layout.stride)
    except TorchSpyreError as error:
        assert verdict.refuted
        moved = len(_moves(layout.size, layout.stride, layout.device_size, layout.stride_map))
        assert f"so {layout.numel - moved:,} would be lost" in str(error)
        return
    assert verdict.proved and bound.device_size == layout.device_size
