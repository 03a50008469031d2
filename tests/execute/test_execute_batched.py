"""The KPU executor plans its moves and counts them in bulk (``execute.steps``);
here it is held to a slow reference that walks ``la.dataflow.events`` one
event at a time.

The reference keeps each level's tile as its own array, performs every
``Move``, ``Zero`` and ``Compute`` in order, counts each with
``reuse.accesses`` and splits DRAM moves over channels by decoding the
address of every element moved. The executor must produce the same ``C``
(bit for bit: the operands are small integers, so every sum is exact in
float64), the same counters key for key (zero counts included), and perform
the same moves, zero-fills and products in the same order.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.dataflow import reuse
from layoutalg.dataflow.schedule import INDEXED_BY
from layoutalg.execute import Hierarchy, matmul
from layoutalg.execute import program as program_module
from layoutalg.execute.hierarchy import Levels
from layoutalg.execute.program import Program
from layoutalg.execute.steps import Steps


@st.composite
def runs(draw, max_dim=12):
    """A problem, tiles, dataflow and a hierarchy with any channel layout."""
    M, N, K = (draw(st.integers(1, max_dim)) for _ in range(3))
    tiles = tuple(draw(st.integers(1, d)) for d in (M, N, K))
    dataflow = draw(st.sampled_from(["os", "ws", "is"]))
    option = draw(st.sampled_from(["hardware", "round_robin", "iteration_aware", "matrix"]))
    channels = draw(st.sampled_from({"hardware": [2, 4, 6, 8], "iteration_aware": [2, 4, 8],
                                     "round_robin": [1, 3, 4, 7], "matrix": [3, 4, 5]}[option]))
    hierarchy = Hierarchy(channels=channels, channel_option=option,
                          interleave=draw(st.sampled_from([16, 64])),
                          l2_bytes=1 << 20, register_bytes=1 << 20)
    seed = draw(st.integers(0, 2**16))
    return (M, N, K), tiles, dataflow, hierarchy, seed


def integer_operands(problem, seed):
    M, N, K = problem
    rng = np.random.default_rng(seed)
    return (rng.integers(-8, 9, (M, K)).astype(np.float64),
            rng.integers(-8, 9, (K, N)).astype(np.float64))


def reference(a, b, schedule, hierarchy):
    """C, accesses (zero counts kept), MACs and DRAM bytes per channel, by
    performing the rule's events one at a time on plain arrays."""
    layout = hierarchy.channel_layout(schedule)
    e = a.dtype.itemsize
    dram = {"A": a.copy(), "B": b.copy(), "C": np.full((a.shape[0], b.shape[1]), np.nan)}
    held = {}
    accesses, macs, channels = Counter(), 0, Counter()

    def span(operand, tile):
        (r0, r1), (c0, c1) = reuse.tile_bounds(schedule, operand, tile)
        return slice(r0, r1), slice(c0, c1)

    def per_channel(operand, tile, kind):
        rows, cols = span(operand, tile)
        tc = schedule.tile(INDEXED_BY[operand][1])
        i, j = np.meshgrid(np.arange(rows.stop - rows.start), np.arange(cols.stop - cols.start),
                           indexing="ij")
        base = int(layout.address_of(operand, *tile))
        decoded = np.asarray(layout.decoder.channel(base + (i * tc + j).ravel() * e))
        for channel, n in enumerate(np.bincount(decoded, minlength=hierarchy.channels)):
            if n:
                channels[channel, operand, kind] += int(n) * e

    for event in reuse.events(schedule):
        if isinstance(event, reuse.Move):
            x, tile = event.operand, event.tile
            data = dram[x][span(x, tile)] if event.source == "dram" else held[x, event.source]
            if event.target == "dram":
                dram[x][span(x, tile)] = data
                per_channel(x, tile, "write")
            else:
                held[x, event.target] = data.copy()
            if event.source == "dram":
                per_channel(x, tile, "read")
        elif isinstance(event, reuse.Zero):
            rows, cols = span("C", event.tile)
            held["C", event.level] = np.zeros((rows.stop - rows.start, cols.stop - cols.start))
        else:
            inner = {x: schedule.residency(x)[-1] for x in "ABC"}
            held["C", inner["C"]] += held["A", inner["A"]] @ held["B", inner["B"]]
        for level, operand, kind, count in reuse.accesses(schedule, event):
            if level == "mac":
                macs += count
            else:
                accesses[level, operand, kind] += count
    return dram["C"], dict(accesses), macs, dict(channels)


@given(runs())
def test_the_executor_equals_a_per_event_reference_bit_for_bit_and_key_for_key(run):
    problem, tiles, dataflow, hierarchy, seed = run
    a, b = integer_operands(problem, seed)
    c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=hierarchy)
    schedule = la.dataflow.Schedule(dataflow, problem, tiles, element_bytes=8)
    expected_c, accesses, macs, channels = reference(a, b, schedule, hierarchy)
    assert np.array_equal(c, expected_c)
    assert np.array_equal(c, a @ b)
    assert dict(counters.accesses) == accesses
    assert counters.macs == macs
    assert dict(counters.channel_bytes) == channels
    assert counters.steps == len(list(reuse.loop_nest(schedule)))


def trace_of_events(schedule):
    """The rule's events as the executor's operations: copies, zero-fills, products."""
    found = []
    for event in reuse.events(schedule):
        if isinstance(event, reuse.Move):
            found.append(("copy", event.operand, event.tile, event.source, event.target))
        elif isinstance(event, reuse.Zero):
            found.append(("zero", event.operand, event.tile, event.level))
        else:
            found.append(("product",))
    return found


@given(runs(max_dim=9))
def test_the_executor_performs_exactly_the_rules_events_in_order(run):
    """The program's operations are the rule's events, in order, and each
    acts on the views its event names (the run only performs them)."""
    problem, tiles, dataflow, hierarchy, _ = run
    schedule = la.dataflow.Schedule(dataflow, problem, tiles, element_bytes=8)
    levels = Levels(hierarchy, schedule, np.float64)
    program = Program(levels, Steps.of(schedule))
    labels, performed = [], []
    for moves, a, b, c, product in program.walk(labels):
        performed += moves
        if a is not None:
            performed.append((a, b, c, product))
    assert labels == trace_of_events(schedule)
    inner = {x: schedule.residency(x)[-1] for x in "ABC"}
    view = levels.view
    tile_of = {}
    for label, operation in zip(labels, performed, strict=True):
        if label[0] == "copy":
            _, x, tile, source, target = label
            assert operation[0] is view(target, x, tile) and operation[1] is view(source, x, tile)
            tile_of[x] = tile
        elif label[0] == "zero":
            _, x, tile, level = label
            assert operation[0] is view(level, x, tile) and operation[1] is None
            tile_of[x] = tile
        else:
            a, b, c, _ = operation
            assert a is view(inner["A"], "A", tile_of["A"])
            assert b is view(inner["B"], "B", tile_of["B"])
            assert c is view(inner["C"], "C", tile_of["C"])


@pytest.mark.parametrize("kept", [True, False])
@pytest.mark.parametrize("dataflow, tiles", [("os", (3, 4, 2)), ("ws", (4, 3, 2)),
                                             ("is", (3, 3, 4))])
def test_a_run_on_memories_a_run_before_left_is_exact(dataflow, tiles, kept, monkeypatch):
    """The memories (and the program on them, kept or walked afresh) pass
    from run to run; what a run leaves there is never read by the next."""
    if not kept:
        monkeypatch.setattr(program_module, "KEPT_STEPS", 0)
    hierarchy = Hierarchy(channels=3, channel_option="round_robin",
                          interleave=16 if kept else 32)   # (another memo for each)
    for seed in range(3):
        a, b = integer_operands((10, 9, 7), seed)
        c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=hierarchy)
        assert np.array_equal(c, a @ b)
        assert counters.traffic() == la.dataflow.traffic(counters.schedule)


@given(runs(max_dim=10))
def test_steps_are_the_loop_nest(run):
    problem, tiles, dataflow, _, _ = run
    schedule = la.dataflow.Schedule(dataflow, problem, tiles)
    steps = Steps.of(schedule)
    nest = list(reuse.loop_nest(schedule))
    assert steps.count == len(nest)
    seen = set()
    for s, step in enumerate(nest):
        for x in "ABC":
            assert steps.tile(x, s) == step.tile(x)
            assert steps.changed[x][s] == (s == 0 or nest[s - 1].tile(x) != step.tile(x))
            assert steps.elements(x)[s] == reuse.tile_elements(schedule, x, step.tile(x))
        assert steps.first_touch[s] == (step.tile("C") not in seen)
        seen.add(step.tile("C"))
    kinds = steps.compute_kinds()
    assert sum(n for n, _ in kinds.values()) == len(nest)
    for (mi, nj, kk, first), (_, at) in kinds.items():
        shape = tuple(b - a for a, b in (reuse.extent(schedule, loop, nest[at].index(loop))
                                         for loop in ("ti", "tj", "tk")))
        assert (shape, bool(steps.first_touch[at])) == ((mi, nj, kk), first)


@pytest.mark.parametrize("option, channels", [("hardware", 4), ("round_robin", 3),
                                              ("matrix", 5)])
def test_the_channel_table_does_not_depend_on_how_rows_of_tiles_are_chunked(option, channels):
    import layoutalg.execute.hierarchy as module

    schedule = la.dataflow.Schedule("os", (20, 13, 11), (8, 5, 4))
    hierarchy = Hierarchy(channels=channels, channel_option=option, interleave=16)

    def tables():
        levels = Levels(hierarchy, schedule, np.dtype(np.float32))
        return [levels._channel_table(x) for x in "ABC"]

    whole = tables()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "DECODE_CHUNK", 1)
        one_row_at_a_time = tables()
    for x, y in zip(whole, one_row_at_a_time):
        assert np.array_equal(x, y)
