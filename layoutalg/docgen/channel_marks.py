"""The counterexample of a REFUTED channel claim, as tiles of the picture.

The picture numbers tiles as ``ChannelLayout.index_map`` does (A row-major, then
B, then C); a channel claim's counterexample names them by their own coordinates
(``ti, tj, tk`` of an iteration, ``tk, tj`` of a B tile, primed for a second
tile). This module turns them into global tile numbers, each with its channel.
"""

from __future__ import annotations

import itertools
import re

import sympy

from layoutalg.channel.iteration import concurrent
from layoutalg.channel.layout import ChannelLayout
from layoutalg.channel.options import MATRICES, TILE_DIMS
from layoutalg.errors import LayoutError

ITERATION = ("ti", "tj", "tk")
_DATAFLOW = re.compile(r"^channel_conflict_free\((\w+)")


def global_tile(layout: ChannelLayout, matrix: str, row: int, col: int) -> int:
    """``matrix``'s tile ``(row, col)`` as a global tile number (the picture's element):
    A's tiles come first, then B's, then C's."""
    m, n, k = (int(v) for v in (layout.m_tiles, layout.n_tiles, layout.k_tiles))
    first = {"A": 0, "B": m * k, "C": m * k + k * n}[matrix]
    return first + row * int(layout.tile_extents(matrix)[1]) + col


def channel_at(layout: ChannelLayout, matrix: str, row: int, col: int, beat: int = 0) -> int:
    """The channel of byte ``beat × interleave`` of the tile (its base for beat 0)."""
    address = int(layout.address_of(matrix, row, col)) + layout.interleave * beat
    return int(sympy.sympify(layout.decoder.channel(address)))


def _tiles_named(counterexample: dict, prime: str) -> list[tuple[str, int, int]]:
    """``(matrix, row, col)`` of the tiles whose coordinates (with ``prime``)
    the counterexample names, when they name exactly one matrix's tile."""
    found = [(x, *(int(counterexample[d + prime]) for d in TILE_DIMS[x])) for x in MATRICES
             if all(d + prime in counterexample for d in TILE_DIMS[x])]
    return found if len(found) == 1 else []


def conflict_marks(layout: ChannelLayout, claim: str,
                   counterexample: dict | None) -> list[tuple[tuple[int], str]]:
    """``[((global tile,), note), ...]``: the tiles a REFUTED channel claim's
    counterexample names, each with the channel it is on. An iteration
    ``(ti, tj, tk)`` of ``channel_conflict_free`` gives the tiles its dataflow
    streams together that share a channel; a channel's wrong total gives the
    channel's first tile; other claims give the tile (or the two tiles) they
    name. Empty when the layout has symbolic sizes or the
    counterexample names no tile.

    >>> rr = ChannelLayout("round_robin", num_channels=4, m_tiles=2, n_tiles=2, k_tiles=2,
    ...                    tile_bytes=64)
    >>> [p for p, _ in conflict_marks(rr, "channel_conflict_free(os, tile)",
    ...                               {"ti": 0, "tj": 0, "tk": 0})]
    [(0,), (4,)]
    """
    if not counterexample or not layout.is_concrete:
        return []
    if all(d in counterexample for d in ITERATION):
        return _iteration_marks(layout, claim, counterexample)
    if set(counterexample) == {"channel", "bytes"}:  # channel_totals: a channel's total
        return _channel_marks(layout, int(counterexample["channel"]),
                              int(counterexample["bytes"]))
    marks = []
    for prime in ("", "'"):
        for matrix, row, col in _tiles_named(counterexample, prime):
            tile, named = _tile_named(layout, matrix, row, col)
            note = f"{named}: base on channel {channel_at(layout, matrix, row, col)}"
            if not prime and "beat" in counterexample:
                beat = int(counterexample["beat"])
                note += f", its beat {beat} on channel {channel_at(layout, matrix, row, col, beat)}"
            marks.append(((tile,), note))
    return marks


def _tile_named(layout: ChannelLayout, matrix: str, row: int, col: int) -> tuple[int, str]:
    """The global tile number and ``A tile (ti=0, tk=1) = tile 1``."""
    tile = global_tile(layout, matrix, row, col)
    dims = ", ".join(f"{d}={v}" for d, v in zip(TILE_DIMS[matrix], (row, col)))
    return tile, f"{matrix} tile ({dims}) = tile {tile}"


def _channel_marks(layout: ChannelLayout, channel: int, total: int) -> list:
    """The first tile on ``channel``, standing for the channel whose total the
    claim got wrong (every tile of its colour is on it)."""
    for matrix in MATRICES:
        rows, cols = (int(v) for v in layout.tile_extents(matrix))
        for row, col in itertools.product(range(rows), range(cols)):
            if channel_at(layout, matrix, row, col) == channel:
                tile = global_tile(layout, matrix, row, col)
                return [((tile,), f"tile {tile} ({matrix}) is on channel {channel}, which "
                         f"holds {total} B: every tile of its colour is there")]
    return []


def _iteration_marks(layout: ChannelLayout, claim: str, ce: dict) -> list:
    found = _DATAFLOW.match(claim)
    try:
        streamed = concurrent(found.group(1)) if found else MATRICES
    except LayoutError:
        streamed = MATRICES
    where = ", ".join(f"{d}={int(ce[d])}" for d in ITERATION)
    tiles = {}
    for matrix in streamed:
        row, col = (int(ce[d]) for d in TILE_DIMS[matrix])
        beat = int(ce.get(f"beat_{matrix}", ce.get("beat", 0)))
        tiles[matrix] = (row, col, beat, channel_at(layout, matrix, row, col, beat))
    channels = [t[3] for t in tiles.values()]
    marks = []
    for matrix, (row, col, beat, channel) in tiles.items():
        if channels.count(channel) < 2:
            continue  # streamed, but not part of the conflict
        tile, named = _tile_named(layout, matrix, row, col)
        at = f"its beat {beat}" if beat else "its base"
        marks.append(((tile,), f"{named}: {at} on channel {channel}, streamed at iteration "
                      f"({where})"))
    return marks


__all__ = ["channel_at", "conflict_marks", "global_tile"]
