"""Redistributions: a sequence of collectives from one placement to another, checked.

A plan is a source layout and steps (``AllGather``, ``AllToAll``,
``LocalChunk``: ``steps.py``), each changing the placement of some mesh
dims and modelled by the slot of its input each output slot *reads*, written
from how DTensor runs the collective, not from the layouts.

``check_redistribution`` proves that, for every element and copy the target
places, following the reads back through every step reaches a real slot of
each intermediate layout and, in the source, the slot holding that very
element, and that the target is a bijection onto its slots (``docs/dtensor.md``).
Not modelled: the reduction of Partial placements (no step takes a Partial),
and which processes may talk (each step reads only along its own mesh dims).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import sympy
from sympy.functions.elementary.piecewise import ExprCondPair
from sympy.logic.boolalg import Boolean

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import flatten
from layoutalg.dtensor import brute
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.dtensor.steps import AllGather, AllToAll, LocalChunk, Step
from layoutalg.errors import DTensorError, describe
from layoutalg.validate import instance_of
from layoutalg.verify.checks import check_bijective, check_equivalent
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS, all_of, substitute
from layoutalg.verify.result import CheckResult, Status


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
        instance_of(DTensorError, "source", source, DTensorLayout, where="Redistribution")
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

    def trace(self, point) -> list[tuple[DTensorLayout, tuple[int, ...], bool]]:
        """For a concrete (copy, element) of the target: the slot of each layout the
        plan reads it through (target first, source last) and whether it is real."""
        slot = self.target.index_map()(*point)
        out = [(self.target, slot, True)]
        for before, values in _read_back(self, [sympy.Integer(v) for v in slot]):
            values = tuple(int(v) for v in values)
            real = _inside(before, values) and before.index_map().preimage(*values) is not None
            out.append((before, values, real))
        return out

    def check(self, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
        """:func:`check_redistribution` of this plan."""
        return check_redistribution(self, assume=assume, timeout_ms=timeout_ms)


def check_redistribution(plan: Redistribution, *, assume=(),
                         timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every rank receives every element the target places there exactly once, at
    the target's local index (see the module docstring). REFUTED names the rank,
    its local index, the element it should hold and what the plan brings instead.
    """
    instance_of(DTensorError, "plan", plan, Redistribution, where="check_redistribution")
    start = time.perf_counter()

    def result(status, reason, counterexample=None) -> CheckResult:
        return CheckResult(status, "redistribution", plan.name, counterexample, reason,
                           time.perf_counter() - start)

    target = check_bijective(plan.target.index_map(), assume=assume, timeout_ms=timeout_ms)
    if not target.proved:
        return result(target.status, f"the target layout is not exactly once: {target.reason}",
                      target.counterexample)
    verdict = check_equivalent(*_delivered(plan), assume=assume, timeout_ms=timeout_ms)
    if verdict.proved:
        return result(Status.PROVED, "every rank receives each element the target places there "
                      "exactly once, at its local index (the target is a bijection onto its "
                      "slots and every slot reads its own element through every step)")
    reason = verdict.reason
    if verdict.refuted:
        bound = _bound(plan, verdict.counterexample)
        if bound is None:
            return result(Status.UNKNOWN, f"not decided: the model refutes at sizes too large "
                          f"to run the steps on data and confirm it ({reason})")
        reason = _explain(bound, verdict.counterexample)
        if bound is not plan:
            reason += " (at " + ", ".join(f"{p.name}={verdict.counterexample[p.name]}"
                                          for p in _size_symbols(plan.source)) + ")"
        if not _lost_in_the_run(bound, verdict.counterexample):
            # The reads left an intermediate layout (a step's buffer held more than
            # the layout it names), yet running the steps brings the element: the
            # model's refutation is not a real one, and nothing is proved either.
            return result(Status.UNKNOWN, f"not decided: the model refutes ({reason}), but "
                          f"running the steps on data delivers that element: a step leaves a "
                          f"buffer that is not the layout it names")
    return result(verdict.status, reason, verdict.counterexample)


RUN_LIMIT = 1 << 16   # elements × ranks a refutation is replayed on (brute.simulate)


def _bound(plan: Redistribution, counterexample: dict) -> Redistribution | None:
    """The plan at the counterexample's sizes (itself when concrete); None when too
    large to run."""
    source = plan.source
    if not source.is_concrete:
        names = _size_symbols(source)
        if any(p.name not in counterexample for p in names):
            return None
        sizes = {p: counterexample[p.name] for p in names}
        mesh = [int(sympy.sympify(e).xreplace(sizes)) for e in source.mesh_shape]
        shape = [int(sympy.sympify(e).xreplace(sizes)) for e in source.shape]
        source = DTensorLayout(mesh, source.placements, shape)
    if math.prod(source.mesh_shape) * math.prod(source.shape) > RUN_LIMIT:
        return None
    return plan if source is plan.source else Redistribution(source, plan.steps)


def _size_symbols(source: DTensorLayout) -> list[sympy.Symbol]:
    """The size symbols of a layout's mesh and tensor shapes, by name."""
    found = {p for e in source.mesh_shape + source.shape for p in sympy.sympify(e).free_symbols}
    return sorted(found, key=lambda p: p.name)


def _point(plan: Redistribution, counterexample: dict) -> tuple[tuple, tuple]:
    """The target domain point of a counterexample, and the element in it."""
    point = tuple(counterexample[n] for n in plan.target.index_map().domain.names)
    return point, point[len(point) - len(plan.target.shape):]


def _lost_in_the_run(plan: Redistribution, counterexample: dict) -> bool:
    """Does running the plan on data (``brute.simulate``) get the counterexample wrong?"""
    point, element = _point(plan, counterexample)
    rank, where = _rank_and_index(plan.target, plan.target.index_map()(*point))
    data = brute.simulate(plan)[rank]
    inside = all(i < n for i, n in zip(where, data.shape))
    return not inside or int(data[where]) != flatten(element, plan.target.shape)


def _explain(plan: Redistribution, counterexample: dict) -> str:
    point, element = _point(plan, counterexample)
    path = plan.trace(point)
    rank, where = _rank_and_index(plan.target, path[0][1])
    text = f"rank {rank} should hold element {element} at local index {where}, but "
    for layout, slot, real in path[1:]:
        if not real:
            r, w = _rank_and_index(layout, slot)
            what = ("a padding slot" if _inside(layout, slot) else
                    f"outside its local buffer {layout.index_map().codomain}")
            return text + (f"the plan reads local index {w} of rank {r} in {layout}, {what} "
                           f"(the element is lost there)")
    layout, slot, _ = path[-1]
    got = layout.index_map().preimage(*slot)[-len(layout.shape):]
    r, w = _rank_and_index(layout, slot)
    return text + f"it receives element {got} from local index {w} of rank {r}"


def _inside(layout: DTensorLayout, slot) -> bool:
    return all(0 <= v < e for v, e in zip(slot, layout.index_map().codomain.extents))


def _rank_and_index(layout: DTensorLayout, slot) -> tuple[tuple[int, ...], tuple[int, ...]]:
    k = len(layout.mesh_shape)
    return tuple(slot[:k]), tuple(slot[k:])


def _read_back(plan: Redistribution, slot, *, symbolic: bool = False
               ) -> list[tuple[DTensorLayout, list]]:
    """Each earlier layout (the last step's input first) with the slot the plan reads
    there for the target's ``slot``: Integers, or (``symbolic``) expressions put in
    by ``verify.query.substitute`` (no SymPy re-evaluation of every floor and Mod)."""
    symbols = plan.target.index_map().codomain.symbols
    by_name = {s.name: s for s in symbols}
    path = []
    for step, before in zip(reversed(plan.steps), reversed(plan.layouts[:-1])):
        reads = step.reads(before, by_name)
        if symbolic:
            slot = list(substitute(reads, symbols, slot))
        else:
            env = dict(zip(symbols, slot))
            slot = [e.xreplace(env) for e in reads]
        path.append((before, slot))
    return path


def _delivered(plan: Redistribution) -> tuple[IndexMap, IndexMap]:
    target = plan.target.index_map()
    path = _read_back(plan, list(target.exprs), symbolic=True)
    received = [_real(before.index_map(), values) for before, values in path]
    source = plan.source.index_map()
    tensor = substitute(source.inverse[len(source.inverse) - len(plan.source.shape):],
                        source.codomain.symbols, path[-1][1] if path else target.exprs)
    answers = Space(("received", 2), *((f"element{i}", n) for i, n in
                                        enumerate(plan.source.shape)))
    flag = _indicator(all_of(*received))
    delivered = IndexMap(target.domain, answers, [flag, *tensor],
                         name=f"what {plan.name} delivers")
    own = list(target.domain.symbols[len(target.domain.symbols) - len(plan.source.shape):])
    expected = IndexMap(target.domain, answers, [sympy.Integer(1), *own],
                        name=f"what {plan.target} holds")
    return delivered, expected


def _indicator(condition: sympy.Basic) -> sympy.Expr:
    """``1`` where ``condition`` holds, else ``0``; a condition SymPy already settled
    is that constant. Otherwise the ``Piecewise`` and its pairs are built as they
    stand: SymPy's evaluation gives the same function at about a tenth of a second
    per plan, and even with ``evaluate=False`` its pair folds a ``Piecewise``
    inside the condition out through the whole ``And`` into ``ITE`` via
    ``as_set`` (0.2-0.9 s per plan)."""
    if condition is sympy.true or condition is sympy.false:
        return sympy.Integer(1 if condition is sympy.true else 0)
    if not isinstance(condition, Boolean):
        raise DTensorError(f"a delivery condition must be a Boolean; got {describe(condition)}")
    pairs = (sympy.Tuple.__new__(ExprCondPair, sympy.Integer(1), condition),
             sympy.Tuple.__new__(ExprCondPair, sympy.Integer(0), sympy.true))
    return sympy.Basic.__new__(sympy.Piecewise, *pairs)


def _real(m: IndexMap, values: list) -> sympy.Basic:
    """The slot ``values`` lies in ``m``'s codomain and ``m`` calls it real."""
    inside = [relation for v, e in zip(values, m.codomain.extents)
              for relation in (sympy.Ge(v, 0), sympy.Lt(v, e))]
    valid = sympy.true if m.valid is None else substitute([m.valid], m.codomain.symbols,
                                                           values)[0]
    return all_of(*inside, valid)  # all_of: relations evaluated, the And as written


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


__all__ = ["Redistribution", "check_redistribution"]
