"""Plain-Python ports of seed 003's C++, the independent references of the channel tests.

Each function transliterates one listing of the seed (fixing only what does
not compile: option 1's ``calculate_tile_address`` uses ``tk`` without taking
it and divides every matrix's columns by ``Tj``; with square tiles that is
the tile-column count of each matrix). Nothing here imports layoutalg; the
tests at the end check the ports against the seed's own prose, and the other
``test_channel_*`` modules import the ports from here.
"""

from __future__ import annotations


def matrix_channel_groups(num_channels: int) -> dict[str, list[int]]:
    """Option 1's listed groups: 4 channels → A {0,1}, B {2}, C {3};
    8 channels → A {0,1,2}, B {3,4,5}, C {6,7}."""
    listed = {4: {"A": [0, 1], "B": [2], "C": [3]},
              8: {"A": [0, 1, 2], "B": [3, 4, 5], "C": [6, 7]}}
    return listed[num_channels]


def matrix_tile_address(mat, ti, tj, tk, m_tiles, n_tiles, k_tiles, tile_bytes,
                        channel_stride, groups):
    """Option 1's calculate_tile_address with bases at each group's first channel."""
    base = groups[mat][0] * channel_stride
    rows, cols = {"A": (ti, tk), "B": (tk, tj), "C": (ti, tj)}[mat]
    tiles_per_row = {"A": k_tiles, "B": n_tiles, "C": n_tiles}[mat]
    return base + (rows * tiles_per_row + cols) * tile_bytes


def round_robin_global_index(mat, ti, tj, tk, m_tiles, n_tiles, k_tiles):
    """Option 2's get_global_tile_index."""
    num_a, num_b = m_tiles * k_tiles, k_tiles * n_tiles
    if mat == "A":
        return ti * k_tiles + tk
    if mat == "B":
        return num_a + tk * n_tiles + tj
    return num_a + num_b + ti * n_tiles + tj


def iteration_aware_channel(mat, ti, tj, tk, num_channels):
    """Option 3's get_channel."""
    half = num_channels // 2
    if mat == "A":
        return 2 * ((ti + tk) % half)
    if mat == "B":
        return 2 * ((tk + tj) % half) + 1
    return 2 * ((ti + tj) % half)


def hardware_layout_tiles(m_tiles, n_tiles, k_tiles, num_channels, tile_bytes, granule, base=0):
    """Option 4's HardwareInterleaveLayout.layout_tiles: (A, B, C) address dicts."""

    def channel(addr):
        return (addr // granule) % num_channels

    def find_address_on_channel(min_addr, target):
        if channel(min_addr) == target:
            return min_addr
        aligned = (min_addr // granule + 1) * granule
        while channel(aligned) != target:
            aligned += granule
        return aligned

    next_addr, a_addrs, b_addrs, c_addrs = base, {}, {}, {}
    for ti in range(m_tiles):
        for tk in range(k_tiles):
            target = 2 * ((ti + tk) % (num_channels // 2))
            addr = find_address_on_channel(next_addr, target)
            a_addrs[ti, tk] = addr
            next_addr = addr + tile_bytes
    for tk in range(k_tiles):
        for tj in range(n_tiles):
            target = 2 * ((tk + tj) % (num_channels // 2)) + 1
            addr = find_address_on_channel(next_addr, target)
            b_addrs[tk, tj] = addr
            next_addr = addr + tile_bytes
    for ti in range(m_tiles):
        for tj in range(n_tiles):
            c_addrs[ti, tj] = next_addr
            next_addr += tile_bytes
    return a_addrs, b_addrs, c_addrs


def interleave_channel(addr, granule, num_channels):
    """The seed's "Key insight": (addr / interleave_size) % N."""
    return (addr // granule) % num_channels


# -- the ports agree with the seed's prose --------------------------------------------------


def test_hardware_walk_puts_every_base_on_its_target_channel():
    a, b, _ = hardware_layout_tiles(4, 3, 5, 4, 16384, 64)
    assert all(interleave_channel(v, 64, 4) == 2 * ((ti + tk) % 2) for (ti, tk), v in a.items())
    assert all(interleave_channel(v, 64, 4) == 2 * ((tk + tj) % 2) + 1
               for (tk, tj), v in b.items())


def test_hardware_walk_never_overlaps_tiles():
    a, b, c = hardware_layout_tiles(3, 3, 3, 4, 256, 64)
    starts = sorted([*a.values(), *b.values(), *c.values()])
    assert all(later - earlier >= 256 for earlier, later in zip(starts, starts[1:]))


def test_seed_worked_example_has_128_a_tiles_per_even_channel():
    per_channel = {}
    for ti in range(16):
        for tk in range(16):
            channel = iteration_aware_channel("A", ti, 0, tk, 4)
            per_channel[channel] = per_channel.get(channel, 0) + 1
    assert per_channel == {0: 128, 2: 128}


def test_round_robin_deals_tiles_in_turn():
    channels = [round_robin_global_index("A", 0, 0, tk, 16, 16, 16) % 4 for tk in range(5)]
    assert channels == [0, 1, 2, 3, 0]
