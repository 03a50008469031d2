"""The one interface for "something with a layout".

Every family object a spec may return — a Cerebras ``PlacedTensor``, a Spyre
``SpyreLayout``, a Tenstorrent ``TensorSpec``, a ``ChannelLayout``, a CuTe
layout, a ``Chain`` — gives its element → memory map with ``index_map()``.
The spec runner, the executor, the CLI and the pictures ask for that map
through :func:`index_map_of` instead of probing attributes one by one.

>>> from layoutalg.core.combinators import identity
>>> from layoutalg.core.space import Space
>>> m = identity(Space(i=2))
>>> index_map_of(m) is m
True
>>> index_map_of(3) is None
True
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from layoutalg.core.index_map import IndexMap


@runtime_checkable
class LaidOut(Protocol):
    """A value with a layout: ``index_map()`` maps each element to where it lives."""

    def index_map(self) -> IndexMap: ...


def is_layout(value: object) -> bool:
    """True for an IndexMap or any value that gives one with ``index_map()``."""
    return isinstance(value, (IndexMap, LaidOut))


def index_map_of(value: object) -> IndexMap | None:
    """The IndexMap of ``value`` (itself, or its ``index_map()``), or None."""
    if isinstance(value, IndexMap):
        return value
    if isinstance(value, LaidOut):
        return value.index_map()
    return None
