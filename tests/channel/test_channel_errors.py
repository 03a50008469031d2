"""Bad input to the channel family: each raises a LayoutError whose message names
the argument, states the rule and shows the value."""

from __future__ import annotations

import re

import pytest

import layoutalg as la
from layoutalg.channel import (
    Banks,
    ByRange,
    ChannelError,
    ChannelLayout,
    Interleave,
    Swizzle,
    SwizzleError,
    channel_load,
    check_bank_conflict_free,
    check_channel_totals,
    check_conflict_free,
    check_fits,
    check_load_balance,
)
from layoutalg.errors import VerificationError
from oracles import channel as brute

H, M = la.extents("H M")
GOOD = {"num_channels": 4, "m_tiles": 2, "n_tiles": 2, "k_tiles": 2, "tile_bytes": 256}


def layout(option="iteration_aware", **changes):
    return ChannelLayout(option, **{**GOOD, **changes})


LAYOUTS = [
    (dict(option="interleaved"), "option must be one of ('matrix', 'round_robin', "
     "'iteration_aware', 'hardware'); got 'interleaved'"),
    (dict(num_channels=0), "num_channels must be a positive int; got 0"),
    (dict(num_channels=True), "num_channels must be a positive int or a positive integer "
     "symbol; got True"),
    (dict(num_channels="4"), "num_channels must be a positive int or a positive integer "
     "symbol (declare it with layoutalg.extents); got '4'"),
    (dict(m_tiles=-1), "m_tiles must be a positive int; got -1"),
    (dict(k_tiles=2.0), "k_tiles must be a positive int or a positive integer symbol "
     "(declare it with layoutalg.extents); got 2.0"),
    (dict(tile_bytes=0), "tile_bytes must be a positive int; got 0"),
    (dict(interleave=-64), "interleave must be a positive int; got -64"),
    (dict(tile_bytes=100), "tile_bytes must be a multiple of interleave (64), so a tile "
     "streams as whole beats; got tile_bytes=100"),
    (dict(num_channels=5), "num_channels must be even for option 'iteration_aware' (A on even, "
     "B on odd channels; for a symbolic even count pass 2*H); got 5"),
    (dict(option="hardware", num_channels=H), "num_channels must be even for option "
     "'hardware' (A on even, B on odd channels; for a symbolic even count pass 2*H); got H"),
    (dict(option="matrix", num_channels=2), "num_channels must be an int of at least 3 for "
     "option 'matrix' (one channel group per matrix A, B, C); got 2"),
    (dict(option="matrix", num_channels=H), "num_channels must be an int of at least 3 for "
     "option 'matrix' (one channel group per matrix A, B, C); got H"),
    (dict(channel_bytes=1000), "channel_bytes must be a multiple of tile_bytes (256) for option "
     "'iteration_aware', whose channels hold whole tiles; got 1000"),
    (dict(option="round_robin", channel_bytes=0), "channel_bytes must be a positive int; got 0"),
    (dict(name=7), "name must be a string; got 7"),
]


@pytest.mark.parametrize("changes, message", LAYOUTS)
def test_bad_layouts(changes, message):
    changes = dict(changes)
    option = changes.pop("option", "iteration_aware")
    with pytest.raises(ChannelError, match=re.escape(f"ChannelLayout: {message}")):
        layout(option, **changes)


LOOKUPS = [
    (lambda lay: lay.channel("D", 0, 0, 0), "matrix must be one of ('A', 'B', 'C'); got 'D'"),
    (lambda lay: lay.address("A", 2, 0, 0), "ti must lie in [0, 2); got 2"),
    (lambda lay: lay.address("B", 0, -1, 0), "tj must lie in [0, 2); got -1"),
    (lambda lay: lay.channel("C", 0, 0, 1.5), "tk must be an int; got 1.5"),
    (lambda lay: lay.tile_extents("X"), "matrix must be one of ('A', 'B', 'C'); got 'X'"),
    (lambda lay: lay.bind(Q=1), "bind: ['Q'] are not parameters of"),
]


@pytest.mark.parametrize("call, message", LOOKUPS)
def test_bad_lookups(call, message):
    with pytest.raises(ChannelError, match=re.escape(message)):
        call(layout())


def test_symbolic_layouts_need_binding():
    lay = layout(num_channels=2 * H, m_tiles=M)
    with pytest.raises(ChannelError, match=r"has symbolic sizes \['H', 'M'\]; bind them"):
        lay.address("A", 0, 0, 0)
    with pytest.raises(ChannelError, match=r"channel_load counts a concrete layout"):
        channel_load(lay)
    with pytest.raises(VerificationError, match="enumerates concrete layouts"):
        brute.check_fits(lay)
    with pytest.raises(ChannelError, match=r"bind: H must be a positive int; got 0"):
        lay.bind(H=0, M=1)


def test_interleaved_options_have_no_designed_channel():
    with pytest.raises(ChannelError, match="designed: option 'hardware' decodes by interleave"):
        layout("hardware").designed("A", 0, 0)


CHECKS = [
    (lambda: check_conflict_free("not a layout"), "check_conflict_free: layout must be a "
     "ChannelLayout; got 'not a layout'"),
    (lambda: check_conflict_free(layout(), dataflow="rs"), "dataflow must be one of ('os', "
     "'ws', 'is') or a tuple of matrix names; got 'rs'"),
    (lambda: check_conflict_free(layout(), dataflow=("A", "A")), "dataflow must be one of "
     "('os', 'ws', 'is') or a tuple of at least two distinct names from ('A', 'B', 'C'); "
     "got ('A', 'A')"),
    (lambda: check_conflict_free(layout(), dataflow=("A",)), "a tuple of at least two "
     "distinct names"),
    (lambda: check_conflict_free(layout(), grain="word"), "grain must be one of ('tile', "
     "'beat', 'footprint'); got 'word'"),
    (lambda: check_fits(layout(), 0), "check_fits: capacity must be a positive number of "
     "bytes; got 0"),
    (lambda: check_fits(None), "check_fits: layout must be a ChannelLayout; got None"),
    (lambda: check_channel_totals(layout(), {}), "totals must map channels to bytes or "
     "(low, high) pairs; got {}"),
    (lambda: check_channel_totals(layout(), {-1: 5}), "totals: channel must be an int >= 0; "
     "got -1"),
    (lambda: check_channel_totals(layout(), {0: (9, 3)}), "totals: channel 0 needs bytes (an "
     "int) or a (low, high) pair with low <= high; got (9, 3)"),
    (lambda: check_channel_totals(layout(), {9: 5}), "check_channel_totals: channel 9 does "
     "not exist; the layout has 4 channels"),
    (lambda: check_channel_totals(layout(), {0: 5}, matrices="AB"), "matrices must be a "
     "non-empty tuple of names from ('A', 'B', 'C'); got 'AB'"),
    (lambda: check_load_balance(layout(), 0.5), "check_load_balance: max_ratio must be a "
     "number >= 1; got 0.5"),
]


@pytest.mark.parametrize("call, message", CHECKS)
def test_bad_check_arguments(call, message):
    with pytest.raises(ChannelError, match=re.escape(message)):
        call()


SWIZZLES = [
    (lambda: Swizzle(-1, 0, 1), "Swizzle: bits must be an int >= 0; got -1"),
    (lambda: Swizzle(1, -2, 1), "Swizzle: base must be an int >= 0; got -2"),
    (lambda: Swizzle(3, 4, 2), "Swizzle: |shift| must be >= bits (CuTe: abs(SShift) >= "
     "BBits), or the XOR reads bits it writes; got bits=3, shift=2"),
    (lambda: Swizzle(3, 4, 3.0), "Swizzle: shift must be an int; got 3.0"),
    (lambda: Swizzle(3, 4, 3).index_map(0), "Swizzle.index_map: size must be a positive int; "
     "got 0"),
    (lambda: Banks(0, 4), "Banks: num_banks must be a positive int; got 0"),
    (lambda: Banks(32, True), "Banks: bank_bytes must be a positive int; got True"),
]


@pytest.mark.parametrize("call, message", SWIZZLES)
def test_bad_swizzles(call, message):
    with pytest.raises(SwizzleError, match=re.escape(message)):
        call()


def access():
    space = la.Space(col=2, thread=4)
    col, thread = space.symbols
    return la.IndexMap(space, la.Space(addr=64), [thread * 16 + col * 4])


BANK_CHECKS = [
    (lambda: check_bank_conflict_free("x"), "check_bank_conflict_free: access must be an "
     "IndexMap; got 'x'"),
    (lambda: check_bank_conflict_free(access(), lane="warp"), "check_bank_conflict_free: lane "
     "must name a dim of the access domain ('col', 'thread'); got 'warp'"),
    (lambda: check_bank_conflict_free(access(), resource=4), "check_bank_conflict_free: "
     "resource must be Banks(...) or an Interleave decoder; got 4"),
    (lambda: check_bank_conflict_free(access(), method="smt"), "check_bank_conflict_free: "
     "method must be one of ('auto', 'z3', 'enumeration'); got 'smt'"),
    (lambda: check_bank_conflict_free(la.identity(la.Space(thread=2, b=2))),
     "check_bank_conflict_free: access must map to one byte address; its codomain is "
     "[thread:2, b:2]"),
]


@pytest.mark.parametrize("call, message", BANK_CHECKS)
def test_bad_bank_checks(call, message):
    with pytest.raises(SwizzleError, match=re.escape(message)):
        call()


DECODERS = [
    (lambda: Interleave(0, 64), "Interleave: num_channels must be a positive int; got 0"),
    (lambda: Interleave(4, 0), "Interleave: granule must be a positive int; got 0"),
    (lambda: Interleave(4, 64, swizzle="xor"), "Interleave: swizzle must be a Swizzle or None; "
     "got 'xor'"),
    (lambda: ByRange(4, -1), "ByRange: channel_bytes must be a positive int; got -1"),
]


@pytest.mark.parametrize("call, message", DECODERS)
def test_bad_decoders(call, message):
    with pytest.raises(ChannelError, match=re.escape(message)):
        call()


def test_errors_are_layout_errors_with_docstrings():
    for kind in (ChannelError, SwizzleError):
        assert issubclass(kind, la.LayoutError)
        assert "Fix:" in kind.__doc__


def test_public_names():
    import types

    import layoutalg.channel as channel

    public = {n for n, v in vars(channel).items()
              if not n.startswith("_") and not isinstance(v, types.ModuleType)
              and n != "annotations"}
    assert public == set(channel.__all__)
