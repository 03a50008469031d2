"""Systolic cycles (SCALE-Sim) against hand-computed figures and a per-step sum."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_dataflow_reuse import small_schedules

import layoutalg as la

df = la.dataflow


@pytest.mark.parametrize("shape, dataflow, rows, cols, cycles", [
    # OS maps (Sr, Sc, T) = (M, N, K): one fold of R + C + T − 2
    ((16, 16, 100), "os", 16, 16, 16 + 16 + 100 - 2),
    # two folds along M
    ((32, 16, 100), "os", 16, 16, 2 * (16 + 16 + 100 - 2)),
    # edge folds cost a whole fold: ⌈10/8⌉·⌈10/4⌉ = 6 folds of 8 + 4 + 5 − 2
    ((10, 10, 5), "os", 8, 4, 6 * 15),
    # WS maps (K, N, M): Sr = 32 → 2 folds of 2·16 + 16 + 64 − 2
    ((64, 16, 32), "ws", 16, 16, 2 * 110),
    # IS maps (K, M, N): ⌈32/16⌉·⌈64/16⌉ = 8 folds of 2·16 + 16 + 16 − 2
    ((64, 16, 32), "is", 16, 16, 8 * 62),
    # a 1×1 array is a single MAC unit: WS on (1, 1, 1) is 2 + 1 + 1 − 2
    ((1, 1, 1), "ws", 1, 1, 2),
    # the seed's batch case in one step on 16×16: OS 16·4 folds of 94
    ((256, 64, 64), "os", 16, 16, 64 * 94),
])
def test_hand_computed_cycles(shape, dataflow, rows, cols, cycles):
    assert df.systolic_cycles(shape, dataflow, rows=rows, cols=cols) == cycles


def test_scale_sim_mapping_table():
    from layoutalg.dataflow.systolic import mapping

    assert mapping("os", (2, 3, 5)) == (2, 3, 5)
    assert mapping("ws", (2, 3, 5)) == (5, 3, 2)
    assert mapping("is", (2, 3, 5)) == (5, 2, 3)


@given(small_schedules(max_dim=9), st.integers(1, 4), st.integers(1, 4))
def test_schedule_cycles_sum_the_cycles_of_every_step(schedule, rows, cols):
    total = 0
    for step in df.loop_nest(schedule):
        shape = tuple(min(t, d - i * t) for i, t, d in
                      zip((step.ti, step.tj, step.tk), schedule.tiles, schedule.problem))
        total += df.systolic_cycles(shape, schedule.dataflow, rows=rows, cols=cols)
    assert df.schedule_cycles(schedule, rows=rows, cols=cols) == total


@pytest.mark.parametrize("call, message", [
    (lambda: df.systolic_cycles((4, 4, 4), "rs"),
     "systolic_cycles: dataflow must be one of ('os', 'ws', 'is'); got 'rs'"),
    (lambda: df.systolic_cycles((4, 0, 4), "os"),
     "systolic_cycles: shape N must be a positive int; got 0"),
    (lambda: df.systolic_cycles((4, 4, 4), "os", rows=0),
     "systolic_cycles: rows must be a positive int; got 0"),
    (lambda: df.systolic_cycles((4, 4), "os"),
     "systolic_cycles: shape must be a tuple ('M', 'N', 'K'); got (4, 4)"),
])
def test_bad_input(call, message):
    with pytest.raises(df.DataflowError) as info:
        call()
    assert str(info.value) == message
