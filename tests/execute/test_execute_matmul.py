"""la.execute.matmul: the KPU dataflows against the model, SUMMA against a reference loop.

The OS/WS/IS counts must equal ``la.dataflow.traffic`` exactly; the SUMMA
counts are checked against a plain loop over steps, PE rows and PE columns
written here from the algorithm's description.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.execute import CapacityError, Hierarchy, Machine, MachineError, matmul


@st.composite
def problems(draw, max_dim=12):
    M, N, K = (draw(st.integers(1, max_dim)) for _ in range(3))
    tiles = tuple(draw(st.integers(1, d)) for d in (M, N, K))
    return (M, N, K), tiles


def operands(problem, seed=0, dtype=np.float64):
    M, N, K = problem
    rng = np.random.default_rng(seed)
    return rng.standard_normal((M, K)).astype(dtype), rng.standard_normal((K, N)).astype(dtype)


# -- OS / WS / IS on the hierarchy ------------------------------------------------------


@given(problems(), st.sampled_from(["os", "ws", "is"]), st.sampled_from([4, 8]))
def test_counts_equal_the_dataflow_model_exactly_and_c_is_the_product(case, dataflow, channels):
    problem, tiles = case
    a, b = operands(problem)
    hierarchy = Hierarchy(channels=channels, l2_bytes=1 << 20, register_bytes=1 << 20)
    c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=hierarchy)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12, atol=1e-12)
    schedule = la.dataflow.Schedule(dataflow, problem, tiles, element_bytes=8)
    assert counters.traffic() == la.dataflow.traffic(schedule)
    assert counters.macs == problem[0] * problem[1] * problem[2]
    assert sum(counters.per_channel()) == counters.bytes("dram")
    for operand in "ABC":
        for kind in ("read", "write"):
            assert sum(counters.per_channel(operand, kind)) == counters.bytes("dram", operand, kind)


@pytest.mark.parametrize("dataflow", ["os", "ws", "is"])
def test_a_float32_run_matches_numpy(dataflow):
    a, b = operands((33, 17, 29), dtype=np.float32)
    c, _ = matmul(a, b, dataflow=dataflow, tiles=(8, 5, 7))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def test_os_counts_worked_by_hand():
    """OS, 4×4×4 in 2×2×4 tiles: loops ti → tj → tk with trips (2, 2, 1).

    A[ti, tk] stays in L2 while tj advances (tk has one trip), so A crosses
    DRAM once: 16 elements. B[tk, tj] changes with tj, and the ti loop
    wraps tj: B is read twice, 32 elements. C is written once, never read.
    """
    a, b = operands((4, 4, 4))
    _, counters = matmul(a, b, dataflow="os", tiles=(2, 2, 4))
    assert counters.get("dram", "A", "read") == 16
    assert counters.get("dram", "B", "read") == 32
    assert counters.get("dram", "C", "read") == 0
    assert counters.get("dram", "C", "write") == 16
    assert counters.steps == 4
    # registers hold C: one read per MAC except each element's first (64 − 16),
    # plus the write-back of the 16 finished elements to L2 (16 more reads)
    assert counters.get("register", "C", "read") == (64 - 16) + 16
    assert counters.get("register", "C", "write") == 64


def test_each_operand_read_once_spreads_over_channels_as_the_channel_load_says():
    """Under OS every A tile is read once per tj and every B tile once per ti
    (the fetch factor, uniform over tiles), so the bytes read per channel are
    that factor times the bytes la.channel says each channel holds."""
    a, b = operands((32, 32, 32), dtype=np.float32)
    hierarchy = Hierarchy(channels=4, channel_option="round_robin", l2_bytes=1 << 20,
                          register_bytes=1 << 20)
    _, counters = matmul(a, b, dataflow="os", tiles=(16, 16, 16), machine=hierarchy)
    schedule = la.dataflow.Schedule("os", (32, 32, 32), (16, 16, 16))
    layout = hierarchy.channel_layout(schedule)
    load = la.channel.channel_load(layout)
    fetches = {x: la.dataflow.fetch_factor(schedule, x) for x in "AB"}
    for x in "AB":
        expected = [fetches[x] * n for n in dict(load.by_matrix)[x]]
        assert list(counters.per_channel(x, "read")) == expected


def test_the_default_machine_is_the_kpu_and_too_big_tiles_overflow_its_l2():
    a, b = operands((256, 256, 256), dtype=np.float32)
    with pytest.raises(CapacityError, match=r"^L2 exceeds memory: 786432 > 262144 bytes"):
        matmul(a, b, dataflow="os", tiles=(256, 256, 256))


def test_the_stationary_tile_must_fit_the_registers():
    a, b = operands((64, 64, 64), dtype=np.float32)
    small = Hierarchy(register_bytes=4096)
    with pytest.raises(CapacityError, match=r"^PE array registers exceeds memory: 16384 > 4096"):
        matmul(a, b, dataflow="ws", tiles=(64, 64, 64), machine=small)


# -- SUMMA on a mesh ---------------------------------------------------------------------


def summa_reference(problem, tiles, e):
    """Messages and SRAM accesses by a plain loop over steps, rows and columns."""
    M, N, K = problem
    Ti, Tj, Tk = tiles
    rows, cols, steps = -(-M // Ti), -(-N // Tj), -(-K // Tk)
    totals = {x: dict(count=0, bytes=0, wavelets=0, hops=0, byte_hops=0, wavelet_hops=0)
              for x in "AB"}
    sram = dict.fromkeys(["A read", "A write", "B read", "B write", "C read", "C write"], 0)

    def send(x, nbytes, hops):
        t = totals[x]
        t["count"] += 1
        t["bytes"] += nbytes
        t["wavelets"] += -(-nbytes // 4)
        t["hops"] += hops
        t["byte_hops"] += nbytes * hops
        t["wavelet_hops"] += -(-nbytes // 4) * hops

    for s in range(steps):
        depth = min(Tk, K - s * Tk)
        owner_col, owner_row = s % cols, s % rows
        for r in range(rows):
            height = min(Ti, M - r * Ti)
            for c in range(cols):
                width = min(Tj, N - c * Tj)
                if c != owner_col:
                    send("A", height * depth * e, abs(c - owner_col))
                    sram["A write"] += height * depth
                if r != owner_row:
                    send("B", depth * width * e, abs(r - owner_row))
                    sram["B write"] += depth * width
                sram["A read"] += height * depth
                sram["B read"] += depth * width
                sram["C read"] += height * width if s else 0
                sram["C write"] += height * width
    return totals, sram, steps


@given(problems(max_dim=14))
def test_summa_equals_numpy_and_its_messages_equal_a_reference_loop(case):
    problem, tiles = case
    a, b = operands(problem, dtype=np.float32)
    c, counters = matmul(a, b, dataflow="summa", tiles=tiles)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
    totals, sram, steps = summa_reference(problem, tiles, 4)
    for x in "AB":
        assert counters.message(x) == la.execute.Messages(**totals[x])
    for key, value in sram.items():
        operand, kind = key.split()
        assert counters.get("sram", operand, kind) == value
    assert counters.steps == steps
    assert counters.macs == problem[0] * problem[1] * problem[2]


def test_summa_on_the_cerebras_example_layout():
    """4×4 PEs, 8×8 tiles, K = 4·Tk: four steps, each PE owns one tile of each."""
    a, b = operands((32, 32, 32), dtype=np.float32)
    c, counters = matmul(a, b, dataflow="summa", tiles=(8, 8, 8))
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)
    # per step: 4 rows × 3 receivers, 8·8·4 = 256 B each
    assert counters.message("A").count == 4 * 4 * 3
    assert counters.message("A").bytes == 4 * 4 * 3 * 256
    # row hops from owner column s: Σ|c − s| = 6, 4, 4, 6 over s = 0..3, times 4 rows
    assert counters.message("A").hops == 4 * (6 + 4 + 4 + 6)


def test_summa_needs_room_for_its_tiles_in_every_pe():
    a, b = operands((128, 128, 128), dtype=np.float32)
    # 64×64 tiles: A, B, C and two receive buffers of 16 KiB each = 81920 B
    with pytest.raises(CapacityError, match=r"^PE \(0, 0\) exceeds memory: 81920 > 49152 bytes"):
        matmul(a, b, dataflow="summa", tiles=(64, 64, 64))
    c, _ = matmul(a, b, dataflow="summa", tiles=(64, 64, 64),
                  machine=Machine.wse(2, 2, sram_bytes=81920))
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-3)


def test_integer_operands_multiply_exactly():
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    b = np.arange(8, dtype=np.int64).reshape(4, 2)
    for dataflow in ("os", "ws", "is", "summa"):
        c, _ = matmul(a, b, dataflow=dataflow, tiles=(2, 1, 3))
        assert np.array_equal(c, a @ b)


# -- bad input ----------------------------------------------------------------------------

A, B = np.ones((4, 6)), np.ones((6, 2))

BAD = [
    (dict(a=A, b=B, dataflow="rs", tiles=(2, 2, 2)), MachineError,
     r"matmul: dataflow must be one of \('os', 'ws', 'is', 'summa'\); got 'rs'"),
    (dict(a=np.ones(4), b=B, dataflow="os", tiles=(2, 2, 2)), MachineError,
     r"matmul: A must be a 2-D array; got shape \(4,\)"),
    (dict(a=A, b=np.ones((5, 2)), dataflow="os", tiles=(2, 2, 2)), MachineError,
     r"matmul: A's columns must equal B's rows; got A 4×6 and B 5×2"),
    (dict(a=A.astype(object), b=B, dataflow="os", tiles=(2, 2, 2)), MachineError,
     r"matmul: A must be a non-empty array of numbers; got dtype object"),
    (dict(a=A, b=B, dataflow="os", tiles=(2, 2)), MachineError,
     r"matmul: tiles must be \(Ti, Tj, Tk\), three positive ints; got \(2, 2\)"),
    (dict(a=A, b=B, dataflow="summa", tiles=(2, 0, 2)), MachineError,
     r"matmul: tiles must be \(Ti, Tj, Tk\), three positive ints; got \(2, 0, 2\)"),
    (dict(a=A, b=B, dataflow="os", tiles=(2, 2, 2), machine=Machine.wse(2, 1)), MachineError,
     r"machine for dataflow 'os' must be a layoutalg.execute.Hierarchy"),
    (dict(a=A, b=B, dataflow="summa", tiles=(2, 2, 2), machine=Hierarchy()), MachineError,
     r"SUMMA with tiles \(Ti=2, Tj=2\) puts C on a 2×1 PE mesh; machine must be a Machine"),
    (dict(a=A, b=B, dataflow="summa", tiles=(2, 2, 2), machine=Machine.wse(1, 2)), MachineError,
     r"puts C on a 2×1 PE mesh"),
    (dict(a=A, b=B, dataflow="summa", tiles=(5, 2, 2)), MachineError,
     r"matmul: tile Ti must be at most M=4; got 5"),
    (dict(a=A, b=B, dataflow="ws", tiles=(2, 3, 2)), la.LayoutError,
     r"tile Tj must be at most N=2"),
]


@pytest.mark.parametrize("kwargs, error, message", BAD)
def test_bad_matmuls_are_refused_with_the_rule(kwargs, error, message):
    with pytest.raises(error, match=message):
        matmul(kwargs.pop("a"), kwargs.pop("b"), **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(channels=0), r"Hierarchy: channels must be a positive int; got 0"),
    (dict(channel_option="stripes"), r"channel_option must be one of"),
    (dict(l2_bytes=1.5), r"Hierarchy: l2_bytes must be a positive int; got 1.5"),
    (dict(array=(16,)), r"Hierarchy: array must be \(rows, cols\) of positive ints"),
])
def test_bad_hierarchies_are_refused_with_the_rule(kwargs, message):
    with pytest.raises(MachineError, match=message):
        Hierarchy(**kwargs)


@pytest.mark.parametrize("option, channels", [("hardware", 4), ("round_robin", 3),
                                              ("iteration_aware", 4), ("matrix", 5)])
def test_bytes_per_channel_of_every_tile_equal_decoding_each_element(option, channels):
    from layoutalg.execute.hierarchy import Levels

    schedule = la.dataflow.Schedule("os", (20, 13, 11), (8, 5, 4))
    levels = Levels(Hierarchy(channels=channels, channel_option=option, interleave=16),
                    schedule, np.dtype(np.float32))
    for operand in "ABC":
        rows, cols = schedule.trips[0 if operand != "B" else 2], schedule.trips[
            2 if operand == "A" else 1]
        for tile in np.ndindex(rows, cols):
            (r0, r1), (c0, c1) = levels.bounds(operand, tile)
            _, tc = levels.tile_shape(operand)
            base = levels.channels.address(operand, *_loops(operand, tile))
            each = [int(levels.decoder.channel(base + (r * tc + c) * 4))
                    for r in range(r1 - r0) for c in range(c1 - c0)]
            expected = np.bincount(each, minlength=channels) * 4
            assert levels.channel_bytes(operand, tile).tolist() == expected.tolist()


def _loops(operand, tile):
    """(ti, tj, tk) of an iteration that uses ``tile`` of ``operand``."""
    r, c = tile
    return {"A": (r, 0, c), "B": (0, c, r), "C": (r, c, 0)}[operand]
