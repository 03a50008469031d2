"""A layout holding one tensor: the subject of mesh specs and memory reports."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import describe
from layoutalg.mesh.dtypes import element_size
from layoutalg.errors import MeshError
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.shapes import check_shape


@dataclass(frozen=True)
class MemoryUsage:
    """Tile bytes per PE over every PE of the layout's grid (empty PEs count 0),
    as the seed's ``memory_usage_per_pe``; ``usage["max"]`` works too."""

    min: int
    max: int
    average: float
    total: int

    def __getitem__(self, key: str):
        if key not in ("min", "max", "average", "total"):
            raise KeyError(key)
        return getattr(self, key)


def memory_usage(layout: MeshLayout, shape, dtype: str = "float32") -> MemoryUsage:
    """Min/max/average/total tile bytes per PE.

    >>> memory_usage(MeshLayout.grid(3, 3), (10, 10))
    MemoryUsage(min=16, max=64, average=44.44444444444444, total=400)
    """
    if not isinstance(layout, MeshLayout):
        raise MeshError(f"layout: must be a MeshLayout; got {describe(layout)}")
    size = element_size(dtype)
    # Python ints throughout: tile bytes past 2**63 must not wrap.
    usage = [int(n) * size for n in layout.tile_elements(shape).flat]
    total = sum(usage)
    return MemoryUsage(min(usage), max(usage), total / len(usage), total)


@dataclass(frozen=True)
class PlacedTensor:
    """A tensor of ``shape`` and ``dtype`` in ``layout``; ``index_map()`` places it.

    >>> t = MeshLayout.grid(32, 32).on((1024, 1024))
    >>> str(t), t.memory_usage().max
    ('Grid(32, 32) of [1024, 1024] float32', 4096)
    """

    layout: MeshLayout
    shape: tuple[int, ...]
    dtype: str = "float32"

    def __post_init__(self) -> None:
        if not isinstance(self.layout, MeshLayout):
            raise MeshError(f"layout: must be a MeshLayout; got {describe(self.layout)}")
        object.__setattr__(self, "shape", check_shape(self.shape))
        element_size(self.dtype)

    @property
    def element_size(self) -> int:
        return element_size(self.dtype)

    def index_map(self) -> IndexMap:
        return self.layout.index_map(self.shape, element_size=self.element_size)

    def layout_steps(self) -> tuple[IndexMap, ...]:
        """The steps of ``index_map()``, one named intermediate coordinate each."""
        return self.layout.layout_steps(self.shape, element_size=self.element_size)

    def memory_usage(self) -> MemoryUsage:
        return memory_usage(self.layout, self.shape, self.dtype)

    def reservations(self) -> np.ndarray:
        return self.layout.reservations(self.shape, self.element_size)

    def __str__(self) -> str:
        return f"{self.layout} of {list(self.shape)} {self.dtype}"
