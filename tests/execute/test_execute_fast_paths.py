"""The executor's fast paths change no result and no count (issue 17 item 6).

SUMMA runs PE row by PE row, optionally on ``workers`` threads, and counts
in closed form; KPU runs of one schedule share its tables and reuse a
finished run's DRAM. Here: a SUMMA run worked by hand, the same C (bit for
bit) and counters for every ``workers``, back-to-back and concurrent KPU runs
each giving its own exact product, and the bad ``workers`` values refused.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.execute import Hierarchy, Machine, MachineError, Messages, matmul


def integers(shape, seed):
    return np.random.default_rng(seed).integers(-8, 9, shape).astype(np.float32)


def test_summa_counts_worked_by_hand():
    """M, N, K = 3, 2, 3 in tiles (2, 1, 2): 2×2 PEs, PE rows of heights 2 and 1,
    PE columns of width 1, two steps of depths 2 and 1; fp32 (4 B).

    A: at each step each PE row sends its A tile to the one other PE of the
    row, one hop away: 2·2·4 = 16 B and 1·2·4 = 8 B at step 0, 8 B and 4 B at
    step 1 — 4 messages, 36 B, 4 + 2 + 2 + 1 = 9 wavelets, 4 hops.
    B: each PE column's B tile goes one hop down (up): 1·2·4 = 8 B twice,
    then 4 B twice — 4 messages, 24 B, 6 wavelets, 4 hops.
    SRAM (elements): receivers store A 6 + 3 = 9 and B 4 + 2 = 6; every PE
    reads its A and B tiles: A 2·9 = 18, B 2·6 = 12; C is written at both
    steps (2·6 = 12) and read at the second only (6).
    """
    a, b = integers((3, 3), 0), integers((3, 2), 1)
    c, counters = matmul(a, b, dataflow="summa", tiles=(2, 1, 2))
    assert np.array_equal(c, a @ b)
    assert counters.message("A") == Messages(4, 36, 9, 4, 36, 9)
    assert counters.message("B") == Messages(4, 24, 6, 4, 24, 6)
    assert dict(counters.accesses) == {
        ("sram", "A", "write"): 9, ("sram", "B", "write"): 6,
        ("sram", "A", "read"): 18, ("sram", "B", "read"): 12,
        ("sram", "C", "read"): 6, ("sram", "C", "write"): 12}
    assert (counters.macs, counters.steps) == (18, 2)


def test_one_step_summa_still_names_c_reads_with_zero():
    _, counters = matmul(np.ones((2, 2)), np.ones((2, 2)), dataflow="summa", tiles=(1, 1, 2))
    assert dict(counters.accesses)["sram", "C", "read"] == 0
    assert counters.message("A").count == 2 and counters.message("B").count == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20), st.integers(1, 20), st.integers(1, 6),
       st.integers(0, 2**16), st.data())
def test_summa_gives_the_same_c_bit_for_bit_and_counts_for_any_workers(M, N, K, workers, seed,
                                                                       data):
    tiles = tuple(data.draw(st.integers(1, d)) for d in (M, N, K))
    a = np.random.default_rng(seed).standard_normal((M, K)).astype(np.float32)
    b = np.random.default_rng(seed + 1).standard_normal((K, N)).astype(np.float32)
    c1, n1 = matmul(a, b, dataflow="summa", tiles=tiles)
    c2, n2 = matmul(a, b, dataflow="summa", tiles=tiles, workers=workers)
    assert c1.tobytes() == c2.tobytes()
    assert n1 == n2


def test_summa_on_a_reused_mesh_forgets_the_last_product():
    mesh = Machine.wse(3, 2, sram_bytes=4096)
    for seed in range(3):
        a, b = integers((7, 5), seed), integers((5, 4), seed + 10)
        c, _ = matmul(a, b, dataflow="summa", tiles=(3, 2, 2), machine=mesh, workers=2)
        assert np.array_equal(c, a @ b)


@pytest.mark.parametrize("dataflow, tiles", [("os", (4, 3, 5)), ("ws", (5, 4, 3)),
                                             ("is", (3, 5, 4))])
def test_back_to_back_kpu_runs_each_give_their_own_product_and_the_same_counts(dataflow, tiles):
    hierarchy = Hierarchy(channels=3, channel_option="round_robin", interleave=16)
    first = None
    for seed in range(4):
        a, b = integers((11, 9), seed), integers((9, 13), seed + 100)
        c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=hierarchy)
        assert np.array_equal(c, a @ b)
        schedule = la.dataflow.Schedule(dataflow, (11, 13, 9), tiles, element_bytes=4)
        assert counters.traffic() == la.dataflow.traffic(schedule)
        first = counters if first is None else first
        assert counters == first


def test_concurrent_kpu_runs_of_one_schedule_do_not_share_memory():
    hierarchy = Hierarchy(channels=4, l2_bytes=1 << 16, register_bytes=1 << 14)

    def run(seed):
        a, b = integers((40, 24), seed), integers((24, 32), seed + 1)
        c, _ = matmul(a, b, dataflow="os", tiles=(8, 8, 8), machine=hierarchy)
        return np.array_equal(c, a @ b)

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(run, range(24)))


@pytest.mark.parametrize("workers, dataflow, message", [
    (0, "summa", r"^matmul: workers must be a positive int; got 0"),
    (True, "summa", r"^matmul: workers must be a positive int; got True"),
    (1.0, "summa", r"^matmul: workers must be a positive int; got 1\.0"),
    (2, "os", r"^matmul: workers must be 1 for dataflow 'os' .*; got 2"),
])
def test_bad_workers_are_refused_with_the_rule(workers, dataflow, message):
    with pytest.raises(MachineError, match=message):
        matmul(np.ones((2, 2)), np.ones((2, 2)), dataflow=dataflow, tiles=(1, 1, 1),
               workers=workers)
