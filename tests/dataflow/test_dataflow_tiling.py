"""Tile selection: optimal against a search over every tiling, the fit proof, its twin."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_dataflow_reuse import small_schedules

import layoutalg as la
from oracles import dataflow as brute
from layoutalg.dataflow.tiling import canonical_tiles
from layoutalg.verify.result import Status

df = la.dataflow
# Proofs over symbolic sizes answer in well under a second on a quiet machine; a
# timeout would make them UNKNOWN (a failure), so they get room for a loaded one.
PROOF_MS = 60_000


def seed_constraint(dataflow, tiles, element_bytes, capacities) -> bool:
    """The seed's constraints (§2.1), restated; IS mirrors WS; OS's C in registers."""
    ti, tj, tk = tiles
    l2, registers = {
        "os": (ti * tk + tk * tj + ti * tj, ti * tj),
        "ws": (ti * tk + ti * tj, tk * tj),
        "is": (tk * tj + ti * tj, ti * tk),
    }[dataflow]
    return (l2 * element_bytes <= capacities.l2_bytes
            and registers * element_bytes <= capacities.register_bytes)


@st.composite
def search_problems(draw):
    problem = tuple(draw(st.integers(1, 7)) for _ in range(3))
    capacities = df.Capacities(draw(st.integers(3, 120)), draw(st.integers(1, 40)))
    return problem, draw(st.sampled_from(df.DATAFLOWS)), capacities


@given(search_problems())
def test_optimize_finds_the_least_energy_of_every_feasible_tiling(case):
    problem, dataflow, capacities = case
    feasible = [t for t in itertools.product(*(range(1, d + 1) for d in problem))
                if seed_constraint(dataflow, t, 1, capacities)]
    if not feasible:
        with pytest.raises(df.DataflowError, match="no tiling"):
            df.optimize(problem, dataflow, capacities, element_bytes=1)
        return
    least = min(df.energy(df.Schedule(dataflow, problem, t, element_bytes=1)).total
                for t in feasible)
    chosen = df.optimize(problem, dataflow, capacities, element_bytes=1, rows=2, cols=2)
    assert chosen.energy.total == least
    assert chosen.tiles in feasible
    assert chosen.proof.status is Status.PROVED
    assert chosen.cycles == df.schedule_cycles(chosen.schedule, rows=2, cols=2)


@given(st.integers(1, 300))
def test_canonical_tiles_cover_every_tile_count_with_the_smallest_tile(dim):
    canonical = set(canonical_tiles(dim).tolist())
    for tile in range(1, dim + 1):
        count = -(-dim // tile)
        smallest = min(t for t in range(1, dim + 1) if -(-dim // t) == count)
        assert smallest in canonical and smallest <= tile
    assert all(-(-dim // (-(-dim // t))) == t for t in canonical)


def test_optimize_attaches_a_fit_proof_and_respects_the_seed_constraints():
    caps = df.Capacities(l2_bytes=64 * 1024, register_bytes=16 * 1024)
    for dataflow in df.DATAFLOWS:
        chosen = df.optimize((300, 200, 500), dataflow, caps)
        assert chosen.proof.proved and chosen.proof.check == "tiles_fit"
        assert seed_constraint(dataflow, chosen.tiles, 4, caps)
        assert chosen.candidates > 100


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_capacity_constraints_imply_every_step_fits_for_all_sizes(dataflow):
    M, N, K, Ti, Tj, Tk, L2, R = la.extents("M N K Ti Tj Tk L2 R")
    schedule = df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk))
    caps = df.Capacities(L2, R)
    proved = df.check_tiles_fit(schedule, caps, assume=df.tile_constraints(schedule, caps),
                                timeout_ms=PROOF_MS)
    assert proved.status is Status.PROVED, proved
    refuted = df.check_tiles_fit(schedule, caps, timeout_ms=PROOF_MS)
    assert refuted.status is Status.REFUTED
    ce = refuted.counterexample
    concrete = df.Schedule(dataflow, (ce["M"], ce["N"], ce["K"]), (ce["Ti"], ce["Tj"], ce["Tk"]))
    replayed = brute.check_tiles_fit(concrete, df.Capacities(ce["L2"], ce["R"]))
    assert replayed.status is Status.REFUTED


@given(small_schedules(max_dim=9), st.integers(1, 400), st.integers(1, 200))
def test_tiles_fit_z3_agrees_with_enumeration(schedule, l2, registers):
    caps = df.Capacities(l2, registers)
    proved, enumerated = df.check_tiles_fit(schedule, caps), brute.check_tiles_fit(schedule, caps)
    assert proved.status is not Status.UNKNOWN, proved
    assert proved.status is enumerated.status, (proved, enumerated)
    # the truth: the first step holds full tiles (tiles never exceed the problem), the
    # largest of any step, so every step fits exactly when the seed's constraints hold
    assert all(t <= d for t, d in zip(schedule.tiles, schedule.problem))
    assert proved.proved is seed_constraint(schedule.dataflow, schedule.tiles,
                                            schedule.element_bytes, caps), proved
    if proved.refuted:
        ce = proved.counterexample
        assert ce["bytes"] > ce["capacity"]
        assert (ce["ti"], ce["tj"], ce["tk"]) in {
            (s.ti, s.tj, s.tk) for s in df.loop_nest(schedule)}


def test_overflow_names_the_memory_and_the_bytes():
    result = df.check_tiles_fit(df.Schedule("os", (1024, 1024, 1024), (256, 128, 64)),
                                df.Capacities(256 * 1024, 64 * 1024))
    assert result.refuted
    assert "registers overflow" in result.reason and "131072 > 65536 bytes" in result.reason
    assert result.counterexample["bytes"] == 256 * 128 * 4


def test_edge_tiles_are_trimmed_when_checking_fit():
    """M = 5 in tiles of 4: the last A tile is 1×K. A capacity that holds the full
    tiles holds every step; one byte less fails at the first step."""
    schedule = df.Schedule("ws", (5, 3, 3), (4, 3, 3), element_bytes=1)
    full = 4 * 3 + 4 * 3
    assert df.check_tiles_fit(schedule, df.Capacities(full, 9)).proved
    tight = df.check_tiles_fit(schedule, df.Capacities(full - 1, 9))
    assert tight.refuted and tight.counterexample["ti"] == 0


def test_optimize_reports_when_nothing_fits():
    with pytest.raises(df.DataflowError,
                       match=r"optimize: no tiling of \(4, 4, 4\) fits under OS: even 1×1×1 tiles "
                             r"need 12 B of L2 and 4 B of registers"):
        df.optimize((4, 4, 4), "os", df.Capacities(8, 8))
