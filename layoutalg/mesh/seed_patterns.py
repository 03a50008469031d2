"""The seed's GATHER and SCATTER patterns (§5.3), as models the proof can refute.

GATHER: every PE but (0, 0) sends ``tile_size = numel·sizeof(float) / PEs``
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

import numpy as np
import sympy

from layoutalg.core.space import Space
from layoutalg.core.index_map import IndexMap
from layoutalg.mesh.dtypes import element_size
from layoutalg.errors import TransformError
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.pattern_maps import PatternModel
from layoutalg.mesh.seed import SEED_FLOAT_BYTES
from layoutalg.mesh.shapes import check_shape, view
from layoutalg.mesh.transforms import BlockTable, LayoutTransform, TransformKind


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
