"""PE memory planning: liveness, linear-scan reuse, double buffering, and a proof.

Each tensor reserves, on every PE holding part of it, the slot block of its
layout (``MeshLayout.reservations``), rounded up to 4 bytes. PEs with identical
reservations share one plan (a *group*). Within a group the seed's bump
allocator stacks every tensor; ``linear_scan`` (the seed's §7.2 proposal)
reuses the region of a tensor whose last use is over. A double-buffered tensor
gets two regions (ping and pong) for its lifetime. ``MemoryPlan.prove()`` is
the Z3 proof (``memory_proof``).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import ceil_div
from layoutalg.errors import MeshError, PEMemoryError, describe
from layoutalg.mesh.checks import DEFAULT_DATA_BYTES
from layoutalg.mesh.dtypes import element_size
from layoutalg.mesh.graph import OpGraph, require_layouts
from layoutalg.mesh.layout import MeshLayout
from layoutalg.mesh.memory_proof import prove_plan
from layoutalg.validate import one_of, positive_int

STRATEGIES = ("linear_scan", "bump")
ALIGNMENT = 4


def align(size: int) -> int:
    return ceil_div(size, ALIGNMENT) * ALIGNMENT


@dataclass(frozen=True)
class Region:
    """Bytes ``[offset, offset + size)`` of a PE held by ``tensor`` over steps
    ``start … end`` (``buffer`` 1 is the second half of a double buffer)."""

    tensor: str
    buffer: int
    offset: int
    size: int
    start: int
    end: int

    @property
    def stop(self) -> int:
        return self.offset + self.size

    @property
    def label(self) -> str:
        return self.tensor if self.buffer == 0 else f"{self.tensor}[{self.buffer}]"


@dataclass(frozen=True)
class PEGroup:
    """PEs with identical reservations, hence one plan: their regions."""

    pes: tuple[tuple[int, int], ...]
    regions: tuple[Region, ...]

    @property
    def used(self) -> int:
        """High-water mark in bytes."""
        return max((r.stop for r in self.regions), default=0)

    def live_at(self, step: int) -> list[Region]:
        return [r for r in self.regions if r.start <= step <= r.end]


@dataclass(frozen=True, eq=False)
class MemoryPlan:
    """Per-PE regions of every tensor of a graph; see the module docstring."""

    graph: OpGraph
    layouts: tuple[tuple[str, MeshLayout], ...]
    budget: int
    strategy: str
    double_buffer: tuple[str, ...]
    liveness: str
    groups: tuple[PEGroup, ...]

    @property
    def steps(self) -> int:
        return max(len(self.graph.ops), 1)

    @property
    def fits(self) -> bool:
        return all(g.used <= self.budget for g in self.groups)

    @property
    def max_pe_memory_used(self) -> int:
        return max((g.used for g in self.groups), default=0)

    @property
    def total_memory_used(self) -> int:
        return sum(g.used * len(g.pes) for g in self.groups)

    def pe_plan(self, pe: tuple[int, int]) -> PEGroup:
        for group in self.groups:
            if tuple(pe) in group.pes:
                return group
        raise MeshError(f"pe: holds no tensor of this plan; got {describe(pe)}")

    def _peak(self, group: PEGroup) -> int:
        """The first step at which ``group`` holds the most live bytes."""
        return max(range(self.steps), key=lambda s: sum(r.size for r in group.live_at(s)))

    @property
    def error(self) -> str | None:
        """The seed's message for the first PE (row-major) over budget, else None."""
        over = [(pe, g) for g in self.groups if g.used > self.budget for pe in g.pes]
        if not over:
            return None
        pe, group = min(over)
        head = f"PE ({pe[0]}, {pe[1]}) exceeds memory: {group.used} > {self.budget} bytes"
        if self.strategy == "bump":  # nothing is reused: every region counts
            largest = sorted(group.regions, key=lambda r: -r.size)
            shown = ", ".join(f"{r.label} {r.size}" for r in largest[:4])
            more = ", …" if len(largest) > 4 else ""
            return (f"{head} (strategy bump stacks all {len(largest)} regions; largest: "
                    f"{shown}{more} bytes)")
        peak = self._peak(group)
        live = ", ".join(f"{r.label} {r.size}" for r in group.live_at(peak))
        return f"{head} (strategy {self.strategy}; live at step {peak}: {live} bytes)"

    def prove(self, *, assume=(), timeout_ms: int | None = None):
        """Z3: no overlap of simultaneously live regions, every PE within budget,
        every tensor's slots inside its region (see ``memory_proof``)."""
        return prove_plan(self, timeout_ms=timeout_ms)

    def index_map(self) -> IndexMap:
        """The bytes the fullest PE holds at its busiest step (a bump allocator holds
        every region throughout), region after region, → their addresses in a
        ``budget``-byte memory. Injective iff those regions do not overlap; in
        bounds iff they fit."""
        if not self.groups:
            raise MeshError("a MemoryPlan without tensors has no index map")
        group = max(self.groups, key=lambda g: g.used)
        step = self._peak(group)
        live = list(group.regions) if self.strategy == "bump" else group.live_at(step)
        domain = Space(byte=sum(r.size for r in live))
        (b,) = domain.symbols
        starts = itertools.accumulate((r.size for r in live), initial=0)
        pieces = [(r.offset + b - first, b < first + r.size) for r, first in zip(live, starts)]
        address = sympy.Piecewise(*pieces[:-1], (pieces[-1][0], True))
        return IndexMap(domain, Space(address=self.budget), [address],
                        name=f"bytes held by PE {group.pes[0]} at step {step} ({self.strategy})")


def _allocate(strategy: str, wants: list[tuple[str, int, int, int, int]]) -> list[Region]:
    """``wants`` = (tensor, buffer, size, start, end) in graph order."""
    if strategy == "bump":  # the seed's plan_pe: every tensor stacked, 4-byte aligned
        tops = itertools.accumulate((w[2] for w in wants), lambda top, size: align(top) + size,
                                    initial=0)
        return [Region(tensor, buffer, align(top), size, start, end)
                for (tensor, buffer, size, start, end), top in zip(wants, tops)]
    regions, active, free, top = [], [], [], 0
    for tensor, buffer, size, start, end in sorted(wants, key=lambda w: (w[3], -w[2], w[0], w[1])):
        free += [(r.offset, r.size) for r in active if r.end < start]
        active = [r for r in active if r.end >= start]
        free = _coalesce(free)
        fitting = [(s, o) for o, s in free if s >= size]
        if fitting:
            s, o = min(fitting)
            free.remove((o, s))
            if s > size:
                free.append((o + size, s - size))
        elif free and sum(free[-1]) == top:  # grow the free block at the top
            o = free.pop()[0]
            top = o + size
        else:
            o, top = top, top + size
        regions.append(Region(tensor, buffer, o, size, start, end))
        active.append(regions[-1])
    return regions


def _coalesce(blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for offset, size in sorted(blocks):
        if merged and sum(merged[-1]) == offset:
            merged[-1] = (merged[-1][0], merged[-1][1] + size)
        else:
            merged.append((offset, size))
    return merged


def reservation_table(graph: OpGraph, layouts: Mapping[str, MeshLayout]) -> np.ndarray:
    """``[tensor, pe_row, pe_col]`` aligned bytes each tensor reserves on each PE."""
    rows = max(layouts[t.name].pe_rows for t in graph.tensors)
    cols = max(layouts[t.name].pe_cols for t in graph.tensors)
    table = np.zeros((len(graph.tensors), rows, cols), dtype=np.int64)
    for k, t in enumerate(graph.tensors):
        grid = layouts[t.name].reservations(t.shape, element_size(t.dtype))
        table[k, : grid.shape[0], : grid.shape[1]] = align(grid)
    return table


def plan_memory(graph: OpGraph, layouts: Mapping[str, MeshLayout], *,
                budget: int = DEFAULT_DATA_BYTES, strategy: str = "linear_scan",
                double_buffer: Sequence[str] = (), liveness: str = "resident",
                strict: bool = True) -> MemoryPlan:
    """Plan every PE's data memory for ``graph`` with tensors in ``layouts``.

    Raises PEMemoryError (``PE (r, c) exceeds memory: used > budget bytes …``)
    when a PE does not fit, unless ``strict=False``.

    >>> g = OpGraph().input("x", (64, 64)).op("relu", "x", name="y").output("y")
    >>> plan = plan_memory(g, {"x": MeshLayout.grid(2, 2), "y": MeshLayout.grid(2, 2)})
    >>> plan.max_pe_memory_used, len(plan.groups)
    (8192, 1)
    """
    _check(graph, layouts, budget, strategy, double_buffer)
    live = graph.liveness(liveness)
    table = reservation_table(graph, layouts)
    columns = table.reshape(len(graph.tensors), -1).T
    signatures, which = np.unique(columns, axis=0, return_inverse=True)
    cols = table.shape[2]
    groups = []
    for g, signature in enumerate(signatures):
        if not signature.any():
            continue
        pes = tuple((int(p) // cols, int(p) % cols) for p in np.flatnonzero(which.reshape(-1) == g))
        wants = [(t.name, buffer, int(size), live[t.name].start, live[t.name].end)
                 for t, size in zip(graph.tensors, signature) if size
                 for buffer in range(2 if t.name in double_buffer else 1)]
        groups.append(PEGroup(pes, tuple(_allocate(strategy, wants))))
    plan = MemoryPlan(graph, tuple((t.name, layouts[t.name]) for t in graph.tensors), budget,
                      strategy, tuple(double_buffer), liveness,
                      tuple(sorted(groups, key=lambda g: g.pes)))
    if strict and not plan.fits:
        raise PEMemoryError(plan.error)
    return plan


def _check(graph, layouts, budget, strategy, double_buffer) -> None:
    require_layouts(graph, layouts, "plan_memory")
    positive_int(MeshError, "budget", budget, where="plan_memory", unit="bytes")
    one_of(MeshError, "strategy", strategy, STRATEGIES, where="plan_memory")
    if isinstance(double_buffer, str) or not set(double_buffer) <= {t.name for t in graph.tensors}:
        raise MeshError(f"plan_memory: double_buffer must list tensor names of the graph; "
                        f"got {describe(double_buffer)}")


@dataclass(frozen=True)
class AllocatorSaving:
    """High-water marks of the fullest PE and summed over all PEs, bump vs linear scan."""

    bump_max: int
    linear_scan_max: int
    bump_total: int
    linear_scan_total: int

    @property
    def max_saving(self) -> float:
        return 1 - self.linear_scan_max / self.bump_max if self.bump_max else 0.0


def compare_allocators(graph: OpGraph, layouts: Mapping[str, MeshLayout], *,
                       budget: int = DEFAULT_DATA_BYTES, double_buffer: Sequence[str] = (),
                       liveness: str = "resident") -> AllocatorSaving:
    """The seed's bump allocator against linear scan on the same reservations."""
    plans = [plan_memory(graph, layouts, budget=budget, strategy=s, double_buffer=double_buffer,
                         liveness=liveness, strict=False) for s in ("bump", "linear_scan")]
    return AllocatorSaving(plans[0].max_pe_memory_used, plans[1].max_pe_memory_used,
                           plans[0].total_memory_used, plans[1].total_memory_used)


__all__ = ["AllocatorSaving", "MemoryPlan", "PEGroup", "Region", "compare_allocators",
           "plan_memory"]
