"""ChannelLayout against seed 003's own listings: addresses, channels, loads, decoders.

The references are the plain-Python ports in ``test_channel_seed`` and hand
computations from the seed's text; nothing expected here is copied from
layoutalg's output.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st
from test_channel_seed import (
    hardware_layout_tiles, interleave_channel, iteration_aware_channel, matrix_channel_groups,
    matrix_tile_address, round_robin_global_index,
)

import layoutalg as la
from layoutalg.channel import ByRange, ChannelLayout, Interleave, channel_load
from layoutalg.channel.options import matrix_groups

MB = 1 << 20
SEED = {"num_channels": 4, "m_tiles": 16, "n_tiles": 16, "k_tiles": 16, "tile_bytes": 16384}


def iterations(m, n, k):
    return itertools.product(range(m), range(n), range(k))


def tile_of(matrix, ti, tj, tk):
    return {"A": (ti, tk), "B": (tk, tj), "C": (ti, tj)}[matrix]


# -- option 1: matrix groups -----------------------------------------------------------------


@pytest.mark.parametrize("channels", [4, 8])
def test_matrix_groups_are_the_seeds(channels):
    listed = matrix_channel_groups(channels)
    for matrix, (first, count) in matrix_groups(channels).items():
        assert list(range(first, first + count)) == listed[matrix]


def test_matrix_addresses_follow_calculate_tile_address():
    lay = ChannelLayout("matrix", **SEED)
    groups = matrix_channel_groups(4)
    for ti, tj, tk in [(0, 0, 0), (3, 7, 11), (15, 15, 15), (9, 0, 4)]:
        for matrix in "ABC":
            expected = matrix_tile_address(matrix, ti, tj, tk, 16, 16, 16, 16384,
                                           lay.channel_bytes, groups)
            assert lay.address(matrix, ti, tj, tk) == expected


def test_matrix_default_channels_hold_the_largest_share():
    # B and C have one channel each and 256 tiles of 16 KB: 4 MB per channel.
    assert ChannelLayout("matrix", **SEED).channel_bytes == 4 * MB


# -- option 2: round-robin ---------------------------------------------------------------------


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 7))
def test_round_robin_matches_get_global_tile_index(m, n, k, channels):
    lay = ChannelLayout("round_robin", num_channels=channels, m_tiles=m, n_tiles=n, k_tiles=k,
                        tile_bytes=128, interleave=64)
    for ti, tj, tk in iterations(m, n, k):
        for matrix in "ABC":
            index = round_robin_global_index(matrix, ti, tj, tk, m, n, k)
            assert lay.address(matrix, ti, tj, tk) == index * 128
            assert lay.channel(matrix, ti, tj, tk) == index % channels


# -- option 3: iteration-aware -----------------------------------------------------------------


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 5), st.integers(1, 4))
def test_iteration_aware_matches_get_channel(m, n, k, half):
    lay = ChannelLayout("iteration_aware", num_channels=2 * half, m_tiles=m, n_tiles=n,
                        k_tiles=k, tile_bytes=64, interleave=64)
    seen = set()
    for ti, tj, tk in iterations(m, n, k):
        for matrix in "ABC":
            channel = lay.channel(matrix, ti, tj, tk)
            assert channel == iteration_aware_channel(matrix, ti, tj, tk, 2 * half)
            address = lay.address(matrix, ti, tj, tk)
            assert address // lay.channel_bytes == channel  # inside its channel's range
            seen.add((matrix, tile_of(matrix, ti, tj, tk), address))
    # Distinct tiles, distinct addresses.
    tiles = {(x, t) for x, t, _ in seen}
    assert len({a for _, _, a in seen}) == len(tiles)


def test_iteration_aware_default_capacity_is_tight():
    lay = ChannelLayout("iteration_aware", **SEED)
    ends = [lay.address(x, ti, tj, tk) % lay.channel_bytes + 16384
            for ti, tj, tk in iterations(16, 16, 16) for x in "ABC"]
    assert max(ends) == lay.channel_bytes == 256 * 16384  # 128 A + 128 C tiles


# -- option 4: hardware interleave ---------------------------------------------------------------


@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 5),
       st.sampled_from([1, 16, 64]), st.integers(1, 9))
def test_hardware_closed_form_is_the_seeds_walk(m, n, k, half, granule, beats):
    tile = granule * beats
    a, b, c = hardware_layout_tiles(m, n, k, 2 * half, tile, granule)
    lay = ChannelLayout("hardware", num_channels=2 * half, m_tiles=m, n_tiles=n, k_tiles=k,
                        tile_bytes=tile, interleave=granule)
    for (ti, tk), addr in a.items():
        assert lay.address("A", ti, 0, tk) == addr
    for (tk, tj), addr in b.items():
        assert lay.address("B", 0, tj, tk) == addr
    for (ti, tj), addr in c.items():
        assert lay.address("C", ti, tj, 0) == addr
        assert lay.channel("C", ti, tj, 0) == interleave_channel(addr, granule, 2 * half)


def test_hardware_tile_touches_every_channel_but_iteration_aware_one():
    assert ChannelLayout("hardware", **SEED).channels_touched("A", 0, 0, 0) == (0, 1, 2, 3)
    assert ChannelLayout("iteration_aware", **SEED).channels_touched("B", 0, 1, 0) == (3,)


def test_hardware_capacity_covers_the_walk():
    a, b, c = hardware_layout_tiles(16, 16, 16, 4, 16384, 64)
    end = max(c.values()) + 16384
    lay = ChannelLayout("hardware", **SEED)
    # Each channel holds every 4th 64-byte granule of [0, end).
    assert lay.channel_bytes == -(-end // (64 * 4)) * 64


# -- loads, by a plain loop over tiles -------------------------------------------------------------


def loop_load(lay, matrices="ABC"):
    per_channel = [0] * lay.num_channels
    rows = {"A": (16, 16), "B": (16, 16), "C": (16, 16)}
    for matrix in matrices:
        r_count, c_count = rows[matrix]
        for r, c in itertools.product(range(r_count), range(c_count)):
            ti, tj, tk = {"A": (r, 0, c), "B": (0, c, r), "C": (r, c, 0)}[matrix]
            base = lay.address(matrix, ti, tj, tk)
            for beat in range(lay.beats):
                per_channel[lay.decoder.channel(base + 64 * beat)] += 64
    return per_channel


@pytest.mark.parametrize("option, expected", [
    ("matrix", [4 * MB, 0, 4 * MB, 4 * MB]),
    ("round_robin", [3 * MB] * 4),
    ("iteration_aware", [4 * MB, 2 * MB, 4 * MB, 2 * MB]),
    ("hardware", [3 * MB] * 4),
])
def test_seed_example_loads(option, expected):
    lay = ChannelLayout(option, **SEED)
    load = channel_load(lay)
    assert list(load.bytes()) == expected == loop_load(lay)
    assert load.imbalance() == pytest.approx(max(expected) / (sum(expected) / 4))


def test_seed_table_counts_a_and_b_only():
    load = channel_load(ChannelLayout("iteration_aware", **SEED))
    assert list(load.bytes(("A", "B"))) == [2 * MB] * 4  # the seed's table
    assert sum(load.bytes(("C",))) == 256 * 16384  # the 4 MB it leaves out
    assert "| 0 | 2097152 | 0 | 2097152 | 4194304 |" in load.table()


# -- symbolic layouts -------------------------------------------------------------------------------


def test_bind_gives_the_concrete_layout():
    m, n, k, h = la.extents("m n k h")
    symbolic = ChannelLayout("iteration_aware", num_channels=2 * h, m_tiles=m, n_tiles=n,
                             k_tiles=k, tile_bytes=4096)
    assert not symbolic.is_concrete
    bound = symbolic.bind(m=3, n=5, k=2, h=3)
    assert bound == ChannelLayout("iteration_aware", num_channels=6, m_tiles=3, n_tiles=5,
                                  k_tiles=2, tile_bytes=4096)
    assert sympy.sympify(symbolic.channel_bytes).subs({m: 3, n: 5, k: 2, h: 3}) == \
        bound.channel_bytes


def test_index_map_numbers_tiles_like_the_seed():
    lay = ChannelLayout("round_robin", num_channels=4, m_tiles=2, n_tiles=3, k_tiles=2,
                        tile_bytes=128)
    m = lay.index_map()
    for matrix in "ABC":
        for ti, tj, tk in iterations(2, 3, 2):
            g = round_robin_global_index(matrix, ti, tj, tk, 2, 3, 2)
            assert m(g)[0] == g % 4


# -- decoders --------------------------------------------------------------------------------------


def test_interleave_decoder_is_the_key_insight_and_a_bijection():
    dec = Interleave(4, 64)
    addresses = np.arange(4096)
    assert (dec.channel(addresses) == interleave_channel(addresses, 64, 4)).all()
    m = dec.index_map(4096)
    assert la.check_bijective(m).proved
    assert all(m.preimage(*m(a)) == (a,) for a in range(0, 4096, 37))


def test_range_decoder_is_a_bijection_onto_channels():
    dec = ByRange(3, 1000)
    assert (dec.channel(2999), dec.offset(2999)) == (2, 999)
    assert la.check_bijective(dec.index_map()).proved


def test_swizzled_interleave_spreads_rows():
    from layoutalg.channel import Swizzle

    plain, hashed = Interleave(4, 64), Interleave(4, 64, Swizzle(2, 6, 6))
    rows = [r * 4096 for r in range(4)]
    assert [plain.channel(a) for a in rows] == [0, 0, 0, 0]
    assert sorted(hashed.channel(a) for a in rows) == [0, 1, 2, 3]
