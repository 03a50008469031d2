"""Padding of sharded TT tensors: padded shapes that cover whole shards, and padding
writes that stay off the data. Two invariants, each a core check on a map:

* ``check_padded_to_shards``: the split of the padded shape by the shard shape
  is a bijection, no shard slot left over; tt-metal#24425 found TTNN padding
  a WIDTH_SHARDED tensor's width to tiles only (70 → 96 for 2 shards of 64),
  not to ``shards × shard width`` (128).
* ``check_padding_disjoint``: every element of the padded tensor goes where
  the tensor keeps it, padding elements where the fill writes them; the map
  is injective exactly when no fill write lands on a data element
  (tt-metal#53110: ``fill_implicit_tile_padding`` on BLOCK_SHARDED data).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import NamedTuple

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import TTError, describe
from layoutalg.tt.sharded import ShardSpec
from layoutalg.tt.tensor import TensorSpec
from layoutalg.validate import first_not_positive, instance_of
from layoutalg.verify.checks import check_bijective, check_injective
from layoutalg.verify.claims import register_claim
from layoutalg.verify.combinators import split
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult


def shard_padded_2d(spec: TensorSpec) -> tuple[int, int]:
    """The 2D shape padded to whole shards: each sharded side rounded up to the
    shard side (what tt-metal#24425 asks TTNN's padded shape to be: (32, 128), not
    the tile-padded (32, 96), for 32 × 70 in WIDTH shards of 64)."""
    (height, width), (sh, sw) = spec.physical_2d, _sharded(spec).shard_shape
    return (ceil_div(height, sh) * sh, ceil_div(width, sw) * sw)


class ShardShape(NamedTuple):
    """One core's shard: the data it holds, what the tensor's padded shape gives it,
    and the shard shape it reserves (rows, columns of the 2D view)."""

    logical: tuple[int, int]
    padded: tuple[int, int]
    shard: tuple[int, int]


def shard_shapes(spec: TensorSpec) -> dict[tuple[int, int], ShardShape]:
    """Logical and padded shape of each core's shard, from the pages it holds. The
    padded shape of every shard holding data should be its shard shape;
    tt-metal#24425's tensor breaks that on its last core: logical (32, 6), padded
    (32, 32), shard (32, 64)."""
    memory = _sharded(spec)
    (ph, pw), across = spec.page_shape, spec.pages_2d[1]
    shapes = {}
    for core, slots in spec.pages_by_core().items():
        pages = [p for p in slots if p is not None]
        rows = sorted({p // across for p in pages})
        cols = sorted({p % across for p in pages})
        data_rows = sum(1 for r in rows for i in range(ph)
                        if (r * ph + i) % spec.padded_height < spec.height)
        data_cols = sum(1 for c in cols for j in range(pw) if c * pw + j < spec.width)
        shapes[core] = ShardShape((data_rows if data_cols else 0, data_cols if data_rows else 0),
                                  (len(rows) * ph, len(cols) * pw), memory.shard_shape)
    return shapes


def shard_split_map(spec: TensorSpec, padded=None) -> IndexMap:
    """Padded row and column → (shard row, row in shard, shard column, column in
    shard): the split of the padded 2D shape ``padded`` (default: the tensor's
    tile-aligned ``physical_2d``) by the shard shape, every shard slot required.
    """
    memory = _sharded(spec)
    height, width = spec.physical_2d if padded is None else _shape2(padded)
    sh, sw = memory.shard_shape
    need_h, need_w = ceil_div(spec.physical_2d[0], sh), ceil_div(spec.physical_2d[1], sw)
    by_rows = split(Space(row=height, col=width), "row", sh, names=("shard_row", "row_in_shard"))
    both = split(by_rows, "col", sw, names=("shard_col", "col_in_shard"))
    whole = Space(shard_row=need_h, row_in_shard=sh, shard_col=need_w, col_in_shard=sw)
    return IndexMap(both.domain, whole, both.exprs, inverse=both.inverse,
                    name=f"{spec.shape} padded to {height}x{width} split into {sh}x{sw} shards")


def check_padded_to_shards(spec: TensorSpec, padded=None, *, assume=(),
                           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """The padded shape covers exactly the shards (``shard_split_map`` is a
    bijection). REFUTED names the shard slot no padded row/column reaches (or
    the padded row/column past the shards)."""
    m = shard_split_map(spec, padded)
    verdict = check_bijective(m, assume=assume, timeout_ms=timeout_ms)
    if verdict.refuted:
        want = shard_padded_2d(spec)
        verdict = replace(verdict, reason=f"{verdict.reason}; the padded 2D shape must be "
                          f"{want[0]}x{want[1]} (whole shards of {_sharded(spec).shard_shape})")
    return replace(verdict, check="padded_to_shards")


def padded_spec(spec: TensorSpec) -> TensorSpec:
    """The same placement over the padded shape: every element of the padded
    tensor, padding included, where the tensor's pages keep it."""
    return replace(spec, shape=spec.padded_shape)


def fill_map(spec: TensorSpec, fill=None) -> IndexMap:
    """Padded element → location: a data element where ``spec`` keeps it, a
    padding element where ``fill`` writes it. ``fill``: a TensorSpec over the
    padded shape, or a memory config (ShardSpec, NdShardSpec, ttnn MemoryConfig)
    placing the padded tensor; default: the tensor's own placement."""
    instance_of(TTError, "spec", spec, TensorSpec)
    own = padded_spec(spec)
    if fill is None:
        fill = own
    elif not isinstance(fill, TensorSpec):  # a memory config: the padded tensor placed by it
        memory = getattr(fill, "memory", None)  # a ttnn MemoryConfig's, or the config itself
        fill = padded_spec(replace(spec, memory=fill if memory is None else memory))
    if not isinstance(fill, TensorSpec) or fill.padded_shape != own.padded_shape:
        raise TTError(f"fill must be a TensorSpec over the padded shape {own.padded_shape}; got "
                      f"{describe(fill)}")
    data, writes = own.index_map(), fill.index_map()
    if data.codomain.names != writes.codomain.names:
        raise TTError(f"fill writes to {writes.codomain.names}, the tensor lives in "
                      f"{data.codomain.names}: they must address the same memories")
    d = data.domain.symbols
    symbols = dict(zip(writes.domain.symbols, d))
    real = [sympy.Lt(d[k], extent) for k, extent in enumerate(spec.shape)
            if extent != spec.padded_shape[k]]
    is_data = sympy.And(*real) if real else sympy.true
    exprs = [sympy.Piecewise((a, is_data), (b.xreplace(symbols), True))
             for a, b in zip(data.exprs, writes.exprs)]
    codomain = Space(*((n, max(e1, e2)) for n, e1, e2 in zip(
        data.codomain.names, data.codomain.extents, writes.codomain.extents)))
    who = "its own placement" if fill is own else fill.memory
    return IndexMap(data.domain, codomain, exprs,
                    name=f"{spec.shape} data, padding written by {who}")


def check_padding_disjoint(spec: TensorSpec, fill=None, *, assume=(),
                           timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """No padding write lands on a data element on any core (``fill_map`` is
    injective). REFUTED names the padding and data elements sharing a location.

    >>> from layoutalg.tt.ttnn import tensor_spec
    >>> spec = tensor_spec((40, 64), "bfloat16", {"memory_layout": "HEIGHT_SHARDED",
    ...     "buffer_type": "L1", "shard_spec": {"grid": (2, 1), "shape": (32, 64)}})
    >>> check_padding_disjoint(spec).status
    <Status.PROVED: 'PROVED'>
    """
    start = time.perf_counter()
    m = fill_map(spec, fill)
    verdict = check_injective(m, assume=assume, timeout_ms=timeout_ms)
    verdict = replace(verdict, check="padding_disjoint")
    if verdict.refuted and verdict.counterexample:
        first, second = (tuple(verdict.counterexample[n + tick] for n in m.domain.names)
                         for tick in ("", "'"))
        is_data = all(x < n for x, n in zip(first, spec.shape))
        pad, data = (second, first) if is_data else (first, second)
        place = ", ".join(f"{n}={v}" for n, v in zip(m.codomain.names, m(*pad)))
        verdict = replace(verdict, reason=f"padding element {pad} is written at ({place}), where "
                          f"data element {data} lives")
    if verdict.seconds is None:
        verdict = replace(verdict, seconds=time.perf_counter() - start)
    return verdict


def _sharded(spec) -> ShardSpec:
    if not isinstance(spec, TensorSpec) or not isinstance(spec.memory, ShardSpec):
        raise TTError(f"spec must be a TensorSpec sharded by a (2D) ShardSpec; got "
                      f"{describe(getattr(spec, 'memory', spec))}")
    return spec.memory


def _shape2(value) -> tuple[int, int]:
    if isinstance(value, (tuple, list)) and len(value) == 2 and first_not_positive(value) is None:
        return (int(value[0]), int(value[1]))
    raise TTError(f"padded must be a (height, width) pair of positive ints; got {describe(value)}")


register_claim("padded_to_shards", check_padded_to_shards, index_map=False, arguments=(0, 1))
register_claim("padding_disjoint", check_padding_disjoint, index_map=False, arguments=(0, 1))

__all__ = ["ShardShape", "check_padded_to_shards", "check_padding_disjoint", "fill_map",
           "padded_spec", "shard_padded_2d", "shard_shapes", "shard_split_map"]
