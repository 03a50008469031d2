"""Shared-memory tiles under a swizzle, as index maps: the tile itself and its column reads.

A row-major tile's offset ``row·cols + col`` goes through CuTe's swizzle
(``composition(Swizzle<B,M,S>{}, Layout)``); the rows may be symbolic, so a
claim holds for every tile height the assumptions allow.

>>> from layoutalg.channel.swizzle import Swizzle
>>> tile = swizzled_tile(Swizzle(3, 4, 3), 8, 128)
>>> tile(1, 0), tile(1, 16)         # row 1: chunks 0 and 1 trade places
((144,), (128,))
>>> read = column_read(Swizzle(3, 4, 3), 8)
>>> [read(0, row)[0] for row in range(3)]   # chunk 0 of rows 0..2, 16 B each
[0, 144, 288]
"""

from __future__ import annotations

from layoutalg.channel.swizzle import Swizzle
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import dot, flatten, unflatten
from layoutalg.errors import SwizzleError, describe
from layoutalg.validate import positive_int, positive_size


def _swizzle(value) -> Swizzle | None:
    if value is not None and not isinstance(value, Swizzle):
        raise SwizzleError(f"swizzle must be a Swizzle or None; got {describe(value)}")
    return value


def swizzled_tile(swizzle: Swizzle | None, rows, cols: int) -> IndexMap:
    """``(row, col) → offset``: the row-major tile's offsets through ``swizzle``
    (None: unswizzled), with the inverse ``(sw(o) // cols, sw(o) % cols)`` (a
    swizzle is its own inverse)."""
    swizzle, rows = _swizzle(swizzle), positive_size(SwizzleError, "rows", rows)
    cols = positive_int(SwizzleError, "cols", cols)
    domain, codomain = Space(row=rows, col=cols), Space(offset=rows * cols)
    (o,) = codomain.symbols
    return IndexMap(domain, codomain, [_through(swizzle, flatten(domain.symbols, (rows, cols)))],
                    inverse=unflatten(_through(swizzle, o), (rows, cols)),
                    name=f"{swizzle or 'unswizzled'} tile [{rows} × {cols}]")


def column_read(swizzle: Swizzle | None, rows, *, row_bytes: int = 128,
                access_bytes: int = 16) -> IndexMap:
    """``(col, row) → byte``: lane ``row`` reads the ``access_bytes`` chunk ``col``
    of its row of a ``rows × row_bytes`` tile, through ``swizzle`` (byte offsets)."""
    swizzle, rows = _swizzle(swizzle), positive_size(SwizzleError, "rows", rows)
    space = Space(col=_chunks(row_bytes, access_bytes), row=rows)
    col, row = space.symbols
    address = _through(swizzle, dot((row, col), (row_bytes, access_bytes)))
    return IndexMap(space, Space(addr=rows * row_bytes), [address],
                    name=f"column read via {swizzle or 'no swizzle'} [{rows} × {row_bytes} B]")


def row_read(swizzle: Swizzle | None, rows, *, row_bytes: int = 128,
             access_bytes: int = 16) -> IndexMap:
    """``(row, chunk) → byte``: lane ``chunk`` reads chunk ``chunk`` of row ``row``."""
    swizzle, rows = _swizzle(swizzle), positive_size(SwizzleError, "rows", rows)
    space = Space(row=rows, chunk=_chunks(row_bytes, access_bytes))
    address = _through(swizzle, dot(space.symbols, (row_bytes, access_bytes)))
    return IndexMap(space, Space(addr=rows * row_bytes), [address],
                    name=f"row read via {swizzle or 'no swizzle'} [{rows} × {row_bytes} B]")


def _chunks(row_bytes, access_bytes) -> int:
    """The accesses per row: both positive ints, ``row_bytes`` a multiple of ``access_bytes``."""
    for name, value in (("row_bytes", row_bytes), ("access_bytes", access_bytes)):
        positive_int(SwizzleError, name, value)
    if row_bytes % access_bytes:
        raise SwizzleError(f"row_bytes must be a multiple of access_bytes={access_bytes}; "
                           f"got {row_bytes}")
    return row_bytes // access_bytes


def _through(swizzle, offset):
    return offset if swizzle is None else swizzle.expr(offset)


__all__ = ["column_read", "row_read", "swizzled_tile"]
