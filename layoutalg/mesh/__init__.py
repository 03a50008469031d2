"""Mesh layouts of PyFlame on the Cerebras WSE (seed 000), every one proved (docs/mesh.md).

``MeshLayout`` spreads a tensor over PEs; ``plan_layout`` picks a grid,
``plan_memory`` plans each PE's memory, ``create_transform`` the exact
communication between two layouts, ``insert_transforms`` those an op graph
needs; each with a Z3 proof. The seed's own algorithms, kept to be refuted,
are in ``specs/_seed_algorithms.py``. Importing this package registers the
claims ``fits_pe``, ``on_wafer``, ``compatible_with``, ``exactly_once`` and
``memory_safe``.
"""

from __future__ import annotations

from layoutalg.errors import MeshError, PEMemoryError, PlanError, TransformError, describe
from layoutalg.mesh import seed
from layoutalg.mesh.checks import (
    DEFAULT_DATA_BYTES,
    check_compatible,
    check_fits_pe,
    check_on_wafer,
)
from layoutalg.mesh.dtypes import DTYPE_BYTES, element_size
from layoutalg.mesh.graph import Interval, Op, OpGraph, Tensor
from layoutalg.mesh.graph_pass import (
    InsertedTransform,
    TransformPass,
    insert_transforms,
    required_input_layout,
)
from layoutalg.mesh.kinds import WAFERS, WSE2, WSE3, LayoutKind, Wafer
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.memory_plan import (
    AllocatorSaving,
    MemoryPlan,
    PEGroup,
    Region,
    compare_allocators,
    plan_memory,
)
from layoutalg.mesh.pattern_maps import PatternModel, prove_exactly_once
from layoutalg.mesh.placed import MemoryUsage, PlacedTensor, memory_usage
from layoutalg.mesh.planner import (
    LayoutConstraints,
    LayoutPlan,
    LayoutValidation,
    plan_layout,
    validate_layout,
)
from layoutalg.mesh.transforms import (
    BlockTable,
    LayoutTransform,
    Transfer,
    TransferCost,
    TransformKind,
    create_transform,
    needs_transform,
)
from layoutalg.verify.claims import register_claim

__all__ = [
    "DEFAULT_DATA_BYTES", "DTYPE_BYTES", "WAFERS", "WSE2", "WSE3", "AllocatorSaving", "BlockTable",
    "InsertedTransform", "Interval", "LayoutConstraints", "LayoutKind", "LayoutPlan",
    "LayoutTransform", "LayoutValidation", "MemoryPlan", "MemoryUsage", "MeshError",
    "MeshLayout", "Op", "OpGraph", "PEGroup", "PEMemoryError", "PatternModel", "PlacedTensor",
    "PlanError", "Region", "Tensor", "Transfer", "TransferCost", "TransformError",
    "TransformKind", "TransformPass", "Wafer", "check_compatible", "check_fits_pe",
    "check_on_wafer", "compare_allocators", "create_transform", "element_size",
    "insert_transforms", "memory_usage", "needs_transform", "plan_layout", "plan_memory",
    "prove_exactly_once", "required_input_layout", "seed", "validate_layout",
]


def _subject(value, kinds, claim: str):
    if not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in (kinds if isinstance(kinds, tuple) else (kinds,)))
        raise MeshError(f"claim {claim!r} applies to a {names}; the spec returned "
                        f"{describe(value)}")
    return value


def _compatible_claim(subject, other, **options):
    placed = _subject(subject, PlacedTensor, "compatible_with")
    return check_compatible(placed.layout, other, placed.shape, **options)


def _exactly_once_claim(subject, **options):
    return _subject(subject, (LayoutTransform, PatternModel), "exactly_once").prove(**options)


def _memory_safe_claim(subject, *, assume=(), timeout_ms=None):
    return _subject(subject, MemoryPlan, "memory_safe").prove(timeout_ms=timeout_ms)


register_claim("fits_pe", check_fits_pe, index_map=False, arguments=(0, 1))
register_claim("on_wafer", check_on_wafer, index_map=False, arguments=(0, 2))
register_claim("compatible_with", _compatible_claim, index_map=False, arguments=(1, 1))
register_claim("exactly_once", _exactly_once_claim, index_map=False)
register_claim("memory_safe", _memory_safe_claim, index_map=False)
