"""The plan steps: the collectives DTensor runs, as the slots each output slot reads.

Each step is written from how DTensor runs its collective (pytorch/pytorch
``torch/distributed/tensor/placement_types.py``, ``Shard._to_replicate_tensor``
and ``_to_new_shard_dim``; ``_redistribute.py``), not from the layouts: every
rank pads its piece to the chunk size ``c``, the collective concatenates the
padded pieces, and the result is cut back with the lengths the step
*expects*. ``reads(before, slot)``: for a slot ``(m…, l…)`` of the step's
output (SymPy symbols), the slot of its input it reads. A step cuts by the
logical size the shards on earlier mesh dims leave on that rank (torch's
``logical_shape``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.tiling import ceil_div, digits, flatten, unflatten
from layoutalg.dtensor.chunks import nested_chunk, nested_lengths
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.maps import by_pieces, is_flat, names
from layoutalg.dtensor.placements import Placement, Replicate, Shard
from layoutalg.errors import DTensorError, describe
from layoutalg.validate import is_int, nonnegative_int, one_of

SIZES = ("pieces", "flat")


@dataclass(frozen=True)
class AllGather:
    """``Shard(dim)`` → ``Replicate()`` on ``mesh_dims`` (several: one flattened group).

    ``sizes``: how the gathered buffer is cut back, ``"pieces"`` by the length
    each rank really holds (torch's gather on one mesh dim, or a flattened one
    whose pieces are even), ``"flat"`` by one ``torch.chunk`` of the logical
    size over the flattened group (the flattened all_gather of pytorch#194457,
    right only when that equals the nested pieces).
    """

    mesh_dims: tuple[int, ...]
    dim: int
    sizes: str = "pieces"

    def __post_init__(self) -> None:
        dims = (self.mesh_dims,) if is_int(self.mesh_dims) else self.mesh_dims
        if not isinstance(dims, Sequence) or not dims or not all(
                is_int(k) and k >= 0 for k in dims) or len(set(dims)) != len(dims):
            raise DTensorError(f"AllGather: mesh_dims must be distinct mesh dims (ints >= 0); "
                               f"got {describe(self.mesh_dims)}")
        object.__setattr__(self, "mesh_dims", tuple(sorted(int(k) for k in dims)))
        nonnegative_int(DTensorError, "dim", self.dim, where="AllGather")
        one_of(DTensorError, "sizes", self.sizes, SIZES, where="AllGather")

    def __str__(self) -> str:
        flat = "" if self.sizes == "pieces" else ", flat sizes"
        return f"all_gather(mesh dims {list(self.mesh_dims)}, dim {self.dim}{flat})"

    def changes(self) -> dict[int, tuple[Placement, Placement]]:
        return {k: (Shard(self.dim), Replicate()) for k in self.mesh_dims}

    def reads(self, before: DTensorLayout, slot: dict) -> list[sympy.Expr]:
        i, group = self.dim, self.mesh_dims
        parts = [before.mesh_shape[k] for k in group]

        def cut(size):
            if self.sizes == "flat" or is_flat(size, parts):
                return digits(slot[f"l{i}"], ceil_div(size, math.prod(parts)))
            if not isinstance(size, int):
                raise DTensorError(f"{self}: cutting uneven nested pieces of tensor dim {i} "
                                   f"needs concrete sizes; got size {size}")
            return by_pieces(slot[f"l{i}"], nested_lengths(size, parts), size)

        rank, row = _per_rank(before, i, group[0], slot, cut)
        ranks = dict(zip((f"m{k}" for k in group), unflatten(rank, parts)))
        return _ordered(before, {**slot, **ranks, f"l{i}": row})


@dataclass(frozen=True)
class AllToAll:
    """``Shard(from_dim)`` → ``Shard(to_dim)`` on ``mesh_dim``: rank ``a`` keeps chunk
    ``a`` of ``to_dim`` and gathers ``from_dim`` (torch's ``_to_new_shard_dim``)."""

    mesh_dim: int
    from_dim: int
    to_dim: int

    def __post_init__(self) -> None:
        for name in ("mesh_dim", "from_dim", "to_dim"):
            nonnegative_int(DTensorError, name, getattr(self, name), where="AllToAll")
        if self.from_dim == self.to_dim:
            raise DTensorError(f"AllToAll: from_dim and to_dim must differ; got {self.to_dim} "
                               f"twice")

    def __str__(self) -> str:
        return f"all_to_all(mesh dim {self.mesh_dim}, dim {self.from_dim} → {self.to_dim})"

    def changes(self) -> dict[int, tuple[Placement, Placement]]:
        return {self.mesh_dim: (Shard(self.from_dim), Shard(self.to_dim))}

    def reads(self, before: DTensorLayout, slot: dict) -> list[sympy.Expr]:
        m, a = self.mesh_dim, slot[f"m{self.mesh_dim}"]
        k = before.mesh_shape[m]
        p, q = slot[f"l{self.from_dim}"], slot[f"l{self.to_dim}"]
        rank, row = _per_rank(before, self.from_dim, m, slot,
                              lambda size: digits(p, ceil_div(size, k)))
        (column,) = _per_rank(before, self.to_dim, m, slot, _kept(a, q, k))
        return _ordered(before, {**slot, f"m{m}": rank, f"l{self.from_dim}": row,
                                 f"l{self.to_dim}": column})


@dataclass(frozen=True)
class LocalChunk:
    """``Replicate()`` → ``Shard(dim)`` on ``mesh_dim``: each rank keeps its own chunk
    of its copy, no communication (torch's ``Shard._split_tensor``)."""

    mesh_dim: int
    dim: int

    def __post_init__(self) -> None:
        nonnegative_int(DTensorError, "mesh_dim", self.mesh_dim, where="LocalChunk")
        nonnegative_int(DTensorError, "dim", self.dim, where="LocalChunk")

    def __str__(self) -> str:
        return f"chunk(mesh dim {self.mesh_dim}, dim {self.dim})"

    def changes(self) -> dict[int, tuple[Placement, Placement]]:
        return {self.mesh_dim: (Replicate(), Shard(self.dim))}

    def reads(self, before: DTensorLayout, slot: dict) -> list[sympy.Expr]:
        m, i = self.mesh_dim, self.dim
        (row,) = _per_rank(before, i, m, slot, _kept(slot[f"m{m}"], slot[f"l{i}"],
                                                     before.mesh_shape[m]))
        return _ordered(before, {**slot, f"l{i}": row})


Step = AllGather | AllToAll | LocalChunk


def _kept(rank, row, parts):
    """Size ↦ the row ``row`` of rank ``rank``'s own chunk over ``parts`` ranks."""
    return lambda size: (flatten((rank, row), (None, ceil_div(size, parts))),)


def _ordered(layout: DTensorLayout, source: dict) -> list:
    order = names("m", len(layout.mesh_shape)) + names("l", len(layout.shape))
    return [sympy.sympify(source[n]) for n in order]


def _per_rank(before: DTensorLayout, dim: int, mesh_dim: int, slot: dict, fn) -> tuple:
    """``fn(size)`` of the logical size of ``dim`` on this slot's rank, which the
    shards on the mesh dims before ``mesh_dim`` leave (torch's ``logical_shape``):
    with such shards a Piecewise over the rank's coordinates (concrete sizes only)."""
    size = before.shape[dim]
    outer = [k for k in before.shard_mesh_dims(dim) if k < mesh_dim]
    if not outer:
        return tuple(fn(size))
    if not before.is_concrete:
        raise DTensorError(f"{before}: a step on tensor dim {dim} below the shards of mesh "
                           f"dims {outer} needs concrete sizes")
    parts = [before.mesh_shape[k] for k in outer]
    cases = []
    for ranks in itertools.product(*(range(k) for k in parts)):
        _, length = nested_chunk(size, parts, ranks)
        at = sympy.And(*(sympy.Eq(slot[f"m{k}"], a) for k, a in zip(outer, ranks)))
        cases.append((fn(length) if length else (0,) * len(fn(1)), at))
    width = len(cases[0][0])
    return tuple(sympy.Piecewise(*((c[0][j], c[1]) for c in cases[:-1]), (cases[-1][0][j], True))
                 for j in range(width))
