"""The combinators on a Space or after an IndexMap: ``la.split``, ``la.linearize``, ….

On a ``Space`` each is the core's map out of it
(:mod:`layoutalg.core.combinators`, exact by construction). On an
``IndexMap`` it follows that map: the core's map out of the map's codomain,
composed after it by :func:`~layoutalg.verify.compose.compose`, which proves
that the composition is defined. So layouts read as chains::

    tiles = split(split(Space(i=M, j=N), "i", TR), "j", TC)

>>> m = split(Space(x=10), "x", 4)
>>> linearize(m)(9), linearize(m).label
((9,), 'split(x, 4) ▷ linearize')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from layoutalg.core import combinators as steps
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent, Space
from layoutalg.errors import MapError, describe
from layoutalg.verify.compose import compose

Source = Space | IndexMap

identity = steps.identity  # out of a Space only

_FOLLOWS = """
    On an IndexMap ``source``: the same map out of its codomain, composed after
    it (``compose`` proves the composition defined, or raises CompositionError).
    """


def after(source: Source, step: Callable[[Space], IndexMap]) -> IndexMap:
    """``step`` of a Space; or of an IndexMap's codomain, composed after the map."""
    if isinstance(source, Space):
        return step(source)
    if isinstance(source, IndexMap):
        made = step(source.codomain)
        return compose(source, made, name=f"{source.label} ▷ {made.label}")
    raise MapError(f"source must be a Space or an IndexMap; got {describe(source)}")


def _as(core: Callable) -> Callable:
    """At run time, give the decorated combinator the core's docstring (``help(la.split)``
    explains the split) and what it does on a map."""
    def give(combinator: Callable) -> Callable:
        combinator.__doc__ = (core.__doc__ or "").rstrip() + "\n" + _FOLLOWS
        return combinator
    return give


@_as(steps.split)
def split(source: Source, dim: str, factor: Extent, *,
          names: Sequence[str] | None = None) -> IndexMap:
    """:func:`layoutalg.core.combinators.split` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.split(space, dim, factor, names=names))


@_as(steps.fuse)
def fuse(source: Source, outer: str, inner: str, *, name: str | None = None) -> IndexMap:
    """:func:`layoutalg.core.combinators.fuse` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.fuse(space, outer, inner, name=name))


@_as(steps.permute)
def permute(source: Source, order: Sequence[str]) -> IndexMap:
    """:func:`layoutalg.core.combinators.permute` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.permute(space, order))


@_as(steps.rename)
def rename(source: Source, **names: str) -> IndexMap:
    """:func:`layoutalg.core.combinators.rename` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.rename(space, **names))


@_as(steps.pad)
def pad(source: Source, dim: str, multiple: Extent | None = None, *,
        to: Extent | None = None) -> IndexMap:
    """:func:`layoutalg.core.combinators.pad` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.pad(space, dim, multiple, to=to))


@_as(steps.cyclic)
def cyclic(source: Source, dim: str, parts: Extent, *, block: Extent = 1,
           names: Sequence[str] | None = None) -> IndexMap:
    """:func:`layoutalg.core.combinators.cyclic` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.cyclic(space, dim, parts, block=block, names=names))


@_as(steps.linearize)
def linearize(source: Source, dims: Sequence[str] | None = None, *,
              name: str = "offset") -> IndexMap:
    """:func:`layoutalg.core.combinators.linearize` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.linearize(space, dims, name=name))


@_as(steps.delinearize)
def delinearize(source: Source, dim: str, **extents: Extent) -> IndexMap:
    """:func:`layoutalg.core.combinators.delinearize` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.delinearize(space, dim, **extents))


@_as(steps.offset)
def offset(source: Source, dim: str, amount: Extent) -> IndexMap:
    """:func:`layoutalg.core.combinators.offset` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.offset(space, dim, amount))


@_as(steps.scale)
def scale(source: Source, dim: str, factor: Extent) -> IndexMap:
    """:func:`layoutalg.core.combinators.scale` on a Space, or after an IndexMap."""
    return after(source, lambda space: steps.scale(space, dim, factor))


__all__ = [
    "after", "compose", "cyclic", "delinearize", "fuse", "identity", "linearize", "offset",
    "pad", "permute", "rename", "scale", "split",
]
