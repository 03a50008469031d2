"""PyTorch layouts ``(size, stride)``: offset ``dot(coordinate, stride)`` from the base.

The canonical form drops every size-1 dim (only coordinate 0, so its stride never
matters): Spyre reasons about canonical layouts only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import dot, row_major_strides
from layoutalg.errors import SpyreError, describe
from layoutalg.validate import int_point, int_tuple, listed, positive_int


def contiguous_strides(size) -> tuple:
    """Row-major strides of ``size`` (ints, or SymPy products for symbolic sizes).

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    return tuple(row_major_strides(tuple(size)))


@dataclass(frozen=True, init=False)
class TorchLayout:
    """A PyTorch layout: ``size`` (positive ints) and ``stride`` (ints ≥ 0,
    row-major contiguous when omitted).

    >>> t = TorchLayout((512, 1, 256), (256, 256, 1))
    >>> t.canonical()
    TorchLayout(size=(512, 256), stride=(256, 1))
    >>> t.offset((3, 0, 5))
    773
    """

    size: tuple[int, ...]
    stride: tuple[int, ...]

    def __init__(self, size, stride=None) -> None:
        checked = int_tuple(SpyreError, "size", size, least=1)
        if stride is None:
            strides = contiguous_strides(checked)
        else:
            strides = int_tuple(SpyreError, "stride", stride, least=0)
            if len(strides) != len(checked):
                raise SpyreError(f"stride must have one entry per dim of size {listed(checked)} "
                                 f"({len(checked)}); got {describe(stride)}")
        object.__setattr__(self, "size", checked)
        object.__setattr__(self, "stride", tuple(strides))

    @property
    def rank(self) -> int:
        return len(self.size)

    @property
    def numel(self) -> int:
        return math.prod(self.size)

    @property
    def is_canonical(self) -> bool:
        """No dim of size 1."""
        return all(extent != 1 for extent in self.size)

    @property
    def is_contiguous(self) -> bool:
        """Row-major without gaps, judged on the canonical form (size-1 dims
        may carry any stride, as in PyTorch)."""
        canonical = self.canonical()
        return canonical.stride == contiguous_strides(canonical.size)

    def canonical(self) -> TorchLayout:
        """The same layout without its size-1 dims."""
        keep = [k for k, extent in enumerate(self.size) if extent != 1]
        return TorchLayout([self.size[k] for k in keep], [self.stride[k] for k in keep])

    def offset(self, coord) -> int:
        """Element offset of a coordinate from the tensor's base."""
        point = int_point(SpyreError, "coord", coord, self.size, "size")
        return dot(point, self.stride)

    def extent(self) -> int:
        """Elements spanned: the largest offset plus one."""
        return 1 + dot([n - 1 for n in self.size], self.stride)

    def index_map(self, *, element_bytes: int | None = None) -> IndexMap:
        """Host coordinate ``(h0, h1, …)`` ↦ offset from the base, in elements,
        or in bytes when ``element_bytes`` is given.

        >>> TorchLayout((2, 3)).index_map()(1, 2)
        (5,)
        """
        scale = 1 if element_bytes is None else positive_int(SpyreError, "element_bytes",
                                                             element_bytes)
        return offset_map(self.size, self.stride, scale=scale,
                          name=f"torch{listed(self.size)}:{listed(self.stride)}")

    def __str__(self) -> str:
        return f"(size={listed(self.size)}, stride={listed(self.stride)})"


def host_space(size) -> Space:
    """The host coordinates ``h0, h1, …`` of a tensor (extents may be symbolic)."""
    return Space(*((f"h{k}", extent) for k, extent in enumerate(size)))


def offset_map(size, stride, *, scale: int = 1, name: str) -> IndexMap:
    """``h ↦ scale · dot(h, stride)`` over ``host_space(size)``; works for
    symbolic sizes and strides (the proofs use it)."""
    domain = host_space(size)
    span = 1 + dot([n - 1 for n in size], stride)
    span = int(span) if isinstance(span, sympy.Integer) else span
    return IndexMap(domain, Space(offset=span * scale), [dot(domain.symbols, stride) * scale],
                    name=name)


__all__ = ["TorchLayout", "contiguous_strides", "host_space", "offset_map"]
