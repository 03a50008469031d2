"""The torch-spyre bridge: torch-spyre's SpyreTensorLayout in its documented forms.

Pinned truths come from torch-spyre itself: its docs (``docs/TensorLayouts.md``:
the (5, 100, 150) example in both forms, the dim_order [1, 0, 2] example, the
[128, 256, 512] stride_map), reprs printed by its runtime in its tracker
(torch-spyre#1303, #1176) and by its compiler's wrapper code, and the comment
in ``spyre_mem.cpp``'s ``get_tile_map``. torch-spyre installs only on Spyre
hosts, so its objects are stood in for by plain objects with its field names.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.spyre import (
    DimMapError,
    SpyreError,
    SpyreLayout,
    StickSizeError,
    StrideMapError,
    TorchSpyreError,
    TorchSpyreLayout,
    as_layout,
    check_dma_reading,
    check_dma_rule,
    default_layout,
    dma_dim_map,
    dma_reading,
    from_torch_spyre,
    parse_repr,
    to_torch_spyre,
)
from layoutalg.spyre.dma import CopyPlan, _compare, copy_plan

DOCS_REPR = ("SpyreTensorLayout(device_size=[100, 3, 5, 64], stride_map =[150, 64, 15000, 1], "
             "device_dtype=DataFormats.SEN169_FP16)")
ISSUE_3401 = ("SpyreTensorLayout(device_size=[1, 4, 128, 64, 64], "
              "stride_map =[2097152, 524288, 1, 8192, 128], device_dtype=DataFormats.SEN169_FP16)")


# -- the docs' examples --------------------------------------------------------------------


def test_docs_default_layout_prints_as_torch_spyre_prints_it():
    """TensorLayouts.md: x = torch.rand(5, 100, 150, fp16).to("spyre") prints DOCS_REPR;
    the first version printed dim_map =[1, 2, 0, 2] for the same tensor."""
    layout = default_layout([5, 100, 150], "float16")
    assert str(to_torch_spyre(layout)) == DOCS_REPR
    assert str(to_torch_spyre(layout, form="dim_map")) == (
        "SpyreTensorLayout(device_size=[100, 3, 5, 64], dim_map =[1, 2, 0, 2], "
        "device_dtype=DataFormats.SEN169_FP16)")
    assert from_torch_spyre(DOCS_REPR, [5, 100, 150]) == layout


def test_docs_dim_order_example():
    """TensorLayouts.md: SpyreTensorLayout((5, 100, 150), torch.float16, [1, 0, 2]) prints
    device_size=[5, 3, 100, 64], dim_map =[0, 2, 1, 2]."""
    text = ("SpyreTensorLayout(device_size=[5, 3, 100, 64], dim_map =[0, 2, 1, 2], "
            "device_dtype=DataFormats.SEN169_FP16)")
    assert from_torch_spyre(text, [5, 100, 150]) == default_layout([5, 100, 150], "float16",
                                                                   [1, 0, 2])


def test_docs_stride_map_example_and_tiling_formula():
    """TensorLayouts.md: size [128, 256, 512], device_size [256, 8, 128, 64]: stride_map
    [512, 64, 131072, 1], dim_map [1, 2, 0, 2], (a, b, c, d) ↦ (c, a, 64·b + d); the same
    layout may hold a padded [100, 200, 500]."""
    stl = TorchSpyreLayout([256, 8, 128, 64], stride_map=[512, 64, 131072, 1])
    layout = stl.bind([128, 256, 512])
    assert layout.dim_map == (1, 2, 0, 2)
    a, b, c, d = 7, 5, 3, 11
    assert layout.device_to_host((a, b, c, d)) == (c, a, 64 * b + d)
    padded = TorchSpyreLayout([256, 8, 128, 64], dim_map=[1, 2, 0, 2]).bind([100, 200, 500])
    assert padded.padding_slots == 256 * 8 * 128 * 64 - 100 * 200 * 500


@pytest.mark.parametrize("size, stride, text", [
    # torch-spyre#1303: a [1, 3, 128] fp16 tensor as the runtime printed it (both forms)
    ((1, 3, 128), (384, 128, 1),
     "SpyreTensorLayout(device_size=[3, 2, 1, 64], dim_map =[1, 2, 0, 2], "
     "stride_map =[128, 64, -1, 1], device_dtype=DataFormats.SEN169_FP16)"),
    # torch-spyre#1176: a [100, 32] fp32 tensor
    ((100, 32), (32, 1),
     "SpyreTensorLayout(device_size=[1, 100, 32], dim_map =[1, 0, 1], "
     "stride_map =[32, 32, 1], device_dtype=DataFormats.IEEE_FP32)"),
    # torch-spyre's compiler wrapper code (output_code.py), stride_map form
    ((1, 512, 12800), (6553600, 12800, 1),
     "SpyreTensorLayout(device_size=[512, 200, 1, 64], stride_map =[12800, 64, -1, 1], "
     "device_dtype=DataFormats.SEN169_FP16)"),
    ((512, 2816), (2816, 1),
     "SpyreTensorLayout(device_size=[44, 512, 64], stride_map =[64, 2816, 1], "
     "device_dtype=DataFormats.SEN169_FP16)"),
])
def test_reprs_printed_by_torch_spyre_bind_and_print_back(size, stride, text):
    layout = from_torch_spyre(text, size, stride)
    assert check_dma_reading(layout).proved
    assert la.check_bijective(layout.index_map()).proved
    form = "both" if "dim_map" in text and "stride_map" in text else (
        "dim_map" if "dim_map" in text else "stride_map")
    assert str(to_torch_spyre(layout, form=form)) == text


def test_get_tile_map_comment_example():
    """spyre_mem.cpp get_tile_map's comment: strides [320, 80, 1] (sizes [*, 4, 80]),
    device_sizes [4, 2, *, 64], stride_map [80, 64, 320, 1] → dim_map [1, 2, 0, 2]."""
    assert dma_dim_map((3, 4, 80), (320, 80, 1), (4, 2, 3, 64), (80, 64, 320, 1)) == (1, 2, 0, 2)


# -- torch-spyre#3401 and the other SIGFPE-class inputs --------------------------------------


def test_issue_3401_layout_is_refused_with_the_rule_and_the_zero_divisor():
    with pytest.raises(TorchSpyreError, match=r"stride_map\[2\] = 1: torch-spyre's DMA .* reads "
                       r"device dim 2 as torch dim 2 \(host stride 128\), but the layout puts "
                       r"torch dim 3 there; .*SIGFPE: the copy divides by stride_map\[2\] / 128 "
                       r"= 0"):
        from_torch_spyre(ISSUE_3401, [1, 4, 4096, 128])


def test_issue_3401_copy_divides_by_zero():
    """By hand, following spyre_mem.cpp: get_dim_map reads (-1, 1, 2, 2, 2); get_tile_map puts
    device dims 4 (stick), 2 (stride 1) and 3 (stride 8192) under torch dim 2 (host stride
    128). The copy divides by 8192 / 128 = 64 (device dim 3), then by 1 / 128 = 0 (device dim
    2): SIGFPE. As a layout it is fine (a bijection; sticks run down the rows)."""
    layout = SpyreLayout.from_stride_map([1, 4, 4096, 128], "float16", [1, 4, 128, 64, 64],
                                         [2097152, 524288, 1, 8192, 128])
    assert layout.dim_map == (1, 1, 3, 2, 2)
    assert la.check_bijective(layout.index_map()).proved
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    assert plan.divisors == ((3, 2, 64), (2, 2, 0))
    assert plan.failure.startswith("SIGFPE")
    verdict = check_dma_reading(layout)
    assert verdict.status is la.Status.REFUTED
    assert verdict.counterexample == {"device_dim": 2, "torch_dim": 2, "divisor": 0}


def test_a_misread_dim_map_that_divides_by_nonzero_copies_exactly():
    """torch-spyre#1176's [100, 32] fp32 layout, device_size [1, 100, 32], stride_map
    [32, 32, 1]: get_dim_map re-reads device dim 0 (size 1, so skipped) and gives
    (-1, 0, 1), the layout's own reading. The audit's (10, 22) fp16 layout is read (1, -1, 1)
    though the layout says (0, 0, 1); its divisors are 22 / 1 and 1 / 1, and the copy is
    host[22 r + c] -> device[64 r + c] for r < 10, c < 22 (one loop nest, sizes
    (10, 1, 22)): exactly the layout."""
    plan = copy_plan((10, 22), (22, 1), (10, 1, 64), (22, 22, 1))
    assert plan.dim_map == (1, -1, 1)
    assert plan.divisors == ((0, 1, 22), (2, 1, 1)) and plan.failure is None
    assert plan.boxes == (((10, 1, 22), 0, 0),)
    layout = TorchSpyreLayout([10, 1, 64], stride_map=[22, 22, 1]).bind([10, 22])
    assert layout.dim_map == (0, 0, 1)
    for r, c in itertools.product(range(10), range(22)):
        (slot,) = layout.device_offset_map()(r, c)
        assert slot == 2 * (64 * r + c)
    assert check_dma_reading(layout).proved


def test_docs_dma_loop_nest_is_the_copy_plan():
    """TensorLayouts.md, DMA Encoding, (1024, 256) fp16: ``for i in range(4): for j in
    range(1024): for k in range(64)``: one loop nest of sizes (4, 1024, 64)."""
    plan = copy_plan((1024, 256), (256, 1), (4, 1024, 64), (64, 256, 1))
    assert plan.failure is None and plan.boxes == (((4, 1024, 64), 0, 0),)


def test_a_padded_stick_dim_copies_in_two_loop_nests():
    """(3, 70) fp16, device_size [2, 3, 64], stride_map [64, 70, 1]: 70 = 64 + 6, so by
    hand the copy runs sticks 0 of all 3 rows (sizes (1, 3, 64)) and then the 6 elements
    left of stick 1 (sizes (1, 3, 6), host offset 64, device offset 3 * 64 = 192)."""
    plan = copy_plan((3, 70), (70, 1), (2, 3, 64), (64, 70, 1))
    assert plan.boxes == (((1, 3, 64), 0, 0), ((1, 3, 6), 64, 192))
    assert check_dma_reading(default_layout([3, 70])).proved


BAD = [
    ("zero device size (torch-spyre#3604)", SpyreError,
     lambda: TorchSpyreLayout([0, 4, 32], stride_map=[32, 32, 1], device_dtype="IEEE_FP32"),
     r"device_size\[0\] must be a positive int .*SIGFPE.*; got 0 in device_size=\[0, 4, 32\]"),
    ("negative device size", SpyreError,
     lambda: TorchSpyreLayout([4, -64], stride_map=[64, 1]),
     r"device_size\[1\] must be a positive int .*; got -64"),
    ("unknown device format (torch-spyre#4487)", TorchSpyreError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[64, 1], device_dtype="IEEE_FP64"),
     r"device_dtype must be one of DataFormats SEN169_FP16, .*; got 'IEEE_FP64'"),
    ("wrong stick size", StickSizeError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[64, 1], device_dtype="IEEE_FP32"),
     r"128 // 4 = 32 elements of float32; got 64 in device_size=\[4, 64\]"),
    ("no map at all", TorchSpyreError,
     lambda: TorchSpyreLayout([4, 64]),
     r"needs stride_map \(or the older dim_map\) beside device_size=\[4, 64\]; got neither"),
    ("stride_map too short", SpyreError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[1]),
     r"stride_map must have one entry per device dim \(2, .*\); got \[1\]"),
    ("stride below -1", SpyreError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[-2, 1]),
     r"stride_map\[0\] must be -1 \(none\) or at least 0; got -2"),
    ("dim_map out of range", DimMapError,
     lambda: TorchSpyreLayout([4, 64], dim_map=[0, 5]).bind([4, 64]),
     r"dim_map\[1\] must be in range\(-1, 2\) .*; got 5 in dim_map=\[0, 5\]"),
    ("stride_map no torch dim's step", StrideMapError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[100, 1]).bind([4, 64]),
     r"stride_map\[0\] = 100 is not the next step of any torch dim"),
    ("zero stride where divided", StrideMapError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[0, 1]).bind([4, 64]),
     r"stride_map\[0\] = 0 is not the next step of any torch dim"),
    ("expanded host tensor", SpyreError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[64, 1]).bind([4, 64], [0, 1]),
     r"stride\[0\] = 0 on torch dim 0 of size 4: an expanded host tensor"),
    ("forms disagree", TorchSpyreError,
     lambda: TorchSpyreLayout([4, 4, 64], dim_map=[1, 0, 1], stride_map=[64, 256, 2]).bind(
         [4, 256]),
     r"stride_map\[2\] = 2 disagrees with dim_map=\[1, 0, 1\], which gives 1 there"),
    ("non-standard arrangement", TorchSpyreError,
     lambda: TorchSpyreLayout([4, 64], stride_map=[64, 1], element_arrangement="EXX2"),
     r"element_arrangement must be STANDARD: .*; got 'EXX2'"),
    ("repr garbled", TorchSpyreError,
     lambda: parse_repr("SpyreTensorLayout(device_size=[4, 64], stride_map: [64, 1])"),
     r"text: cannot read a 'name=value' field at"),
    ("repr unknown field", TorchSpyreError,
     lambda: parse_repr("SpyreTensorLayout(device_size=[4, 64], strides=[64, 1])"),
     r"text: field 'strides' is unknown or repeated"),
    ("dict unknown field", TorchSpyreError,
     lambda: TorchSpyreLayout.of({"device_size": [4, 64], "dims": [0, 1]}),
     r"a SpyreTensorLayout dict has the fields device_size, stride_map, dim_map"),
    ("no host size", SpyreError,
     lambda: as_layout(DOCS_REPR),
     r"as_layout: a SpyreTensorLayout holds no host size; give size="),
]


@pytest.mark.parametrize("label, error, call, message", BAD, ids=[c[0] for c in BAD])
def test_bad_input_is_one_clear_error(label, error, call, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert isinstance(info.value, la.LayoutError)
    assert "\n" not in str(info.value)


# -- framework objects, forms, round trips ---------------------------------------------------


def test_a_torch_spyre_object_and_a_spyre_tensor_are_read_by_their_fields():
    fmt = SimpleNamespace(name="SEN169_FP16")  # DataFormats enum member
    stl = SimpleNamespace(device_size=[100, 3, 5, 64], stride_map=[150, 64, 15000, 1],
                          device_dtype=fmt, dim_map=lambda size, stride: None,
                          element_arrangement=SimpleNamespace(name="STANDARD"))
    tensor = SimpleNamespace(shape=(5, 100, 150), stride=lambda: (15000, 150, 1),
                             device_tensor_layout=lambda: stl)
    assert as_layout(tensor) == default_layout([5, 100, 150])
    assert as_layout(stl, [5, 100, 150]) == default_layout([5, 100, 150])
    assert TorchSpyreLayout.of(stl) == TorchSpyreLayout.of(DOCS_REPR)


SIZES = st.lists(st.integers(1, 150), min_size=1, max_size=4)
DTYPES = st.sampled_from(["float16", "bfloat16", "float32", "int8"])


@st.composite
def layouts(draw):
    size = draw(SIZES)
    order = draw(st.permutations(range(len(size))))
    return default_layout(size, draw(DTYPES), list(order))


@settings(max_examples=60, deadline=None)
@given(layouts(), st.sampled_from(["stride_map", "dim_map", "both"]))
def test_round_trip_between_the_forms(layout, form):
    stl = to_torch_spyre(layout, form=form)
    assert TorchSpyreLayout.of(str(stl)) == stl
    assert TorchSpyreLayout.of({k: getattr(stl, k) for k in ("device_size", "stride_map",
                                                             "dim_map", "device_dtype")}) == stl
    bound = stl.bind(layout.size, layout.stride)
    # device dims of size 1 move nothing: the stride_map form does not say which torch dim
    # they belong to, so the round trip is judged by where every element goes
    assert bound.device_size == layout.device_size and bound.stride_map == layout.stride_map
    assert la.check_equivalent(bound.index_map(), layout.index_map()).proved
    assert [d for d, n in zip(bound.dim_map, bound.device_size) if n > 1] == [
        d for d, n in zip(layout.dim_map, layout.device_size) if n > 1]
    assert str(to_torch_spyre(bound, form=form)) == str(stl) or form != "stride_map"


@st.composite
def permuted_layouts(draw):
    """A valid bijection whose non-stick device dims come in any order: get_dim_map reads
    some as written and groups others under another torch dim."""
    size = draw(st.lists(st.integers(2, 70), min_size=2, max_size=3))
    base = default_layout(size, "float16")
    outer = draw(st.permutations(range(base.device_rank - 1)))
    sizes = [base.device_size[k] for k in outer] + [base.device_size[-1]]
    dims = [base.dim_map[k] for k in outer] + [base.dim_map[-1]]
    return SpyreLayout(size, "float16", sizes, dims)


def _copy_moves_exactly_by_enumeration(layout):
    """Run the copy's loop nests one iteration at a time (plain Python): iteration idx moves
    host offset dot(idx, stride_map) to device slot idx (spyre_mem.cpp: host strides are the
    stride_map, 1 where -1; device strides contiguous). True when every host element lands
    once on layout.host_to_device(element) and nothing else is moved."""
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    if plan.failure is not None:
        return False
    steps = [1 if s == -1 else s for s in layout.stride_map]
    place = {}
    for sizes, host_off, dev_off in plan.boxes:
        for idx in itertools.product(*(range(n) for n in sizes)):
            slot = list(np.unravel_index(dev_off, layout.device_size))
            slot = tuple(int(a + b) for a, b in zip(slot, idx))
            if slot in place:
                return False
            place[slot] = host_off + sum(i * s for i, s in zip(idx, steps))
    want = {layout.host_to_device(h): sum(a * b for a, b in zip(h, layout.stride))
            for h in itertools.product(*(range(n) for n in layout.size))}
    return place == want


@settings(max_examples=25, deadline=None)
@given(permuted_layouts())
def test_dma_reading_agrees_with_enumeration_and_with_the_rule(layout):
    verdict = check_dma_reading(layout)
    assert verdict.status is not la.Status.UNKNOWN
    assert verdict.proved == _copy_moves_exactly_by_enumeration(layout)
    try:
        check_dma_rule(layout)
        refused = False
    except TorchSpyreError:
        refused = True
    assert refused == (copy_plan(layout.size, layout.stride, layout.device_size,
                                 layout.stride_map).failure is not None)
    if refused:
        assert verdict.refuted


@settings(max_examples=40, deadline=None)
@given(layouts())
def test_default_layouts_copy_exactly(layout):
    check_dma_rule(layout)
    if layout.numel <= 1 << 20:  # beyond that the check says UNKNOWN (MAX_ITERATIONS)
        assert check_dma_reading(layout).proved


# -- no SIGFPE-class input gets through ---------------------------------------------------------


def _copy_divisors_are_safe(layout):
    """torch-spyre's copy (spyre_mem.cpp get_device_stride_infos), re-stated: for every device
    dim of size > 1 its DMA reading assigns to a host dim, the host stride and the quotient
    stride_map[k] // host stride are divisors; both must be nonzero."""
    stride_map = layout.stride_map
    read = dma_dim_map(layout.size, layout.stride, layout.device_size, stride_map)
    for k, d in enumerate(read):
        if d == -1 or layout.device_size[k] == 1 or stride_map[k] == -1:
            continue
        if layout.stride[d] == 0 or stride_map[k] // layout.stride[d] == 0:
            return False
    return all(n > 0 for n in layout.device_size)


@st.composite
def mutated_torch_spyre_layouts(draw):
    """A torch-spyre layout of a small tensor with one field knocked out of shape."""
    size = draw(st.lists(st.integers(1, 40), min_size=1, max_size=3))
    base = default_layout(size, "float16", list(draw(st.permutations(range(len(size))))))
    device_size, stride_map = list(base.device_size), list(base.stride_map)
    k = draw(st.integers(0, len(device_size) - 1))
    what = draw(st.sampled_from(["size", "stride", "swap", "none"]))
    if what == "size":
        device_size[k] = draw(st.integers(-1, 8))
    elif what == "stride":
        stride_map[k] = draw(st.sampled_from([-2, -1, 0, 1, 2, 64, 128]) | st.integers(0, 5000))
    elif what == "swap" and len(device_size) > 2:
        j = draw(st.integers(0, len(device_size) - 2))
        device_size[j], device_size[k] = device_size[k], device_size[j]
        stride_map[j], stride_map[k] = stride_map[k], stride_map[j]
    fmt = draw(st.sampled_from(["SEN169_FP16", "SEN169_FP16", "IEEE_FP32", "IEEE_FP64"]))
    return size, {"device_size": device_size, "stride_map": stride_map, "device_dtype": fmt}


@settings(max_examples=150, deadline=None)
@given(mutated_torch_spyre_layouts())
def test_what_the_bridge_accepts_torch_spyre_copies_safely(case):
    size, fields = case
    try:
        layout = from_torch_spyre(fields, size)
    except la.LayoutError as error:
        assert "\n" not in str(error)
        return
    assert _copy_divisors_are_safe(layout)
    # and the copy then moves every element once to its slot (the copy's host strides are
    # the stride_map itself, so a grouping that differs from dim_map only sizes the loops)
    assert _copy_moves_exactly_by_enumeration(layout)
    for host in itertools.product(*(range(n) for n in layout.size)):
        assert layout.device_to_host(layout.host_to_device(host)) == host


def test_docs_dma_loop_nest_for_1024_by_256():
    """TensorLayouts.md, DMA Encoding: a (1024, 256) fp16 tensor copies as
    ``for i in range(4): for j in range(1024): for k in range(64):
    device[i*65536 + j*64 + k] = host[j*256 + i*64 + k]`` — every element checked."""
    import numpy as np

    layout = from_torch_spyre("SpyreTensorLayout(device_size=[4, 1024, 64], "
                              "stride_map =[64, 256, 1], device_dtype=DataFormats.SEN169_FP16)",
                              [1024, 256])
    assert layout == default_layout([1024, 256])
    i, j, k = (a.ravel() for a in np.meshgrid(np.arange(4), np.arange(1024), np.arange(64),
                                              indexing="ij"))
    (device_bytes,) = layout.device_offset_map().apply(j, i * 64 + k)
    assert np.array_equal(np.asarray(device_bytes), 2 * (i * 65536 + j * 64 + k))
    (host,) = layout.host_offset_map().apply(j, i * 64 + k)
    assert np.array_equal(np.asarray(host), j * 256 + i * 64 + k)


def test_copy_comparison_names_what_a_wrong_loop_nest_would_do():
    """The three ways a runnable copy could go wrong, on (3, 70) fp16 (device [2, 3, 64],
    copy by hand: nest (1, 3, 64) at 0, then (1, 3, 6) at host 64 / device 192): drop the
    second nest and host element (0, 64) is never written; run the first twice and slot 0 is
    written twice; start the second at host 200 and it reads past the 210 elements."""
    layout = default_layout([3, 70])
    first, second = ((1, 3, 64), 0, 0), ((1, 3, 6), 64, 192)
    plan = copy_plan(layout.size, layout.stride, layout.device_size, layout.stride_map)
    assert plan.boxes == (first, second)
    missing = _compare(layout, CopyPlan(plan.dim_map, plan.divisors, (first,), None))
    assert missing[0] == {"h0": 0, "h1": 64} and "never writes it" in missing[1]
    twice = _compare(layout, CopyPlan(plan.dim_map, plan.divisors, (first, first), None))
    assert twice[0] == {"device_offset": 0}
    outside = _compare(layout, CopyPlan(plan.dim_map, plan.divisors,
                                        (first, ((1, 3, 6), 200, 192)), None))
    assert outside[0]["host_offset"] >= 210 and "outside" in outside[1]
    assert _compare(layout, plan) is None
