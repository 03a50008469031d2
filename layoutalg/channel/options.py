"""The four tile → address schemes of seed 003 (``matrix``, ``round_robin``,
``iteration_aware``, ``hardware``; formulas tabulated in ``docs/channel.md``).

Every formula takes a tile's row and column ``(r, c)`` in its matrix's tile
grid (A ``(ti, tk)``, B ``(tk, tj)``, C ``(ti, tj)``) and works alike on ints,
NumPy int arrays and SymPy expressions, so one definition serves
``layout.address``, vectorized enumeration and the Z3 queries. The seed's
sequential ``layout_tiles`` walk has a closed form (:func:`hardware_granule`),
checked against a port of the seed's loop in the tests.
"""

from __future__ import annotations

import sympy

from layoutalg.core.tiling import ceil_div as cdiv
from layoutalg.core.tiling import deal_local, deal_part, digits, flatten
from layoutalg.core.tiling import remainder as mod
from layoutalg.validate import is_symbolic

MATRICES = ("A", "B", "C")
TILE_DIMS = {"A": ("ti", "tk"), "B": ("tk", "tj"), "C": ("ti", "tj")}


def vmax(*values):
    return sympy.Max(*values) if is_symbolic(*values) else max(int(v) for v in values)


def grid(sizes, matrix: str):
    """``(rows, cols)`` of a matrix's tile grid."""
    m, n, k = sizes.m_tiles, sizes.n_tiles, sizes.k_tiles
    return {"A": (m, k), "B": (k, n), "C": (m, n)}[matrix]


def linear(s, matrix, r, c):
    """Row-major index of tile ``(r, c)`` in its matrix's tile grid."""
    return flatten((r, c), grid(s, matrix))


def matrix_groups(n_channels):
    """Option 1: ``(first channel, channel count)`` of A, B, C."""
    a, b, c = (n_channels + 2) // 3, (n_channels + 1) // 3, n_channels // 3
    return {"A": (0, a), "B": (a, b), "C": (a + b, c)}


def matrix_capacity(s):
    groups = matrix_groups(s.num_channels)
    need = [cdiv(grid(s, x)[0] * grid(s, x)[1], groups[x][1]) for x in MATRICES]
    return s.tile_bytes * vmax(*need)


def matrix_place(s, matrix, r, c, channel_bytes):
    """Designed ``(channel, offset, end of the matrix's channel group)``."""
    first, count = matrix_groups(s.num_channels)[matrix]
    slot_channel, slot = digits(linear(s, matrix, r, c), channel_bytes // s.tile_bytes, lazy=True)
    return first + slot_channel, slot * s.tile_bytes, first + count


def matrix_units(s, matrix, r, c, channel_bytes):
    """The address as ``(tile_bytes, tile slots from byte 0)`` (channels hold whole tiles)."""
    first, _ = matrix_groups(s.num_channels)[matrix]
    return s.tile_bytes, first * (channel_bytes // s.tile_bytes) + linear(s, matrix, r, c)


def global_tile(s, matrix, r, c):
    """Option 2: the seed's ``get_global_tile_index``: A, then B, then C, each row-major."""
    m, n, k = s.m_tiles, s.n_tiles, s.k_tiles
    start = {"A": 0, "B": m * k, "C": m * k + k * n}[matrix]
    return start + linear(s, matrix, r, c)


def total_tiles(s):
    m, n, k = s.m_tiles, s.n_tiles, s.k_tiles
    return m * k + k * n + m * n


def round_robin_units(s, matrix, r, c, channel_bytes):
    return s.tile_bytes, global_tile(s, matrix, r, c)


def iteration_aware_slot(s, matrix, r, c):
    """Option 3: designed ``(channel, slot)``; the tile sits at ``slot · tile_bytes``."""
    h = s.num_channels // 2
    per_a, per_c = cdiv(s.k_tiles, h), cdiv(s.n_tiles, h)
    start, per = {"A": (0, per_a), "B": (0, per_c), "C": (s.m_tiles * per_a, per_c)}[matrix]
    channel = 2 * deal_part(r + c, h, lazy=True) + (1 if matrix == "B" else 0)
    return channel, start + r * per + deal_local(c, h)


def iteration_aware_place(s, matrix, r, c, channel_bytes):
    """Designed ``(channel, offset, channel + 1)``: a tile must stay in its channel."""
    channel, slot = iteration_aware_slot(s, matrix, r, c)
    return channel, slot * s.tile_bytes, channel + 1


def iteration_aware_units(s, matrix, r, c, channel_bytes):
    channel, slot = iteration_aware_slot(s, matrix, r, c)
    return s.tile_bytes, channel * (channel_bytes // s.tile_bytes) + slot


def iteration_aware_capacity(s):
    h = s.num_channels // 2
    per_a, per_c = cdiv(s.k_tiles, h), cdiv(s.n_tiles, h)
    return s.tile_bytes * vmax(s.m_tiles * (per_a + per_c), s.k_tiles * per_c)


def hardware_granule(s, matrix, r, c):
    """Option 4: granule index of a tile's base address under the seed's greedy walk.

    With ``t = T/g`` granules per tile and ``d = t mod N``, each targeted
    tile starts ``t + ((target − previous target − d) mod N)`` granules
    after the previous one. Along a row the target advances by 2 (mod N);
    at a row change it moves by ``2·(2 − cols)``; so the gaps are constant
    within rows and at row changes, which sums in closed form.
    """
    n_ch, t = s.num_channels, s.tile_bytes // s.interleave
    m, n, k = s.m_tiles, s.n_tiles, s.k_tiles
    d = mod(t, n_ch)
    along = mod(2 - d, n_ch)

    def walk(start, rows_done, index, cols):
        across = mod(4 - 2 * cols - d, n_ch)
        return start + index * t + (index - rows_done) * along + rows_done * across

    if matrix == "A":
        return walk(0, r, r * k + c, k)
    last_a = walk(0, m - 1, m * k - 1, k)
    first_b = last_a + t + mod(1 - 2 * (m + k - 2) - d, n_ch)
    if matrix == "B":
        return walk(first_b, r, r * n + c, n)
    last_b = walk(first_b, k - 1, k * n - 1, n)
    return last_b + t + (r * n + c) * t


def matrix_address(s, matrix, r, c, channel_bytes):
    first, _ = matrix_groups(s.num_channels)[matrix]
    return first * channel_bytes + linear(s, matrix, r, c) * s.tile_bytes


def iteration_aware_address(s, matrix, r, c, channel_bytes):
    channel, offset, _ = iteration_aware_place(s, matrix, r, c, channel_bytes)
    return channel * channel_bytes + offset


ADDRESS = {
    "matrix": matrix_address,
    "round_robin": lambda s, matrix, r, c, _: global_tile(s, matrix, r, c) * s.tile_bytes,
    "iteration_aware": iteration_aware_address,
    "hardware": lambda s, matrix, r, c, _: hardware_granule(s, matrix, r, c) * s.interleave,
}
PLACE = {"matrix": matrix_place, "iteration_aware": iteration_aware_place}
# (unit bytes, unit count): the address is their product, the unit an integer
# expression (capacity.check_disjoint compares tiles in units, and checks the product).
UNITS = {
    "matrix": matrix_units,
    "round_robin": round_robin_units,
    "iteration_aware": iteration_aware_units,
    "hardware": lambda s, matrix, r, c, _: (s.interleave, hardware_granule(s, matrix, r, c)),
}
CAPACITY = {
    "matrix": matrix_capacity,
    "round_robin": lambda s: s.tile_bytes * cdiv(total_tiles(s), s.num_channels),
    "iteration_aware": iteration_aware_capacity,
    "hardware": lambda s: s.interleave * cdiv(hardware_granule(
        s, "C", s.m_tiles - 1, s.n_tiles - 1) + s.tile_bytes // s.interleave, s.num_channels),
}
RANGE_DECODED = ("matrix", "iteration_aware")
