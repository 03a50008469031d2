"""``MeshLayout``: how a tensor is spread over the PEs of a Cerebras wafer.

The seed's ``MeshLayout`` (PyFlame §3.1) with its factories. Tiles are
ceil-division tiles: the first PEs get ``ceil(extent / parts)`` indices, trailing
PEs smaller or empty tiles. Tensors of rank ≠ 2 are placed through their view
``[shape[0], prod(shape[1:])]`` (``shapes.view``). ``layout.on(shape, dtype)`` is
a ``PlacedTensor``, the subject of mesh specs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from layoutalg.core.home import Home
from layoutalg.core.index_map import IndexMap
from layoutalg.core.integers import shrink
from layoutalg.errors import MeshError, describe
from layoutalg.mesh import maps
from layoutalg.mesh.axes import Axis, tile_axis, whole_axis
from layoutalg.mesh.compat import compare
from layoutalg.mesh.dtypes import check_element_size, element_size
from layoutalg.mesh.kinds import WSE2, LayoutKind, check_dim_to_pe, pe_count
from layoutalg.mesh.shapes import check_index, check_pe, check_shape, view, view_index
from layoutalg.validate import instance_of
from layoutalg.verify.combinators import linearize, scale


@dataclass(frozen=True)
class MeshLayout:
    """A tensor's distribution over a ``pe_rows × pe_cols`` block of PEs.

    Build with the factories. ``dim_to_pe[d]`` names the PE axis (0 rows, 1
    columns) that deals view dimension ``d``; ``(1, 0)`` is the transposed mapping.

    >>> layout = MeshLayout.grid(3, 3)
    >>> layout.tile_shape((2, 2), (10, 10)), layout.pe_for_element((9, 3), (10, 10))
    ((2, 2), (2, 0))
    """

    kind: LayoutKind
    pe_rows: int
    pe_cols: int
    block_rows: int = 0
    block_cols: int = 0
    dim_to_pe: tuple[int, int] = (0, 1)
    mapping: IndexMap | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, LayoutKind):
            raise MeshError(f"MeshLayout: kind must be a LayoutKind; got {describe(self.kind)}")
        pe_count(self.pe_rows, "MeshLayout", "pe_rows")
        pe_count(self.pe_cols, "MeshLayout", "pe_cols")
        object.__setattr__(self, "dim_to_pe", check_dim_to_pe(self.dim_to_pe, "MeshLayout"))
        if self.kind is LayoutKind.BLOCK_CYCLIC:
            pe_count(self.block_rows, "MeshLayout", "block_rows")
            pe_count(self.block_cols, "MeshLayout", "block_cols")
        if (self.kind is LayoutKind.CUSTOM) != (self.mapping is not None):
            raise MeshError("MeshLayout: mapping must be given exactly for CUSTOM layouts; "
                            f"got kind {self.kind.name} with mapping {describe(self.mapping)}")

    @classmethod
    def single_pe(cls) -> MeshLayout:
        """All data on PE (0, 0)."""
        return cls(LayoutKind.SINGLE_PE, 1, 1)

    @classmethod
    def row_partition(cls, num_pes: int, *, dim_to_pe=(0, 1)) -> MeshLayout:
        """Tensor rows split over ``num_pes`` PEs down one PE column."""
        n = pe_count(num_pes, "row_partition", "num_pes")
        return cls(LayoutKind.ROW_PARTITION, n, 1, dim_to_pe=check_dim_to_pe(dim_to_pe, "row_partition"))

    @classmethod
    def col_partition(cls, num_pes: int, *, dim_to_pe=(0, 1)) -> MeshLayout:
        """Tensor columns split over ``num_pes`` PEs along one PE row."""
        n = pe_count(num_pes, "col_partition", "num_pes")
        return cls(LayoutKind.COL_PARTITION, 1, n, dim_to_pe=check_dim_to_pe(dim_to_pe, "col_partition"))

    @classmethod
    def grid(cls, rows: int, cols: int, *, dim_to_pe=(0, 1)) -> MeshLayout:
        """2-D ceil-division tiles over a ``rows × cols`` PE grid."""
        return cls(LayoutKind.GRID, pe_count(rows, "grid", "rows"),
                   pe_count(cols, "grid", "cols"), dim_to_pe=check_dim_to_pe(dim_to_pe, "grid"))

    @classmethod
    def block_cyclic(cls, rows: int, cols: int, block_rows: int, block_cols: int, *,
                     dim_to_pe=(0, 1)) -> MeshLayout:
        """Blocks of ``block_rows × block_cols`` elements dealt round-robin over the grid."""
        return cls(LayoutKind.BLOCK_CYCLIC, pe_count(rows, "block_cyclic", "rows"),
                   pe_count(cols, "block_cyclic", "cols"),
                   pe_count(block_rows, "block_cyclic", "block_rows"),
                   pe_count(block_cols, "block_cyclic", "block_cols"),
                   dim_to_pe=check_dim_to_pe(dim_to_pe, "block_cyclic"))

    @classmethod
    def replicated(cls, rows: int, cols: int) -> MeshLayout:
        """A full copy of the tensor on every PE of a ``rows × cols`` grid."""
        return cls(LayoutKind.REPLICATED, pe_count(rows, "replicated", "rows"),
                   pe_count(cols, "replicated", "cols"))

    @classmethod
    def custom(cls, index_map: IndexMap) -> MeshLayout:
        """A user map ``element → (pe_row, pe_col, element offset)`` for one shape."""
        if not isinstance(index_map, IndexMap):
            raise MeshError(f"custom: index_map must be an IndexMap; got {describe(index_map)}")
        if not index_map.is_concrete or index_map.parameters:
            raise MeshError(f"custom: index_map must have concrete extents; got {index_map.label}")
        if index_map.codomain.rank != 3:
            raise MeshError("custom: index_map must map to (pe_row, pe_col, offset); got codomain "
                            f"{index_map.codomain}")
        rows, cols, _ = index_map.codomain.extents
        return cls(LayoutKind.CUSTOM, pe_count(rows, "custom", "pe_row extent"),
                   pe_count(cols, "custom", "pe_col extent"), mapping=index_map)

    @property
    def total_pes(self) -> int:
        return self.pe_rows * self.pe_cols

    @property
    def is_replicated(self) -> bool:
        return self.kind is LayoutKind.REPLICATED

    @property
    def is_separable(self) -> bool:
        return self.kind is not LayoutKind.CUSTOM

    def axes(self, shape: tuple[int, ...]) -> tuple[Axis, Axis] | None:
        """The deal of each view dimension, or None for a custom layout."""
        if self.kind is LayoutKind.CUSTOM:
            return None
        rows, cols = view(check_shape(shape))
        if self.kind is LayoutKind.REPLICATED:
            return whole_axis(rows, 0), whole_axis(cols, 1)
        parts = (self.pe_rows, self.pe_cols)
        a, b = self.dim_to_pe
        if self.kind is LayoutKind.BLOCK_CYCLIC:
            return (Axis(rows, self.block_rows, parts[a], a, cyclic=True),
                    Axis(cols, self.block_cols, parts[b], b, cyclic=True))
        return tile_axis(rows, parts[a], a), tile_axis(cols, parts[b], b)

    def transposed(self) -> MeshLayout:
        """The same PE grid dealing the other view dimension down the PE rows."""
        if self.kind in (LayoutKind.CUSTOM, LayoutKind.REPLICATED):
            raise MeshError(f"transposed: {self} has no dimension mapping to swap")
        a, b = self.dim_to_pe
        return MeshLayout(self.kind, self.pe_rows, self.pe_cols, self.block_rows,
                          self.block_cols, (b, a))

    def pe_for_element(self, index, shape) -> tuple[int, int]:
        """The ``(row, col)`` of the PE holding element ``index``."""
        if self.is_replicated:
            check_index(index, check_shape(shape))
            raise MeshError(f"pe_for_element: {self} keeps every element on all "
                            f"{self.pe_rows}×{self.pe_cols} PEs; use pes_for_element")
        return self._placement(index, shape)[0]

    def pes_for_element(self, index, shape) -> tuple[tuple[int, int], ...]:
        """Every PE holding element ``index`` (one, or all of a replicated layout)."""
        if self.is_replicated:
            check_index(index, check_shape(shape))
            return tuple(np.ndindex(self.pe_rows, self.pe_cols))
        return (self._placement(index, shape)[0],)

    def local_indices(self, index, shape) -> tuple[int, ...]:
        """Where element ``index`` sits in its PE's tile: view rank (rank 1 → one index);
        a custom layout gives its element offset."""
        return self._placement(index, shape)[1]

    def _placement(self, index, shape):
        shape = check_shape(shape)
        index = check_index(index, shape)
        if self.mapping is not None:
            row, col, offset = self._mapping_for(shape)(*index)
            return (row, col), (offset,)
        axes, view_at = self.axes(shape), view_index(index, shape)
        pe = [0, 0]
        for axis, x in zip(axes, view_at):
            pe[axis.pe_axis] = int(axis.part(x))
        local = tuple(int(axis.local(x)) for axis, x in zip(axes, view_at))
        return (pe[0], pe[1]), local[:1] if len(shape) == 1 else local

    def tile_elements(self, shape) -> np.ndarray:
        """Elements held by each PE, as a ``pe_rows × pe_cols`` array: int64, or
        Python ints (dtype object) when a count does not fit in int64."""
        shape = check_shape(shape)
        if self.is_replicated:
            return shrink(np.full((self.pe_rows, self.pe_cols), math.prod(shape), dtype=object))
        if self.mapping is not None:
            rows, cols, _ = maps.enumerate_images(self._mapping_for(shape))
            flat = np.bincount(rows * self.pe_cols + cols, minlength=self.total_pes)
            return flat.reshape(self.pe_rows, self.pe_cols).astype(np.int64)
        first, second = self.axes(shape)
        # Python ints: an int64 product of two counts past 2**31 each wraps silently.
        table = shrink(np.multiply.outer(first.counts().astype(object),
                                         second.counts().astype(object)))
        return table if first.pe_axis == 0 else table.T

    def tile_shape(self, pe, shape) -> tuple[int, ...]:
        """Shape of PE ``pe``'s tile: view rank (rank 1 → one extent), zeros for an
        empty tile; a custom layout gives ``(element count,)``."""
        shape = check_shape(shape)
        row, col = check_pe(pe, self.pe_rows, self.pe_cols)
        if self.mapping is not None:
            return (int(self.tile_elements(shape)[row, col]),)
        if self.is_replicated:
            return view(shape)[:1] if len(shape) == 1 else view(shape)
        extents = tuple(int(a.counts()[(row, col)[a.pe_axis]]) for a in self.axes(shape))
        return (extents[0] * extents[1],) if len(shape) == 1 else extents

    def memory_per_pe(self, shape, element_size: int) -> int:
        """Bytes of the largest tile.

        >>> MeshLayout.grid(32, 32).memory_per_pe((1024, 1024), 4)
        4096
        """
        return check_element_size(element_size) * int(self.tile_elements(shape).max())

    def memory_usage(self, shape, dtype: str = "float32"):
        """Tile bytes over every PE of the grid (``MemoryUsage``).

        >>> MeshLayout.row_partition(4).memory_usage((10, 4)).min
        16
        """
        size = element_size(dtype)
        # Python ints throughout: tile bytes past 2**63 must not wrap.
        usage = [int(n) * size for n in self.tile_elements(shape).flat]
        total = sum(usage)
        return MemoryUsage(min(usage), max(usage), total / len(usage), total)

    def reserved_bytes(self, shape, element_size: int) -> int:
        """Bytes every occupied PE reserves: the slot block of the index map (equal to
        the largest tile for ceil-division tiles, whole blocks for block-cyclic)."""
        size = check_element_size(element_size)
        return int(self.index_map(shape, element_size=size).codomain.extents[-1])

    def reservations(self, shape, element_size: int) -> np.ndarray:
        """``pe_rows × pe_cols`` bytes reserved: the slot block where a PE holds data."""
        occupied = self.tile_elements(shape) > 0
        return np.where(occupied, self.reserved_bytes(shape, element_size), 0).astype(np.int64)

    def index_map(self, shape, *, element_size: int = 4) -> IndexMap:
        """Element → ``(pe_row, pe_col, byte offset)``, with inverse and padding."""
        return _index_map(self, check_shape(shape), check_element_size(element_size))

    def layout_steps(self, shape, *, element_size: int = 4) -> tuple[IndexMap, ...]:
        """``index_map(shape)`` as steps that compose to it (the docs' ``Stepped``
        protocol): the view ``(i, j)`` (rank ≠ 2 only), the tile coordinates
        ``(pe_row, pe_col, row, col)``, then ``(pe_row, pe_col, offset)`` in bytes.
        Empty for a replicated or custom layout: one step says it.

        >>> tiles, offset = MeshLayout.grid(2, 2).layout_steps((10, 10))
        >>> tiles.codomain.names, tiles(9, 3), offset(1, 0, 4, 3)
        (('pe_row', 'pe_col', 'row', 'col'), (1, 0, 4, 3), (1, 0, 92))
        """
        shape, size = check_shape(shape), check_element_size(element_size)
        if self.mapping is not None or self.is_replicated:
            return ()
        rows, cols = view(shape)
        tiles = maps.separable_map((rows, cols), self.axes(shape), size, f"tiles of {self}",
                                   tile_coordinates=True)
        offset = scale(linearize(tiles.codomain, ["row", "col"], name="offset"), "offset",
                       size).renamed(f"offset in bytes ({size} B per element)")
        if len(shape) == 2:
            return tiles, offset
        identity = IndexMap(tiles.domain, tiles.domain, list(tiles.domain.symbols))
        return maps.on_tensor(identity, shape).renamed(f"view as [{rows}, {cols}]"), tiles, offset

    def _mapping_for(self, shape) -> IndexMap:
        if tuple(self.mapping.domain.extents) != tuple(shape):
            raise MeshError(f"shape: {self} is defined for shape "
                            f"{tuple(self.mapping.domain.extents)}; got {tuple(shape)}")
        return self.mapping

    def on(self, shape, dtype: str = "float32"):
        """This layout holding a tensor of ``shape`` and ``dtype`` (a spec subject)."""
        return PlacedTensor(self, check_shape(shape), dtype)

    def compatible_with(self, other: MeshLayout, shape):
        """Does every element live on the same PEs under both layouts? A Z3 proof
        (``CheckResult``), REFUTED with an element on different PEs."""
        require_layout(other, "compatible_with", "other")
        return compare(self, other, check_shape(shape))

    def __str__(self) -> str:
        k = self.kind
        if k is LayoutKind.CUSTOM:
            return f"Custom({self.mapping.label})"
        sizes = {LayoutKind.SINGLE_PE: (), LayoutKind.ROW_PARTITION: (self.pe_rows,),
                 LayoutKind.COL_PARTITION: (self.pe_cols,)}.get(k, (self.pe_rows, self.pe_cols))
        if k is LayoutKind.BLOCK_CYCLIC:
            sizes += (self.block_rows, self.block_cols)
        text = k.value + (f"({', '.join(map(str, sizes))})" if sizes else "")
        return text if self.dim_to_pe == (0, 1) else text + "ᵀ"


def require_layout(value: object, who: str, argument: str) -> MeshLayout:
    instance_of(MeshError, argument, value, MeshLayout, where=who)
    return value


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
        require_layout(self.layout, "PlacedTensor", "layout")
        object.__setattr__(self, "shape", check_shape(self.shape))
        element_size(self.dtype)

    @property
    def element_size(self) -> int:
        return element_size(self.dtype)

    def index_map(self) -> IndexMap:
        return self.layout.index_map(self.shape, element_size=self.element_size)

    def home(self) -> Home:
        """Where ``layoutalg run`` puts it: WSE PEs of 48 KB, byte offsets."""
        return Home("mesh", self.element_size, True, 2, "WSE, 48 KB per PE",
                    WSE2.pe_sram_bytes, "PE")

    def layout_steps(self) -> tuple[IndexMap, ...]:
        """The steps of ``index_map()``, one named intermediate coordinate each."""
        return self.layout.layout_steps(self.shape, element_size=self.element_size)

    def memory_usage(self) -> MemoryUsage:
        return self.layout.memory_usage(self.shape, self.dtype)

    def reservations(self) -> np.ndarray:
        return self.layout.reservations(self.shape, self.element_size)

    def __str__(self) -> str:
        return f"{self.layout} of {list(self.shape)} {self.dtype}"


@lru_cache(maxsize=512)
def _index_map(layout: MeshLayout, shape: tuple[int, ...], element_size: int) -> IndexMap:
    name = f"{layout} of {list(shape)}"
    if layout.mapping is not None:
        return maps.custom_map(layout._mapping_for(shape), element_size, name)
    if layout.is_replicated:
        placed = maps.replicated_map(view(shape), (layout.pe_rows, layout.pe_cols),
                                     element_size, name)
        return maps.on_tensor(placed, shape, leading=2)
    return maps.on_tensor(maps.separable_map(view(shape), layout.axes(shape), element_size, name),
                          shape)
