"""Redistributions: a sequence of collectives from one placement to another, checked.

A plan is a source layout and steps (``AllGather``, ``AllToAll``,
``LocalChunk``), each changing the placement of some mesh dims. Each step is
modelled by the indexing its collective performs, written from how DTensor
runs it (pytorch/pytorch ``torch/distributed/tensor/placement_types.py``,
``Shard._to_replicate_tensor`` / ``_to_new_shard_dim``, and
``_redistribute.py``), not from the layouts: every rank pads its piece to
the chunk size ``c``, the collective concatenates the padded pieces, and the
result is cut back with the lengths the step *expects*. A slot of the
step's output therefore *reads* one slot of its input: ``reads``.

``check_redistribution`` proves, over every element and every copy of it
the target layout places, that following the reads back through every step
reaches a real (non-padding) slot of each intermediate layout and, in the
source, a slot holding that very element; and that the target layout is a
bijection onto its slots. So every rank receives each element it should
hold exactly once, at the right local index. A counterexample names the
rank, the local index, the element and what it got instead.

What is not modelled: the reduction of Partial placements (no plan step
takes a Partial), and which processes may talk (each step reads only along
its own mesh dims by construction).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.dtensor.chunks import ceil_div, nested_chunk, nested_lengths
from layoutalg.dtensor.errors import DTensorError
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.maps import is_flat
from layoutalg.dtensor.placements import Partial, Placement, Replicate, Shard
from layoutalg.errors import describe
from layoutalg.validate import is_int
from layoutalg.verify.checks import check_bijective, check_equivalent
from layoutalg.verify.result import CheckResult, Status
from layoutalg.verify.solver import DEFAULT_TIMEOUT_MS

SIZES = ("pieces", "flat")


@dataclass(frozen=True)
class AllGather:
    """``Shard(dim)`` → ``Replicate()`` on ``mesh_dims`` (several: one flattened group).

    ``sizes`` is how the gathered buffer is cut back: ``"pieces"`` by the
    length each rank really holds (torch's gather on one mesh dim, or a
    flattened one whose pieces are even); ``"flat"`` by one ``torch.chunk``
    of the logical size over the flattened group — what the flattened
    all_gather of pytorch#194457 does, right only when that equals the
    nested pieces.
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
        _check_dim("AllGather", "dim", self.dim)
        if self.sizes not in SIZES:
            raise DTensorError(f"AllGather: sizes must be one of {SIZES}; got {self.sizes!r}")

    def __str__(self) -> str:
        flat = "" if self.sizes == "pieces" else ", flat sizes"
        return f"all_gather(mesh dims {list(self.mesh_dims)}, dim {self.dim}{flat})"

    def changes(self) -> dict[int, tuple[Placement, Placement]]:
        return {k: (Shard(self.dim), Replicate()) for k in self.mesh_dims}

    def reads(self, before: DTensorLayout, slot: dict) -> list[sympy.Expr]:
        i, group = self.dim, self.mesh_dims
        parts = [before.mesh_shape[k] for k in group]
        outer = [k for k in before.shard_mesh_dims(i) if k < group[0]]

        def cut(size):
            if self.sizes == "flat" or is_flat(size, parts):
                c = ceil_div(size, math.prod(parts))
                return slot[f"l{i}"] // c, slot[f"l{i}"] % c
            if not isinstance(size, int):
                raise DTensorError(f"{self}: cutting uneven nested pieces of tensor dim {i} "
                                   f"needs concrete sizes; got size {size}")
            return _by_pieces(slot[f"l{i}"], nested_lengths(size, parts), size)

        rank, row = _per_rank(before, i, outer, slot, cut)
        source = dict(slot)
        source.update(_delinearize(rank, group, parts))
        source[f"l{i}"] = row
        return _ordered(before, source)


@dataclass(frozen=True)
class AllToAll:
    """``Shard(from_dim)`` → ``Shard(to_dim)`` on ``mesh_dim``: rank ``a`` keeps chunk
    ``a`` of ``to_dim`` and gathers ``from_dim`` (torch's ``_to_new_shard_dim``)."""

    mesh_dim: int
    from_dim: int
    to_dim: int

    def __post_init__(self) -> None:
        _check_dim("AllToAll", "mesh_dim", self.mesh_dim)
        _check_dim("AllToAll", "from_dim", self.from_dim)
        _check_dim("AllToAll", "to_dim", self.to_dim)
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

        def gather(size):
            c = ceil_div(size, k)
            return p // c, p % c

        def keep(size):
            return (a * ceil_div(size, k) + q,)

        outer_from = [j for j in before.shard_mesh_dims(self.from_dim) if j < m]
        outer_to = [j for j in _sharding_in(before, self.to_dim) if j < m]
        rank, row = _per_rank(before, self.from_dim, outer_from, slot, gather)
        (column,) = _per_rank(before, self.to_dim, outer_to, slot, keep)
        source = dict(slot)
        source.update({f"m{m}": rank, f"l{self.from_dim}": row, f"l{self.to_dim}": column})
        return _ordered(before, source)


@dataclass(frozen=True)
class LocalChunk:
    """``Replicate()`` → ``Shard(dim)`` on ``mesh_dim``: each rank keeps its own chunk
    of its copy, no communication (torch's ``Shard._split_tensor``)."""

    mesh_dim: int
    dim: int

    def __post_init__(self) -> None:
        _check_dim("LocalChunk", "mesh_dim", self.mesh_dim)
        _check_dim("LocalChunk", "dim", self.dim)

    def __str__(self) -> str:
        return f"chunk(mesh dim {self.mesh_dim}, dim {self.dim})"

    def changes(self) -> dict[int, tuple[Placement, Placement]]:
        return {self.mesh_dim: (Replicate(), Shard(self.dim))}

    def reads(self, before: DTensorLayout, slot: dict) -> list[sympy.Expr]:
        m, i = self.mesh_dim, self.dim
        a, k = slot[f"m{m}"], before.mesh_shape[m]

        def keep(size):
            return (a * ceil_div(size, k) + slot[f"l{i}"],)

        outer = [j for j in before.shard_mesh_dims(i) if j < m]
        (row,) = _per_rank(before, i, outer, slot, keep)
        source = dict(slot)
        source[f"l{i}"] = row
        return _ordered(before, source)


Step = AllGather | AllToAll | LocalChunk


@dataclass(frozen=True, init=False)
class Redistribution:
    """``source`` taken through ``steps``; ``layouts`` are the source, each
    intermediate layout and the target.

    >>> plan = Redistribution(DTensorLayout((4,), ["S(0)"], (5, 3)), [AllGather((0,), 0)])
    >>> str(plan.target)
    'DTensor (5, 3) on mesh (4,) as [R]'
    """

    source: DTensorLayout
    steps: tuple[Step, ...]
    layouts: tuple[DTensorLayout, ...]
    name: str

    def __init__(self, source: DTensorLayout, steps: Sequence[Step], *,
                 name: str | None = None) -> None:
        if not isinstance(source, DTensorLayout):
            raise DTensorError(f"Redistribution: source must be a DTensorLayout; "
                               f"got {describe(source)}")
        if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence):
            raise DTensorError(f"Redistribution: steps must be a sequence of AllGather, "
                               f"AllToAll or LocalChunk; got {describe(steps)}")
        layouts = [source]
        for n, step in enumerate(steps):
            if not isinstance(step, (AllGather, AllToAll, LocalChunk)):
                raise DTensorError(f"Redistribution: steps[{n}] must be an AllGather, AllToAll "
                                   f"or LocalChunk; got {describe(step)}")
            layouts.append(_apply(layouts[-1], step, n))
        shown = " → ".join(str(s) for s in steps) or "no step"
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "steps", tuple(steps))
        object.__setattr__(self, "layouts", tuple(layouts))
        object.__setattr__(self, "name", name or f"{source} by {shown}")

    @property
    def target(self) -> DTensorLayout:
        return self.layouts[-1]

    def __str__(self) -> str:
        return self.name

    def index_map(self) -> IndexMap:
        """The target layout's map: where the plan must put every element."""
        return self.target.index_map()

    def delivered_map(self) -> IndexMap:
        """(copy, element) of the target → (received?, element received), read back
        through the steps; ``expected_map`` is (1, the element itself)."""
        return _delivered(self)[0]

    def expected_map(self) -> IndexMap:
        return _delivered(self)[1]

    def trace(self, point) -> list[tuple[DTensorLayout, tuple[int, ...], bool]]:
        """For a concrete (copy, element) of the target: the slot of each layout the
        plan reads it through (target first, source last) and whether it is real."""
        target = self.target.index_map()
        slot = target(*point)
        names = list(target.codomain.names)
        out = [(self.target, slot, True)]
        for step, before in zip(reversed(self.steps), reversed(self.layouts[:-1])):
            env = dict(zip(target.codomain.symbols, (sympy.Integer(v) for v in slot)))
            slot = tuple(int(e.xreplace(env)) for e in step.reads(before, _symbols(names)))
            out.append((before, slot, _holds(before, slot)))
        return out

    def check(self, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
        return check_redistribution(self, assume=assume, timeout_ms=timeout_ms)


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
    if not isinstance(source, DTensorLayout):
        raise DTensorError(f"plan_redistribution: source must be a DTensorLayout; "
                           f"got {describe(source)}")
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
    for k, after in enumerate(target):
        if now[k] != after:
            steps.append(LocalChunk(k, after.dim))
            now[k] = after
    if flatten:
        steps = _flattened(steps)
    return Redistribution(source, steps)


def _dims(*placements_) -> set[int]:
    return {p.dim for p in placements_ if isinstance(p, Shard)}


def _lone_swaps(now: list, target: tuple) -> set[int]:
    """Mesh dims going Shard(a) → Shard(b) where no other mesh dim shards a or b,
    before or after: an all_to_all there leaves every nested order as it was."""
    swaps = set()
    for k, (before, after) in enumerate(zip(now, target)):
        if isinstance(before, Shard) and isinstance(after, Shard) and before != after:
            others = _dims(*(now[:k] + now[k + 1:]), *(target[:k] + target[k + 1:]))
            if not others & {before.dim, after.dim}:
                swaps.add(k)
    return swaps


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


def check_redistribution(plan: Redistribution, *, assume=(),
                         timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every rank receives every element the target places there exactly once, at
    the target's local index (see the module docstring).

    REFUTED names the receiving rank, its local index, the element it should
    hold and what the plan brings instead.
    """
    if not isinstance(plan, Redistribution):
        raise DTensorError(f"check_redistribution: plan must be a Redistribution; "
                           f"got {describe(plan)}")
    start = time.perf_counter()
    target = check_bijective(plan.target.index_map(), assume=assume, timeout_ms=timeout_ms)
    if not target.proved:
        return CheckResult(target.status, "redistribution", plan.name, target.counterexample,
                           f"the target layout is not exactly once: {target.reason}",
                           time.perf_counter() - start)
    delivered, expected = _delivered(plan)
    verdict = check_equivalent(delivered, expected, assume=assume, timeout_ms=timeout_ms)
    seconds = time.perf_counter() - start
    if verdict.proved:
        return CheckResult(Status.PROVED, "redistribution", plan.name, None,
                           "every rank receives each element the target places there exactly "
                           "once, at its local index (the target is a bijection onto its "
                           "slots and every slot reads its own element through every step)",
                           seconds)
    reason = verdict.reason
    if verdict.refuted and plan.source.is_concrete:
        reason = _explain(plan, verdict.counterexample)
    return CheckResult(verdict.status, "redistribution", plan.name, verdict.counterexample,
                       reason, seconds)


def _explain(plan: Redistribution, counterexample: dict) -> str:
    target = plan.target.index_map()
    point = tuple(counterexample[n] for n in target.domain.names)
    path = plan.trace(point)
    rank, where = _rank_and_index(plan.target, path[0][1])
    element = point[len(point) - len(plan.target.shape):]
    text = (f"rank {rank} should hold element {element} at local index {where}, but ")
    for layout, slot, real in path[1:]:
        if not real:
            r, w = _rank_and_index(layout, slot)
            what = ("a padding slot" if _inside(layout, slot) else
                    f"outside its local buffer {layout.index_map().codomain}")
            return text + (f"the plan reads local index {w} of rank {r} in {layout}, {what} "
                           f"(the element is lost there)")
    layout, slot, _ = path[-1]
    got = layout.index_map().preimage(*slot)
    r, w = _rank_and_index(layout, slot)
    got = got[len(got) - len(layout.shape):]
    return text + f"it receives element {got} from local index {w} of rank {r}"


def _inside(layout: DTensorLayout, slot) -> bool:
    return all(0 <= v < e for v, e in zip(slot, layout.index_map().codomain.extents))


def _holds(layout: DTensorLayout, slot) -> bool:
    """The slot lies in the layout's codomain and holds an element (is not padding)."""
    return _inside(layout, slot) and layout.index_map().preimage(*slot) is not None


def _rank_and_index(layout: DTensorLayout, slot) -> tuple[tuple[int, ...], tuple[int, ...]]:
    k = len(layout.mesh_shape)
    return tuple(slot[:k]), tuple(slot[k:])


# -- building the maps -----------------------------------------------------------------


def _delivered(plan: Redistribution) -> tuple[IndexMap, IndexMap]:
    target = plan.target.index_map()
    names = list(target.codomain.names)
    slot = dict(zip(names, target.exprs))
    received = []
    for step, before in zip(reversed(plan.steps), reversed(plan.layouts[:-1])):
        reads = step.reads(before, _symbols(names))
        env = dict(zip(target.codomain.symbols, (slot[n] for n in names)))
        values = [e.xreplace(env) for e in reads]
        m = before.index_map()
        received.append(_real(m, values))
        slot = dict(zip(names, values))
    source = plan.source.index_map()
    back = dict(zip(source.codomain.symbols, (slot[n] for n in names)))
    tensor = [e.xreplace(back) for e in source.inverse[len(source.inverse) -
                                                        len(plan.source.shape):]]
    answers = Space(("received", 2), *((f"element{i}", n) for i, n in
                                        enumerate(plan.source.shape)))
    flag = sympy.Piecewise((1, sympy.And(*received)), (0, True))
    delivered = IndexMap(target.domain, answers, [flag, *tensor],
                         name=f"what {plan.name} delivers")
    own = list(target.domain.symbols[len(target.domain.symbols) - len(plan.source.shape):])
    expected = IndexMap(target.domain, answers, [sympy.Integer(1), *own],
                        name=f"what {plan.target} holds")
    return delivered, expected


def _real(m: IndexMap, values: list) -> sympy.Basic:
    """The slot ``values`` lies in ``m``'s codomain and ``m`` calls it real."""
    inside = [sympy.And(sympy.Ge(v, 0), sympy.Lt(v, e))
              for v, e in zip(values, m.codomain.extents)]
    valid = sympy.true if m.valid is None else m.valid.xreplace(
        dict(zip(m.codomain.symbols, values)))
    return sympy.And(*inside, valid)


def _symbols(names: list[str]) -> dict:
    space = Space(*((n, 1) for n in names))
    return dict(zip(names, space.symbols))


def _ordered(layout: DTensorLayout, source: dict) -> list:
    names = [f"m{k}" for k in range(len(layout.mesh_shape))]
    names += [f"l{i}" for i in range(len(layout.shape))]
    return [sympy.sympify(source[n]) for n in names]


def _per_rank(before: DTensorLayout, dim: int, outer: list[int], slot: dict, fn) -> tuple:
    """``fn(size)`` of the logical size of ``dim`` on this slot's rank: the size the
    shards on the ``outer`` mesh dims leave (torch's ``logical_shape``). With
    outer shards the size depends on the rank: a Piecewise over its coordinates
    (concrete sizes only)."""
    size = before.shape[dim]
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


def _by_pieces(row, lengths: list[int], size: int) -> tuple:
    """Flat rank and local row of ``row`` among pieces of these lengths (in order)."""
    ends = list(itertools.accumulate(lengths))
    # [row ≥ e] is (row + size − e) // size for 0 ≤ row < size: a floor by a constant.
    rank = sum(((row + size - e) // size for e in ends[:-1]), sympy.Integer(0))
    count = len(lengths)
    # rows before piece ``rank``: Σ lengths[j]·[rank ≥ j + 1]
    begin = sum((n * ((rank + count - 1 - j) // count) for j, n in enumerate(lengths[:-1]) if n),
                sympy.Integer(0))
    return rank, row - begin


def _delinearize(rank, group: tuple[int, ...], parts: list) -> dict:
    out = {}
    stride = math.prod(parts)
    for k, n in zip(group, parts):
        stride //= n
        out[f"m{k}"] = (rank // stride) % n if stride else rank
    return out


def _sharding_in(layout: DTensorLayout, dim: int) -> list[int]:
    return list(layout.shard_mesh_dims(dim))


def _apply(layout: DTensorLayout, step: Step, n: int) -> DTensorLayout:
    for k, (before, after) in step.changes().items():
        if k >= len(layout.mesh_shape):
            raise DTensorError(f"steps[{n}] {step}: mesh dim {k} is not in mesh "
                               f"{layout.mesh_shape}")
        if layout.placements[k] != before:
            raise DTensorError(f"steps[{n}] {step}: needs {before} on mesh dim {k}; the layout "
                               f"there is {layout} ({layout.placements[k]})")
        layout = layout.replaced(k, after)
    return layout


def _check_dim(step: str, argument: str, value) -> None:
    if not is_int(value) or value < 0:
        raise DTensorError(f"{step}: {argument} must be an int >= 0; got {describe(value)}")


__all__ = ["AllGather", "AllToAll", "LocalChunk", "Redistribution", "check_redistribution",
           "plan_redistribution"]
