"""Enumeration twins of the DTensor checks, read off ``layoutalg.dtensor.brute``.

``brute`` cuts every dim with ``torch.chunk``'s rule on Python lists and runs
plans on arrays of element ids (``check_redistribution`` replays refutations
with it, so it stays in the package); these twins of ``check_exactly_once``,
the index map and ``check_redistribution`` only serve the tests.
"""

from __future__ import annotations

import itertools

from layoutalg.dtensor import brute
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.placements import Shard


def placement_table(layout: DTensorLayout) -> dict[tuple, tuple]:
    """(copy coordinates…, element…) → (rank…, local index…), as ``index_map`` orders them."""
    copies = [k for k, p in enumerate(layout.placements) if not isinstance(p, Shard)]
    table = {}
    for rank, keep in brute.held(layout).items():
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
    for rank, keep in brute.held(layout).items():
        group = tuple(rank[k] for k in copies)
        for element in itertools.product(*keep):
            counts[(group, element)] = counts.get((group, element), 0) + 1
    for group in itertools.product(*(range(layout.mesh_shape[k]) for k in copies)):
        for element in itertools.product(*(range(n) for n in layout.shape)):
            if counts.get((group, element), 0) != 1:
                return group, element, counts.get((group, element), 0)
    return None


def first_difference(plan, *, shapes: bool = False) -> dict | None:
    """None when the simulated plan leaves every rank with the target's local
    tensor inside the target's local shape; else the rank, local index, expected
    id and what arrived (``brute.PAD``: padding or nothing). ``shapes``: also require the
    simulated local shapes to be the target's (``check_redistribution`` does not
    claim that: rows past the target's local shape are not compared)."""
    got = brute.simulate(plan)
    want = brute.local_arrays(plan.target)
    for rank in brute.ranks(plan.source.mesh_shape):
        a, b = got[rank], want[rank]
        if shapes and a.shape != b.shape:
            return {"rank": rank, "shape": a.shape, "expected_shape": b.shape}
        for index in itertools.product(*(range(n) for n in b.shape)):
            inside = all(i < n for i, n in zip(index, a.shape))
            arrived = int(a[index]) if inside else brute.PAD
            if arrived != int(b[index]):
                return {"rank": rank, "index": index, "expected": int(b[index]),
                        "got": arrived}
    return None
