"""Tile addresses in whole units (``options.UNITS``) and the checks that use them.

``check_disjoint`` compares the tiles of a symbolic layout in address units
(``address = unit · count``: whole tiles, or interleave granules for the
hardware walk), and ``check_conflict_free`` decodes each access's channel as
built. These tests pin the units on seed 003's own listings (the plain-Python
ports in ``test_channel_seed``), check that the fast form is taken exactly
when the product is the address, and hold both checks on symbolic layouts,
their sizes pinned by ``assume``, to enumeration of the bound layout with
every counterexample replayed in plain integers.
"""

from __future__ import annotations

import sympy
from agreement import agree
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import channel as brute
from test_channel_differential import replay_conflict, replay_overlap
from test_channel_seed import (
    hardware_layout_tiles,
    iteration_aware_channel,
    matrix_channel_groups,
    matrix_tile_address,
    round_robin_global_index,
)

import layoutalg as la
from layoutalg.channel import ChannelLayout, capacity, check_conflict_free, check_disjoint, options
from layoutalg.channel.options import MATRICES, TILE_DIMS
from layoutalg.verify import query as q
from layoutalg.verify.result import Status

M, NT, K, H, N = la.extents("M NT K H N")
TIMEOUT_MS = 60_000  # a timeout is UNKNOWN, a failure: room for a loaded machine


def every_size(option, channels, **extra):
    return ChannelLayout(option, num_channels=channels, m_tiles=M, n_tiles=NT, k_tiles=K,
                         tile_bytes=16384, **extra)


SYMBOLIC = [every_size("matrix", 4), every_size("round_robin", 4), every_size("round_robin", N),
            every_size("iteration_aware", 2 * H), every_size("hardware", 4),
            every_size("matrix", 4, channel_bytes=1 << 20)]


def tiles(m, n, k):
    """Every ``(matrix, ti, tj, tk)`` of an m × n × k schedule, one per tile."""
    for ti in range(m):
        for tj in range(n):
            for tk in range(k):
                if tj == 0:
                    yield "A", ti, tj, tk
                if ti == 0:
                    yield "B", ti, tj, tk
                if tk == 0:
                    yield "C", ti, tj, tk


def units_at(lay, matrix, ti, tj, tk):
    coords = {"ti": ti, "tj": tj, "tk": tk}
    r, c = (coords[d] for d in TILE_DIMS[matrix])
    return options.UNITS[lay.option](lay, matrix, r, c, lay.channel_bytes)


# -- the units on the seed's listings -----------------------------------------------------------


def test_round_robin_units_are_the_seeds_global_tile_index():
    lay = ChannelLayout("round_robin", num_channels=4, m_tiles=3, n_tiles=2, k_tiles=5,
                        tile_bytes=4096)
    for matrix, ti, tj, tk in tiles(3, 2, 5):
        assert units_at(lay, matrix, ti, tj, tk) == (
            4096, round_robin_global_index(matrix, ti, tj, tk, 3, 2, 5))


def test_hardware_units_are_the_seeds_walk_in_granules():
    lay = ChannelLayout("hardware", num_channels=4, m_tiles=3, n_tiles=4, k_tiles=2,
                        tile_bytes=16384, interleave=64)
    walk = dict(zip(MATRICES, hardware_layout_tiles(3, 4, 2, 4, 16384, 64)))
    for matrix, ti, tj, tk in tiles(3, 4, 2):
        coords = {"ti": ti, "tj": tj, "tk": tk}
        unit, count = units_at(lay, matrix, ti, tj, tk)
        assert unit == 64
        assert unit * count == walk[matrix][tuple(coords[d] for d in TILE_DIMS[matrix])]
    # by hand: A[0,1] wants channel 2; tile 0 ends at granule 256 (channel 0), so 258
    assert units_at(lay, "A", 0, 0, 1) == (64, 258)


def test_matrix_units_are_the_seeds_tile_address_in_tiles():
    for channels in (4, 8):
        lay = ChannelLayout("matrix", num_channels=channels, m_tiles=4, n_tiles=3, k_tiles=2,
                            tile_bytes=1024, channel_bytes=8 * 1024)
        groups = matrix_channel_groups(channels)
        for matrix, ti, tj, tk in tiles(4, 3, 2):
            unit, count = units_at(lay, matrix, ti, tj, tk)
            assert unit * count == matrix_tile_address(matrix, ti, tj, tk, 4, 3, 2, 1024,
                                                       8 * 1024, groups)


def test_iteration_aware_units_land_on_the_seeds_channel():
    lay = ChannelLayout("iteration_aware", num_channels=6, m_tiles=4, n_tiles=5, k_tiles=3,
                        tile_bytes=2048)
    per_channel = lay.channel_bytes // 2048
    for matrix, ti, tj, tk in tiles(4, 5, 3):
        unit, count = units_at(lay, matrix, ti, tj, tk)
        assert unit == 2048 and count // per_channel == iteration_aware_channel(
            matrix, ti, tj, tk, 6)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(la.channel.OPTIONS), st.integers(1, 3), st.integers(1, 4),
       st.integers(1, 4), st.integers(1, 4), st.sampled_from([16, 64]), st.integers(1, 4))
def test_units_times_count_is_the_address(option, half, m, n, k, interleave, beats):
    channels = 3 + half if option == "matrix" else 2 * half
    lay = ChannelLayout(option, num_channels=channels, m_tiles=m, n_tiles=n, k_tiles=k,
                        tile_bytes=interleave * beats, interleave=interleave)
    for matrix, ti, tj, tk in tiles(m, n, k):
        unit, count = units_at(lay, matrix, ti, tj, tk)
        assert isinstance(count, int) and unit in (lay.tile_bytes, lay.interleave)
        assert unit * count == lay.address(matrix, ti, tj, tk)


# -- the fast form is taken exactly when the product is the address ------------------------------


def test_symbolic_units_expand_to_the_address():
    for lay in SYMBOLIC:
        for matrix in MATRICES:
            r, c = lay.tile_space(matrix).symbols
            unit, count = options.UNITS[lay.option](lay, matrix, r, c, lay.channel_bytes)
            address = lay.address_of(matrix, r, c)
            assert capacity._product_is(unit, count, address), (lay.label, matrix)
            assert not capacity._product_is(unit, count + 1, address)
            assert not capacity._product_is(unit, count + r, address)


def overlap_form(lay, first="A", second="B"):
    x, _ = q.unknowns(lay.tile_space(first))
    y, _ = q.unknowns(lay.tile_space(second), "'")
    return capacity.located_overlap(lay, first, x, second, y), x, y


def test_whole_tiles_overlap_only_at_equal_slots():
    # round-robin: A[ti, tk] is tile K·ti + tk, B[tk', tj'] tile K·M + NT·tk' + tj'
    (same,), (ti, tk), (tk2, tj2) = overlap_form(every_size("round_robin", 4))
    assert same == q.eq(K * ti + tk, K * M + NT * tk2 + tj2)
    # the walk in 64-byte granules: a 16 KB tile spans 256 of them
    (low, high), x, y = overlap_form(every_size("hardware", 4))
    a, b = (options.hardware_granule(every_size("hardware", 4), m, *t)
            for m, t in (("A", x), ("B", y)))
    assert (low, high) == (sympy.Lt(a, b + 256), sympy.Lt(b, a + 256))


def test_concrete_sizes_and_mismatched_units_keep_the_bytes(monkeypatch):
    seed = ChannelLayout("round_robin", num_channels=4, m_tiles=16, n_tiles=16, k_tiles=16,
                         tile_bytes=16384)
    (low, high), x, y = overlap_form(seed)
    a, b = seed.address_of("A", *x), seed.address_of("B", *y)
    assert (low, high) == (sympy.Lt(a, b + 16384), sympy.Lt(b, a + 16384))
    lay = every_size("round_robin", 4)

    def off_by_one(s, matrix, r, c, channel_bytes):
        unit, count = options.round_robin_units(s, matrix, r, c, channel_bytes)
        return unit, count + 1

    monkeypatch.setitem(options.UNITS, "round_robin", off_by_one)
    (low, high), x, y = overlap_form(lay)
    a, b = lay.address_of("A", *x), lay.address_of("B", *y)
    assert (low, high) == (sympy.Lt(a, b + 16384), sympy.Lt(b, a + 16384))
    assert check_disjoint(lay, timeout_ms=TIMEOUT_MS).proved


# -- symbolic checks against enumeration, sizes pinned by assume ---------------------------------


@st.composite
def pinned(draw):
    """A symbolic layout, sizes to pin it at, and the same layout bound to them."""
    option = draw(st.sampled_from(la.channel.OPTIONS))
    sizes = {"M": draw(st.integers(1, 3)), "NT": draw(st.integers(1, 3)),
             "K": draw(st.integers(1, 3))}
    channels = {"matrix": 4, "round_robin": 3, "iteration_aware": 4, "hardware": 4}[option]
    extra = {}
    if option in ("matrix", "iteration_aware"):  # a capacity to share: tiles may overlap
        extra["channel_bytes"] = 256 * draw(st.integers(1, 4))
    lay = ChannelLayout(option, num_channels=channels, m_tiles=M, n_tiles=NT, k_tiles=K,
                        tile_bytes=256, interleave=64, **extra)
    assume = [sympy.Eq(symbol, sizes[str(symbol)]) for symbol in (M, NT, K)]
    return lay, assume, lay.bind(**sizes)


@settings(max_examples=25, deadline=None)
@given(pinned())
def test_pinned_symbolic_disjointness_agrees_with_enumeration(case):
    lay, assume, bound = case
    proved, enumerated = check_disjoint(lay, assume=assume, timeout_ms=TIMEOUT_MS), \
        brute.check_disjoint(bound)
    agree(proved, enumerated)
    if proved.refuted:
        replay_overlap(bound, proved.counterexample)


@settings(max_examples=25, deadline=None)
@given(pinned(), st.sampled_from(["os", "ws", "is"]), st.sampled_from(["tile", "beat",
                                                                        "footprint"]))
def test_pinned_symbolic_conflicts_agree_with_enumeration(case, dataflow, grain):
    lay, assume, bound = case
    proved = check_conflict_free(lay, dataflow=dataflow, grain=grain, assume=assume,
                                 timeout_ms=TIMEOUT_MS)
    enumerated = brute.check_conflict_free(bound, dataflow=dataflow, grain=grain)
    agree(proved, enumerated)
    assert proved.proved is (brute.count_conflicts(bound, dataflow=dataflow, grain=grain) == 0)
    if proved.refuted:
        replay_conflict(bound, proved.counterexample, dataflow, grain)


def test_symbolic_round_robin_and_walk_are_disjoint_for_all_sizes():
    for lay in (every_size("round_robin", 4), every_size("round_robin", N),
                every_size("hardware", 4)):
        result = check_disjoint(lay, timeout_ms=TIMEOUT_MS)
        assert result.status is Status.PROVED, result


def test_symbolic_matrix_in_one_mb_channels_overlaps_and_the_overlap_is_real():
    # 1 MB channels hold 64 tiles of 16 KB; A's two channels hold 128 A tiles, so
    # with more than that A runs into B's channel: Z3 finds sizes where it does.
    lay = every_size("matrix", 4, channel_bytes=1 << 20)
    result = check_disjoint(lay, timeout_ms=TIMEOUT_MS)
    assert result.refuted, result
    ce = result.counterexample
    bound = lay.bind(M=ce["M"], NT=ce["NT"], K=ce["K"])
    replay_overlap(bound, ce)
    assert ce["M"] * ce["K"] > 128 or ce["K"] * ce["NT"] > 64 or ce["M"] * ce["NT"] > 64
