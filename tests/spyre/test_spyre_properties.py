"""Random Spyre layouts: round trips host → device → host, and Z3 against
enumeration for every check the family uses.

Layouts are drawn small (a few thousand device slots) so the enumeration
twins stay fast; broken layouts (built with ``SpyreLayout.unchecked``) lose
coverage, stretch the stick or drop a torch dim. A Z3 UNKNOWN fails.

Z3 and the twins read the same maps, so agreeing proves nothing about the
maps themselves: every differential test also states the truth from the
seed's own rule (document 001), walked here with plain ints by
``seed_slots``: device coordinate ``c`` holds the host element whose
coordinate along torch dim ``d`` sums ``c_k`` times the product of the later
device extents of ``d`` (strides growing right to left), padding where that
passes the torch size or the synthetic dim is not 0; sticks are 128 bytes.
"""

from __future__ import annotations

import ast
import itertools
import math
import re

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

from test_spyre_layout import reference_device_to_host

import layoutalg as la
from layoutalg.spyre import (
    SpyreLayout,
    StrideMapError,
    check_padding,
    check_stride_map,
    stride_map_to_dim_map,
)
from oracles import spyre as spyre_brute
from layoutalg.verify import brute
from layoutalg.verify.result import Status

# Generous: the slowest query here takes well under a second on a quiet machine; a
# timeout turns PROVED into UNKNOWN (a failure), so leave room for a loaded one.
TIMEOUT_MS = 60_000
DTYPES = {"float16": 64, "float32": 32, "int8": 128}
MAX_STICKS = 24  # prod(device_size[:-1]): at most 24·128 = 3072 device slots


@st.composite
def layouts(draw, *, allow_sparse=True):
    """A valid layout: random dim_map (tiles, size-1 dims left out or kept, an
    optional synthetic stick dim) and device sizes that cover each torch dim,
    sometimes with padding."""
    dtype = draw(st.sampled_from(sorted(DTYPES)))
    elems = DTYPES[dtype]
    rank = draw(st.integers(0, 3))
    sparse = allow_sparse and draw(st.integers(0, 3)) == 0
    stick = None if sparse or rank == 0 else draw(st.integers(0, rank - 1))
    size = [draw(st.integers(1, 3 * elems if d == stick else 5)) for d in range(rank)]
    present = [d for d in range(rank) if size[d] > 1 or draw(st.booleans())]
    if stick is not None and stick not in present:
        present.append(stick)
    repeats = draw(st.lists(st.sampled_from(present), max_size=2)) if present else []
    outer = draw(st.permutations(present + repeats))
    dims = list(outer) + [-1 if stick is None else stick]
    device = [0] * len(dims)
    device[-1] = elems
    for d in range(rank):
        places = [k for k, m in enumerate(dims) if m == d]
        if not places:
            continue
        inner = [k for k in places[1:] if k != len(dims) - 1]
        for k in inner:
            device[k] = draw(st.integers(1, 3))
        held = math.prod(device[k] for k in places[1:])
        device[places[0]] = -(-size[d] // held) + draw(st.sampled_from([0, 0, 1]))
    assume(math.prod(device[:-1]) <= MAX_STICKS)
    return SpyreLayout(size, dtype, device, dims)


@st.composite
def broken_layouts(draw):
    """A valid layout with one rule broken on purpose (built unchecked)."""
    layout = draw(layouts())
    device, dims = list(layout.device_size), list(layout.dim_map)
    fault = draw(st.sampled_from(["shrink", "stick", "drop", "none"]))
    if fault == "shrink":
        k = draw(st.integers(0, len(device) - 1))
        device[k] = max(1, device[k] - 1)
    elif fault == "stick":
        device[-1] = draw(st.sampled_from([device[-1] * 2, max(1, device[-1] // 2),
                                           device[-1] + 1]))
    elif fault == "drop" and layout.rank and len(set(dims)) > 1:
        victim = draw(st.sampled_from(sorted(set(dims) - {-1})))
        others = sorted(set(dims) - {victim, -1}) or [-1]
        dims = [draw(st.sampled_from(others)) if d == victim else d for d in dims]
    assume(math.prod(device[:-1]) <= MAX_STICKS and math.prod(device) <= 4096)
    return SpyreLayout.unchecked(layout.size, layout.dtype, device, dims)


def agree(z3_result, enumerated):
    assert z3_result.status is not Status.UNKNOWN, f"Z3 said UNKNOWN: {z3_result}"
    assert z3_result.status is enumerated.status, f"\n  z3:    {z3_result}\n  brute: {enumerated}"


# -- the truth, from the seed's rule with plain ints --------------------------------------------


def seed_slots(layout) -> dict:
    """{host element: [device slots holding it]} over the whole device grid."""
    held: dict = {}
    for slot in itertools.product(*(range(n) for n in layout.device_size)):
        host = reference_device_to_host(layout.size, layout.device_size, layout.dim_map, slot)
        if host is not None:
            held.setdefault(host, []).append(slot)
    return held


def hosts(layout):
    return itertools.product(*(range(n) for n in layout.size))


def seed_bijective(layout) -> bool:
    """Every host element sits in exactly one device slot (the others are padding)."""
    held = seed_slots(layout)
    return all(len(held.get(h, ())) == 1 for h in hosts(layout))


def seed_padding(layout) -> int:
    """Device slots that hold no host element."""
    return math.prod(layout.device_size) - sum(len(v) for v in seed_slots(layout).values())


def stick_byte(layout, slot) -> int:
    """Byte of a device slot: 128-byte sticks row-major, elements itemsize apart."""
    stick = 0
    for c, n in zip(slot[:-1], layout.device_size[:-1]):
        stick = stick * n + c
    return 128 * stick + (128 // DTYPES[layout.dtype]) * slot[-1]


def row_major_offset(layout, host) -> int:
    offset = 0
    for h, n in zip(host, layout.size):
        offset = offset * n + h
    return offset


def images(m, layout) -> dict:
    """The map evaluated at every host element."""
    xs, ys = brute.image_table(m)
    return {tuple(int(v) for v in x): tuple(int(v) for v in y) for x, y in zip(xs, ys)}


# -- round trips ---------------------------------------------------------------------------


@given(layouts(), st.data())
def test_host_to_device_to_host_is_the_identity(layout, data):
    host = tuple(data.draw(st.integers(0, n - 1)) for n in layout.size)
    device = layout.host_to_device(host)
    assert all(0 <= c < n for c, n in zip(device, layout.device_size))
    assert layout.device_to_host(device) == host


@given(layouts())
def test_every_valid_slot_round_trips_and_counts_the_host(layout):
    filled = 0
    for slot in itertools.product(*(range(n) for n in layout.device_size)):
        host = layout.device_to_host(slot)
        if host is not None:
            filled += 1
            assert layout.host_to_device(host) == slot
    assert filled == layout.numel
    assert layout.padding_slots == math.prod(layout.device_size) - filled


@given(layouts())
def test_vectorized_map_matches_the_coordinate_methods(layout):
    m = layout.index_map()
    xs, ys = brute.image_table(m)
    held = seed_slots(layout)
    for x, y in zip(xs, ys):
        host, slot = tuple(int(v) for v in x), tuple(int(v) for v in y)
        assert slot == layout.host_to_device(host)
        assert held[host] == [slot]  # the seed's rule puts this element there, and only there
    images = layout.device_offset_map().apply(*xs.T) if layout.rank else (
        layout.device_offset_map().apply())
    offsets = np.broadcast_to(images[0], (len(xs),))
    for y, byte in zip(ys, offsets):
        stick = int(np.ravel_multi_index(tuple(int(v) for v in y[:-1]),
                                         layout.device_size[:-1])) if len(y) > 1 else 0
        assert byte == 128 * stick + layout.itemsize * int(y[-1])


@given(layouts())
def test_stride_map_round_trips_to_an_equivalent_layout(layout):
    """Back from the stride_map comes the same layout — or an error that shows
    two different valid layouts with this very stride_map."""
    try:
        dims = stride_map_to_dim_map(layout.size, layout.device_size, layout.stride_map)
    except StrideMapError as exc:
        found = re.search(r"dim_maps (\[[-\d, ]*\]) and (\[[-\d, ]*\])", str(exc))
        assert found, str(exc)
        a, b = (SpyreLayout(layout.size, layout.dtype, layout.device_size, ast.literal_eval(g))
                for g in found.groups())
        assert a.stride_map == b.stride_map == layout.stride_map
        hosts = itertools.product(*(range(n) for n in layout.size))
        assert any(a.host_to_device(h) != b.host_to_device(h) for h in hosts)
        return
    rebuilt = SpyreLayout(layout.size, layout.dtype, layout.device_size, dims)
    for host in itertools.product(*(range(n) for n in layout.size)):
        assert rebuilt.host_to_device(host) == layout.host_to_device(host)
    assert rebuilt.stride_map == layout.stride_map


# -- Z3 against enumeration -------------------------------------------------------------------


def bijective_by_both(m: la.IndexMap):
    """Z3's verdict on ``m``'s bijectivity, after checking the enumeration twin agrees."""
    verdict = la.check_bijective(m, timeout_ms=TIMEOUT_MS)
    agree(verdict, brute.check_bijective(m))
    return verdict


@given(st.one_of(layouts(), broken_layouts()))
def test_index_map_bijectivity_agrees(layout):
    m = layout.index_map()
    verdict = bijective_by_both(m)
    truth = seed_bijective(layout)
    assert verdict.proved is truth, verdict
    if truth:  # and the bijection proved is the seed's: each element to its own slot
        held = seed_slots(layout)
        assert images(m, layout) == {h: held[h][0] for h in hosts(layout)}
    if verdict.refuted:
        assert verdict.counterexample  # names an element or a slot


@given(st.one_of(layouts(), broken_layouts()))
def test_device_bytes_agree(layout):
    m = layout.device_offset_map()
    verdict = bijective_by_both(m)
    held = seed_slots(layout)
    elements = DTYPES[layout.dtype]  # per 128-byte stick
    inside = all(slot[-1] < elements for slots in held.values() for slot in slots)
    truth = seed_bijective(layout) and inside
    assert verdict.proved is truth, verdict
    if truth:
        assert images(m, layout) == {h: (stick_byte(layout, held[h][0]),) for h in hosts(layout)}
    if verdict.refuted and "not injective" in verdict.reason:  # two elements on one byte
        ce = verdict.counterexample
        names = m.domain.names
        first, second = (tuple(ce[f"{n}{s}"] for n in names) for s in ("", "'"))
        assert first != second and m(*first) == m(*second)


@given(st.one_of(layouts(), broken_layouts()), st.sampled_from([0, 0, -1, 1, 64]))
def test_padding_claim_agrees(layout, error):
    expected = math.prod(layout.device_size) - layout.numel + error
    verdict = check_padding(layout, expected, timeout_ms=TIMEOUT_MS)
    agree(verdict, spyre_brute.check_padding(layout, expected))
    # the count is proved only of a bijection, and then it is the seed's count
    truth = seed_bijective(layout) and seed_padding(layout) == expected
    assert verdict.proved is truth, verdict


@given(layouts(), st.data())
def test_stride_map_claim_agrees(layout, data):
    strides = list(layout.stride_map)
    if data.draw(st.booleans()):
        k = data.draw(st.integers(0, len(strides) - 1))
        strides[k] = data.draw(st.sampled_from([-1, 0, strides[k] + 1, 2 * strides[k] + 3]))
    z3_verdict = check_stride_map(layout, strides, timeout_ms=TIMEOUT_MS)
    agree(z3_verdict, spyre_brute.check_stride_map(layout, strides))
    held = seed_slots(layout)
    truth = all(sum(c * s for c, s in zip(held[h][0], strides) if s != -1)
                == row_major_offset(layout, h) for h in hosts(layout))
    assert z3_verdict.proved is truth, z3_verdict
    if strides == list(layout.stride_map):
        assert truth  # the layout's own stride_map is right
    if z3_verdict.refuted:
        host = tuple(z3_verdict.counterexample[f"h{k}"] for k in range(layout.rank))
        device = layout.host_to_device(host)
        via = sum(c * s for c, s in zip(device, strides) if s != -1)
        assert via != layout.torch_layout.offset(host)


@given(layouts())
def test_padding_of_the_index_map_agrees(layout):
    m = layout.index_map()
    assert la.padding(m).count == brute.padding(m).count == layout.padding_slots
    assert layout.padding_slots == seed_padding(layout)
