"""No model moves less than the compulsory traffic: proved by Z3, property-tested,
and the Z3 checks agree with their enumeration twins.

The compulsory traffic is what any schedule must move across DRAM at least
once: read A (M·K) and B (K·N), write C (M·N), times the element size.

Agreement between Z3 and a twin is not the truth when both read the same
formulas, so each differential test also states the verdict from plain ints:
schedules by ``reference_counts`` (the element-level loop nest of
``test_dataflow_reuse``), the seed's model by its reuse table (seed 004) typed
out below.
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_dataflow_reuse import reference_counts, small_schedules

import layoutalg as la
from oracles import dataflow as brute
from layoutalg.verify.result import CheckResult, Status
from agreement import agree

df = la.dataflow
M, N, K, Ti, Tj, Tk = la.extents("M N K Ti Tj Tk")
# Proofs over symbolic sizes answer in well under a second on a quiet machine; a
# timeout would make them UNKNOWN (a failure), so they get room for a loaded one.
PROOF_MS = 60_000


# -- the theorem, for every size -----------------------------------------------------


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_every_schedule_meets_the_compulsory_traffic(dataflow):
    result = df.check_meets_compulsory(df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk)),
                                       timeout_ms=PROOF_MS)
    assert result.status is Status.PROVED, result
    assert "for every size" in result.reason


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_the_total_dram_bytes_bound(dataflow):
    """The brief's form: DRAM bytes ≥ element_bytes·(MK + KN + MN), asked of Z3 directly."""
    from layoutalg.verify.z3_backend import solver

    t = df.traffic(df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk), element_bytes=2))
    below = sympy.Lt(t.dram_bytes, 2 * (M * K + K * N + M * N), evaluate=False)
    outcome = solver.solve([], [below], parameters=[M, N, K, Ti, Tj, Tk],
                           assumptions=[sympy.Le(Ti, M), sympy.Le(Tj, N), sympy.Le(Tk, K)],
                           timeout_ms=PROOF_MS)
    assert outcome.answer == "unsat", outcome


@pytest.mark.parametrize("dataflow", df.DATAFLOWS)
def test_z3_proves_the_stationary_operand_crosses_dram_once(dataflow):
    schedule = df.Schedule(dataflow, (M, N, K), (Ti, Tj, Tk))
    assert df.check_stationary_once(schedule, timeout_ms=PROOF_MS).proved


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
                                       "B", timeout_ms=PROOF_MS)
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
    assert df.check_meets_compulsory(os_model, timeout_ms=PROOF_MS).proved
    ws = df.SeedReuse(df.Schedule("ws", (M, N, K), (Ti, Tj, Tk)))
    assert df.check_meets_compulsory(ws, "C", timeout_ms=PROOF_MS).proved


def test_seed_has_no_input_stationary_model():
    with pytest.raises(df.DataflowError, match="'os' and 'ws' only"):
        df.SeedReuse(df.Schedule("is", (4, 4, 4), (2, 2, 2)))


# -- Z3 vs enumeration ------------------------------------------------------------------

COSTS = {"dram": 200, "l2": 6, "array": 2, "register": 1, "mac": 1}  # Eyeriss, DESIGN §3.5


def ceil(a, b):
    return -(-a // b)


def seed_reuse(dataflow, problem, tiles, array_cols) -> dict:
    """Seed 004's reuse factors: OS A ⌈N/Tj⌉, B ⌈M/Ti⌉, C ⌈K/Tk⌉;
    WS A ⌈Tj/systolic_cols⌉, B ⌈M/Ti⌉·⌈K/Tk⌉, C ⌈K/Tk⌉."""
    (m, n, k), (ti, tj, tk) = problem, tiles
    if dataflow == "os":
        return {"A": ceil(n, tj), "B": ceil(m, ti), "C": ceil(k, tk)}
    return {"A": ceil(tj, array_cols), "B": ceil(m, ti) * ceil(k, tk), "C": ceil(k, tk)}


def seed_meets_compulsory(model, operand) -> bool:
    """The seed implies uses / reuse DRAM elements, uses = one full tile per step."""
    (m, n, k), (ti, tj, tk) = model.schedule.problem, model.schedule.tiles
    steps = ceil(m, ti) * ceil(n, tj) * ceil(k, tk)
    tile = {"A": ti * tk, "B": tk * tj, "C": ti * tj}
    whole = {"A": m * k, "B": k * n, "C": m * n}
    reuse = seed_reuse(model.schedule.dataflow, (m, n, k), (ti, tj, tk), model.array_cols)
    return all(steps * tile[x] >= whole[x] * reuse[x] for x in (operand or "ABC"))


def dram_moved(counts, operand) -> int:
    return sum(v for (level, x, _), v in counts.items() if level == "dram" and x == operand)


def reference_energy(schedule) -> int:
    counts = reference_counts(schedule.dataflow, schedule.problem, schedule.tiles)
    return sum(v * COSTS[level] for (level, _, _), v in counts.items())


@st.composite
def seed_models(draw):
    schedule = draw(small_schedules(max_dim=40))
    if schedule.dataflow == "is":
        schedule = df.Schedule("ws", schedule.problem, schedule.tiles)
    return df.SeedReuse(schedule, array_cols=draw(st.integers(1, 8)))


@given(st.one_of(small_schedules(max_dim=6), seed_models()),
       st.sampled_from([None, "A", "B", "C"]))
def test_meets_compulsory_z3_agrees_with_enumeration(subject, operand):
    verdict = df.check_meets_compulsory(subject, operand)
    agree(verdict, brute.check_meets_compulsory(subject, operand))
    if isinstance(subject, df.SeedReuse):
        assert verdict.proved is seed_meets_compulsory(subject, operand), verdict
    else:  # a real schedule moves each operand across DRAM at least once
        (m, n, k) = subject.problem
        counts = reference_counts(subject.dataflow, subject.problem, subject.tiles)
        assert counts["dram", "A", "read"] >= m * k and counts["dram", "B", "read"] >= k * n
        assert counts["dram", "C", "write"] >= m * n
        assert verdict.proved, verdict


@given(small_schedules(max_dim=6))
def test_stationary_once_z3_agrees_with_enumeration(schedule):
    verdict = df.check_stationary_once(schedule)
    agree(verdict, brute.check_stationary_once(schedule))
    (m, n, k) = schedule.problem
    counts = reference_counts(schedule.dataflow, schedule.problem, schedule.tiles)
    x = {"os": "C", "ws": "B", "is": "A"}[schedule.dataflow]   # the operand kept in the PEs
    if x == "C":
        once = counts["dram", "C", "read"] == 0 and counts["dram", "C", "write"] == m * n
    else:
        once = counts["dram", x, "read"] == {"A": m * k, "B": k * n}[x]
    assert once  # the truth, by the element-level loop nest
    assert verdict.proved, verdict


@given(small_schedules(max_dim=5), small_schedules(max_dim=5), st.sampled_from("ABC"),
       st.integers(1, 3))
def test_energy_and_reuse_comparisons_agree_with_simulation(first, second, operand, factor):
    other = df.Schedule(second.dataflow, first.problem,
                        tuple(min(t, d) for t, d in zip(second.tiles, first.problem)),
                        element_bytes=first.element_bytes)
    mine, theirs = (reference_counts(s.dataflow, s.problem, s.tiles) for s in (first, other))
    agree_exact = [
        (df.check_energy_below(first, other), brute.check_energy_below(first, other),
         reference_energy(first) < reference_energy(other)),
        (df.check_reuse_above(first, other, operand, factor),
         brute.check_reuse_above(first, other, operand, factor),
         dram_moved(theirs, operand) > factor * dram_moved(mine, operand)),
    ]
    for exact, enumerated, truth in agree_exact:
        assert exact.status is enumerated.status, (exact, enumerated)
        assert exact.proved is truth, exact
