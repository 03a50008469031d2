"""Per-channel load: how many bytes of each matrix every channel holds.

Counted exactly by enumerating every granule of every tile and decoding its
address (concrete layouts). Checks over the counts — a document's stated
per-channel totals, a balance bound — are decided by that count and carry
``method="enumeration"``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy

from layoutalg.channel.layout import require_layout
from layoutalg.channel.options import MATRICES
from layoutalg.core.bounds import interval
from layoutalg.core.tiling import unflatten
from layoutalg.errors import ChannelError, describe
from layoutalg.validate import is_int, nonnegative_int
from layoutalg.verify.result import CheckResult, Status

TILES_PER_CHUNK = 1 << 14
# Enumeration decodes addresses in NumPy int64. The address formulas add and
# multiply nonnegative terms (no intermediate exceeds the address) and a
# swizzle only moves bits below its target field, so addresses within this
# limit keep every intermediate, beat and offset exact with room to spare.
ADDRESS_LIMIT = 1 << 60


@dataclass(frozen=True)
class ChannelLoad:
    """Bytes per channel, per matrix: ``by_matrix`` pairs each matrix name with a tuple
    of byte counts, one per channel.

    >>> from layoutalg.channel import ChannelLayout
    >>> lay = ChannelLayout("iteration_aware", num_channels=4, m_tiles=16, n_tiles=16,
    ...                     k_tiles=16, tile_bytes=16384)
    >>> load = channel_load(lay)
    >>> [b >> 20 for b in load.bytes(("A", "B"))], [b >> 20 for b in load.bytes()]
    ([2, 2, 2, 2], [4, 2, 4, 2])
    >>> round(load.imbalance(), 3)
    1.333
    """

    subject: str
    by_matrix: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def num_channels(self) -> int:
        return len(self.by_matrix[0][1])

    def bytes(self, matrices: Sequence[str] = MATRICES) -> tuple[int, ...]:
        """Bytes on each channel counting only ``matrices``."""
        table = dict(self.by_matrix)
        return tuple(map(sum, zip(*(table[x] for x in _matrices(matrices)))))

    def imbalance(self, matrices: Sequence[str] = MATRICES) -> float:
        """Fullest channel over the mean: 1.0 is perfectly balanced."""
        counts = self.bytes(matrices)
        mean = sum(counts) / len(counts)
        return max(counts) / mean if mean else 1.0

    def table(self) -> str:
        """A Markdown table: one row per channel, bytes per matrix and in total."""
        table, total = dict(self.by_matrix), self.bytes()
        rows = [("channel", *MATRICES, "total")]
        rows += [(c, *(table[x][c] for x in MATRICES), total[c]) for c in range(len(total))]
        lines = ["| " + " | ".join(map(str, row)) + " |" for row in rows]
        return "\n".join([lines[0], "|---" * (len(MATRICES) + 2) + "|", *lines[1:]])


def channel_load(layout) -> ChannelLoad:
    """Exact bytes per channel and matrix, by decoding every granule."""
    layout = require_layout(layout, "channel_load")
    if not layout.is_concrete:
        raise ChannelError(f"channel_load counts a concrete layout; {layout.label} has symbolic "
                           f"sizes {sorted(map(str, layout.parameters))}; bind them first")
    check_addressable(layout, "channel_load")
    rows = []
    for matrix in MATRICES:
        counts = np.zeros(layout.num_channels, dtype=np.int64)
        for base in tile_addresses(layout, matrix):
            beats = base[:, None] + layout.interleave * np.arange(layout.beats, dtype=np.int64)
            channels = np.asarray(layout.decoder.channel(beats), dtype=np.int64).ravel()
            found = np.bincount(channels, minlength=layout.num_channels)
            if len(found) > layout.num_channels:
                raise ChannelError(
                    f"channel_load: {matrix} tiles of {layout.label} reach addresses past the "
                    f"last channel ({layout.memory_bytes} B); check_fits names one")
            counts += found
        rows.append((matrix, tuple(int(v) * layout.interleave for v in counts)))
    return ChannelLoad(layout.label, tuple(rows))


def check_addressable(layout, who: str) -> None:
    """Refuse (ChannelError) a concrete layout whose addresses could leave int64."""
    reach = address_reach(layout)
    if reach > ADDRESS_LIMIT:
        raise ChannelError(
            f"{who}: {layout.label} reaches byte address {reach}; enumeration decodes addresses "
            f"as int64 and needs them below {ADDRESS_LIMIT} (2**60)")


@lru_cache(maxsize=256)
def address_reach(layout) -> int:
    """A bound on every byte address, beat and decoded offset of a concrete layout
    (interval arithmetic over the tile address formulas)."""
    top = 0
    for matrix in MATRICES:
        space = layout.tile_space(matrix)
        rows, cols = space.symbols
        ranges = {s: (0, int(e) - 1) for s, e in zip(space.symbols, space.extents)}
        low, high = interval(sympy.sympify(layout.address_of(matrix, rows, cols)), ranges)
        top = max(top, -low, high)
    top += layout.tile_bytes + layout.interleave * layout.beats
    swizzle = getattr(layout.decoder, "swizzle", None)
    if swizzle is not None:
        top = 2 * max(top, 1 << (swizzle.target + swizzle.bits))
    return top


def tile_addresses(layout, matrix: str):
    """Base addresses of a matrix's tiles (row-major), in chunks of int64 arrays."""
    rows, cols = layout.tile_extents(matrix)
    index = np.arange(rows * cols, dtype=np.int64)
    for start in range(0, len(index), TILES_PER_CHUNK):
        part = unflatten(index[start:start + TILES_PER_CHUNK], (rows, cols))
        yield np.asarray(layout.address_of(matrix, *part), dtype=np.int64)


def check_channel_totals(layout, totals: Mapping[int, int | tuple[int, int]], *,
                         matrices: Sequence[str] = MATRICES) -> CheckResult:
    """Each listed channel holds exactly ``totals[c]`` bytes of ``matrices``
    (or, for a ``(low, high)`` pair, between them inclusive)."""
    start = time.perf_counter()
    chosen, wanted = _matrices(matrices), _totals(totals)
    counts = channel_load(layout).bytes(chosen)
    for channel, (low, high) in wanted.items():
        if channel >= len(counts):
            raise ChannelError(f"check_channel_totals: channel {channel} does not exist; the "
                               f"layout has {len(counts)} channels")
        if not low <= counts[channel] <= high:
            claim = str(low) if low == high else f"{low}..{high}"
            return _counted(Status.REFUTED, "channel_totals", layout, start,
                            {"channel": channel, "bytes": counts[channel]},
                            f"channel {channel} holds {counts[channel]} B of "
                            f"{', '.join(chosen)}; the claim says {claim} B")
    return _counted(Status.PROVED, "channel_totals", layout, start, None,
                    f"every listed channel holds the stated bytes of {', '.join(chosen)} "
                    f"(counted: {list(counts)})")


def check_load_balance(layout, max_ratio: float, *,
                       matrices: Sequence[str] = MATRICES) -> CheckResult:
    """The fullest channel holds at most ``max_ratio`` × the mean."""
    start = time.perf_counter()
    if isinstance(max_ratio, bool) or not isinstance(max_ratio, (int, float)) or max_ratio < 1:
        raise ChannelError(f"check_load_balance: max_ratio must be a number >= 1; "
                           f"got {describe(max_ratio)}")
    chosen = _matrices(matrices)
    load = channel_load(layout)
    counts, ratio = load.bytes(chosen), load.imbalance(chosen)
    if ratio <= max_ratio:
        return _counted(Status.PROVED, "load_balance", layout, start, None,
                        f"fullest channel / mean = {ratio:.3f} <= {max_ratio}")
    busiest = int(np.argmax(counts))
    return _counted(Status.REFUTED, "load_balance", layout, start,
                    {"channel": busiest, "bytes": counts[busiest]},
                    f"channel {busiest} holds {counts[busiest]} B, {ratio:.3f} × the mean "
                    f"(allowed {max_ratio}); per channel: {list(counts)}")


def _counted(status, check, layout, start, counterexample, reason) -> CheckResult:
    return CheckResult(status, check, layout.label, counterexample, reason,
                       time.perf_counter() - start, method="enumeration")


def _matrices(matrices) -> tuple[str, ...]:
    if isinstance(matrices, str) or not isinstance(matrices, (tuple, list)) or not matrices or any(
            m not in MATRICES for m in matrices):
        raise ChannelError(f"matrices must be a non-empty tuple of names from {MATRICES}; "
                           f"got {describe(matrices)}")
    return tuple(dict.fromkeys(matrices))


def _totals(totals) -> dict[int, tuple[int, int]]:
    if not isinstance(totals, Mapping) or not totals:
        raise ChannelError(f"totals must map channels to bytes or (low, high) pairs; "
                           f"got {describe(totals)}")
    wanted = {}
    for channel, value in totals.items():
        nonnegative_int(ChannelError, "channel", channel, where="totals")
        pair = (value, value) if is_int(value) else value
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(map(is_int, pair))
                and pair[0] <= pair[1]):
            raise ChannelError(f"totals: channel {channel} needs bytes (an int) or a (low, high) "
                               f"pair with low <= high; got {describe(value)}")
        wanted[int(channel)] = (int(pair[0]), int(pair[1]))
    return wanted


__all__ = ["ChannelLoad", "channel_load", "check_channel_totals", "check_load_balance"]
