"""Layout planning: pick a PE grid for a tensor and prove the choice fits.

Unlike the seed (§3.3–3.4: divisors of a minimum PE count only), every grid in
the rectangle is scored — each distinct tile height ``ceil(M / r)`` against
each distinct width ``ceil(N / c)`` — with the seed's score; the winner comes
with Z3's proof that every PE fits and that it lies on the wafer.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from layoutalg.core.tiling import ceil_div
from layoutalg.errors import MeshError, PlanError, describe
from layoutalg.mesh.checks import check_fits_pe, check_on_wafer
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.kinds import WSE2, Wafer
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.shapes import check_shape, view
from layoutalg.validate import is_int, nonnegative_int
from layoutalg.verify.checks import check_bijective
from layoutalg.verify.result import CheckResult


@dataclass(frozen=True)
class LayoutConstraints:
    """What the planner may use per PE and how many PEs: ``data_bytes`` defaults to
    SRAM − code − stack = 36864, the seed's ``AVAILABLE_FOR_DATA`` (its planner
    silently used 32768: ``LayoutConstraints.seed()``); the PE rectangle and SRAM
    come from ``wafer`` (WSE-2: 994 PE rows tall, 750 wide; the seed's limits swap
    them), and ``max_pe_rows``/``max_pe_cols`` may narrow it.

    >>> LayoutConstraints().data_bytes, LayoutConstraints.seed().data_bytes
    (36864, 32768)
    >>> from layoutalg.mesh.kinds import WSE3
    >>> LayoutConstraints(wafer=WSE3).max_pe_rows
    1174
    """

    sram_bytes: int | None = None
    code_bytes: int = 8 * 1024
    stack_bytes: int = 4 * 1024
    data_bytes: int | None = None
    min_tile_elements: int = 64
    max_pe_rows: int | None = None
    max_pe_cols: int | None = None
    prefer_square_tiles: bool = True
    wafer: Wafer = WSE2

    def __post_init__(self) -> None:
        if not isinstance(self.wafer, Wafer):
            raise MeshError(f"LayoutConstraints: wafer must be a Wafer (layoutalg.mesh.WSE2, WSE3 "
                            f"or your own); got {describe(self.wafer)}")
        for name, default in (("sram_bytes", self.wafer.pe_sram_bytes),
                              ("max_pe_rows", self.wafer.rows), ("max_pe_cols", self.wafer.cols)):
            if getattr(self, name) is None:  # the wafer's own figure
                object.__setattr__(self, name, default)
        for name in ("sram_bytes", "code_bytes", "stack_bytes", "min_tile_elements"):
            nonnegative_int(MeshError, name, getattr(self, name), where="LayoutConstraints")
        available = self.sram_bytes - self.code_bytes - self.stack_bytes
        if available < 1:
            raise MeshError(f"LayoutConstraints: code_bytes + stack_bytes must leave data room in "
                            f"sram_bytes={self.sram_bytes}; got {self.code_bytes} + {self.stack_bytes}")
        data = available if self.data_bytes is None else nonnegative_int(
            MeshError, "data_bytes", self.data_bytes, where="LayoutConstraints")
        if not 1 <= data <= available:
            raise MeshError(f"LayoutConstraints: data_bytes must lie in [1, {available}] "
                            f"(sram {self.sram_bytes} − code {self.code_bytes} − stack "
                            f"{self.stack_bytes}); got {data}")
        for name, limit in (("max_pe_rows", self.wafer.rows), ("max_pe_cols", self.wafer.cols)):
            value = getattr(self, name)
            if not is_int(value) or not 1 <= value <= limit:
                raise MeshError(f"LayoutConstraints: {name} must lie in [1, {limit}] "
                                f"({self.wafer}; the seed's max_pe_rows=750, max_pe_cols=994 "
                                f"swap width and height); got {describe(value)}")
        object.__setattr__(self, "data_bytes", data)

    @classmethod
    def seed(cls) -> LayoutConstraints:
        """The seed's planner numbers: 32 KB of data per PE (orientation fixed)."""
        return cls(data_bytes=32 * 1024)


@dataclass(frozen=True)
class LayoutPlan:
    """The planner's choice with its score, the grids considered and the proofs."""

    layout: MeshLayout
    shape: tuple[int, ...]
    dtype: str
    score: float
    candidates: int
    fits: CheckResult
    on_wafer: CheckResult

    @property
    def proved(self) -> bool:
        return self.fits.proved and self.on_wafer.proved


def seed_score(tile_rows, tile_cols, tile_bytes, budget: int, prefer_square: bool = True):
    """The seed's ``score_layout`` (lower is better): |log aspect| + (1 − utilization),
    on NumPy arrays; the seed multiplies by ``sizeof(float)``, here by the dtype."""
    aspect = np.abs(np.log(np.asarray(tile_rows, dtype=float) / tile_cols))
    return (aspect if prefer_square else 0.0) + 1.0 - np.asarray(tile_bytes) / budget


def _tiles(extent: int, limit: int) -> np.ndarray:
    """Every distinct ceil-division tile of ``extent`` over at most ``limit`` parts."""
    return np.unique(ceil_div(extent, np.arange(1, min(extent, limit) + 1)))


def plan_layout(shape, dtype: str = "float32", constraints: LayoutConstraints | None = None
                ) -> LayoutPlan:
    """The best-scoring layout that fits, proved to fit.

    >>> plan = plan_layout((1000, 1000))
    >>> str(plan.layout), plan.fits.status.value
    ('Grid(11, 11)', 'PROVED')
    """
    shape, size = check_shape(shape), element_size(dtype)
    limits = constraints or LayoutConstraints()
    if not isinstance(limits, LayoutConstraints):
        raise MeshError(f"plan_layout: constraints must be LayoutConstraints; got {describe(limits)}")
    budget = limits.data_bytes
    rows, cols = view(shape)
    if rows * cols * size <= budget:
        return _proved(MeshLayout.single_pe(), shape, dtype, limits, 0.0, 1)
    heights = _tiles(rows, limits.max_pe_rows)
    widths = _tiles(cols, limits.max_pe_cols) if len(shape) > 1 else np.array([1])
    tr, tc = np.meshgrid(heights, widths, indexing="ij")
    elements = tr * tc
    pe_rows, pe_cols = ceil_div(rows, tr), ceil_div(cols, tc)
    ok = (elements * size <= budget) & (pe_rows <= limits.max_pe_rows) & (pe_cols <= limits.max_pe_cols)
    ok &= elements >= min(limits.min_tile_elements, rows * cols)
    if not ok.any():
        raise PlanError(f"plan_layout: no grid of at most {limits.max_pe_rows}×{limits.max_pe_cols} "
                        f"PEs holds shape {shape} {dtype} within {budget} bytes per PE; the "
                        f"smallest tile needs {int(elements.min()) * size} bytes")
    # Rank 1 is the seed's row partition: no aspect, so the fewest PEs that fit win.
    square = limits.prefer_square_tiles and len(shape) > 1
    score = np.where(ok, seed_score(tr, tc, elements * size, budget, square), np.inf)
    order = np.lexsort((pe_rows.ravel(), (pe_rows * pe_cols).ravel(), score.ravel()))
    best = np.unravel_index(order[0], score.shape)
    r, c = int(pe_rows[best]), int(pe_cols[best])
    layout = MeshLayout.row_partition(r) if len(shape) == 1 else MeshLayout.grid(r, c)
    return _proved(layout, shape, dtype, limits, float(score[best]), int(ok.sum()))


def _proved(layout, shape, dtype, limits, score, candidates) -> LayoutPlan:
    placed = layout.on(shape, dtype)
    return LayoutPlan(layout, shape, dtype, score, candidates,
                      check_fits_pe(placed, limits.data_bytes),
                      check_on_wafer(placed, limits.max_pe_rows, limits.max_pe_cols))


@dataclass(frozen=True)
class LayoutValidation:
    """``validate_layout``'s answer: ``ok``, each verdict, and the reason."""

    ok: bool
    verdicts: dict[str, CheckResult]
    reason: str


def validate_layout(layout: MeshLayout, shape, dtype: str = "float32",
                    constraints: LayoutConstraints | None = None) -> LayoutValidation:
    """Is ``layout`` usable for the tensor: on the rectangle, a bijection onto its
    slots, and within the data budget of every PE? Each verdict is a Z3 proof.

    >>> v = validate_layout(MeshLayout.row_partition(4), (1024, 1024))
    >>> v.ok, v.reason
    (False, 'fits: PE (..., 0) exceeds memory: 1048576 > 36864 bytes (element (i=..., j=1023))')
    """
    limits = constraints or LayoutConstraints()
    placed = layout.on(shape, dtype)
    verdicts = {
        "on_wafer": check_on_wafer(placed, limits.max_pe_rows, limits.max_pe_cols),
        "bijective": check_bijective(placed.index_map()),
        "fits": check_fits_pe(placed, limits.data_bytes),
    }
    for name, verdict in verdicts.items():
        if not verdict.proved:
            return LayoutValidation(False, verdicts, f"{name}: {verdict.reason}")
    return LayoutValidation(True, verdicts, f"{placed} is on the wafer, a bijection onto its "
                            f"slots, and fits {limits.data_bytes} bytes per PE")


__all__ = ["LayoutConstraints", "LayoutPlan", "LayoutValidation", "plan_layout",
           "seed_score", "validate_layout"]
