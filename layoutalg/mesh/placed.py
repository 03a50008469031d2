"""``PlacedTensor`` (the subject of mesh specs) and its memory report, defined beside
``MeshLayout``."""

from __future__ import annotations

from layoutalg.mesh.layout import MemoryUsage, MeshLayout, PlacedTensor, require_layout

__all__ = ["MemoryUsage", "PlacedTensor", "memory_usage"]


def memory_usage(layout: MeshLayout, shape, dtype: str = "float32") -> MemoryUsage:
    """Min/max/average/total tile bytes per PE.

    >>> memory_usage(MeshLayout.grid(3, 3), (10, 10))
    MemoryUsage(min=16, max=64, average=44.44444444444444, total=400)
    """
    return require_layout(layout, "memory_usage", "layout").memory_usage(shape, dtype)
