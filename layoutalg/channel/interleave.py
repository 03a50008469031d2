"""Address → channel decoders: modulo interleave and address ranges.

- **interleave** (seed 003, "Key insight"): consecutive ``granule``-byte
  blocks go to consecutive channels, ``channel = (addr // granule) % N``,
  the core's round-robin deal (``core.tiling.deal``); memory controllers
  often hash higher address bits into the channel bits, so a
  :class:`~layoutalg.channel.swizzle.Swizzle` may be applied first.
- **range**: channel c owns ``[c·channel_bytes, (c+1)·channel_bytes)``.

Each decoder works on ints, NumPy int arrays (bitwise swizzles) and SymPy
expressions (for Z3).
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from layoutalg.channel.swizzle import Swizzle
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent, Space
from layoutalg.core.tiling import ceil_div, deal_local, deal_part, digits, flatten, undeal
from layoutalg.errors import ChannelError, describe
from layoutalg.validate import positive_int, positive_size


@dataclass(frozen=True)
class Interleave:
    """``channel = (addr // granule) % num_channels`` (after an optional swizzle).

    >>> dec = Interleave(4, 64)
    >>> [dec.channel(a) for a in (0, 64, 128, 192, 256)]
    [0, 1, 2, 3, 0]
    >>> dec.offset(256 + 5)              # second block of channel 0
    69
    """

    num_channels: Extent
    granule: int
    swizzle: Swizzle | None = None

    kind = "interleave"

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_channels", positive_size(
            ChannelError, "num_channels", self.num_channels, where="Interleave"))
        positive_int(ChannelError, "granule", self.granule, where="Interleave")
        if self.swizzle is not None and not isinstance(self.swizzle, Swizzle):
            raise ChannelError(f"Interleave: swizzle must be a Swizzle or None; "
                               f"got {describe(self.swizzle)}")

    def _hashed(self, addr):
        return addr if self.swizzle is None else self.swizzle(addr)

    def channel(self, addr):
        """The channel of a byte address (int, int array or SymPy expression):
        granule-byte blocks dealt round-robin over the channels."""
        return deal_part(self._hashed(addr), self.num_channels, self.granule, lazy=True)

    def offset(self, addr):
        """The byte offset of an address inside its channel."""
        return deal_local(self._hashed(addr), self.num_channels, self.granule, lazy=True)

    def index_map(self, address_bytes: Extent, *, name: str | None = None) -> IndexMap:
        """``[addr:address_bytes] → [channel, offset]`` (with its inverse when unswizzled)."""
        domain = Space(addr=positive_size(ChannelError, "address_bytes", address_bytes,
                                          where="Interleave.index_map"))
        (a,) = domain.symbols
        capacity = ceil_div(sympy.sympify(address_bytes), self.granule * self.num_channels)
        codomain = Space(channel=self.num_channels, offset=capacity * self.granule)
        inverse = None if self.swizzle is not None else [
            undeal(*codomain.symbols, self.num_channels, self.granule, lazy=True)]
        return IndexMap(domain, codomain, [self.channel(a), self.offset(a)], inverse=inverse,
                        name=name or str(self))

    def __str__(self) -> str:
        hashed = "" if self.swizzle is None else f" after {self.swizzle}"
        return f"interleave({self.num_channels} channels × {self.granule} B{hashed})"


@dataclass(frozen=True)
class ByRange:
    """``channel = addr // channel_bytes``: each channel owns one address range.

    >>> dec = ByRange(4, 1 << 20)
    >>> dec.channel(3 * (1 << 20) + 7), dec.offset(3 * (1 << 20) + 7)
    (3, 7)
    """

    num_channels: Extent
    channel_bytes: Extent

    kind = "range"

    def __post_init__(self) -> None:
        for name in ("num_channels", "channel_bytes"):
            object.__setattr__(self, name, positive_size(ChannelError, name, getattr(self, name),
                                                         where="ByRange"))

    def channel(self, addr):
        return digits(addr, self.channel_bytes, lazy=True)[0]

    def offset(self, addr):
        return digits(addr, self.channel_bytes, lazy=True)[1]

    def index_map(self, address_bytes: Extent | None = None, *,
                  name: str | None = None) -> IndexMap:
        """``[addr] → [channel, offset]`` over the N·channel_bytes bytes of the memory."""
        total = self.num_channels * self.channel_bytes if address_bytes is None else address_bytes
        domain = Space(addr=positive_size(ChannelError, "address_bytes", total,
                                          where="ByRange.index_map"))
        codomain = Space(channel=self.num_channels, offset=self.channel_bytes)
        return IndexMap(domain, codomain, list(digits(*domain.symbols, self.channel_bytes,
                                                      lazy=True)),
                        inverse=[flatten(codomain.symbols, (None, self.channel_bytes))],
                        name=name or str(self))

    def __str__(self) -> str:
        return f"range({self.num_channels} channels × {self.channel_bytes} B)"


__all__ = ["ByRange", "Interleave"]
