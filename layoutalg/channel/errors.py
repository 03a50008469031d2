"""Errors of the channel family.

Messages name the argument, state the rule and end with the value given,
e.g. ``ChannelLayout: num_channels must be even for option 'iteration_aware'
(A on even, B on odd channels); got 5``.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class ChannelError(LayoutError):
    """Bad input to a channel layout, decoder or channel check.

    Cause: an unknown option, matrix or dataflow name, a size that is not a
    positive integer, an odd channel count where the option pairs channels,
    a tile that is not a whole number of interleave beats, or a tile
    coordinate outside the tile grid. Fix: change the argument the message
    names.
    """


class SwizzleError(ChannelError):
    """A CuTe ``Swizzle<B, M, S>`` or bank map with impossible parameters.

    Cause: a negative bit count or base, ``|S| < B`` (the XOR would read
    bits it also writes, which CuTe rejects with a static_assert), or a
    bank count or bank width that is not a positive int. Fix: as the
    message says.
    """


__all__ = ["ChannelError", "SwizzleError"]
