"""Enumeration twins of the channel checks, and exact conflict counts (test oracles,
moved out of the package by issue 12 item 5; the bank-conflict twin, which the package
uses as a labelled fallback, stays in ``layoutalg.channel.bank_brute``).

Same names and verdict meanings as the Z3 checks, for concrete layouts:
every iteration (and beat) is decoded with NumPy integer arithmetic — the
decoder's own ``//`` and ``%``, never the SymPy expressions Z3 sees — and
compared. They never return UNKNOWN; they refuse symbolic or too large
layouts with VerificationError.
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from layoutalg.channel.iteration import (
    beat_dim,
    check_grain,
    concurrent,
    iteration_space,
)
from layoutalg.channel.layout import require_layout
from layoutalg.channel.load import check_addressable, tile_addresses
from layoutalg.channel.options import MATRICES, TILE_DIMS
from layoutalg.channel.bank_brute import (  # noqa: F401 - the bank twins, from here too
    bank_conflict_degree, check_bank_conflict_free)
from layoutalg.core.evaluate import as_int64
from layoutalg.errors import VerificationError
from layoutalg.verify.result import CheckResult, Status, point_text

MAX_POINTS = 1 << 24


def _result(status, check, layout, start, counterexample=None, reason="enumerated"):
    return CheckResult(status, check, layout.label, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def _concrete(layout, who: str):
    layout = require_layout(layout, who)
    if not layout.is_concrete:
        raise VerificationError(f"{who} enumerates concrete layouts; {layout.label} is symbolic")
    check_addressable(layout, who)
    return layout


def _grids(space) -> dict[str, np.ndarray]:
    size = math.prod(space.extents)
    if size > MAX_POINTS:
        raise VerificationError(f"enumeration of {space} ({size} points) exceeds {MAX_POINTS}")
    return dict(zip(space.names, np.indices(space.extents, dtype=np.int64)))


def channels_at(layout, matrix: str, grids: dict[str, np.ndarray], grain: str) -> np.ndarray:
    """The channel ``matrix`` reads at every point of an iteration grid."""
    row, col = (grids[d] for d in TILE_DIMS[matrix])
    address = np.asarray(layout.address_of(matrix, row, col), dtype=np.int64)
    beat = beat_dim(matrix, grain)
    if beat is not None:
        address = address + layout.interleave * grids[beat]
    return np.asarray(layout.decoder.channel(address), dtype=np.int64)


def _histograms(layout, matrix: str, width: int) -> np.ndarray:
    """Beats per channel of every tile: shape ``(rows, cols, width)``."""
    rows, cols = layout.tile_extents(matrix)
    counts = []
    for base in tile_addresses(layout, matrix):
        beats = base[:, None] + layout.interleave * np.arange(layout.beats, dtype=np.int64)
        channels = np.asarray(layout.decoder.channel(beats), dtype=np.int64)
        onehot = np.zeros((len(base), width), dtype=np.int64)
        for c in range(width):
            onehot[:, c] = np.count_nonzero(channels == c, axis=1)
        counts.append(onehot)
    return np.concatenate(counts).reshape(rows, cols, width)


def _channel_span(layout, matrices) -> int:
    """Histogram width: N, or more when a layout that does not fit decodes
    addresses past the memory to channel numbers >= N (as Z3 sees them too)."""
    top = layout.num_channels - 1
    for x in matrices:
        for base in tile_addresses(layout, x):
            last = base + layout.tile_bytes - layout.interleave
            top = max(top, int(np.max(layout.decoder.channel(last))))
    return top + 1


def _footprint_counts(layout, matrices, grids) -> np.ndarray:
    """Conflicting (beat, beat, …) combinations at each iteration (inclusion–exclusion)."""
    width = _channel_span(layout, matrices)
    hist = []
    for x in matrices:
        row, col = (grids[d] for d in TILE_DIMS[x])
        hist.append(_histograms(layout, x, width)[row, col])  # (…iteration…, width)
    if len(hist) == 2:
        return (hist[0] * hist[1]).sum(axis=-1)
    # Three matrices: |E_AB ∪ E_AC ∪ E_BC| = Σ|E_xy| − 2·|all three equal|.
    totals = [h.sum(axis=-1) for h in hist]
    pairs = sum((hist[a] * hist[b]).sum(axis=-1) * totals[3 - a - b]
                for a, b in itertools.combinations(range(3), 2))
    return pairs - 2 * (hist[0] * hist[1] * hist[2]).sum(axis=-1)


def conflict_counts(layout, *, dataflow="os", grain: str = "tile"):
    """``(space, counts)``: conflicting points per iteration of the grain's space
    (for ``"footprint"``, per ``(ti, tj, tk)``, counted over beat combinations)."""
    layout = _concrete(layout, "conflict_counts")
    matrices, grain = concurrent(dataflow), check_grain(grain)
    space = iteration_space(layout, dataflow, grain)
    if grain == "footprint":
        tiles = iteration_space(layout, dataflow, "tile")
        return space, _footprint_counts(layout, matrices, _grids(tiles))
    grids = _grids(space)
    channels = [channels_at(layout, x, grids, grain) for x in matrices]
    clash = np.zeros(space.extents, dtype=bool)
    for a, b in itertools.combinations(channels, 2):
        clash |= a == b
    return space, clash.astype(np.int64)


def count_conflicts(layout, *, dataflow="os", grain: str = "tile") -> int:
    """How many points of the grain's iteration space have a conflict.

    >>> from layoutalg.channel import ChannelLayout
    >>> rr = ChannelLayout("round_robin", num_channels=4, m_tiles=16, n_tiles=16,
    ...                    k_tiles=16, tile_bytes=16384)
    >>> count_conflicts(rr)       # tj ≡ tk (mod 4): a quarter of the 4096 iterations
    1024
    """
    _, counts = conflict_counts(layout, dataflow=dataflow, grain=grain)
    return int(counts.sum())


def check_conflict_free(layout, *, dataflow="os", grain: str = "tile") -> CheckResult:
    start = time.perf_counter()
    space, counts = conflict_counts(layout, dataflow=dataflow, grain=grain)
    hits = np.flatnonzero(counts.ravel())
    if hits.size == 0:
        return _result(Status.PROVED, "channel_conflict_free", layout, start)
    if grain != "footprint":
        point = np.unravel_index(hits[0], space.extents)
        ce = {n: int(v) for n, v in zip(space.names, point)}
    else:
        tiles = iteration_space(layout, dataflow, "tile")
        ce = {n: int(v) for n, v in zip(tiles.names, np.unravel_index(hits[0], tiles.extents))}
        ce.update(_footprint_beats(layout, concurrent(dataflow), ce))
    return _result(Status.REFUTED, "channel_conflict_free", layout, start, ce,
                   f"conflict at {point_text(ce, ce.values())} (enumerated; "
                   f"{int(counts.sum())} conflicting points)")


def _footprint_beats(layout, matrices, iteration) -> dict[str, int]:
    beats = np.arange(layout.beats, dtype=np.int64)
    channels = {}
    for x in matrices:
        row, col = (iteration[d] for d in TILE_DIMS[x])
        base = layout.address_of(x, row, col)
        channels[x] = np.asarray(layout.decoder.channel(base + layout.interleave * beats))
    for a, b in itertools.combinations(matrices, 2):
        same = np.argwhere(channels[a][:, None] == channels[b][None, :])
        if len(same):
            picked = {f"beat_{x}": 0 for x in matrices}
            picked[f"beat_{a}"], picked[f"beat_{b}"] = int(same[0][0]), int(same[0][1])
            return picked
    raise AssertionError("a counted footprint conflict has no beats")  # pragma: no cover


def check_fits(layout, capacity: int | None = None) -> CheckResult:
    start = time.perf_counter()
    layout = _concrete(layout, "check_fits")
    cap = layout.channel_bytes if capacity is None else capacity
    for matrix in MATRICES:
        rows, cols = layout.tile_extents(matrix)
        r, c = np.indices((rows, cols), dtype=np.int64).reshape(2, -1)
        if layout.range_decoded:
            channel, offset, limit = (np.broadcast_to(np.asarray(v, dtype=np.int64), r.shape)
                                      for v in layout.designed(matrix, r, c))
            bad = (offset + layout.tile_bytes > cap) | (channel >= limit) | (
                channel >= layout.num_channels)
            if bad.any():
                k = int(np.argmax(bad))
                return _result(Status.REFUTED, "channel_fits", layout, start,
                               {**_tile_point(matrix, r[k], c[k]), "channel": int(channel[k])})
            continue
        beats = layout.interleave * np.arange(layout.beats, dtype=np.int64)
        address = np.asarray(layout.address_of(matrix, r, c), dtype=np.int64)[:, None] + beats
        need = layout.decoder.offset(address) + layout.interleave
        bad = need > cap
        if bad.any():
            k, b = np.unravel_index(int(np.argmax(bad)), bad.shape)
            return _result(Status.REFUTED, "channel_fits", layout, start,
                           {**_tile_point(matrix, r[k], c[k]), "beat": int(b),
                            "channel": int(layout.decoder.channel(int(address[k, b])))})
    return _result(Status.PROVED, "channel_fits", layout, start)


def check_disjoint(layout) -> CheckResult:
    start = time.perf_counter()
    layout = _concrete(layout, "check_disjoint")
    entries = []
    for index, matrix in enumerate(MATRICES):
        rows, cols = layout.tile_extents(matrix)
        r, c = np.indices((rows, cols), dtype=np.int64).reshape(2, -1)
        address = np.asarray(layout.address_of(matrix, r, c), dtype=np.int64)
        entries.append(np.stack([address, np.full_like(r, index), r, c], axis=1))
    table = np.concatenate(entries)
    table = table[np.lexsort((table[:, 3], table[:, 2], table[:, 1], table[:, 0]))]
    close = np.flatnonzero(np.diff(table[:, 0]) < layout.tile_bytes)
    if close.size == 0:
        return _result(Status.PROVED, "tiles_disjoint", layout, start)
    first, second = sorted([table[close[0]], table[close[0] + 1]], key=lambda e: tuple(e[1:]))
    x, y = MATRICES[first[1]], MATRICES[second[1]]
    ce = {**_tile_point(x, first[2], first[3]), **_tile_point(y, second[2], second[3], "'")}
    return _result(Status.REFUTED, "tiles_disjoint", layout, start, ce,
                   f"{x} tile at byte {first[0]} and {y} tile at byte {second[0]} overlap")


def check_single_channel(layout) -> CheckResult:
    start = time.perf_counter()
    layout = _concrete(layout, "check_single_channel")
    beats = layout.interleave * np.arange(layout.beats, dtype=np.int64)
    for matrix in MATRICES:
        rows, cols = layout.tile_extents(matrix)
        r, c = np.indices((rows, cols), dtype=np.int64).reshape(2, -1)
        address = np.asarray(layout.address_of(matrix, r, c), dtype=np.int64)[:, None] + beats
        channels = np.asarray(layout.decoder.channel(address))
        off = channels != channels[:, :1]
        if off.any():
            k, b = np.unravel_index(int(np.argmax(off)), off.shape)
            return _result(Status.REFUTED, "single_channel", layout, start,
                           {**_tile_point(matrix, r[k], c[k]), "beat": int(b),
                            "channel": int(channels[k, b]), "base_channel": int(channels[k, 0])})
    return _result(Status.PROVED, "single_channel", layout, start)


def _tile_point(matrix, row, col, suffix="") -> dict[str, int]:
    r, c = TILE_DIMS[matrix]
    return {f"{r}{suffix}": int(row), f"{c}{suffix}": int(col)}


__all__ = ["bank_conflict_degree", "check_bank_conflict_free", "check_conflict_free",
           "check_disjoint", "check_fits", "check_single_channel", "conflict_counts",
           "count_conflicts"]
