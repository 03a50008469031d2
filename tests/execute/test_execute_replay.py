"""Replays: a refuted check's counterexample run on the machine shows the failure."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.execute import MachineError, replay, replay_channel_conflict
from layoutalg.runner.prover import discover
from layoutalg.verify import brute


def known_bad(name: str):
    (found,) = [f for f in discover(["specs/known_bad.py"]) if f.spec.name == name]
    return found.spec.build()


def test_overlapping_rows_show_the_overwritten_value():
    """(16,8):(1,8): element i sits at i%16 + 8·(i//16), so i and i + 8 share a
    slot whenever i%16 ≥ 8 … the replay must show one value replacing the other."""
    m = known_bad("overlapping_rows")
    result = la.check_injective(m)
    r = replay(result, m)
    x, y = result.counterexample["i"], result.counterexample["i'"]
    assert m(x) == m(y)
    assert r.happened
    vx, vy = r.values["written"]
    assert (vx, vy) == (x + 1, y + 1)                 # values are position + 1
    read = r.values["read"]
    assert read[0] == read[1] and read[0] in (vx, vy)  # both read the last writer
    # elements sharing a slot with another, counted by enumeration
    slots = [m(i)[0] for i in range(128)]
    shared = sum(slots.count(s) > 1 for s in slots)
    distinct_shared = len({s for s in slots if slots.count(s) > 1})
    assert shared - distinct_shared <= r.values["lost"] <= shared
    assert "its value was overwritten" in r.summary


@st.composite
def colliding_layouts(draw):
    """CuTe layouts with small random strides (stride 0 included): most collide."""
    sizes = draw(st.lists(st.integers(2, 6), min_size=2, max_size=3))
    strides = draw(st.lists(st.integers(0, 4), min_size=len(sizes), max_size=len(sizes)))
    return la.strided(tuple(sizes), tuple(strides))


@given(colliding_layouts())
def test_every_collision_the_check_finds_is_a_collision_on_the_machine(m):
    result = brute.check_injective(m)    # the enumeration twin: same verdict shape, faster
    assume(result.refuted)
    r = replay(result, m)
    assert r.happened
    assert r.values["read"][0] == r.values["read"][1]


def test_floor_division_tiles_land_off_the_machine():
    m = known_bad("floor_division_tiles")
    r = replay(la.check_in_bounds(m), m)
    assert r.happened
    assert "(pe_row=32, pe_col=0, offset=0)" in r.summary
    assert "outside the codomain's pe_row range [0, 32)" in r.lines[0]


def test_a_tile_too_big_for_its_memory_stops_placement():
    m = known_bad("tile_overflows_memory")
    result = la.check_fits(m, 1024, element_bytes=4, offsets_in_bytes=True)
    r = replay(result, m, element_bytes=4, offsets_in_bytes=True)
    assert r.happened
    assert r.summary == "placing stops: the layout exceeds memory: 16384 > 1024 bytes"


def test_a_hole_still_holds_the_fill_after_placing():
    m = known_bad("strided_with_holes")   # (4,4):(1,8): offsets 4..7, 12..15, … are empty
    result = la.check_bijective(m)
    r = replay(result, m)
    slot = r.values["slot"][0]
    assert slot % 8 >= 4
    assert r.happened and r.values["held"] == -1


def test_a_round_robin_conflict_doubles_the_step():
    """Round robin deals whole tiles: A[0,0] is tile 0 and B[0,0] tile m·k = 256,
    both on channel 0 of 4, so the first step streams 2 × 256 beats through one channel."""
    layout = la.channel.ChannelLayout("round_robin", num_channels=4, m_tiles=16, n_tiles=16,
                                      k_tiles=16, tile_bytes=16384)
    result = la.channel.check_conflict_free(layout)
    r = replay(result, layout)
    assert r.happened
    assert r.values["step"] == {"ti": 0, "tj": 0, "tk": 0}
    assert (r.values["cycles"], r.values["ideal"]) == (2 * 256, 256)
    assert "both request channel 0" in r.summary


def test_a_conflict_free_step_streams_in_the_ideal_time():
    layout = la.channel.ChannelLayout("iteration_aware", num_channels=4, m_tiles=4, n_tiles=4,
                                      k_tiles=4, tile_bytes=1024)
    fake = la.CheckResult(la.Status.REFUTED, "conflict_free", "probe",
                          counterexample={"ti": 1, "tj": 2, "tk": 3})
    r = replay_channel_conflict(fake, layout)
    assert not r.happened
    assert r.values["cycles"] == r.values["ideal"] == 1024 // 64


@pytest.mark.parametrize("call, message", [
    (lambda: replay(la.check_injective(la.strided(4, 1)), la.strided(4, 1)),
     r"replay: result must be a REFUTED CheckResult; got PROVED"),
    (lambda: replay("refuted", la.strided(4, 1)), r"replay: result must be a REFUTED CheckResult"),
    (lambda: replay(la.check_injective(la.strided((2, 2), (1, 0))), 42),
     r"replay: subject must be an IndexMap or have .index_map\(\); got 42"),
    (lambda: replay(la.CheckResult(la.Status.REFUTED, "conflict_free", "x",
                                   counterexample={"ti": 0}), la.strided(4, 1)),
     r"replay: a conflict_free result replays on the ChannelLayout it checked"),
    (lambda: replay(la.CheckResult(la.Status.REFUTED, "equivalent", "x", counterexample={}),
                    la.strided(4, 1)), r"replay: no replay for check 'equivalent'"),
])
def test_bad_replays_are_refused_with_the_rule(call, message):
    with pytest.raises(MachineError, match=message):
        call()


def test_the_replay_text_reads_as_a_story():
    m = known_bad("overlapping_rows")
    text = str(replay(la.check_injective(m), m))
    assert text.splitlines()[0].startswith("collision on one memory of")
    assert "read back a value that is not theirs" in text
    assert np.all([line.startswith("  ") for line in text.splitlines()[1:]])
