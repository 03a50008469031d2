"""Checks of one DTensor layout: exactly once per replica group, torch's local shapes.

Both reach Z3 through the core checks (``check_bijective``,
``check_equivalent``); with symbolic sizes they hold for every size.
"""

from __future__ import annotations

import dataclasses
import time

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.dtensor.chunks import nested_chunk_expr
from layoutalg.dtensor.layout import DTensorLayout
from layoutalg.errors import DTensorError
from layoutalg.validate import instance_of
from layoutalg.verify.checks import check_bijective, check_equivalent
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult


def check_exactly_once(layout: DTensorLayout, *, assume=(),
                       timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every rank holds each element of its shard exactly once, and nothing else:
    (copy, element) → (rank, local index) is a bijection onto the slots torch's
    chunk rule fills (every rank along a Replicate or Partial mesh dim holds its
    copy, for Partial its summand).

    >>> check_exactly_once(DTensorLayout((2, 2), ["S(0)", "S(0)"], (5, 3))).status.name
    'PROVED'
    """
    instance_of(DTensorError, "subject", layout, DTensorLayout, where="exactly_once")
    verdict = check_bijective(layout.index_map(), assume=assume, timeout_ms=timeout_ms)
    reason = verdict.reason
    if verdict.proved:
        reason = (f"every element lies exactly once in each replica group, on the rank and "
                  f"local index torch's chunk rule gives ({reason})")
    return dataclasses.replace(verdict, check="exactly_once", reason=reason)


def torch_rule_map(layout: DTensorLayout) -> IndexMap:
    """Slot (rank, local index) → (real?, global index), written from torch's rule alone
    (``chunks.nested_chunk_expr``: ``Shard.local_shard_size_and_offset`` left to right,
    pytorch/pytorch ``torch/distributed/tensor/placement_types.py``, ``_utils.py``).
    A slot is real when every local index is below its length; its element is the
    offset plus the local index. Padding slots give ``(0, 0, …)``.
    """
    space = layout.index_map().codomain
    sym = dict(zip(space.names, space.symbols))
    real, element = [], []
    for i, size in enumerate(layout.shape):
        dims = layout.shard_mesh_dims(i)
        start, length = nested_chunk_expr(size, [layout.mesh_shape[k] for k in dims],
                                          [sym[f"m{k}"] for k in dims])
        # unevaluated: SymPy would only query assumptions about Min/Max to try to decide it
        real.append(sympy.Lt(sym[f"l{i}"], length, evaluate=False))
        element.append(start + sym[f"l{i}"])
    return _slot_answers(layout, space, sympy.And(*real), element,
                         f"torch's chunk rule for {layout}")


def layout_slot_map(layout: DTensorLayout) -> IndexMap:
    """Slot → (real?, global index) as the layout's map says: its ``valid`` and inverse."""
    m = layout.index_map()
    holds = sympy.true if m.valid is None else m.valid
    tensor = m.inverse[len(m.inverse) - len(layout.shape):]
    return _slot_answers(layout, m.codomain, holds, tensor, f"slots of {layout}")


def _slot_answers(layout: DTensorLayout, slots: Space, holds, element, name: str) -> IndexMap:
    """Slot → (1, element) where ``holds``, else (0, 0, …)."""
    answers = Space(("real", 2), *((f"global{i}", n) for i, n in enumerate(layout.shape)))
    exprs = [sympy.Piecewise((1, holds), (0, True), evaluate=False)]
    exprs += [sympy.Piecewise((e, holds), (0, True), evaluate=False) for e in element]
    return IndexMap(slots, answers, exprs, name=name)


def check_local_shapes(layout: DTensorLayout, *, assume=(),
                       timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """On every rank the real slots are torch's local shape, holding torch's elements.

    Compares the layout's ``valid`` slots and inverse with ``torch_rule_map``
    (written separately from torch's formulas) at every slot. With
    ``check_exactly_once`` this is torch's layout, local shapes and global
    offsets included.
    """
    instance_of(DTensorError, "subject", layout, DTensorLayout, where="local_shapes")
    start = time.perf_counter()
    verdict = check_equivalent(layout_slot_map(layout), torch_rule_map(layout), assume=assume,
                               timeout_ms=timeout_ms)
    reason = verdict.reason
    if verdict.proved:
        reason = ("on every rank the real slots are torch's local shape and each holds the "
                  "element torch's chunk rule puts there")
    elif verdict.refuted:
        reason = f"the layout differs from torch's chunk rule: {reason}"
    return dataclasses.replace(verdict, check="local_shapes", reason=reason,
                               seconds=time.perf_counter() - start)
