"""Hypothesis round trips: random TT tensors, element → (bank or core, byte
address) → element, and every placement equal to the reference model's."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st
from test_tt_reference import reference

from layoutalg import tt
from layoutalg.core.evaluate import evaluate, evaluate_all
from layoutalg.verify import brute

MAX_ELEMENTS = 700
GRID = 6


@st.composite
def devices(draw):
    return tt.Device("hyp", dram_banks=draw(st.integers(1, 7)), l1_bytes=1 << 20,
                     worker_grid=(GRID, GRID), dram_alignment=draw(st.sampled_from([16, 32, 64])),
                     l1_alignment=draw(st.sampled_from([16, 32])))


@st.composite
def shapes(draw, tile):
    rank = draw(st.integers(1, 3))
    th, tw = tile
    dims = [draw(st.integers(1, 2 * tw + 5))]
    if rank >= 2:
        dims.insert(0, draw(st.integers(1, 2 * th + 5)))
    if rank == 3:
        dims.insert(0, draw(st.integers(1, 3)))
    assume(math.prod(dims) <= MAX_ELEMENTS)
    return tuple(dims)


def grid_for(draw, down, across, strategy, orientation):
    """A grid with room for the shards (None when none fits in GRID × GRID)."""
    if strategy in ("HEIGHT", "WIDTH"):
        count = down * across
        gx = draw(st.integers(1, GRID))
        gy = max(1, -(-count // gx)) + draw(st.integers(0, 1))
        return (gx, gy) if gy <= GRID else None
    need_x, need_y = (across, down) if orientation == "ROW_MAJOR" else (down, across)
    gx, gy = need_x + draw(st.integers(0, 1)), need_y + draw(st.integers(0, 1))
    return (gx, gy) if gx <= GRID and gy <= GRID else None


@st.composite
def legacy_memory(draw, probe: tt.TensorSpec, tile):
    height, width = probe.physical_2d
    th, tw = tile if probe.layout == "TILE" else (1, 1)
    strategy = draw(st.sampled_from(["HEIGHT", "WIDTH", "BLOCK"]))
    orientation = draw(st.sampled_from(["ROW_MAJOR", "COL_MAJOR"]))
    sh = height if strategy == "WIDTH" else th * draw(st.integers(1, max(1, height // th)))
    sw = width if strategy == "HEIGHT" else tw * draw(st.integers(1, max(1, width // tw)))
    grid = grid_for(draw, -(-height // sh), -(-width // sw), strategy, orientation)
    assume(grid is not None)
    return tt.ShardSpec(strategy, grid, (sh, sw), orientation)


@st.composite
def nd_memory(draw, shape, layout, tile):
    th, tw = tile if layout == "TILE" else (1, 1)
    shard = [draw(st.integers(1, n)) for n in shape]
    shard[-1] = tw * -(-shard[-1] // tw)
    if len(shape) >= 2:
        shard[-2] = th * -(-shard[-2] // th)
    grid = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    return tt.NdShardSpec(tuple(shard), grid, draw(st.sampled_from(["ROW_MAJOR", "COL_MAJOR"])))


@st.composite
def tensor_specs(draw):
    """A valid random TensorSpec small enough to enumerate."""
    device = draw(devices())
    layout = draw(st.sampled_from(["TILE", "ROW_MAJOR"]))
    tile = draw(st.sampled_from(sorted(tt.FACE_SHAPES))) if layout == "TILE" else (32, 32)
    dense = ["bfloat16", "float32", "uint16", "uint8", "int32"]
    dtype = draw(st.sampled_from(dense + ["bfloat8_b"] if layout == "TILE" else dense))
    shape = draw(shapes(tile if layout == "TILE" else (1, 8)))
    storage = draw(st.sampled_from(["DRAM", "L1"]))
    kind = draw(st.sampled_from(["INTERLEAVED", "legacy", "nd"]))
    probe = tt.TensorSpec(shape, dtype, layout=layout, tile=tile, device=device)
    if kind == "INTERLEAVED":
        memory = "INTERLEAVED"
    elif kind == "legacy":
        memory = draw(legacy_memory(probe, tile))
    else:
        memory = draw(nd_memory(shape, layout, tile))
    if memory != "INTERLEAVED":
        gx, gy = memory.grid
        if storage == "DRAM" and (gy > 1 or gx > device.dram_banks):
            storage = "L1"
    align = device.dram_alignment if storage == "DRAM" else device.l1_alignment
    base = align * draw(st.integers(0, 2))
    return tt.TensorSpec(shape, dtype, layout=layout, tile=tile, memory=memory,
                         storage=storage, device=device, base_address=base)


def options(spec: tt.TensorSpec) -> dict:
    return {"layout": spec.layout, "tile": spec.tile.shape, "memory": spec.memory,
            "storage": spec.storage, "device": spec.device, "base": spec.base_address}


@given(tensor_specs())
def test_every_element_lands_where_the_reference_puts_it(spec):
    expected, pages = reference(spec.shape, spec.dtype.name, **options(spec))
    assert spec.num_pages == pages
    m = spec.index_map()
    points = np.indices(spec.shape).reshape(spec.rank, -1)
    image = [np.broadcast_to(v, points.shape[1:]) for v in m.apply(*points)]
    for k, point in enumerate(zip(*points.tolist())):
        location, address = expected[point]
        got = (int(image[0][k]) if len(image) == 2 else (int(image[0][k]), int(image[1][k])))
        assert (got, int(image[-1][k])) == (location, address), point


@given(tensor_specs())
def test_round_trip_element_to_slot_to_element(spec):
    m = spec.index_map()
    points = np.indices(spec.shape).reshape(spec.rank, -1)
    image = [np.broadcast_to(v, points.shape[1:]) for v in m.apply(*points)]
    env = dict(zip(m.codomain.symbols, image))
    back = [np.broadcast_to(v, points.shape[1:]) for v in evaluate_all(m.inverse, env)]
    assert np.array_equal(np.stack(back), points)
    assert np.all(evaluate(m.valid, env))


@given(tensor_specs())
def test_valid_slots_are_exactly_the_elements(spec):
    """Enumerating the whole codomain: the map is a bijection onto its valid
    slots, so padding and alignment gaps are never claimed as data."""
    m = spec.index_map()
    assume(math.prod(m.codomain.extents) <= 1 << 20)
    assert brute.check_bijective(m).proved
    assert brute.check_bijective(spec.page_map()).proved


@given(tensor_specs())
def test_page_location_is_the_first_byte_of_each_page(spec):
    table = spec.pages_by_core() if spec.is_sharded else spec.pages_by_bank()
    seen = sorted(p for slots in table.values() for p in slots if p is not None)
    assert seen == list(range(spec.num_pages))
    for location, slots in table.items():
        assert len(slots) == spec.slots_per_location
        for slot, page in enumerate(slots):
            if page is not None:
                where, address = spec.page_location(page)
                assert where == location
                assert address == spec.base_address + slot * spec.aligned_page_bytes
                assert address % spec.alignment == 0
