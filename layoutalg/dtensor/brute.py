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


def placement_table(layout: DTensorLayout) -> dict[tuple, tuple]:
    """(copy coordinates…, element…) → (rank…, local index…), as ``index_map`` orders them."""
    copies = [k for k, p in enumerate(layout.placements) if not isinstance(p, Shard)]
    table = {}
    for rank, keep in held(layout).items():
        for local in itertools.product(*(range(len(k)) for k in keep)):
            element = tuple(k[i] for k, i in zip(keep, local))
            key = tuple(rank[k] for k in copies) + element
            if key in table:
                raise AssertionError(f"{layout}: element {element} twice in one replica group")
            table[key] = rank + local
    return table


def exactly_once(layout: DTensorLayout) -> tuple | None:
    """None when every element lies exactly once in each replica group; else
    ``(copy coordinates, element, count)`` of the first that does not."""
    copies = [k for k, p in enumerate(layout.placements) if not isinstance(p, Shard)]
    counts: dict[tuple, int] = {}
    for rank, keep in held(layout).items():
        group = tuple(rank[k] for k in copies)
        for element in itertools.product(*keep):
            counts[(group, element)] = counts.get((group, element), 0) + 1
    for group in itertools.product(*(range(layout.mesh_shape[k]) for k in copies)):
        for element in itertools.product(*(range(n) for n in layout.shape)):
            if counts.get((group, element), 0) != 1:
                return group, element, counts.get((group, element), 0)
    return None


def simulate(plan) -> dict[tuple[int, ...], np.ndarray]:
    """Run ``plan``'s collectives on the source's local arrays; each rank's result."""
    from layoutalg.dtensor.plan import AllGather, AllToAll, LocalChunk

    data = local_arrays(plan.source)
    mesh = plan.source.mesh_shape
    for step, before in zip(plan.steps, plan.layouts):
        if isinstance(step, AllGather):
            data = _all_gather(data, mesh, step.mesh_dims, step.dim, step.sizes)
        elif isinstance(step, AllToAll):
            data = _all_to_all(data, mesh, step.mesh_dim, step.from_dim, step.to_dim)
        elif isinstance(step, LocalChunk):
            data = {r: _take(a, step.dim, torch_chunk(list(range(a.shape[step.dim])),
                                                      mesh[step.mesh_dim])[r[step.mesh_dim]])
                    for r, a in data.items()}
    return data


def first_difference(plan) -> dict | None:
    """None when the simulated plan leaves every rank with the target's local
    tensor; else the rank, local index, expected id and what arrived (PAD: padding)."""
    got = simulate(plan)
    want = local_arrays(plan.target)
    for rank in ranks(plan.source.mesh_shape):
        a, b = got[rank], want[rank]
        if a.shape != b.shape:
            return {"rank": rank, "shape": a.shape, "expected_shape": b.shape}
        wrong = np.argwhere(a != b)
        if len(wrong):
            index = tuple(int(v) for v in wrong[0])
            return {"rank": rank, "index": index, "expected": int(b[index]),
                    "got": int(a[index])}
    return None


def _members(rank, group, mesh):
    """The ranks of ``rank``'s group over mesh dims ``group``, row-major."""
    out = []
    for coords in itertools.product(*(range(mesh[k]) for k in group)):
        member = list(rank)
        for k, c in zip(group, coords):
            member[k] = c
        out.append(tuple(member))
    return out


def _all_gather(data, mesh, group, dim, sizes):
    result = {}
    for rank in data:
        pieces = [data[m] for m in _members(rank, group, mesh)]
        if sizes == "pieces":
            result[rank] = np.concatenate(pieces, axis=dim)
            continue
        # pad every piece to the flat chunk, gather, then cut by one flat torch.chunk
        logical = sum(p.shape[dim] for p in pieces)
        cut = [len(c) for c in torch_chunk(list(range(logical)), len(pieces))]
        width = max(cut)
        padded = [_pad(p, dim, width) for p in pieces]
        result[rank] = np.concatenate([_take(p, dim, list(range(n))) for p, n in
                                       zip(padded, cut)], axis=dim)
    return result


def _all_to_all(data, mesh, mesh_dim, from_dim, to_dim):
    result = {}
    for rank in data:
        whole = np.concatenate([data[m] for m in _members(rank, (mesh_dim,), mesh)],
                               axis=from_dim)
        mine = torch_chunk(list(range(whole.shape[to_dim])), mesh[mesh_dim])[rank[mesh_dim]]
        result[rank] = _take(whole, to_dim, mine)
    return result


def _pad(a: np.ndarray, dim: int, width: int) -> np.ndarray:
    shape = list(a.shape)
    shape[dim] = width - a.shape[dim]
    return np.concatenate([a, np.full(shape, PAD, dtype=a.dtype)], axis=dim)


def _take(a: np.ndarray, dim: int, indices: list[int]) -> np.ndarray:
    return np.take(a, np.asarray(indices, dtype=np.int64), axis=dim)
