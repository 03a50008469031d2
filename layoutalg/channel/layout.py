"""``ChannelLayout``: where each tile of a tiled matmul lives in a multi-channel memory."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field, replace
from functools import cached_property, partial

import numpy as np
import sympy

from layoutalg.channel import options as opt
from layoutalg.channel.interleave import ByRange, Interleave
from layoutalg.core.home import Home
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent, Space
from layoutalg.core.tiling import unflatten
from layoutalg.errors import ChannelError, MachineError, describe
from layoutalg.validate import index, instance_of, is_symbolic, one_of, positive_int, positive_size

OPTIONS = ("matrix", "round_robin", "iteration_aware", "hardware")
PAIRED = ("iteration_aware", "hardware")  # A on even, B on odd channels


@dataclass(frozen=True)
class ChannelLayout:
    """The tiles of ``C = A × B`` (A ``m×k``, B ``k×n``, C ``m×n`` tiles) over N channels.

    ``option`` is one of the four designs of seed 003 (formulas in
    :mod:`layoutalg.channel.options`); ``num_channels`` (``2*H`` for "every even
    N") and the tile counts are ints or positive integer symbols; ``tile_bytes``
    is a multiple of ``interleave``, the beat a channel streams and the decode
    granule of ``"hardware"`` (``"round_robin"`` deals whole tiles, the others
    decode by address range); ``channel_bytes`` defaults to the least that holds
    the layout (range-decoded options need a multiple of ``tile_bytes``).

    >>> lay = ChannelLayout("iteration_aware", num_channels=4, m_tiles=16, n_tiles=16,
    ...                     k_tiles=16, tile_bytes=64 * 64 * 4)
    >>> lay.channel("A", 0, 0, 1), lay.channel("B", 0, 0, 1)
    (2, 3)
    >>> lay.address("A", 0, 0, 1) == 2 * lay.channel_bytes   # channel 2's first slot
    True
    """

    option: str
    _: KW_ONLY
    num_channels: Extent
    m_tiles: Extent
    n_tiles: Extent
    k_tiles: Extent
    tile_bytes: int
    interleave: int = 64
    channel_bytes: Extent | None = None
    name: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        owner, set_ = "ChannelLayout", partial(object.__setattr__, self)
        set_("option", one_of(ChannelError, "option", self.option, OPTIONS, where=owner))
        for key in ("num_channels", "m_tiles", "n_tiles", "k_tiles"):
            set_(key, positive_size(ChannelError, key, getattr(self, key), where=owner))
        for key in ("tile_bytes", "interleave"):
            set_(key, positive_int(ChannelError, key, getattr(self, key), where=owner))
        if self.name is not None and not isinstance(self.name, str):
            raise ChannelError(f"{owner}: name must be a string; got {describe(self.name)}")
        n = self.num_channels
        if self.tile_bytes % self.interleave:
            raise ChannelError(
                f"{owner}: tile_bytes must be a multiple of interleave ({self.interleave}), so "
                f"a tile streams as whole beats; got tile_bytes={self.tile_bytes}")
        if self.option in PAIRED and not sympy.sympify(n / sympy.Integer(2)).is_integer:
            raise ChannelError(
                f"{owner}: num_channels must be even for option {self.option!r} (A on even, "
                f"B on odd channels; for a symbolic even count pass 2*H); got {n}")
        if self.option == "matrix" and (not isinstance(n, int) or n < 3):
            raise ChannelError(
                f"{owner}: num_channels must be an int of at least 3 for option 'matrix' (one "
                f"channel group per matrix A, B, C); got {n}")
        if self.channel_bytes is None:
            set_("channel_bytes", _tidy(opt.CAPACITY[self.option](self)))
            return
        set_("channel_bytes", positive_int(ChannelError, "channel_bytes", self.channel_bytes,
                                           where=owner))
        if self.range_decoded and self.channel_bytes % self.tile_bytes:
            raise ChannelError(
                f"{owner}: channel_bytes must be a multiple of tile_bytes "
                f"({self.tile_bytes}) for option {self.option!r}, whose channels hold whole "
                f"tiles; got {self.channel_bytes}")

    @property
    def label(self) -> str:
        return self.name or (f"{self.option}[N={self.num_channels}, {self.m_tiles}×"
                             f"{self.n_tiles}×{self.k_tiles} tiles of {self.tile_bytes} B]")

    @property
    def range_decoded(self) -> bool:
        return self.option in opt.RANGE_DECODED

    @property
    def beats(self) -> int:
        """Granules (beats) per tile."""
        return self.tile_bytes // self.interleave

    @property
    def decoder(self) -> Interleave | ByRange:
        """The memory's address → channel decoder under this option."""
        if self.range_decoded:
            return ByRange(self.num_channels, self.channel_bytes)
        granule = self.tile_bytes if self.option == "round_robin" else self.interleave
        return Interleave(self.num_channels, granule)

    @cached_property
    def memory_bytes(self) -> Extent:
        """N · channel_bytes: the address space the decoder covers (computed once:
        the layout is frozen, and SymPy's sign test of a symbolic size is slow)."""
        return _as_extent(self.num_channels * self.channel_bytes)

    @property
    def parameters(self) -> frozenset[sympy.Symbol]:
        sizes = (self.num_channels, self.m_tiles, self.n_tiles, self.k_tiles)
        return frozenset().union(*(v.free_symbols for v in sizes if isinstance(v, sympy.Basic)))

    @property
    def is_concrete(self) -> bool:
        return not self.parameters

    def tile_extents(self, matrix: str) -> tuple[Extent, Extent]:
        """``(rows, cols)`` of a matrix's tile grid: A ``(m, k)``, B ``(k, n)``, C ``(m, n)``."""
        return opt.grid(self, _matrix(matrix))

    def tile_space(self, matrix: str) -> Space:
        """``Space(ti=m, tk=k)`` for A, ``(tk, tj)`` for B, ``(ti, tj)`` for C."""
        extents = self.tile_extents(matrix)
        return Space(*zip(opt.TILE_DIMS[matrix], extents))

    def address_of(self, matrix: str, row, col):
        """Byte address of tile ``(row, col)`` of ``matrix``; vectorizes over arrays."""
        return opt.ADDRESS[self.option](self, _matrix(matrix), row, col, self.channel_bytes)

    def designed(self, matrix: str, row, col):
        """Range-decoded options: ``(channel, offset, channel limit)`` the design
        intends — equal to the decoded location when the tile fits."""
        if not self.range_decoded:
            raise ChannelError(f"designed: option {self.option!r} decodes by interleave; "
                               "its channel is the decoder's")
        return opt.PLACE[self.option](self, _matrix(matrix), row, col, self.channel_bytes)

    def tile_map(self, matrix: str) -> IndexMap:
        """``[row, col] → [addr]``: the base address of every tile of ``matrix``."""
        space = self.tile_space(matrix)
        return IndexMap(space, Space(addr=self.memory_bytes),
                        [self.address_of(matrix, *space.symbols)],
                        name=f"{matrix} tiles of {self.label}")

    def home(self) -> Home:
        """Where ``layoutalg run`` puts it: its channels, each tile as its first byte."""
        if not self.is_concrete:
            raise MachineError(f"run: channel layout {self.label} has symbolic sizes; a run "
                               f"needs numbers (bind them in the spec)")
        return Home("channel", 1, True, 1,
                    f"{self.num_channels} channels of {self.channel_bytes} B "
                    f"(each tile placed as its first byte)", int(self.channel_bytes), "channel")

    def index_map(self) -> IndexMap:
        """``[tile] → [channel, offset]``: base location of every tile, numbered A, B, C
        row-major (the seed's global tile index); pictures colour tiles by channel."""
        tiles = self._tile_address()
        return self._decoded(tiles.domain, tiles.exprs[0], self.label)

    def layout_steps(self) -> tuple[IndexMap, IndexMap]:
        """``index_map()`` as its two steps (the ``Stepped`` protocol of
        ``layoutalg.docgen.pages``): global tile → base byte ``address`` (a piece
        per matrix), then the decoder: address → ``(channel, offset)``.

        >>> lay = ChannelLayout("round_robin", num_channels=4, m_tiles=2, n_tiles=2,
        ...                     k_tiles=2, tile_bytes=256)
        >>> to_address, decode = lay.layout_steps()
        >>> to_address(5), decode(1280)   # B's tile (0, 1): the 6th tile, dealt to channel 1
        ((1280,), (1, 256))
        """
        tiles = self._tile_address()
        memory = tiles.codomain
        return tiles, self._decoded(memory, memory.symbols[0], f"decode: {self.decoder}")

    def _tile_address(self) -> IndexMap:
        """Global tile → base byte address, one piece per matrix (A, B, C row-major)."""
        space = Space(tile=_tidy(opt.total_tiles(self)))
        (g,) = space.symbols
        m, n, k = self.m_tiles, self.n_tiles, self.k_tiles
        pieces = []
        for matrix, start, end in (("A", 0, m * k), ("B", m * k, m * k + k * n),
                                   ("C", m * k + k * n, None)):
            address = self.address_of(matrix, *unflatten(g - start, self.tile_extents(matrix)))
            pieces.append((address, sympy.true if end is None else sympy.Lt(g, end)))
        return IndexMap(space, Space(address=self.memory_bytes), [sympy.Piecewise(*pieces)],
                        name="tile base address")

    def _decoded(self, domain: Space, address, name: str) -> IndexMap:
        """``domain → [channel, offset]`` of ``address`` under the decoder."""
        dec, space = self.decoder, Space(channel=self.num_channels,
                                         offset=_as_extent(self.channel_bytes))
        return IndexMap(domain, space, [dec.channel(address), dec.offset(address)], name=name)

    def _coords(self, matrix: str, ti: int, tj: int, tk: int) -> tuple[int, int]:
        matrix = _matrix(matrix)
        if not self.is_concrete:
            raise ChannelError(f"{self.label} has symbolic sizes "
                               f"{sorted(map(str, self.parameters))}; bind them with .bind(...)")
        pick = {name: index(ChannelError, name, value, limit) for name, value, limit in (
            ("ti", ti, self.m_tiles), ("tj", tj, self.n_tiles), ("tk", tk, self.k_tiles))}
        return tuple(pick[d] for d in opt.TILE_DIMS[matrix])

    def address(self, matrix: str, ti: int, tj: int, tk: int) -> int:
        """Byte address of the tile of ``matrix`` used by iteration ``(ti, tj, tk)``."""
        return int(self.address_of(matrix, *self._coords(matrix, ti, tj, tk)))

    def channel(self, matrix: str, ti: int, tj: int, tk: int) -> int:
        """Channel of that tile's base address (the decoder applied to it)."""
        return int(self.decoder.channel(self.address(matrix, ti, tj, tk)))

    def channels_touched(self, matrix: str, ti: int, tj: int, tk: int) -> tuple[int, ...]:
        """Every channel that holds some byte of the tile, sorted."""
        beats = self.address(matrix, ti, tj, tk) + self.interleave * np.arange(self.beats)
        return tuple(int(c) for c in np.unique(self.decoder.channel(beats)))

    def bind(self, **values: int) -> ChannelLayout:
        """The same layout with its symbolic sizes set to numbers (by symbol name)."""
        by_name = {str(p): p for p in self.parameters}
        unknown = sorted(set(values) - set(by_name))
        if unknown:
            raise ChannelError(f"bind: {unknown} are not parameters of {self.label}; "
                               f"its parameters are {sorted(by_name)}")
        subs = {by_name[k]: positive_int(ChannelError, k, v, where="bind")
                for k, v in values.items()}

        sizes = {k: _tidy(sympy.sympify(getattr(self, k)).subs(subs))
                 for k in ("num_channels", "m_tiles", "n_tiles", "k_tiles")}
        return replace(self, **sizes, channel_bytes=None if is_symbolic(self.channel_bytes)
                       else self.channel_bytes)

    def __str__(self) -> str:
        return (f"{self.label}: {self.decoder}, {self.beats} beats of {self.interleave} B "
                f"per tile, {self.channel_bytes} B per channel")


def require_layout(value: object, who: str) -> ChannelLayout:
    """``value`` if it is a ChannelLayout, else a ChannelError naming ``who``."""
    instance_of(ChannelError, "layout", value, ChannelLayout, where=who)
    return value


def _matrix(matrix: object) -> str:
    return one_of(ChannelError, "matrix", matrix, opt.MATRICES)


def _as_extent(value):
    """A size as a Space extent. The hardware walk's capacity is always >= 1, but
    SymPy cannot see it through the walk's Mod terms; Max(1, ·) is the same
    number in a form it accepts."""
    value = _tidy(value)
    if isinstance(value, sympy.Basic) and not value.is_positive:
        return sympy.Max(1, value)
    return value


def _tidy(value):
    if isinstance(value, sympy.Basic):
        return int(value) if value.is_Integer else value
    return int(value)


__all__ = ["OPTIONS", "ChannelLayout", "require_layout"]
