"""Spyre layouts against figures derived by hand or from the seed's formula.

Every expected value here comes from the seed document (001), a hand
computation written next to it, or a plain reference loop — never from the
implementation's own output.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import layoutalg as la
from layoutalg.spyre import (
    SpyreLayout,
    TorchLayout,
    check_padding,
    check_stride_map,
    default_layout,
    elems_per_stick,
)

SEED = SpyreLayout([128, 256, 512], "float16", [256, 8, 128, 64], [1, 2, 0, 2])
PADDED = SpyreLayout([100, 200, 500], "float16", [256, 8, 128, 64], [1, 2, 0, 2])


# -- sticks ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, elems", [
    ("float16", 64), ("bfloat16", 64), ("float32", 32), ("int8", 128),
    ("fp16", 64), ("bf16", 64), ("fp32", 32), ("torch.float16", 64), (np.dtype("float32"), 32),
    ("uint8", 128), ("int32", 32), ("int64", 16), ("bool", 128), ("float8_e4m3fn", 128),
])
def test_elements_per_stick_fill_128_bytes(dtype, elems):
    assert elems_per_stick(dtype) == elems


# -- the seed's example -----------------------------------------------------------------


def test_seed_formula_on_a_sample_of_the_device_grid():
    """(a, b, c, d) ↦ (c, a, 64·b + d) — the seed's words — on 20,000 device slots."""
    rng = np.random.default_rng(1)
    a, b, c, d = (rng.integers(0, n, 20_000) for n in (256, 8, 128, 64))
    images = SEED.device_to_host_map().apply(a, b, c, d)
    assert np.array_equal(images[0], c)
    assert np.array_equal(images[1], a)
    assert np.array_equal(images[2], 64 * b + d)


@pytest.mark.parametrize("device", [(0, 0, 0, 0), (3, 2, 5, 7), (255, 7, 127, 63), (17, 4, 99, 40)])
def test_seed_coordinates_both_ways(device):
    a, b, c, d = device
    host = (c, a, 64 * b + d)
    assert SEED.device_to_host(device) == host
    assert SEED.host_to_device(host) == device


def test_seed_layout_sizes():
    assert SEED.device_bytes == 128 * 256 * 8 * 128 == 128 * 256 * 512 * 2
    assert SEED.padding_slots == 0
    assert SEED.stride_map == (512, 64, 131072, 1)  # dim 1 stride 512, tiles of 64, dim 0 128·512
    assert SEED == default_layout([128, 256, 512])


def test_seed_formula_proved_and_old_formula_refuted():
    dom = la.Space(a=256, b=8, c=128, d=64)
    a, b, c, d = dom.symbols
    cod = la.Space(h0=128, h1=256, h2=512 * 64)
    right = la.IndexMap(dom, cod, [c, a, 64 * b + d])
    wrong = la.IndexMap(dom, cod, [c, a, b * d])
    assert la.check_equivalent(SEED.device_to_host_map(), right).proved
    verdict = la.check_equivalent(SEED.device_to_host_map(), wrong)
    assert verdict.refuted
    ce = verdict.counterexample
    assert 64 * ce["dev1"] + ce["dev3"] != ce["dev1"] * ce["dev3"]


# -- the padded use -------------------------------------------------------------------


@pytest.mark.parametrize("device, host", [
    ((0, 7, 0, 51), (0, 0, 499)),   # 7·64 + 51 = 499: the last column
    ((0, 7, 0, 52), None),          # 500: past the torch size
    ((199, 0, 99, 0), (99, 199, 0)),
    ((200, 0, 0, 0), None),         # dim 1 padded 200 → 256
    ((0, 0, 100, 0), None),         # dim 0 padded 100 → 128
    ((255, 7, 127, 63), None),
])
def test_padded_slots(device, host):
    assert PADDED.device_to_host(device) == host


def test_padded_count_by_hand():
    # valid slots: 200 values of a, 500 of (b, d) with 64·b + d < 500, 100 of c
    total = 256 * 8 * 128 * 64
    assert total == 16_777_216
    assert PADDED.padding_slots == total - 200 * 500 * 100 == 6_777_216
    verdict = check_padding(PADDED, 6_777_216)
    assert verdict.proved, verdict
    assert check_padding(PADDED, 6_777_215).refuted


# -- a table of known layouts ------------------------------------------------------------

# (size, dtype, device_size, dim_map, device_bytes, stride_map), all by hand
KNOWN = [
    ([512, 256], "float16", [4, 512, 64], [1, 0, 1], 128 * 4 * 512, (64, 256, 1)),
    ([100], "float32", [4, 32], [0, 0], 128 * 4, (32, 1)),
    ([], "int8", [128], [-1], 128, (-1,)),
    ([100, 200], "float16", [200, 100, 64], [1, 0, -1], 128 * 200 * 100, (1, 200, -1)),
    ([512, 10], "float16", [1, 512, 64], [1, 0, 1], 128 * 512, (10, 10, 1)),  # cap 10·1
    ([512, 1, 256], "float16", [1, 4, 512, 64], [1, 2, 0, 2], 128 * 4 * 512, (-1, 64, 256, 1)),
    ([6, 300], "bfloat16", [3, 2, 6, 64], [1, 1, 0, 1], 128 * 3 * 2 * 6, (128, 64, 300, 1)),
]


@pytest.mark.parametrize("size, dtype, device, dims, nbytes, strides", KNOWN)
def test_known_layouts(size, dtype, device, dims, nbytes, strides):
    layout = SpyreLayout(size, dtype, device, dims)
    assert layout.device_bytes == nbytes
    assert layout.stride_map == strides
    assert la.check_bijective(layout.index_map()).proved
    assert check_stride_map(layout).proved


# small enough to walk every device slot in Python: (size, dtype, device_size, dim_map, stride_map)
SMALL = [
    ([32, 96], "float16", [2, 32, 64], [1, 0, 1], (64, 96, 1)),
    ([100], "float32", [4, 32], [0, 0], (32, 1)),
    ([], "int8", [128], [-1], (-1,)),
    ([5, 7], "float16", [7, 5, 64], [1, 0, -1], (1, 7, -1)),
    ([12, 10], "float16", [1, 12, 64], [1, 0, 1], (10, 10, 1)),
    ([12, 1, 70], "float16", [1, 2, 12, 64], [1, 2, 0, 2], (-1, 64, 70, 1)),
    ([6, 300], "bfloat16", [3, 2, 6, 64], [1, 1, 0, 1], (128, 64, 300, 1)),
    # dim 1 in three tiles (steps 64, 32, 1): 64 overshoots the size 40, capped at 40·1
    ([3, 40], "float32", [2, 3, 2, 32], [1, 0, 1, 1], (40, 40, 32, 1)),
]


@pytest.mark.parametrize("size, dtype, device, dims, strides", SMALL)
def test_small_layouts_against_a_reference_loop(size, dtype, device, dims, strides):
    layout = SpyreLayout(size, dtype, device, dims)
    assert layout.stride_map == strides
    filled = 0
    for slot in itertools.product(*(range(n) for n in device)):
        host = reference_device_to_host(size, device, dims, slot)
        assert layout.device_to_host(slot) == host
        if host is not None:
            filled += 1
            assert layout.host_to_device(host) == slot
            offset = sum(c * s for c, s in zip(slot, strides) if s != -1)
            assert offset == TorchLayout(size).offset(host)
    assert filled == layout.numel
    assert layout.padding_slots == int(np.prod(device)) - filled


def reference_device_to_host(size, device, dims, slot):
    """The seed's rule read literally: walk the device dims right to left;
    each torch dim accumulates its coordinates with a growing stride."""
    host = [0] * len(size)
    step = [1] * len(size)
    for k in reversed(range(len(device))):
        d = dims[k]
        if d == -1:
            if slot[k] != 0:
                return None
            continue
        host[d] += slot[k] * step[d]
        step[d] *= device[k]
    if any(h >= n for h, n in zip(host, size)):
        return None
    return tuple(host)


def test_noncontiguous_strides_give_their_stride_map():
    """A transposed [512, 256] view (stride (1, 512)): device (a, b, c) holds
    host (b, 64a + c) at offset b + 512·(64a + c) = 32768a + b + 512c."""
    layout = SpyreLayout([512, 256], "float16", [4, 512, 64], [1, 0, 1], stride=[1, 512])
    assert layout.stride_map == (32768, 1, 512)
    assert check_stride_map(layout).proved
    assert layout.host_offset((1, 3, 5)) == 32768 + 3 + 512 * 5
    assert "stride=[1, 512]" in repr(layout)


def test_device_offset_map_is_byte_exact():
    m = SEED.device_offset_map()
    # host (c, a, 64b + d) sits in stick a·8·128 + b·128 + c at byte 2·d
    assert m(5, 3, 135) == (128 * (3 * 8 * 128 + 2 * 128 + 5) + 2 * 7,)
    assert m.codomain.extents == (SEED.device_bytes,)


def test_repr_and_str():
    layout = default_layout([512, 256])
    assert repr(layout) == "SpyreLayout([512, 256], 'float16', [4, 512, 64], [1, 0, 1])"
    assert eval(repr(layout), {"SpyreLayout": SpyreLayout}) == layout
    assert str(layout) == "spyre[512, 256] float16 → [4, 512, 64] by [1, 0, 1]"
    assert hash(layout) == hash(default_layout((512, 256), "fp16"))


# -- PyTorch layouts ---------------------------------------------------------------------


@pytest.mark.parametrize("size, stride, canonical", [
    ([512, 1, 256], [256, 256, 1], ((512, 256), (256, 1))),     # the seed's example
    ([1, 1], None, ((), ())),
    ([], None, ((), ())),
    ([3, 1, 4, 1], [40, 7, 10, 99], ((3, 4), (40, 10))),
    ([8], [2], ((8,), (2,))),
])
def test_canonical_form_drops_size_one_dims(size, stride, canonical):
    t = TorchLayout(size, stride).canonical()
    assert (t.size, t.stride) == canonical
    assert t.is_canonical


@pytest.mark.parametrize("size, stride, contiguous", [
    ([4, 5], None, True), ([4, 5], [1, 4], False), ([4, 1, 5], [5, 1, 1], True),
    ([4, 5], [10, 1], False),
])
def test_contiguity_is_judged_on_the_canonical_form(size, stride, contiguous):
    assert TorchLayout(size, stride).is_contiguous is contiguous


def test_torch_offsets_are_dot_products():
    t = TorchLayout([3, 4], [1, 3])  # column-major
    m = t.index_map(element_bytes=2)
    for i, j in itertools.product(range(3), range(4)):
        assert t.offset((i, j)) == i + 3 * j
        assert m(i, j) == (2 * (i + 3 * j),)
    assert la.check_bijective(t.index_map()).proved
    assert la.check_injective(TorchLayout([3, 4], [1, 2]).index_map()).refuted


@pytest.mark.parametrize("layout", [
    SpyreLayout([512, 256], "float16", [4, 512, 64], [1, 0, 1], stride=[1, 512]),
    SpyreLayout([6, 300], "float32", [4, 3, 6, 32], [1, 1, 0, 1]),  # 4·3·32 = 384 ≥ 300
    default_layout([100, 200], "int8", dim_order=[0, 1, -1]),
])
def test_host_byte_offsets_through_the_stride_map(layout):
    """Host coordinate → host byte offset two ways: through the device
    coordinate and stride_map, and straight through the PyTorch strides."""
    via = layout.host_offset_map(in_bytes=True)
    direct = layout.torch_layout.index_map(element_bytes=layout.itemsize)
    assert la.check_equivalent(via, direct).proved
