"""No model moves less than the compulsory traffic: proved by Z3, property-tested,
and the Z3 checks agree with their enumeration twins.

The compulsory traffic is what any schedule must move across DRAM at least
once: read A (M·K) and B (K·N), write C (M·N), times the element size.
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_dataflow_reuse import reference_counts, small_schedules

import layoutalg as la
from layoutalg.dataflow import brute
from layoutalg.verify.result import CheckResult, Status

df = la.dataflow
M, N, K, Ti, Tj, Tk = la.extents("M N K Ti Tj Tk")


def agree(proved: CheckResult, enumerated: CheckResult) -> None:
    assert proved.status is not Status.UNKNOWN, f"Z3 said UNKNOWN: {proved}"
    assert enumerated.method == "enumeration"
    assert proved.status is enumerated.status, f"z3: {proved}\nbrute: {enumerated}"


# -- the theorem, for every size -----------------------------------------------------


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_every_schedule_meets_the_compulsory_traffic(dataflow):
    result = df.check_meets_compulsory(df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk)))
    assert result.status is Status.PROVED, result
    assert "for every size" in result.reason


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_the_total_dram_bytes_bound(dataflow):
    """The brief's form: DRAM bytes ≥ element_bytes·(MK + KN + MN), asked of Z3 directly."""
    from layoutalg.verify import solver

    t = df.traffic(df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk), element_bytes=2))
    below = sympy.Lt(t.dram_bytes, 2 * (M * K + K * N + M * N), evaluate=False)
    outcome = solver.solve([], [below], parameters=[M, N, K, Ti, Tj, Tk],
                           assumptions=[sympy.Le(Ti, M), sympy.Le(Tj, N), sympy.Le(Tk, K)])
    assert outcome.answer == "unsat", outcome


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_the_stationary_operand_crosses_dram_once(dataflow):
    assert df.check_stationary_once(df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk))).proved


@given(small_schedules(max_dim=7))
def test_reference_loop_nest_never_moves_less_than_compulsory(schedule):
    counts = reference_counts(schedule.dataflow, schedule.problem, schedule.tiles)
    (m, n, k) = schedule.problem
    assert counts["dram", "A", "read"] >= m * k
    assert counts["dram", "B", "read"] >= k * n
    assert counts["dram", "C", "write"] >= m * n
    moved = sum(v for (level, _, _), v in counts.items() if level == "dram")
    assert moved * schedule.element_bytes >= df.traffic(schedule).compulsory_bytes
    assert df.traffic(schedule).dram_bytes == moved * schedule.element_bytes


# -- the seed's reuse factors ----------------------------------------------------------


def test_seed_ws_reuse_for_b_is_refuted_with_sizes_that_replay():
    result = df.check_meets_compulsory(df.SeedReuse(df.Schedule("ws", (M, N, K), (Ti, Tj, Tk))),
                                       "B")
    assert result.status is Status.REFUTED
    ce = result.counterexample
    # replay independently: reuse ⌈M/Ti⌉·⌈K/Tk⌉ over ⌈M/Ti⌉⌈N/Tj⌉⌈K/Tk⌉ uses of Tk×Tj tiles
    nt = -(-ce["N"] // ce["Tj"])
    implied = nt * ce["Tk"] * ce["Tj"]
    assert implied < ce["K"] * ce["N"]
    assert (ce["reported"], ce["compulsory"]) == (implied, ce["K"] * ce["N"])
    assert ce["Tk"] < ce["K"]          # the trap needs more than one K tile


def test_seed_ws_reuse_on_the_seeds_deep_k_case():
    """(1, 512, 4096) in (1, 512, 32) tiles: 128 K tiles, reuse_B = 1·128, so the seed's
    factor implies 512·32 = 16,384 elements of B against 4096·512 = 2,097,152."""
    seed = df.SeedReuse(df.Schedule("ws", (1, 512, 4096), (1, 512, 32)))
    assert seed.implied_dram("B") == 512 * 32
    result = df.check_meets_compulsory(seed, "B")
    assert result.refuted and result.counterexample == {"reported": 16384, "compulsory": 2097152}
    exact = df.traffic(seed.schedule)
    assert exact.get("dram", "B", "read") == 4096 * 512


def test_seed_os_reuse_and_ws_c_reuse_are_sound():
    os_model = df.SeedReuse(df.Schedule("os", (M, N, K), (Ti, Tj, Tk)))
    assert df.check_meets_compulsory(os_model).proved
    ws = df.SeedReuse(df.Schedule("ws", (M, N, K), (Ti, Tj, Tk)))
    assert df.check_meets_compulsory(ws, "C").proved


def test_seed_has_no_input_stationary_model():
    with pytest.raises(df.DataflowError, match="'os' and 'ws' only"):
        df.SeedReuse(df.Schedule("is", (4, 4, 4), (2, 2, 2)))


# -- Z3 vs enumeration ------------------------------------------------------------------


@st.composite
def seed_models(draw):
    schedule = draw(small_schedules(max_dim=40))
    if schedule.dataflow == "is":
        schedule = df.Schedule("ws", schedule.problem, schedule.tiles)
    return df.SeedReuse(schedule, array_cols=draw(st.integers(1, 8)))


@given(st.one_of(small_schedules(max_dim=6), seed_models()),
       st.sampled_from([None, "A", "B", "C"]))
def test_meets_compulsory_z3_agrees_with_enumeration(subject, operand):
    agree(df.check_meets_compulsory(subject, operand),
          brute.check_meets_compulsory(subject, operand))


@given(small_schedules(max_dim=6))
def test_stationary_once_z3_agrees_with_enumeration(schedule):
    agree(df.check_stationary_once(schedule), brute.check_stationary_once(schedule))


@given(small_schedules(max_dim=5), small_schedules(max_dim=5), st.sampled_from("ABC"),
       st.integers(1, 3))
def test_energy_and_reuse_comparisons_agree_with_simulation(first, second, operand, factor):
    other = df.Schedule(second.dataflow, first.problem,
                        tuple(min(t, d) for t, d in zip(second.tiles, first.problem)),
                        element_bytes=first.element_bytes)
    agree_exact = [
        (df.check_energy_below(first, other), brute.check_energy_below(first, other)),
        (df.check_reuse_above(first, other, operand, factor),
         brute.check_reuse_above(first, other, operand, factor)),
    ]
    for exact, enumerated in agree_exact:
        assert exact.status is enumerated.status, (exact, enumerated)
