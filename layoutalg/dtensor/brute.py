"""Enumeration twins: torch.chunk's rule on lists of indices, and the plans run on data.

Written apart from ``chunks.py``, ``maps.py`` and ``plan.py``: a chunk here
is a slice of a Python list, as ``torch.chunk`` documents it ("each chunk is
a view of the input; the last chunk is smaller if the size is not
divisible", fewer chunks than asked when they run out, which DTensor fills
with empty ones: pytorch/pytorch ``torch/distributed/tensor/placement_types.py``,
``Shard._split_tensor``). The simulator moves arrays of element ids between
ranks the way each collective does, padding included.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.placements import Shard
from layoutalg.dtensor.steps import AllGather, AllToAll, LocalChunk

PAD = -1


def torch_chunk(items: list, parts: int) -> list[list]:
    """``torch.chunk`` of a list into ``parts`` pieces, empty pieces appended.

    >>> torch_chunk(list(range(5)), 4)
    [[0, 1], [2, 3], [4], []]
    >>> torch_chunk(list(range(6)), 4)
    [[0, 1], [2, 3], [4, 5], []]
    """
    width = -(-len(items) // parts)
    pieces = [items[s:s + width] for s in range(0, len(items), width)] if width else []
    return pieces + [[] for _ in range(parts - len(pieces))]


def ranks(mesh_shape) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(k) for k in mesh_shape)))


def held(layout: DTensorLayout) -> dict[tuple[int, ...], list[list[int]]]:
    """Each rank → for every tensor dim, the global indices it holds, in local order."""
    table = {}
    for rank in ranks(layout.mesh_shape):
        keep = [list(range(n)) for n in layout.shape]
        for k, p in enumerate(layout.placements):
            if isinstance(p, Shard):
                keep[p.dim] = torch_chunk(keep[p.dim], layout.mesh_shape[k])[rank[k]]
        table[rank] = keep
    return table


def local_arrays(layout: DTensorLayout) -> dict[tuple[int, ...], np.ndarray]:
    """Each rank's local tensor, as the row-major global ids of its elements."""
    ids = np.arange(math.prod(layout.shape)).reshape(layout.shape)
    return {rank: ids[np.ix_(*keep)] for rank, keep in held(layout).items()}


def simulate(plan) -> dict[tuple[int, ...], np.ndarray]:
    """Run ``plan``'s collectives on the source's local arrays; each rank's result.

    Each runs as DTensor runs it (``steps.py``): by the *logical* size (from the
    placements, not the data), every piece padded or cut to the expected chunk
    width, concatenated, and cut back by the expected lengths.
    """
    data = local_arrays(plan.source)
    for step, before in zip(plan.steps, plan.layouts):
        if isinstance(step, AllGather):
            data = _all_gather(data, before, step.mesh_dims, step.dim, step.sizes)
        elif isinstance(step, AllToAll):
            data = _all_to_all(data, before, step.mesh_dim, step.from_dim, step.to_dim)
        elif isinstance(step, LocalChunk):
            k, i = step.mesh_dim, step.dim
            data = {r: _take(a, i, _expected(before, r, k, i)[r[k]])
                    for r, a in data.items()}
    return data


def _logical(layout: DTensorLayout, rank, mesh_dim: int, dim: int) -> int:
    """Rows of ``dim`` left on ``rank`` by the shards on mesh dims before ``mesh_dim``."""
    rows = list(range(layout.shape[dim]))
    for k, p in enumerate(layout.placements[:mesh_dim]):
        if isinstance(p, Shard) and p.dim == dim:
            rows = torch_chunk(rows, layout.mesh_shape[k])[rank[k]]
    return len(rows)


def _expected(layout: DTensorLayout, rank, mesh_dim: int, dim: int) -> list[list[int]]:
    """The positions one torch.chunk of the logical size over mesh dim ``mesh_dim`` gives."""
    size = _logical(layout, rank, mesh_dim, dim)
    return torch_chunk(list(range(size)), layout.mesh_shape[mesh_dim])


def _members(rank, group, mesh):
    """The ranks of ``rank``'s group over mesh dims ``group``, row-major."""
    return [tuple({**dict(enumerate(rank)), **dict(zip(group, coords))}.values())
            for coords in itertools.product(*(range(mesh[k]) for k in group))]


def _all_gather(data, before: DTensorLayout, group, dim, sizes):
    mesh = before.mesh_shape
    result = {}
    for rank in data:
        members = _members(rank, group, mesh)
        size = _logical(before, rank, group[0], dim)
        if sizes == "flat":   # one torch.chunk of the logical size over the flattened group
            cut = [len(c) for c in torch_chunk(list(range(size)), len(members))]
        else:                 # the nested pieces of the logical size, member by member
            rows = [list(range(size))]
            for k in group:
                rows = [piece for r in rows for piece in torch_chunk(r, mesh[k])]
            cut = [len(r) for r in rows]
        result[rank] = _gathered(data, members, dim, cut)
    return result


def _all_to_all(data, before: DTensorLayout, mesh_dim, from_dim, to_dim):
    result = {}
    for rank in data:
        members = _members(rank, (mesh_dim,), before.mesh_shape)
        cut = [len(c) for c in _expected(before, rank, mesh_dim, from_dim)]
        whole = _gathered(data, members, from_dim, cut)
        mine = _expected(before, rank, mesh_dim, to_dim)[rank[mesh_dim]]
        result[rank] = _take(whole, to_dim, mine)
    return result


def _gathered(data, members, dim: int, cut: list[int]) -> np.ndarray:
    """The members' pieces padded to the chunk width ``max(cut)``, each cut back to its
    length ``n`` (together: fitted to ``n``), concatenated along ``dim``."""
    return np.concatenate([_fit(data[m], dim, n) for m, n in zip(members, cut)], axis=dim)


def _fit(a: np.ndarray, dim: int, width: int) -> np.ndarray:
    """``a`` padded with PAD, or cut, to ``width`` along ``dim``."""
    if a.shape[dim] >= width:
        return _take(a, dim, list(range(width)))
    shape = list(a.shape)
    shape[dim] = width - a.shape[dim]
    return np.concatenate([a, np.full(shape, PAD, dtype=a.dtype)], axis=dim)


def _take(a: np.ndarray, dim: int, indices: list[int]) -> np.ndarray:
    """Positions ``indices`` of ``a`` along ``dim``; PAD past its end (nothing is there)."""
    inside = [i for i in indices if i < a.shape[dim]]
    taken = np.take(a, np.asarray(inside, dtype=np.int64), axis=dim)
    return _fit(taken, dim, len(indices)) if len(inside) < len(indices) else taken
