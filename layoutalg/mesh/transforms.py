"""Layout transforms: the exact communication pattern between two mesh layouts.

``create_transform(source, target, shape, dtype)`` computes every transfer
(PEs, view rows and columns, byte offsets and row strides on both sides) from
the overlaps of source and destination tiles, classifies it (IDENTITY …
RESHARD), prices it (bytes × Manhattan hops, 32-bit wavelets) and proves it
delivers every element exactly once (``transform.prove()``). NumPy over
blocks; no Python loop runs per element.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from layoutalg.core.evaluate import as_int64, evaluate_all
from layoutalg.core.index_map import IndexMap
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import TransformError
from layoutalg.mesh.dtypes import WAVELET_BYTES, element_size
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.maps import ENUMERATION_LIMIT
from layoutalg.mesh.pattern_maps import (
    PatternModel,
    SeparablePattern,
    generic_pattern,
    prove_exactly_once,
    reserved,
    separable_pattern,
)
from layoutalg.mesh.shapes import check_shape
from layoutalg.validate import instance_of
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult


class TransformKind(enum.Enum):
    """The seed's ``TransformType``, decided from the layouts and the pattern."""

    IDENTITY = "IDENTITY"          # nothing leaves its PE
    REDISTRIBUTE = "REDISTRIBUTE"  # whole tiles move, one source PE to one destination PE
    REPLICATE = "REPLICATE"        # copies to the PEs of a replicated layout
    GATHER = "GATHER"              # many PEs to one
    SCATTER = "SCATTER"            # one PE to many
    TRANSPOSE = "TRANSPOSE"        # same grid, the other dimension mapping
    RESHARD = "RESHARD"            # tiles split and merged: the general case


@dataclass(frozen=True, eq=False)
class BlockTable:
    """One row per block: ``rows × cols`` view elements from the source PE's slots
    ``src_offset + r·src_stride + c·element_size`` to the destination PE's slots
    ``dst_offset + r·dst_stride + c·element_size`` (bytes). A custom layout's blocks
    are runs (``rows`` = 1) contiguous in both memories; ``row_start``/``col_start``
    are the view coordinates of their first element."""

    element_size: int
    src_row: np.ndarray
    src_col: np.ndarray
    dst_row: np.ndarray
    dst_col: np.ndarray
    row_start: np.ndarray
    rows: np.ndarray
    col_start: np.ndarray
    cols: np.ndarray
    src_offset: np.ndarray
    src_stride: np.ndarray
    dst_offset: np.ndarray
    dst_stride: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def bytes(self) -> np.ndarray:
        return self.rows * self.cols * self.element_size

    @property
    def hops(self) -> np.ndarray:
        return np.abs(self.src_row - self.dst_row) + np.abs(self.src_col - self.dst_col)


@dataclass(frozen=True)
class Transfer:
    """One block, as the seed's ``CommunicationPattern::Transfer`` with strides."""

    source: tuple[int, int]
    dest: tuple[int, int]
    rows: tuple[int, int]        # view rows [start, stop)
    cols: tuple[int, int]        # view columns [start, stop)
    src_offset: int
    src_stride: int
    dst_offset: int
    dst_stride: int
    size: int                    # bytes

    @property
    def hops(self) -> int:
        return abs(self.source[0] - self.dest[0]) + abs(self.source[1] - self.dest[1])


@dataclass(frozen=True)
class TransferCost:
    """What a transform moves: remote bytes, messages (PE pairs), 32-bit wavelets
    (``ceil(bytes / 4)`` per message), and bytes × Manhattan hops."""

    bytes: int
    local_bytes: int
    messages: int
    blocks: int
    wavelets: int
    byte_hops: int
    wavelet_hops: int
    max_hops: int


def _segments(dim) -> tuple[np.ndarray, ...]:
    """Non-empty overlaps of source and destination blocks along one dimension."""
    s, t = dim.source, dim.target
    starts = np.union1d(np.arange(0, s.extent, s.block), np.arange(0, s.extent, t.block))
    qs, qt = starts // s.block, starts // t.block
    stops = np.minimum(np.minimum(s.block * (qs + 1), t.block * (qt + 1)), s.extent)
    return starts, stops - starts, qs, qt, starts - s.block * qs


def separable_blocks(pattern: SeparablePattern, copies: tuple[int, int], size: int) -> BlockTable:
    """Evaluate the pattern's slot expressions at the first element of every block."""
    segments = [_segments(d) for d in pattern.dims]
    n_copies = copies[0] * copies[1]
    shape = (n_copies, len(segments[0][0]), len(segments[1][0]))
    # row segments vary along axis 1, column segments along axis 2 (axis 0: the copies)
    along = [(None, slice(None), None), (None, None, slice(None))]
    env = {symbol: v[at] for dim, (_, _, *blocks), at in zip(pattern.dims, segments, along)
           for symbol, v in zip((dim.source_block, dim.target_block, dim.position), blocks)}
    env.update(zip(pattern.copies, divmod(np.arange(n_copies).reshape(-1, 1, 1), copies[1])))
    slots = evaluate_all(list(pattern.read_slot) + list(pattern.write_slot), env)
    what = f"block slots of {pattern.model.label}"
    flat = [as_int64(np.broadcast_to(v, shape).reshape(-1), what) for v in slots]
    (r0, rn), (c0, cn) = [[np.broadcast_to(v[at], shape).reshape(-1) for v in segment[:2]]
                          for segment, at in zip(segments, along)]
    src_stride, dst_stride = (np.full(flat[0].shape, reserved(axis) * size)
                              for axis in (pattern.dims[1].source, pattern.dims[1].target))
    return BlockTable(size, flat[0], flat[1], flat[3], flat[4], r0, rn, c0, cn, flat[2],
                      src_stride, flat[5], dst_stride)


def generic_blocks(model: PatternModel, shape, size: int) -> BlockTable:
    """Enumerate the elements, then cut runs contiguous on both sides into blocks."""
    domain = model.messages.domain
    if math.prod(domain.extents) > ENUMERATION_LIMIT:
        raise TransformError(f"create_transform: a custom layout's pattern is enumerated; "
                             f"{domain} exceeds {ENUMERATION_LIMIT} elements")
    points = np.indices(domain.extents, dtype=np.int64).reshape(domain.rank, -1)
    n = points.shape[1]
    read, write = ([as_int64(np.broadcast_to(v, (n,)), f"images of {m.label}")
                    for v in m.apply(*points)] for m in (model.reads, model.writes))
    tensor = points[-len(shape):]
    vcol = (np.ravel_multi_index(tuple(tensor[1:]), shape[1:]) if len(shape) > 1
            else np.zeros(n, dtype=np.int64))
    order = np.lexsort((read[2], write[1], write[0], read[1], read[0]))
    keys = [a[order] for a in (*read[:2], *write[:2], read[2], write[2], tensor[0], vcol)]
    same_pair = np.all([k[1:] == k[:-1] for k in keys[:4]], axis=0)
    contiguous = (np.diff(keys[4]) == size) & (np.diff(keys[5]) == size)
    first = np.flatnonzero(np.append(True, ~(same_pair & contiguous)))
    lengths = np.diff(np.append(first, n))
    pick = [k[first] for k in keys]
    ones, zeros = np.ones_like(lengths), np.zeros_like(lengths)
    return BlockTable(size, pick[0], pick[1], pick[2], pick[3], pick[6], ones, pick[7], lengths,
                      pick[4], zeros, pick[5], zeros)


def _occupied(layout: MeshLayout, shape) -> int:
    return int(np.count_nonzero(layout.tile_elements(shape)))


def classify(source: MeshLayout, target: MeshLayout, shape, blocks: BlockTable) -> TransformKind:
    """The seed's transform type, decided from the layouts and the computed blocks."""
    if not (blocks.hops > 0).any():
        return TransformKind.IDENTITY
    if target.is_replicated:
        return TransformKind.REPLICATE
    src_pes, dst_pes = _occupied(source, shape), _occupied(target, shape)
    if dst_pes == 1 and src_pes > 1:
        return TransformKind.GATHER
    if src_pes == 1 and dst_pes > 1:
        return TransformKind.SCATTER
    if (source.is_separable and source.kind is target.kind and not source.is_replicated
            and (source.pe_rows, source.pe_cols, source.block_rows, source.block_cols)
            == (target.pe_rows, target.pe_cols, target.block_rows, target.block_cols)
            and source.dim_to_pe != target.dim_to_pe):
        return TransformKind.TRANSPOSE
    src = blocks.src_row * source.pe_cols + blocks.src_col
    dst = blocks.dst_row * target.pe_cols + blocks.dst_col
    pairs = np.unique(np.stack([src, dst]), axis=1)
    if len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1])):
        return TransformKind.REDISTRIBUTE
    return TransformKind.RESHARD


@dataclass(frozen=True, eq=False)
class LayoutTransform:
    """A transform of one tensor from ``source`` to ``target`` layout: ``blocks`` is
    the exact pattern (NumPy columns), ``transfers()`` the same as objects, ``cost``
    the bytes × hops model, ``index_map()`` the writes map (element → destination
    slot as delivered)."""

    kind: TransformKind
    source: MeshLayout
    target: MeshLayout
    shape: tuple[int, ...]
    dtype: str
    model: PatternModel
    blocks: BlockTable

    def prove(self, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
        """Z3: every element reaches its destination slot exactly once."""
        return prove_exactly_once(self.model, assume=assume, timeout_ms=timeout_ms)

    def index_map(self) -> IndexMap:
        return self.model.writes

    def transfers(self, *, include_local: bool = False) -> list[Transfer]:
        """The blocks as ``Transfer`` objects (remote ones unless ``include_local``)."""
        b = self.blocks
        keep = range(len(b)) if include_local else np.flatnonzero(b.hops > 0)
        sizes = b.bytes
        return [Transfer((int(b.src_row[k]), int(b.src_col[k])), (int(b.dst_row[k]), int(b.dst_col[k])),
                         (int(b.row_start[k]), int(b.row_start[k] + b.rows[k])),
                         (int(b.col_start[k]), int(b.col_start[k] + b.cols[k])),
                         int(b.src_offset[k]), int(b.src_stride[k]), int(b.dst_offset[k]),
                         int(b.dst_stride[k]), int(sizes[k])) for k in keep]

    @cached_property
    def cost(self) -> TransferCost:
        b = self.blocks
        hops, sizes = b.hops, b.bytes
        remote = hops > 0
        pair = ((b.src_row * self.source.pe_cols + b.src_col) * self.target.total_pes
                + b.dst_row * self.target.pe_cols + b.dst_col)[remote]
        keys, inverse = np.unique(pair, return_inverse=True)
        per_message = np.bincount(inverse, weights=sizes[remote], minlength=len(keys))
        message_hops = np.zeros(len(keys), dtype=np.int64)
        message_hops[inverse] = hops[remote]
        wavelets = ceil_div(per_message.astype(np.int64), WAVELET_BYTES)
        return TransferCost(
            bytes=int(sizes[remote].sum()), local_bytes=int(sizes[~remote].sum()),
            messages=len(keys), blocks=int(remote.sum()), wavelets=int(wavelets.sum()),
            byte_hops=int((sizes * hops).sum()), wavelet_hops=int((wavelets * message_hops).sum()),
            max_hops=int(hops.max(initial=0)))

    def __str__(self) -> str:
        return f"{self.kind.value} {self.source} → {self.target} of {list(self.shape)} {self.dtype}"


def create_transform(source: MeshLayout, target: MeshLayout, shape, dtype: str = "float32"
                     ) -> LayoutTransform:
    """The transform moving a tensor from ``source`` to ``target`` layout.

    >>> t = create_transform(MeshLayout.row_partition(4), MeshLayout.single_pe(), (10, 4))
    >>> t.kind.value, t.cost.bytes, t.prove().status.value
    ('GATHER', 112, 'PROVED')
    """
    for argument, value in (("source", source), ("target", target)):
        instance_of(TransformError, argument, value, MeshLayout, where="create_transform")
    shape = check_shape(shape)
    size = element_size(dtype)
    label = f"{source} → {target} of {list(shape)}"
    if source.is_separable and target.is_separable:
        pattern = separable_pattern(source, target, shape, size, label)
        copies = (target.pe_rows, target.pe_cols) if target.is_replicated else (1, 1)
        model, blocks = pattern.model, separable_blocks(pattern, copies, size)
    else:  # a custom layout: messages are index lists, found through the source's inverse
        if source.mapping is not None and source.mapping.inverse is None:
            raise TransformError(f"create_transform: source {source} needs an inverse to be "
                                 "read from (build its IndexMap with inverse=...)")
        model = generic_pattern(source, target, shape, size, label)
        blocks = generic_blocks(model, shape, size)
    return LayoutTransform(classify(source, target, shape, blocks), source, target, shape,
                           dtype, model, blocks)


def needs_transform(source: MeshLayout, target: MeshLayout, shape) -> bool:
    """True unless every element is proved to live on the same PEs under both."""
    return not source.compatible_with(target, shape).proved


__all__ = ["BlockTable", "LayoutTransform", "Transfer", "TransferCost", "TransformKind",
           "create_transform", "needs_transform"]
