"""A plan of collectives between two placements, one mesh dim at a time."""

from __future__ import annotations

from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.placements import Partial, Replicate, Shard
from layoutalg.dtensor.plan import Redistribution
from layoutalg.dtensor.steps import AllGather, AllToAll, LocalChunk, Step
from layoutalg.errors import DTensorError
from layoutalg.validate import instance_of


def plan_redistribution(source: DTensorLayout, target_placements, *,
                        flatten: bool = False) -> Redistribution:
    """A plan of collectives from ``source`` to ``target_placements``, one mesh dim at a time.

    Nested shards of one tensor dim are ordered by mesh dim, so a mesh dim whose
    placement changes first has the shards *inside* it (later mesh dims, same
    tensor dims) gathered, as DTensor's planner does. Then: Shard → Replicate by
    all_gather from the last mesh dim to the first; Shard(a) → Shard(b) by
    all_to_all when no other mesh dim shards a or b; Replicate → Shard by local
    chunks from the first mesh dim to the last. ``flatten=True`` merges
    consecutive all_gathers of one tensor dim into one flattened all_gather cut
    by flat sizes, as torch 2.13's ``try_create_flattened`` does (pytorch#194457).
    """
    instance_of(DTensorError, "source", source, DTensorLayout, where="plan_redistribution")
    target = DTensorLayout(source.mesh_shape, target_placements, source.shape).placements
    now = list(source.placements)
    for k, (before, after) in enumerate(zip(now, target)):
        if before != after and (isinstance(before, Partial) or isinstance(after, Partial)):
            raise DTensorError(f"plan_redistribution: mesh dim {k}: Partial placements are not "
                               f"modelled (no reduction); got {before} → {after}")
    steps: list[Step] = []
    swap = _lone_swaps(now, target)
    gather = _to_gather(now, target, swap)
    for k in sorted(gather | set(swap), reverse=True):
        if k in swap:
            steps.append(AllToAll(k, now[k].dim, target[k].dim))
            now[k] = target[k]
        else:
            steps.append(AllGather((k,), now[k].dim))
            now[k] = Replicate()
    steps += [LocalChunk(k, after.dim) for k, after in enumerate(target) if now[k] != after]
    return Redistribution(source, _flattened(steps) if flatten else steps)


def _dims(*placements_) -> set[int]:
    return {p.dim for p in placements_ if isinstance(p, Shard)}


def _lone_swaps(now: list, target: tuple) -> set[int]:
    """Mesh dims going Shard(a) → Shard(b) where no other mesh dim shards a or b,
    before or after: an all_to_all there leaves every nested order as it was."""
    return {k for k, (before, after) in enumerate(zip(now, target))
            if isinstance(before, Shard) and isinstance(after, Shard) and before != after
            and not _dims(*now[:k], *now[k + 1:], *target[:k], *target[k + 1:])
            & {before.dim, after.dim}}


def _to_gather(now: list, target: tuple, swap: set[int]) -> set[int]:
    """The Shard mesh dims to gather: those that change (and are no lone swap), and
    every later mesh dim that shards a tensor dim an earlier change touches."""
    gather = set()
    for k, (before, after) in enumerate(zip(now, target)):
        if before == after or k in swap:
            continue
        if isinstance(before, Shard):
            gather.add(k)
        touched = _dims(before, after)
        gather |= {j for j in range(k + 1, len(now))
                   if isinstance(now[j], Shard) and now[j].dim in touched}
    return gather


def _flattened(steps: list[Step]) -> list[Step]:
    merged: list[Step] = []
    for step in steps:
        last = merged[-1] if merged else None
        if isinstance(step, AllGather) and isinstance(last, AllGather) and last.dim == step.dim:
            merged[-1] = AllGather(last.mesh_dims + step.mesh_dims, step.dim, sizes="flat")
        else:
            merged.append(step)
    return merged
