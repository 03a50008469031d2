"""Theorems: seed 003's channel layouts for every tile count (and channel count).

M, NT, K are the tile counts of C = A × B (A is M × K tiles, B K × NT, C
M × NT), free positive integers; 16 KB tiles streamed in 64-byte beats.
The headline: the iteration-aware layout (A on even, B on odd channels) is
conflict-free for output-stationary schedules for *every* even channel count
N = 2·H and every matrix size — a statement no enumeration can make.
"""

import sympy

import layoutalg as la
import layoutalg.channel  # noqa: F401 - registers the channel claims
from layoutalg.channel import ChannelLayout

M, NT, K, H, N = la.extents("M NT K H N")
TILE = 64 * 64 * 4
OS_TILE, OS_BEAT = ("channel_conflict_free", "os", "tile"), ("channel_conflict_free", "os", "beat")


def every_size(option, channels):
    return ChannelLayout(option, num_channels=channels, m_tiles=M, n_tiles=NT, k_tiles=K,
                         tile_bytes=TILE)


@la.spec(claims=[OS_TILE, OS_BEAT, ("channel_conflict_free", "is", "tile"), "channels_fit",
                 "tiles_disjoint", "single_channel_tiles"])
def iteration_aware_every_even_channel_count():
    """For all H, M, NT, K ≥ 1 with N = 2H channels: A and B tiles of every
    output-stationary iteration are on different channels, at tile and at beat
    grain; B and C never meet under input-stationary; every tile fits its
    channel, no two tiles overlap, every tile sits on one channel."""
    return every_size("iteration_aware", 2 * H)


@la.spec(claims=[("channel_conflict_free", "ws", "tile")], expect="REFUTED")
def iteration_aware_fails_weight_stationary():
    """…but for weight-stationary schedules (A with the partial sums C) it fails at
    every size: C shares the even channels with A; Z3 picks the smallest case."""
    return every_size("iteration_aware", 2 * H)


@la.spec(claims=[OS_TILE], expect="REFUTED", assume=[sympy.Ge(N, 2)])
def round_robin_conflicts_for_some_sizes():
    """Tile round-robin has no guarantee: Z3 finds tile and channel counts (N ≥ 2)
    and an iteration where A and B share a channel."""
    return every_size("round_robin", N)


@la.spec(claims=[OS_TILE, "channels_fit", "tiles_disjoint"],
         expect=["REFUTED", "PROVED", "PROVED"])
def round_robin_on_4_channels():
    """On 4 channels, for all tile counts: conflicts exist, but the ⌈tiles/4⌉-tile
    channels always hold their share and tiles never overlap."""
    return every_size("round_robin", 4)


@la.spec(claims=[OS_TILE, OS_BEAT, "channels_fit"])
def matrix_groups_on_4_channels():
    """Option 1 on 4 channels, for all tile counts: with channels sized to hold the
    largest matrix share, A, B and C never share a channel."""
    return every_size("matrix", 4)


@la.spec(claims=[OS_TILE, OS_BEAT, "channels_fit", "single_channel_tiles"],
         expect=["PROVED", "PROVED", "PROVED", "REFUTED"])
def hardware_walk_on_4_channels():
    """Option 4 (the seed's layout_tiles walk, 64-byte interleave) on 4 channels,
    for all tile counts: A and B base addresses always on different channels, and
    lockstep beats too — yet no tile sits on one channel."""
    return every_size("hardware", 4)
