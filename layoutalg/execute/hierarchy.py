"""The KPU-style hierarchy: DRAM channels → L2 → PE array registers.

``Hierarchy`` describes the machine; :class:`Levels` is one run's memories.
DRAM is one byte-addressed memory whose addresses decode to channels (a
:class:`layoutalg.channel.ChannelLayout` puts every tile of A, B and C at an
address); L2 and the registers hold one tile slot per resident operand
(``Schedule.residency``). :class:`Levels` gives a tile's view at each level
and counts the moves of one kind in a run at once, per level and operand
and DRAM bytes per channel.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy

from layoutalg.channel.layout import ChannelLayout
from layoutalg.channel.load import check_addressable
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import ceil_div, digits, flatten
from layoutalg.dataflow.reuse import tile_bounds
from layoutalg.dataflow.schedule import INDEXED_BY
from layoutalg.dataflow.tiling import Capacities
from layoutalg.errors import CapacityError, MachineError, describe
from layoutalg.execute.counters import Tally
from layoutalg.execute.machine import Machine
from layoutalg.execute.placement import fetch, place
from layoutalg.validate import one_of, positive_int

OPTIONS = ("matrix", "round_robin", "iteration_aware", "hardware")
#: Per-channel byte counts are decoded for this many (tile row, channel) entries at a time.
DECODE_CHUNK = 1 << 20
#: The largest DRAM a finished run keeps for the next run of its schedule (see ``release``).
POOLED_DRAM_BYTES = 32 << 20


@dataclass(frozen=True)
class Hierarchy:
    """DRAM with ``channels`` channels → an L2 buffer → a PE array's registers.

    ``channel_option`` assigns tiles to channels (an option of
    :class:`layoutalg.channel.ChannelLayout`; "hardware": address interleave),
    ``interleave`` bytes per channel granule; ``l2_bytes`` and
    ``register_bytes`` (the whole PE array's) in bytes; ``array`` is ``(rows,
    cols)`` of PEs (for reports; the counts are the model's). The defaults
    (:meth:`kpu`) are the capacities ``la.dataflow`` assumes.

    >>> Hierarchy.kpu().l2_bytes, Hierarchy(channels=8).channels
    (262144, 8)
    """

    channels: int = 4
    channel_option: str = "hardware"
    interleave: int = 64
    l2_bytes: int = 256 * 1024
    register_bytes: int = 16 * 16 * 256
    array: tuple[int, int] = (16, 16)

    def __post_init__(self) -> None:
        for name in ("channels", "interleave", "l2_bytes", "register_bytes"):
            object.__setattr__(self, name, positive_int(MachineError, name, getattr(self, name),
                                                        where="Hierarchy"))
        one_of(MachineError, "channel_option", self.channel_option, OPTIONS, where="Hierarchy")
        if not (isinstance(self.array, tuple) and len(self.array) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                        for v in self.array)):
            raise MachineError(f"Hierarchy: array must be (rows, cols) of positive ints; "
                               f"got {describe(self.array)}")

    @classmethod
    def kpu(cls, **changes) -> Hierarchy:
        """The default KPU: 4 channels (address interleave, 64 B), 256 KiB L2,
        16×16 PEs with 256 B of registers each; ``changes`` override fields."""
        return cls(**changes)

    def capacities(self):
        """The matching :class:`layoutalg.dataflow.Capacities`."""
        return Capacities(self.l2_bytes, self.register_bytes)

    def channel_layout(self, schedule):
        """The :class:`~layoutalg.channel.ChannelLayout` of a schedule's tiles."""
        e = schedule.element_bytes
        biggest = max(schedule.tile_elements(x) for x in "ABC") * e
        tile_bytes = ceil_div(biggest, self.interleave) * self.interleave
        m, n, k = schedule.trips
        return ChannelLayout(self.channel_option, num_channels=self.channels, m_tiles=m,
                             n_tiles=n, k_tiles=k, tile_bytes=tile_bytes,
                             interleave=self.interleave)

    def __str__(self) -> str:
        rows, cols = self.array
        return (f"KPU: {self.channels} DRAM channels ({self.channel_option}, {self.interleave} B), "
                f"L2 {self.l2_bytes} B, {rows}×{cols} PEs with {self.register_bytes} B of "
                f"registers")


@dataclass(eq=False)
class Memories:
    """DRAM, L2 and the registers of one run, with the views made of them;
    ``kept`` holds what a run builds on these views (its program)."""

    dram: Machine
    buffers: dict[str, Machine]
    views: dict = field(default_factory=dict)
    slot_views: dict = field(default_factory=dict)
    kept: dict = field(default_factory=dict)


class Levels:
    """One run's memories: DRAM (channels), L2 and registers, with counters."""

    def __init__(self, hierarchy: Hierarchy, schedule, dtype: np.dtype, *,
                 memo: dict | None = None) -> None:
        """``memo``: what runs of the same hierarchy, schedule and dtype share."""
        self.schedule = schedule
        self.dtype = np.dtype(dtype)
        self._tile_shapes = {x: (schedule.tile(rows), schedule.tile(cols))
                             for x, (rows, cols) in INDEXED_BY.items()}
        memo = {} if memo is None else memo
        if "channels" not in memo:
            channels = hierarchy.channel_layout(schedule)
            check_addressable(channels, "Hierarchy")  # tile addresses are decoded as int64
            memo["channels"] = channels
        self.channels = memo["channels"]
        self.decoder = self.channels.decoder
        self.tally = Tally(self.dtype.itemsize, hierarchy.channels)
        self.slots: dict[tuple[str, str], int] = {}
        capacities = {"l2": (hierarchy.l2_bytes, "L2"),
                      "register": (hierarchy.register_bytes, "PE array registers")}
        used = {level: self._slot_bytes(level, *capacities[level]) for level in capacities}
        # The memories a finished run of the same memo handed back (see
        # :meth:`release`), else new ones. Their old bytes are never read: A
        # and B are placed whole, a C tile is read only after this run wrote
        # it back, and an L2 or register slot only after this run filled it.
        self._pool: list[Memories] = memo.setdefault("memories", [])
        try:
            self.memories = self._pool.pop()
        except IndexError:
            dram = Machine.single(int(self.channels.memory_bytes), name="DRAM")
            dram.reserve(int(self.channels.memory_bytes))
            buffers = {level: Machine.single(capacity, name=label)
                       for level, (capacity, label) in capacities.items()}
            for level, machine in buffers.items():
                machine.reserve(max(used[level], 1))
            self.memories = Memories(dram, buffers)
        self.dram = self.memories.dram
        self._bytes = {level: machine.storage.reshape(-1)
                       for level, machine in (("dram", self.dram), *self.memories.buffers.items())}
        self._channel_cache: dict[str, np.ndarray] = memo.setdefault("channel tables", {})
        self._addresses: dict[str, np.ndarray] = memo.setdefault("addresses", {})
        self._dram_maps: dict[str, IndexMap] = memo.setdefault("dram maps", {})
        self._tile_bounds: dict[tuple[str, tuple], tuple] = memo.setdefault("bounds", {})

    def _slot_bytes(self, level: str, capacity: int, label: str) -> int:
        """One full-tile slot per operand resident at ``level``, in A, B, C
        order (``self.slots``); the bytes they take, checked against ``capacity``."""
        offset, parts = 0, []
        for operand in self.schedule.resident_in(level):
            self.slots[level, operand] = offset
            parts.append(f"{operand} {'×'.join(map(str, self.tile_shape(operand)))}")
            offset += self.schedule.tile_elements(operand) * self.dtype.itemsize
        if offset > capacity:
            raise CapacityError(f"{label} exceeds memory: {offset} > {capacity} bytes "
                                f"(one tile each of {', '.join(parts)}, "
                                f"{self.dtype.itemsize} B per element)")
        return offset

    def tile_shape(self, operand: str) -> tuple[int, int]:
        """``(rows, cols)`` of a full tile of ``operand``."""
        return self._tile_shapes[operand]

    def bounds(self, operand: str, tile: tuple[int, int]):
        """The tile's element ranges ``((r0, r1), (c0, c1))`` (memoized: a run
        asks for every tile at every level)."""
        if (operand, tile) not in self._tile_bounds:
            self._tile_bounds[operand, tile] = tile_bounds(self.schedule, operand, tile)
        return self._tile_bounds[operand, tile]

    def dram_map(self, operand: str) -> IndexMap:
        """Element ``(r, c)`` of a matrix → its DRAM byte address: the tile's
        base address from the channel layout, row-major inside a full tile."""
        if operand not in self._dram_maps:
            rows, cols = INDEXED_BY[operand]
            tr, tc = self.tile_shape(operand)
            domain = Space(r=self.schedule.dim(rows), c=self.schedule.dim(cols))
            (tile_r, in_r), (tile_c, in_c) = (digits(x, t) for x, t in zip(domain.symbols, (tr, tc)))
            base = self.channels.address_of(operand, tile_r, tile_c)
            address = base + flatten((in_r, in_c), (tr, tc)) * self.dtype.itemsize
            self._dram_maps[operand] = IndexMap(
                domain, Space(addr=int(self.channels.memory_bytes)), [sympy.sympify(address)],
                name=f"{operand} in DRAM")
        return self._dram_maps[operand]

    def load_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        """Place A and B in DRAM (not counted: they are there before the run)."""
        for operand, matrix in (("A", a), ("B", b)):
            place(matrix, self.dram_map(operand), self.dram, fill=None, offsets_in_bytes=True)

    def result(self) -> np.ndarray:
        return fetch(self.dram_map("C"), self.dram, self.dtype, offsets_in_bytes=True)

    def release(self) -> None:
        """Hand the memories (with their views) to the next run of the same
        memo (call once, after :meth:`result`): one set per memo, with a
        DRAM of at most ``POOLED_DRAM_BYTES``."""
        if not self._pool and self.dram.storage.nbytes <= POOLED_DRAM_BYTES:
            self._pool.append(self.memories)

    def view(self, level: str, operand: str, tile: tuple[int, int]) -> np.ndarray:
        """The tile's elements at a level (a view, trimmed to the tile's bounds)."""
        views = self.memories.views
        if (level, operand, tile) not in views:
            views[level, operand, tile] = self._view(level, operand, tile)
        return views[level, operand, tile]

    def _view(self, level: str, operand: str, tile: tuple[int, int]) -> np.ndarray:
        (r0, r1), (c0, c1) = self.bounds(operand, tile)
        tr, tc = self.tile_shape(operand)
        key = (level, operand, (r1 - r0, c1 - c0))
        if key in self.memories.slot_views:   # one slot per operand: one view per tile shape
            return self.memories.slot_views[key]
        start = (self.slots[level, operand] if level != "dram"
                 else int(self._dram_addresses(operand)[tile]))
        cells = self._bytes[level][start:start + tr * tc * self.dtype.itemsize]
        found = cells.view(self.dtype).reshape(tr, tc)[:r1 - r0, :c1 - c0]
        if level != "dram":
            self.memories.slot_views[key] = found
        return found

    def _dram_addresses(self, operand: str) -> np.ndarray:
        """Base byte address of every tile of ``operand``: ``(rows, cols)`` of tiles."""
        if operand not in self._addresses:
            rows, cols = self._tile_grid(operand)
            found = self.channels.address_of(operand, np.arange(rows)[:, None],
                                             np.arange(cols)[None, :])
            self._addresses[operand] = np.broadcast_to(np.asarray(found, dtype=np.int64),
                                                       (rows, cols))
        return self._addresses[operand]

    def _tile_grid(self, operand: str) -> tuple[int, int]:
        rows, cols = INDEXED_BY[operand]
        return self.schedule.trip(rows), self.schedule.trip(cols)

    def count_moves(self, operand: str, tiles: np.ndarray, elements: np.ndarray,
                    source: str, target: str) -> None:
        """Count moves of ``operand``'s tiles (``tiles``: row-major numbers in its
        tile grid; ``elements``: their sizes) from ``source`` to ``target``:
        reads at ``source``, writes at ``target``, array hops when one end is
        the registers, and DRAM bytes per channel."""
        if tiles.size == 0:
            return
        total = int(elements.sum())
        self.tally.add(source, operand, "read", total)
        self.tally.add(target, operand, "write", total)
        if "register" in (source, target):
            self.tally.add("array", operand, "hop", total)
        for level, kind in ((source, "read"), (target, "write")):
            if level == "dram":
                table = self._channel_table(operand)
                moves = np.bincount(tiles, minlength=table.shape[0] * table.shape[1])
                self.tally.add_channels(operand, kind, moves @ table.reshape(moves.size, -1))

    def channel_bytes(self, operand: str, tile) -> np.ndarray:
        """Bytes of the tile's elements on each channel. Each tile row is one byte
        range, putting ``P_c(end) − P_c(start)`` bytes on channel ``c``, with
        ``P_c(x)`` the bytes of ``[0, x)`` that decode to ``c`` (a test compares
        it with decoding every element); made for all the operand's tiles at once."""
        return self._channel_table(operand)[tuple(tile)]

    def _channel_table(self, operand: str) -> np.ndarray:
        """Bytes per channel of every tile: ``(rows, cols, channels)`` of ``operand``."""
        if operand in self._channel_cache:
            return self._channel_cache[operand]
        tr, tc = self.tile_shape(operand)
        dim_r, dim_c = (self.schedule.dim(loop) for loop in INDEXED_BY[operand])
        count_r, count_c = self._tile_grid(operand)
        e = self.dtype.itemsize
        bases = self._dram_addresses(operand)
        found = np.empty((count_r, count_c, self.tally.channels), dtype=np.int64)
        widths = np.minimum(tc, dim_c - np.arange(count_c, dtype=np.int64) * tc) * e
        offsets = np.arange(tr, dtype=np.int64) * tc * e
        # several rows of tiles at a time (DECODE_CHUNK bounds the temporaries);
        # a tile row past the matrix's edge is an empty range
        chunk = max(1, DECODE_CHUNK // (count_c * tr * self.tally.channels))
        for first in range(0, count_r, chunk):
            r = np.arange(first, min(first + chunk, count_r), dtype=np.int64)
            inside = np.arange(tr)[None, :] < np.minimum(tr, dim_r - r * tr)[:, None]
            starts = bases[r][:, :, None] + offsets
            lengths = np.where(inside[:, None, :], widths[None, :, None], 0)
            found[r] = self._decode(starts, lengths)
        found.setflags(write=False)   # shared by the runs of a memo
        self._channel_cache[operand] = found
        return found

    def _decode(self, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
        """Bytes per channel of the ranges ``[starts, starts + lengths)``, summed
        over the last axis of ``starts`` (a tile's rows): the other axes, then channels."""
        channels = np.arange(self.tally.channels, dtype=np.int64)
        decoder = self.decoder
        kind = getattr(decoder, "kind", "")
        if kind == "interleave" and decoder.swizzle is None:
            g = int(decoder.granule)
            period = g * self.tally.channels

            def below(x):
                x = x[..., None]
                return (x // period) * g + np.clip(x % period - channels * g, 0, g)
        elif kind == "range":
            size = int(decoder.channel_bytes)

            def below(x):
                return np.clip(x[..., None] - channels * size, 0, size)
        else:   # channel layouts decode by interleave or by range; nothing else
            raise MachineError(f"no per-channel count for decoder {decoder}")
        return (below(starts + lengths) - below(starts)).sum(axis=-2)
