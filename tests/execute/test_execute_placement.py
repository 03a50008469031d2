"""place / fetch: round trips over every family, padding fill, capacity, plans.

Expected cells come from a plain reference written here: evaluate the map
one element at a time with Python ints and compute the cell by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy
from hypothesis import assume, given
from hypothesis import strategies as st
from mesh_strategies import mesh_layouts
from strategies import layouts

import layoutalg as la
from layoutalg.errors import PlacementError
from layoutalg.execute import CapacityError, Machine, MachineError, fetch, place
from layoutalg.execute.plan import progressions
from layoutalg.verify import brute

# -- a reference placement, one element at a time ------------------------------------------


def reference_cells(m: la.IndexMap, memory_dims: int, itemsize: int, in_bytes: bool,
                    row_cells: int) -> dict[int, tuple[int, ...]]:
    """Flat cell → the domain points written there, by a plain loop over elements."""
    extents = [int(e) for e in m.codomain.extents]
    written: dict[int, list] = {}
    for point in np.ndindex(*[int(e) for e in m.domain.extents]):
        image = m(*point)
        memory = 0
        for value, extent in zip(image[:memory_dims], extents[:memory_dims]):
            memory = memory * extent + value
        offset = 0
        for value, extent in zip(image[memory_dims:], extents[memory_dims:]):
            offset = offset * extent + value
        cell = memory * row_cells + (offset // itemsize if in_bytes else offset)
        written.setdefault(cell, []).append(point)
    return written


def machine_for(m: la.IndexMap, memory_dims: int, itemsize: int = 4, *, slack: int = 0,
                in_bytes: bool = False) -> Machine:
    """A machine whose memories hold the layout's whole codomain span."""
    probe = Machine.for_layout(m, capacity=1 << 40, memory_dims=memory_dims)
    need = int(la.execute.required_bytes(m, probe, itemsize, in_bytes).max(initial=0))
    span = math.prod(int(e) for e in m.codomain.extents[memory_dims:])
    span_bytes = span if in_bytes else span * itemsize
    return Machine.for_layout(m, capacity=max(need, span_bytes, itemsize) + slack,
                              memory_dims=memory_dims)


# -- core combinators -----------------------------------------------------------------------


@given(st.one_of(layouts(bijective=True), layouts()), st.integers(0, 2),
       st.sampled_from(["int32", "float64", "int8"]))
def test_every_cell_is_the_reference_and_a_bijection_round_trips_with_padding_filled(
        m, memory_dims, dtype):
    """Each cell ends holding one of the elements the reference loop sends there;
    when no two elements share a cell, fetch is the identity and exactly the
    unreached slots hold the fill."""
    memory_dims = min(memory_dims, m.codomain.rank - 1)
    xs, ys = brute.image_table(m)
    assume(all(((ys[:, k] >= 0) & (ys[:, k] < int(e))).all()
               for k, e in enumerate(m.codomain.extents)))
    dtype = np.dtype(dtype)
    machine = machine_for(m, memory_dims, dtype.itemsize)
    data = (np.arange(m.domain.size) % 100 + 1).astype(dtype).reshape(m.domain.extents)
    place(data, m, machine, fill=-7)
    cells = machine.storage.reshape(-1).view(dtype)
    row = machine.storage.shape[1] // dtype.itemsize
    written = reference_cells(m, memory_dims, dtype.itemsize, False, row)
    for cell, points in written.items():
        assert cells[cell] in {data[p] for p in points}
    if all(len(points) == 1 for points in written.values()):
        assert np.array_equal(fetch(m, machine, dtype), data)
        span = math.prod(int(e) for e in m.codomain.extents[memory_dims:])
        in_span = cells.reshape(machine.memories, -1)[:, :span]
        assert np.count_nonzero(in_span == -7) == machine.memories * span - m.domain.size


# -- the families --------------------------------------------------------------------------


@st.composite
def spyre_layouts(draw):
    rank = draw(st.integers(1, 3))
    size = [draw(st.integers(1, 70)) for _ in range(rank)]
    assume(math.prod(size) <= 4000)
    dtype = draw(st.sampled_from(["float16", "float32", "int8"]))
    order = list(draw(st.permutations(range(rank)))) if draw(st.booleans()) else None
    return la.spyre.default_layout(size, dtype, order)


@given(spyre_layouts())
def test_round_trip_of_spyre_default_layouts(layout):
    m = layout.index_map()
    machine = Machine.for_layout(m, capacity=layout.device_bytes, memory_dims=0, name="device")
    dtype = np.dtype(f"int{8 * layout.itemsize}")
    data = (np.arange(m.domain.size) % 100 + 1).astype(dtype).reshape(m.domain.extents)
    placed = place(data, m, machine, fill=0)
    assert np.array_equal(fetch(m, machine, dtype), data)
    # the device bytes are exactly the layout's sticks: padding = device elements - data
    assert placed.slots_holding(0) == layout.device_bytes // layout.itemsize - m.domain.size


def tt_specs():
    """Random valid TT tensors (the family's own strategy), whole-byte dtypes."""
    from test_tt_roundtrip import tensor_specs

    return tensor_specs().filter(lambda s: s.dtype.element_bytes is not None)


@given(st.deferred(tt_specs), st.integers(0, 2**16))
def test_round_trip_of_tt_tensor_specs(spec, seed):
    m = spec.index_map()
    machine = Machine.for_layout(m, capacity=spec.capacity, name="core")
    size = spec.dtype.element_bytes
    dtype = np.dtype(f"uint{8 * size}")
    rng = np.random.default_rng(seed)
    data = rng.integers(1, 200, size=m.domain.extents).astype(dtype)
    place(data, m, machine, fill=0, offsets_in_bytes=True)
    assert np.array_equal(fetch(m, machine, dtype, offsets_in_bytes=True), data)


@given(mesh_layouts(4, 3, 5), st.tuples(st.integers(1, 13), st.integers(1, 13)))
def test_round_trip_of_mesh_layouts(layout, shape):
    m = layout.index_map(shape, element_size=4)
    machine = machine_for(m, 2, 4, in_bytes=True)
    data = np.arange(1, math.prod(shape) + 1, dtype=np.float32).reshape(shape)
    place(data, m, machine, fill=np.nan, offsets_in_bytes=True)
    assert np.array_equal(fetch(m, machine, np.float32, offsets_in_bytes=True), data)


# -- examples worked by hand --------------------------------------------------------------


def grid_6x4_on_2x2():
    """[6, 4] on 2×2 PEs: 3×2 tiles, row-major inside (offset 2·(i%3) + j%2)."""
    dom = la.Space(i=6, j=4)
    i, j = dom.symbols
    return la.IndexMap(dom, la.Space(pe_row=2, pe_col=2, offset=6),
                       [i // 3, j // 2, 2 * (i % 3) + j % 2], name="grid")


def test_a_grid_tile_lands_row_major_in_its_pe():
    m = grid_6x4_on_2x2()
    machine = Machine.wse(2, 2, sram_bytes=24)
    data = np.arange(24, dtype=np.int32).reshape(6, 4)
    placed = place(data, m, machine)
    pe = machine.storage.view(np.int32).reshape(2, 2, 6)
    assert pe[0, 1].tolist() == [2, 3, 6, 7, 10, 11]    # rows 0-2, cols 2-3
    assert pe[1, 0].tolist() == [12, 13, 16, 17, 20, 21]
    assert placed.method == "strided"
    assert placed.bytes_per_memory().tolist() == [24, 24, 24, 24]


def test_padding_of_an_uneven_grid_holds_the_fill():
    dom = la.Space(i=5)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(pe=2, offset=3), [i // 3, i % 3], name="uneven")
    machine = Machine.banks(2, 12, name="PE")
    place(np.arange(5, dtype=np.int32), m, machine, fill=-9)
    assert machine.storage.view(np.int32).tolist() == [[0, 1, 2], [3, 4, -9]]
    place(np.arange(10, 15, dtype=np.int32), m, machine, fill=None)   # None keeps the old fill
    assert machine.storage.view(np.int32).tolist() == [[10, 11, 12], [13, 14, -9]]


def test_capacity_overflow_names_the_memory_and_the_bytes():
    m = grid_6x4_on_2x2()               # every PE needs 6 fp32 = 24 bytes
    with pytest.raises(CapacityError, match=r"^PE \(0, 0\) exceeds memory: 24 > 20 bytes$"):
        place(np.zeros((6, 4), np.float32), m, Machine.wse(2, 2, sram_bytes=20))


def test_the_fullest_memory_is_named():
    dom = la.Space(i=7)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(bank=2, offset=4), [i // 4, i % 4], name="deal")
    # bank 0 holds offsets 0-3 (16 B); bank 1 offsets 0-2 (12 B)
    with pytest.raises(CapacityError, match=r"bank 0 exceeds memory: 16 > 12 bytes"):
        place(np.zeros(7, np.float32), m, Machine.banks(2, 12))


def test_nothing_is_written_when_the_capacity_check_fails():
    m = grid_6x4_on_2x2()
    machine = Machine.wse(2, 2, sram_bytes=20)
    with pytest.raises(CapacityError):
        place(np.ones((6, 4), np.float32), m, machine)
    assert not machine.storage.any()


@pytest.mark.parametrize("expr, kind", [
    (lambda i, j: [i // 2, 3 * (i % 2) + j], "strided"),
    (lambda i, j: [i // 2, (i % 2) * 3 + (j * j) % 3], "broadcast"),
    (lambda i, j: [(i + j) % 2, 3 * (i // 2) + j], "general"),
])
def test_each_plan_places_exactly_what_the_reference_does(expr, kind):
    dom = la.Space(i=4, j=3)
    i, j = dom.symbols
    m = la.IndexMap(dom, la.Space(bank=2, offset=9), expr(i, j), name=kind)
    machine = Machine.banks(2, 36)
    data = np.arange(1, 13, dtype=np.int32).reshape(4, 3)
    placed = place(data, m, machine, fill=0)
    if kind == "broadcast":   # a progression-free table: force the broadcast plan
        assert placed.method in ("broadcast", "strided")
    else:
        assert placed.method == kind
    cells = machine.storage.reshape(-1).view(np.int32)
    for cell, points in reference_cells(m, 1, 4, False, machine.storage.shape[1] // 4).items():
        assert cells[cell] in {int(data[p]) for p in points}


def test_an_irregular_table_takes_the_broadcast_plan():
    dom = la.Space(i=200)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(offset=40000), [i * i], name="squares")
    machine = Machine.single(160000)
    data = np.arange(200, dtype=np.int32)
    assert place(data, m, machine).method == "broadcast"
    assert machine.storage.view(np.int32)[0, [0, 1, 4, 9, 39601]].tolist() == [0, 1, 2, 3, 199]
    assert np.array_equal(fetch(m, machine, np.int32), data)


def test_progressions_cover_a_tile_table_with_full_and_edge_tiles():
    # 10 rows in tiles of 4 on PEs 100 cells apart: 0..3 | 100..103 | 200..201
    table = np.array([0, 1, 2, 3, 100, 101, 102, 103, 200, 201])
    found = [(s.start, s.length, s.base, s.dims) for s in progressions(table)]
    assert found == [(0, 8, 0, ((2, 100), (4, 1))), (8, 2, 200, ((2, 1),))]


def test_byte_offsets_place_each_element_at_its_byte():
    dom = la.Space(i=4)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(addr=32), [8 * i], name="every other word")
    machine = Machine.single(32)
    place(np.array([1, 2, 3, 4], np.int32), m, machine, fill=0, offsets_in_bytes=True)
    assert machine.storage.view(np.int32)[0].tolist() == [1, 0, 2, 0, 3, 0, 4, 0]


def test_a_rank_zero_tensor_is_one_element():
    m = la.spyre.default_layout([], "float16").index_map()
    machine = Machine.for_layout(m, capacity=128, memory_dims=0)
    place(np.array(2.5, np.float16), m, machine)
    assert fetch(m, machine, np.float16) == np.float16(2.5)


def test_bytes_per_memory_and_high_water_match_a_count_by_enumeration():
    dom = la.Space(i=7, j=5)
    i, j = dom.symbols
    m = la.IndexMap(dom, la.Space(pe=3, offset=15), [(i // 2) % 3, (i // 6) * 5 + j],
                    name="cyclic rows")
    machine = machine_for(m, 1, 2)
    placed = place(np.zeros((7, 5), np.int16), m, machine)
    xs, ys = brute.image_table(m)
    assert placed.bytes_per_memory().tolist() == (np.bincount(ys[:, 0], minlength=3) * 2).tolist()
    ends = [2 * (ys[ys[:, 0] == pe, 1].max() + 1) for pe in range(3)]
    assert placed.high_water().tolist() == ends


# -- bad input ----------------------------------------------------------------------------

SYM_M = la.extents("M")[0]


def _symbolic():
    return la.linearize(la.Space(i=SYM_M, j=4))


BAD_PLACE = [
    (lambda: place(np.zeros(3), "map", Machine.single(64)), MachineError,
     r"layout must be an IndexMap; got 'map'"),
    (lambda: place(np.zeros(6), la.split(la.Space(i=6), "i", 3), "machine"), MachineError,
     r"machine must be a Machine; got 'machine'"),
    (lambda: place(np.zeros(4), _symbolic(), Machine.single(64)), MachineError,
     r"has symbolic extents; bind them first"),
    (lambda: place(np.zeros(5), la.split(la.Space(i=6), "i", 3), Machine.banks(2, 64)),
     MachineError, r"array shape \(5,\) must equal the layout's domain extents \(6,\)"),
    (lambda: place(np.zeros(6), la.split(la.Space(i=6), "i", 3), Machine.banks(3, 64)),
     MachineError, r"the machine has memories \{'bank': 3\}"),
    (lambda: place(np.zeros(6), la.linearize(la.Space(i=6)), Machine.banks(6, 64)), MachineError,
     r"needs at least one more dim to address inside a memory"),
    (lambda: place(np.zeros(4), la.strided(4, 3, cosize=8), Machine.single(64)), PlacementError,
     r"places element \(i=3\) at offset=9, outside the codomain's offset range \[0, 8\)"),
    (lambda: place(np.zeros(6, np.int8), la.split(la.Space(i=6), "i", 3), Machine.banks(2, 64),
                   fill="x"), MachineError, r"fill must be a value of the array's dtype int8"),
    (lambda: place(np.array([None] * 6), la.split(la.Space(i=6), "i", 3), Machine.banks(2, 64)),
     MachineError, r"array must hold fixed-size values \(numbers\); got dtype object"),
    (lambda: fetch(la.split(la.Space(i=6), "i", 3), Machine.banks(2, 64), "no-such-type"),
     MachineError, r"dtype must be a NumPy dtype; got 'no-such-type'"),
    # 10-byte banks hold 2.5 int32 elements: refused with the rule, whatever the fill (a fill
    # of 0 used to be blamed, and fetch raised NumPy's ValueError)
    (lambda: place(np.zeros(4, np.int32), la.split(la.Space(i=4), "i", 2), Machine.banks(2, 10)),
     MachineError, r"each bank's 10 bytes must be a whole number of 4-byte elements"),
    (lambda: place(np.zeros(4, np.int32), la.split(la.Space(i=4), "i", 2), Machine.banks(2, 10),
                   fill=None), MachineError, r"must be a whole number of 4-byte elements"),
    (lambda: fetch(la.split(la.Space(i=4), "i", 2), Machine.banks(2, 10), np.int32),
     MachineError, r"each bank's 10 bytes must be a whole number of 4-byte elements"),
]


@pytest.mark.parametrize("call, error, message", BAD_PLACE)
def test_bad_placements_are_refused_with_the_rule(call, error, message):
    with pytest.raises(error, match=message):
        call()


BAD_MACHINES = [
    (lambda: Machine((("pe", 0),), 64),
     r"each dim must be \(name, positive int\); got \('pe', 0\)"),
    (lambda: Machine([("pe", 2)], 64), r"dims must be a tuple of \(name, positive int\) pairs"),
    (lambda: Machine((("pe", 2),), 0), r"capacity must be a positive int of bytes; got 0"),
    (lambda: Machine((("pe", 2),), 64, name=""), r"name must be a non-empty string; got ''"),
    (lambda: Machine.tenstorrent("wormhole_b0", "SRAM"),
     r"storage must be 'DRAM' or 'L1'; got 'SRAM'"),
    (lambda: Machine.for_layout(la.split(la.Space(i=6), "i", 3), capacity=8, memory_dims=2),
     r"memory_dims must be an int in \[0, 2\)"),
    (lambda: Machine.single(16).reserve(32), r"reserve: 32 bytes exceed the capacity 16"),
    (lambda: Machine.banks(2, 16).read(2, 0, 4), r"memory must be a coordinate inside"),
]


@pytest.mark.parametrize("call, message", BAD_MACHINES)
def test_bad_machines_are_refused_with_the_rule(call, message):
    with pytest.raises(MachineError, match=message):
        call()


def test_every_machine_error_is_a_layout_error():
    assert issubclass(MachineError, la.LayoutError)
    assert issubclass(CapacityError, MachineError) and issubclass(PlacementError, MachineError)


def test_presets():
    assert Machine.wse(3, 4).shape == (3, 4) and Machine.wse(3, 4).capacity == 48 * 1024
    assert Machine.tenstorrent("grayskull", "L1").shape == (12, 10)
    assert Machine.tenstorrent("grayskull", "L1").capacity == 1 << 20
    assert Machine.tenstorrent("wormhole_b0", "DRAM").shape == (12,)
    big = Machine.tenstorrent("blackhole", "DRAM")
    assert big.capacity == 4 << 30 and big.storage.nbytes == 0    # nothing allocated yet
    assert str(Machine.single(64)) == "one memory of 64 B"
    assert sympy.Integer(Machine.cores(2, 3, 100).memories) == 6


def test_all_names_the_public_api():
    import inspect

    import layoutalg.execute as ex

    public = {name for name, value in vars(ex).items()
              if not name.startswith("_") and not inspect.ismodule(value)}
    assert set(ex.__all__) == public
    for name in ("Machine", "place", "fetch", "matmul", "Hierarchy", "replay",
                 "run_transform", "Counters"):
        assert name in ex.__all__
