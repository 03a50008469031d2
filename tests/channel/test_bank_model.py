"""The bank model: phases, access widths, reads and writes; Z3 against its enumeration twin.

Pinned degrees are hand-computed from NVIDIA's rules (32 banks of 4 bytes;
64-bit accesses in 2 phases of 16 lanes, 128-bit in 4 phases of 8; one word
read by several lanes is broadcast) — see layoutalg/channel/bank_model.py
for the sources — never read off the implementation.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
import bank_twins
from layoutalg.channel import bank_brute
from layoutalg.channel.bank_model import NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT, BankModel
from layoutalg.channel.banks import check_bank_conflicts, worst_bank_conflict
from layoutalg.errors import SwizzleError
from layoutalg.channel.swizzle import Swizzle

SRAM = BankModel(broadcast=False, merge_writes=False)  # no multicast, no write merging

# (what, model, op, address of lane t, degree worked out by hand)
PINNED = [
    ("floats, consecutive", NVIDIA_32BIT, "read", lambda t: 4 * t, 1),
    ("floats, stride 2 words", NVIDIA_32BIT, "read", lambda t: 8 * t, 2),
    ("float column of a 32 x 32 tile", NVIDIA_32BIT, "read", lambda t: 128 * t, 32),
    ("float column, rows padded to 33", NVIDIA_32BIT, "read", lambda t: 132 * t, 1),
    ("every lane reads word 0 (broadcast)", NVIDIA_32BIT, "read", lambda t: 0, 1),
    ("every lane writes word 0 (one wins)", NVIDIA_32BIT, "write", lambda t: 0, 1),
    ("word 0 on an SRAM without multicast", SRAM, "read", lambda t: 0, 32),
    ("word 0 written, writes not merged", SRAM, "write", lambda t: 0, 32),
    ("halves, consecutive (pairs share a word)", BankModel(access_bytes=2), "read",
     lambda t: 2 * t, 1),
    ("doubles, consecutive (16 lanes a phase)", NVIDIA_64BIT, "read", lambda t: 8 * t, 1),
    ("doubles, stride 2", NVIDIA_64BIT, "read", lambda t: 16 * t, 2),
    ("float4, consecutive (8 lanes a phase)", NVIDIA_128BIT, "read", lambda t: 16 * t, 1),
    ("float4, stride 2", NVIDIA_128BIT, "read", lambda t: 32 * t, 2),
    ("float4 column of 128-byte rows", NVIDIA_128BIT, "read", lambda t: 128 * t, 8),
]


def lanes_map(address, lanes: int = 32) -> la.IndexMap:
    space = la.Space(step=1, thread=lanes)
    step, thread = space.symbols
    top = max(address(t) for t in range(lanes)) + 16
    return la.IndexMap(space, la.Space(addr=top), [address(thread) + 0 * step], name="access")


def test_phases_follow_the_access_width():
    assert [m.lanes_per_phase for m in (NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT)] == [32, 16, 8]
    assert [m.phases for m in (NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT)] == [1, 2, 4]
    assert BankModel(access_bytes=1).lanes_per_phase == 32


@pytest.mark.parametrize("what, model, op, address, degree", PINNED, ids=[p[0] for p in PINNED])
def test_pinned_degrees_enumeration(what, model, op, address, degree):
    assert bank_brute.phase_degree([address(t) for t in range(32)][:model.lanes_per_phase],
                                   model, op)[0] == degree
    table = np.array([[address(t) for t in range(32)]])
    assert bank_twins.worst_conflict(table, (1,), model, op).degree == degree


@pytest.mark.parametrize("what, model, op, address, degree", PINNED, ids=[p[0] for p in PINNED])
def test_pinned_degrees_z3(what, model, op, address, degree):
    access = lanes_map(address)
    assert check_bank_conflicts(access, model, op=op, max_degree=degree).proved
    if degree > 1:
        refuted = check_bank_conflicts(access, model, op=op, max_degree=degree - 1)
        assert refuted.refuted
        assert refuted.counterexample["degree"] == degree
        t, u = refuted.counterexample["thread"], refuted.counterexample["thread'"]
        assert t // model.lanes_per_phase == u // model.lanes_per_phase
        assert address(t) // model.unit % model.groups == address(u) // model.unit % model.groups
        assert f"{degree}-way conflict" in refuted.reason


@pytest.mark.parametrize("what, model, op, address, degree", PINNED, ids=[p[0] for p in PINNED])
def test_worst_degree_is_found_exactly(what, model, op, address, degree):
    result = worst_bank_conflict(lanes_map(address), model, op=op)
    assert result.proved and result.counterexample["degree"] == degree


def test_misaligned_access_is_refuted_first():
    access = lanes_map(lambda t: 4 * t + 2)
    result = check_bank_conflicts(access, NVIDIA_32BIT)
    assert result.refuted and "not a multiple of the 4-byte access" in result.reason
    assert result.counterexample["address"] % 4 == 2
    assert bank_twins.check_bank_conflicts(access, NVIDIA_32BIT).refuted


@pytest.mark.parametrize("build, message", [
    (lambda: BankModel(num_banks=24), "BankModel: num_banks must be a power of two; got 24"),
    (lambda: BankModel(access_bytes=256),
     "BankModel: access_bytes must be at most num_banks * bank_bytes = 128; got 256"),
    (lambda: BankModel(access_bytes=16, warp=20),
     "BankModel: warp must be a multiple of the 8 lanes of a phase; got 20"),
    (lambda: BankModel(broadcast="yes"), "BankModel: broadcast must be True or False; got 'yes'"),
    (lambda: BankModel(bank_bytes=0), "BankModel: bank_bytes must be a power of two; got 0"),
    (lambda: check_bank_conflicts(lanes_map(lambda t: 4 * t), op="load"),
     "op must be one of ('read', 'write'); got 'load'"),
    (lambda: check_bank_conflicts(lanes_map(lambda t: 4 * t), max_degree=0),
     "check_bank_conflicts: max_degree must be an int in [1, 32]; got 0"),
    (lambda: check_bank_conflicts(lanes_map(lambda t: 4 * t), lane="lane"),
     "check_bank_conflicts: lane must name a dim of the access domain ('step', 'thread'); "
     "got 'lane'"),
])
def test_bad_input_gets_one_clear_error(build, message):
    with pytest.raises(SwizzleError) as info:
        build()
    assert str(info.value) == message


MODELS = [NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT, SRAM, BankModel(num_banks=16, access_bytes=8),
          BankModel(access_bytes=2)]


@settings(max_examples=20, deadline=None)
@given(model=st.sampled_from(MODELS), op=st.sampled_from(["read", "write"]),
       a=st.integers(0, 40), b=st.integers(0, 9), c=st.integers(0, 7),
       swizzle=st.sampled_from([None, Swizzle(3, 4, 3), Swizzle(2, 4, 3), Swizzle(5, 2, 5)]),
       lanes=st.sampled_from([8, 16, 32]), steps=st.integers(1, 3),
       degree=st.integers(1, 4))
def test_z3_agrees_with_enumeration(model, op, a, b, c, swizzle, lanes, steps, degree):
    """Random aligned affine maps (optionally swizzled): Z3's verdict is the twin's."""
    if lanes % model.lanes_per_phase and lanes > model.lanes_per_phase:
        return
    v = model.access_bytes
    space = la.Space(step=steps, thread=lanes)
    step, thread = space.symbols
    plain = v * (a * thread + b * step + c)
    address = plain if swizzle is None else swizzle.expr(plain)
    top = v * (a * lanes + b * steps + c) + 4096
    access = la.IndexMap(space, la.Space(addr=top), [address], name="random access")
    z3_result = check_bank_conflicts(access, model, op=op, max_degree=degree)
    # the twin's addresses: Python's own operators, not the SymPy expression
    table = np.array([[v * (a * t + b * s + c) for t in range(lanes)] for s in range(steps)])
    if swizzle is not None:
        table = swizzle(table)
    worst = bank_twins.worst_conflict(table, (steps,), model, op)
    aligned = not (table % v).any()  # a swizzle with M below log2(V) can misalign
    assert z3_result.proved == (aligned and worst.degree <= degree), z3_result.reason
    if z3_result.refuted and aligned:
        assert z3_result.counterexample["degree"] > degree
        assert z3_result.counterexample["degree"] <= worst.degree
    twin = bank_twins.check_bank_conflicts(access, model, op=op, max_degree=degree)
    assert twin.status == z3_result.status
