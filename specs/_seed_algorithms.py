"""The seed documents' flawed algorithms, kept here as the things the specs refute.

Not in the library (issue 12): PyFlame's layout planner (§3.4) and its cost
model (§5.3), and its GATHER and SCATTER patterns (§5.3), as written, with
the seed's constants (32 KB planner budget, ``sizeof(float)``, a 750 × 994
wafer with width and height swapped). ``specs/mesh.py`` proves where they
go wrong. The prover skips this file (its name starts with ``_``); a spec
beside it imports it as ``from _seed_algorithms import ...``.

GATHER and SCATTER (§5.3): GATHER: every PE but (0, 0) sends ``tile_size = numel·sizeof(float) / PEs``
bytes from offset 0 of its tile to PE (0, 0). SCATTER: PE (0, 0) sends bytes
``[k·tile_size, (k+1)·tile_size)`` of the row-major tensor to the k-th PE
(row-major), the first tile staying local. The seed gives no destination
offset for a gather; read charitably, PE k's bytes land at ``k·tile_size``
(the mirror of its scatter). Both are exact only for a row partition into
equal tiles; uneven tiles send padding and lose elements, and 2-D grids
receive rows that are not theirs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import TransformError
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.pattern_maps import PatternModel
from layoutalg.mesh.planner import seed_score
from layoutalg.mesh.seed import SEED_FLOAT_BYTES, SEED_PLANNER_BYTES
from layoutalg.mesh.shapes import check_shape, view
from layoutalg.mesh.transforms import BlockTable, LayoutTransform, TransformKind

SEED_MAX_PE_ROWS, SEED_MAX_PE_COLS = 750, 994   # swapped: the WSE-2 is 750 wide, 994 tall


@dataclass(frozen=True)
class SeedChoice:
    """What the seed's ``plan_layout`` returns: a layout name and a PE grid.

    ``layout()`` builds it, and raises when the seed's grid cannot exist
    (zero columns, or wider than the 750-PE wafer).
    """

    name: str
    pe_rows: int
    pe_cols: int

    def layout(self) -> MeshLayout:
        if self.name == "SinglePE":
            return MeshLayout.single_pe()
        if self.name == "RowPartition":
            return MeshLayout.row_partition(self.pe_rows)
        return MeshLayout.grid(self.pe_rows, self.pe_cols)

    def __str__(self) -> str:
        if self.name == "SinglePE":
            return "SinglePE"
        if self.name == "RowPartition":
            return f"RowPartition({self.pe_rows})"
        return f"Grid({self.pe_rows}, {self.pe_cols})"


def seed_plan_layout(shape, dtype: str = "float32") -> SeedChoice:
    """§3.4 ``LayoutPlanner::plan_layout`` as written (``min_pes_required`` assumed
    ``ceil(bytes / 32 KB)``, the seed does not show it).

    >>> str(seed_plan_layout((1000, 1000))), str(seed_plan_layout((8, 64, 64)))
    ('Grid(3, 41)', 'Grid(8, 0)')
    """
    shape = check_shape(shape)
    total = math.prod(shape) * element_size(dtype)
    if total <= SEED_PLANNER_BYTES:
        return SeedChoice("SinglePE", 1, 1)
    min_pes = -(-total // SEED_PLANNER_BYTES)
    if len(shape) == 2:
        best, best_score = (1, min_pes), math.inf
        rows = 1
        while rows <= math.sqrt(min_pes) + 1:
            if min_pes % rows == 0:
                cols = min_pes // rows
                tile = (-(-shape[0] // rows), -(-shape[1] // cols))
                score = float(seed_score(tile[0], tile[1], tile[0] * tile[1] * SEED_FLOAT_BYTES,
                                         SEED_PLANNER_BYTES))
                if score < best_score:
                    best, best_score = (rows, cols), score
            rows += 1
        return SeedChoice("Grid", *best)
    if len(shape) == 1:
        return SeedChoice("RowPartition", min_pes, 1)
    rows = min(shape[0], SEED_MAX_PE_ROWS)
    return SeedChoice("Grid", rows, min_pes // rows)


def seed_estimated_cost(kind: TransformKind, source: MeshLayout, target: MeshLayout,
                        shape) -> int:
    """§5.3 ``LayoutTransform::estimated_cost`` (bytes × hops, ``sizeof(float)``)."""
    data = math.prod(check_shape(shape)) * SEED_FLOAT_BYTES
    if kind is TransformKind.IDENTITY:
        return 0
    if kind is TransformKind.REDISTRIBUTE:
        return data * ((source.pe_rows + source.pe_cols) // 2)
    if kind is TransformKind.REPLICATE:
        return data * (target.total_pes - 1)
    if kind is TransformKind.GATHER:
        tile = data // source.total_pes
        return tile * source.total_pes * (source.pe_rows + source.pe_cols)
    if kind is TransformKind.SCATTER:
        return data * (target.pe_rows + target.pe_cols)
    return data * max(source.pe_rows + source.pe_cols, target.pe_rows + target.pe_cols)



def _setup(layout: MeshLayout, argument: str, shape, dtype: str):
    """Checked arguments: the shape, element bytes, the seed's tile in whole elements
    (``tile_size = numel·4 / PEs`` bytes), the view, and the index maps of ``layout`` and
    of PE (0, 0) on the view."""
    if not isinstance(layout, MeshLayout) or not layout.is_separable or layout.is_replicated:
        raise TransformError(f"seed pattern: {argument} must be a partitioned MeshLayout; "
                             f"got {layout}")
    shape = check_shape(shape)
    size = element_size(dtype)
    tile_bytes = math.prod(shape) * SEED_FLOAT_BYTES // layout.total_pes
    elements = tile_bytes // size
    if elements < 1:
        raise TransformError(f"seed pattern: tile_size {tile_bytes} bytes holds no element of "
                             f"{dtype} for {layout}")
    v = view(shape)
    return (shape, size, elements, v, layout.index_map(v, element_size=size),
            MeshLayout.single_pe().index_map(v, element_size=size))


def _blocks(size, sources, targets, src_offsets, dst_offsets, elements) -> BlockTable:
    n = len(sources)
    zeros, ones = np.zeros(n, dtype=np.int64), np.ones(n, dtype=np.int64)
    return BlockTable(size, sources[:, 0], sources[:, 1], targets[:, 0], targets[:, 1], zeros,
                      ones, zeros, np.full(n, elements), np.asarray(src_offsets), zeros,
                      np.asarray(dst_offsets), zeros)


def seed_gather(source: MeshLayout, shape, dtype: str = "float32") -> LayoutTransform:
    """The seed's GATHER from ``source`` to PE (0, 0), with its model and blocks."""
    shape, size, elements, v, src_map, dst_map = _setup(source, "source", shape, dtype)
    slots = src_map.codomain.extents[2] // size
    codomain = Space(pe=source.total_pes, position=max(slots, elements))
    pe, position = codomain.symbols
    row, col, offset = src_map.exprs
    k = row * source.pe_cols + col
    slot = dict(zip(src_map.codomain.symbols,
                    (pe // source.pe_cols, pe % source.pe_cols, position * size)))
    label = f"seed GATHER {source} → SinglePE of {list(shape)}"
    messages = IndexMap(src_map.domain, codomain, [k, offset // size],
                        inverse=[e.xreplace(slot) for e in src_map.inverse],
                        valid=sympy.Lt(position, elements), name=f"messages of {label}")
    writes = IndexMap(src_map.domain, dst_map.codomain,
                      [0, 0, (k * elements + offset // size) * size], name=f"writes of {label}")
    reads = IndexMap(src_map.domain, src_map.codomain, src_map.exprs, name=f"reads of {label}")
    model = PatternModel(label, messages, reads, writes, src_map, dst_map)
    ks = np.arange(source.total_pes)
    sources = np.stack([ks // source.pe_cols, ks % source.pe_cols], axis=1)
    blocks = _blocks(size, sources, np.zeros_like(sources), np.zeros(len(ks), dtype=np.int64),
                     ks * elements * size, elements)
    return LayoutTransform(TransformKind.GATHER, source, MeshLayout.single_pe(), shape, dtype,
                           model, blocks)


def seed_scatter(target: MeshLayout, shape, dtype: str = "float32") -> LayoutTransform:
    """The seed's SCATTER from PE (0, 0) to ``target``, with its model and blocks."""
    shape, size, elements, v, dst_map, src_map = _setup(target, "target", shape, dtype)
    domain = dst_map.domain
    i, j = domain.symbols
    flat = i * v[1] + j
    codomain = Space(pe=target.total_pes, position=elements)
    pe, position = codomain.symbols
    label = f"seed SCATTER SinglePE → {target} of {list(shape)}"
    back = pe * elements + position
    messages = IndexMap(domain, codomain, [flat // elements, flat % elements],
                        inverse=[back // v[1], back % v[1]], name=f"messages of {label}")
    k = flat // elements
    writes = IndexMap(domain, dst_map.codomain,
                      [k // target.pe_cols, k % target.pe_cols, (flat % elements) * size],
                      name=f"writes of {label}")
    reads = IndexMap(domain, src_map.codomain, [0, 0, flat * size], name=f"reads of {label}")
    model = PatternModel(label, messages, reads, writes, src_map, dst_map)
    ks = np.arange(target.total_pes)
    targets = np.stack([ks // target.pe_cols, ks % target.pe_cols], axis=1)
    blocks = _blocks(size, np.zeros_like(targets), targets, ks * elements * size,
                     np.zeros(len(ks), dtype=np.int64), elements)
    return LayoutTransform(TransformKind.SCATTER, MeshLayout.single_pe(), target, shape, dtype,
                           model, blocks)
