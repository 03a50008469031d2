"""Access counts: the closed form, the step rule and a plain reference loop nest agree.

``reference_counts`` below is written from the physical description alone
(seed 004's loop orders and L2 allocations): it walks every step, keeps the
*set of elements* each level holds, and counts element by element, MAC by
MAC. It shares no code with ``layoutalg.dataflow`` beyond the names of the
levels. The closed form (``traffic``) and the step rule (``simulate``) must
match it exactly, for every dataflow and every small size and tiling.
"""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.dataflow import reuse
from layoutalg.dataflow.reuse import Compute, Move, Zero

df = la.dataflow

# The seed's schedules, restated: loop order over (i, j, k) = (ti, tj, tk),
# the levels below DRAM holding one tile of each operand, and the operand
# kept in the PE registers.
ORDER = {"os": "ijk", "ws": "kji", "is": "kij"}
HOME = {
    "os": {"A": ["l2"], "B": ["l2"], "C": ["l2", "register"]},
    "ws": {"A": ["l2"], "B": ["register"], "C": ["l2"]},
    "is": {"A": ["register"], "B": ["l2"], "C": ["l2"]},
}
STATIONARY = {"os": "C", "ws": "B", "is": "A"}


def reference_counts(dataflow, problem, tiles) -> Counter:
    """Element-level simulation of the buffers; returns (level, operand, kind) → count."""
    M, N, K = problem
    Ti, Tj, Tk = tiles
    count: Counter = Counter()

    def span(t, size, dim):
        return range(t * size, min((t + 1) * size, dim))

    def elements(operand, t):
        rows = {"A": span(t["i"], Ti, M), "B": span(t["k"], Tk, K), "C": span(t["i"], Ti, M)}
        cols = {"A": span(t["k"], Tk, K), "B": span(t["j"], Tj, N), "C": span(t["j"], Tj, N)}
        return frozenset(itertools.product(rows[operand], cols[operand]))

    def move(operand, source, target, n):
        count[source, operand, "read"] += n
        count[target, operand, "write"] += n
        if "register" in (source, target):
            count["array", operand, "hop"] += n

    chain = {x: ["dram"] + HOME[dataflow][x] for x in "ABC"}
    held = {(x, lv): frozenset() for x in "ABC" for lv in chain[x][1:]}
    summed = set()  # C elements that have received a partial sum
    trips = {"i": -(-M // Ti), "j": -(-N // Tj), "k": -(-K // Tk)}
    order = ORDER[dataflow]
    stationary = STATIONARY[dataflow]
    for values in itertools.product(*(range(trips[loop]) for loop in order)):
        t = dict(zip(order, values))
        need = {x: elements(x, t) for x in "ABC"}
        for depth in reversed(range(1, len(chain["C"]))):
            level, parent = chain["C"][depth], chain["C"][depth - 1]
            if held["C", level] and held["C", level] != need["C"]:
                move("C", level, parent, len(held["C", level]))
                held["C", level] = frozenset()
        for x in "ABC":
            for depth in range(1, len(chain[x])):
                level, parent = chain[x][depth], chain[x][depth - 1]
                if held[x, level] != need[x]:
                    if x == "C":
                        move(x, parent, level, sum(1 for e in need[x] if e in summed))
                    else:
                        move(x, parent, level, len(need[x]))
                    held[x, level] = need[x]
        before = set(summed)
        rows, cols, depth_k = span(t["i"], Ti, M), span(t["j"], Tj, N), span(t["k"], Tk, K)
        for i, j, _ in itertools.product(rows, cols, depth_k):
            count["mac", "-", "op"] += 1
            for x in "AB":
                if x == stationary:
                    count["register", x, "read"] += 1
                else:
                    count["array", x, "hop"] += 1
            if stationary == "C":
                if (i, j) in summed:
                    count["register", "C", "read"] += 1
                count["register", "C", "write"] += 1
            else:
                count["array", "C", "hop"] += 1
            summed.add((i, j))
        if stationary != "C":
            for e in need["C"]:
                count["l2", "C", "read"] += e in before
                count["l2", "C", "write"] += 1
        for x in "AB":
            if x != stationary:
                count["l2", x, "read"] += len(need[x])
    for depth in reversed(range(1, len(chain["C"]))):
        level, parent = chain["C"][depth], chain["C"][depth - 1]
        if held["C", level]:
            move("C", level, parent, len(held["C", level]))
    return count


def nonzero(counts) -> dict:
    return {k: v for k, v in dict(counts).items() if v}


@st.composite
def small_schedules(draw, max_dim=6):
    dims = [draw(st.integers(1, max_dim)) for _ in range(3)]
    tiles = [draw(st.integers(1, d)) for d in dims]
    dataflow = draw(st.sampled_from(df.DATAFLOWS))
    element_bytes = draw(st.sampled_from([1, 2, 4]))
    return df.Schedule(dataflow, tuple(dims), tuple(tiles), element_bytes=element_bytes)


@given(small_schedules())
def test_closed_form_and_step_rule_match_the_reference_loop_nest(schedule):
    expected = nonzero(reference_counts(schedule.dataflow, schedule.problem, schedule.tiles))
    closed = df.traffic(schedule)
    assert nonzero({**closed.as_dict(), ("mac", "-", "op"): closed.macs}) == expected
    assert nonzero(df.simulate(schedule)) == expected


@given(small_schedules())
def test_input_stationary_is_weight_stationary_of_the_transposed_product(schedule):
    """Cᵀ = Bᵀ·Aᵀ: IS on (M, N, K) moves what WS moves on (N, M, K), A and B swapped."""
    if schedule.dataflow != "is":
        schedule = df.Schedule("is", schedule.problem, schedule.tiles)
    (M, N, K), (Ti, Tj, Tk) = schedule.problem, schedule.tiles
    mirrored = df.traffic(df.Schedule("ws", (N, M, K), (Tj, Ti, Tk))).as_dict()
    swap = {"A": "B", "B": "A", "C": "C"}
    assert {(lv, swap[op], kd): v for (lv, op, kd), v in mirrored.items()} == \
        df.traffic(schedule).as_dict()


def test_hand_counts_output_stationary_4x4x4_in_2x2x2_tiles():
    """ti → tj → tk with two tiles per loop: A changes every step and is re-read for
    both tj (2·16), B for both ti (2·16); C is written once and never read back."""
    t = df.traffic(df.Schedule("os", (4, 4, 4), (2, 2, 2)))
    assert (t.get("dram", "A", "read"), t.get("dram", "B", "read")) == (32, 32)
    assert (t.get("dram", "C", "read"), t.get("dram", "C", "write")) == (0, 16)
    assert t.get("l2", "A", "read") == 8 * 4            # streamed every one of 8 steps
    assert t.get("register", "C", "write") == 64        # one per MAC
    assert t.get("register", "C", "read") == 64 - 16 + 16   # RMW minus first touch, + write-back


def test_hand_counts_weight_stationary_4x4x4_in_2x2x2_tiles():
    """tk → tj → ti: B loaded once per (tk, tj); A re-read for both tj; every C tile
    leaves L2 after each step (ti innermost), so C partial sums round-trip DRAM once."""
    t = df.traffic(df.Schedule("ws", (4, 4, 4), (2, 2, 2)))
    assert (t.get("dram", "A", "read"), t.get("dram", "B", "read")) == (32, 16)
    assert (t.get("dram", "C", "read"), t.get("dram", "C", "write")) == (16, 32)
    assert t.get("l2", "B", "read") == 0                # B bypasses L2 (seed allocation)
    assert t.get("array", "B", "hop") == 16             # each B element placed once
    assert t.get("register", "B", "read") == 64


@pytest.mark.parametrize("dataflow, operand, tiles, factor", [
    ("os", "A", (2, 1, 1), 4),    # tj between ti and tk, tk has 4 trips: re-read per tj
    ("os", "A", (2, 1, 4), 1),    # one tk trip: A stays across tj
    ("os", "B", (2, 2, 2), 2),    # ti outermost, inner loops move: re-read per ti
    ("os", "C", (1, 1, 1), 1),    # tk innermost: C stays
    ("ws", "C", (1, 4, 1), 4),    # tk outermost, ti still moves inside
    ("ws", "C", (4, 4, 1), 1),    # ti and tj single trips: C stays across tk
    ("is", "B", (1, 2, 2), 4),    # ti between tk and tj, tj moves: re-read per ti
])
def test_fetch_factor_follows_the_timeloop_rule(dataflow, operand, tiles, factor):
    s = df.Schedule(dataflow, (4, 4, 4), tiles)
    assert df.fetch_factor(s, operand) == factor
    moved = reference_counts(dataflow, (4, 4, 4), tiles)
    crossing = moved["dram", "C", "write"] if operand == "C" else moved["dram", operand, "read"]
    assert crossing == factor * s.size(operand)


def replay(schedule, a, b):
    """Run the events on real data: each level a dict of tiles. Fails if a tile is used
    where the rule did not put it; returns C assembled from DRAM."""
    levels = {"dram": {}, "l2": {}, "register": {}}
    for x, matrix in (("A", a), ("B", b)):
        rows, cols = {"A": ("ti", "tk"), "B": ("tk", "tj")}[x]
        for r in range(schedule.trip(rows)):
            for c in range(schedule.trip(cols)):
                (r0, r1), (c0, c1) = reuse.tile_bounds(schedule, x, (r, c))
                levels["dram"][x, (r, c)] = matrix[r0:r1, c0:c1].copy()
    for event in reuse.events(schedule):
        if isinstance(event, Move):
            tile = levels[event.source][event.operand, event.tile]
            assert tile.size == event.elements
            levels[event.target][event.operand, event.tile] = tile.copy()
            if event.purpose == "writeback":
                del levels[event.source][event.operand, event.tile]
        elif isinstance(event, Zero):
            (r0, r1), (c0, c1) = reuse.tile_bounds(schedule, "C", event.tile)
            levels[event.level]["C", event.tile] = np.zeros((r1 - r0, c1 - c0))
        else:
            assert isinstance(event, Compute)
            home = {x: schedule.residency(x)[-1] for x in "ABC"}
            tiles = {x: levels[home[x]][x, event.step.tile(x)] for x in "ABC"}
            tiles["C"] += tiles["A"] @ tiles["B"]
    out = np.zeros((schedule.M, schedule.N))
    for (x, tile), value in levels["dram"].items():
        if x == "C":
            (r0, r1), (c0, c1) = reuse.tile_bounds(schedule, "C", tile)
            out[r0:r1, c0:c1] = value
    return out


@given(small_schedules(max_dim=7), st.integers(0, 2**32 - 1))
def test_running_the_events_on_data_computes_the_matmul(schedule, seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(-3, 4, (schedule.M, schedule.K)).astype(float)
    b = rng.integers(-3, 4, (schedule.K, schedule.N)).astype(float)
    assert np.array_equal(replay(schedule, a, b), a @ b)


def test_loop_nest_runs_in_the_dataflow_order():
    steps = [(s.ti, s.tj, s.tk) for s in df.loop_nest(df.Schedule("is", (2, 2, 2), (1, 1, 1)))]
    assert steps == [(ti, tj, tk) for tk in range(2) for ti in range(2) for tj in range(2)]


def test_events_of_a_symbolic_schedule_are_refused():
    M, N, K = la.extents("M N K")
    with pytest.raises(df.DataflowError, match="needs concrete sizes"):
        list(df.events(df.Schedule("os", (M, N, K), (1, 1, 1))))


def test_symbolic_traffic_evaluates_to_the_concrete_counts():
    M, N, K, Ti, Tj, Tk = la.extents("M N K Ti Tj Tk")
    symbolic = df.traffic(df.Schedule("ws", (M, N, K), (Ti, Tj, Tk)))
    values = {"M": 7, "N": 5, "K": 9, "Ti": 3, "Tj": 2, "Tk": 4}
    env = {s: values[str(s)] for s in (M, N, K, Ti, Tj, Tk)}
    concrete = df.traffic(df.Schedule("ws", (7, 5, 9), (3, 2, 4)))
    for key, value in symbolic.as_dict().items():
        assert int(sympy.sympify(value).xreplace(env)) == concrete.as_dict()[key]
