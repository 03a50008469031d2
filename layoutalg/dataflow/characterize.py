"""Sweep GEMM shapes × dataflows into a Pareto frontier of energy vs cycles.

For every shape and dataflow every feasible tiling is scored (exact energy
from the counting rule, SCALE-Sim cycles); the tilings no other beats in
both energy and cycles form that dataflow's front, and the union over
dataflows gives the shape's frontier. Each (shape, dataflow) is one task
for an optional ``concurrent.futures.Executor`` (local processes, or a
Dask cluster's ``client.get_executor()``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np

from layoutalg.dataflow.energy import EYERISS, AccessCosts
from layoutalg.dataflow.schedule import DATAFLOWS
from layoutalg.dataflow.svg import frontier_svg
from layoutalg.dataflow.tiling import Capacities, Tiling, candidates, optimize
from layoutalg.errors import DataflowError, describe
from layoutalg.validate import one_of, positive_int, positive_sizes

#: The default sweep: transformer projections, MLPs, the seed's two cases,
#: batch-1 layers and convolutions as im2col GEMMs (M = output pixels,
#: N = output channels, K = kernel area × input channels).
SHAPES: dict[str, tuple[int, int, int]] = {
    "BERT QKV": (128, 768, 768),
    "BERT FFN up": (128, 3072, 768),
    "BERT FFN down": (128, 768, 3072),
    "deep MLP": (64, 4096, 4096),
    "batch-1 MLP": (1, 4096, 4096),
    "seed batch": (256, 64, 64),
    "seed deep K": (1, 512, 4096),
    "conv 3×3 56²×64": (3136, 64, 576),
    "conv 3×3 14²×256": (196, 256, 2304),
    "conv 1×1 7²×2048": (49, 2048, 512),
}


@dataclass(frozen=True)
class Settings:
    """The machine a sweep models (the keyword arguments of ``candidates`` and ``optimize``)."""

    capacities: Capacities
    rows: int
    cols: int
    element_bytes: int
    costs: AccessCosts


@dataclass(frozen=True)
class Evaluation:
    """One shape under one dataflow: its least-energy tiling and its front, the
    ``(energy, cycles, (Ti, Tj, Tk))`` of its Pareto-front tilings by increasing energy."""

    name: str
    shape: tuple[int, int, int]
    dataflow: str
    best: Tiling
    front: tuple[tuple[float, int, tuple[int, int, int]], ...]
    feasible: int


@dataclass(frozen=True)
class Characterization:
    """The result of :func:`characterize`."""

    evaluations: tuple[Evaluation, ...]
    settings: Settings

    @property
    def names(self) -> list[str]:
        return list(dict.fromkeys(e.name for e in self.evaluations))

    def of(self, name: str) -> list[Evaluation]:
        return [e for e in self.evaluations if e.name == name]

    def frontier(self, name: str) -> list[tuple[str, float, int, tuple[int, int, int]]]:
        """The shape's Pareto frontier over all dataflows: ``(dataflow, energy, cycles, tiles)``."""
        points = [(e.dataflow, en, cy, t) for e in self.of(name) for en, cy, t in e.front]
        if not points:
            raise DataflowError(f"frontier: no shape named {name!r}; have {self.names}")
        energy, cycles = np.array([p[1:3] for p in points], dtype=float).T
        return [points[k] for k in pareto_front(energy, cycles)]

    def table(self) -> str:
        """A Markdown table: per shape and dataflow the least-energy tiling."""
        header = ("| shape | (M, N, K) | dataflow | tiles (Ti, Tj, Tk) | DRAM / compulsory "
                  "| energy (×10⁶ MAC) | cycles (×10³) | on frontier |")
        lines = [header, "|---|---|---|---|---:|---:|---:|---:|"]
        for name in self.names:
            frontier = self.frontier(name)
            least = min(e.best.energy.total for e in self.of(name))
            for e in self.of(name):
                share = sum(1 for p in frontier if p[0] == e.dataflow)
                ratio = e.best.traffic.dram_bytes / e.best.traffic.compulsory_bytes
                mark = "**" if e.best.energy.total == least else ""
                lines.append(
                    f"| {name} | {e.shape} | {e.dataflow.upper()} | {e.best.tiles} | {ratio:.2f} "
                    f"| {mark}{e.best.energy.total / 1e6:.2f}{mark} | {e.best.cycles / 1e3:.1f} "
                    f"| {share}/{len(frontier)} |")
        return "\n".join(lines)

    def svg(self) -> str:
        """The frontier plot (one panel per shape) as an SVG document."""
        return frontier_svg(self)


def pareto_front(energy: np.ndarray, cycles: np.ndarray) -> list[int]:
    """Indices of the points no other point beats in both (one per tie), by energy.

    >>> pareto_front(np.array([3., 1., 2., 2.]), np.array([1., 5., 2., 3.]))
    [1, 2, 0]
    """
    keep, best = [], math.inf
    for k in np.lexsort((cycles, energy)):
        if cycles[k] < best:
            keep.append(int(k))
            best = cycles[k]
    return keep


def evaluate(name: str, shape: tuple[int, int, int], dataflow: str,
             settings: Settings) -> Evaluation:
    """Score one shape under one dataflow (what each executor task runs)."""
    found = candidates(shape, dataflow, **vars(settings))
    keep = pareto_front(found.energy.astype(float), found.cycles.astype(float))
    front = tuple((_number(found.energy[k]), int(found.cycles[k]),
                   tuple(int(v) for v in found.tiles[k])) for k in keep)
    best = optimize(shape, dataflow, **vars(settings))
    return Evaluation(name, tuple(shape), dataflow, best, front, len(found.energy))


def characterize(shapes: Mapping[str, tuple] | Sequence[tuple] | None = None,
                 dataflows: Sequence[str] = DATAFLOWS, *, capacities: Capacities | None = None,
                 rows: int = 16, cols: int = 16, element_bytes: int = 4,
                 costs: AccessCosts = EYERISS,
                 executor: Executor | None = None) -> Characterization:
    """Evaluate every shape (name → ``(M, N, K)``, or a list of them, named by size;
    default :data:`SHAPES`) under every dataflow in ``dataflows``, one task per pair
    on ``executor`` (None: in-process).

    >>> c = characterize({"tiny": (32, 32, 32)}, ["os", "ws"])
    >>> [e.dataflow for e in c.evaluations], c.frontier("tiny")[0][0] in ("os", "ws")
    (['os', 'ws'], True)
    """
    named = _named_shapes(shapes)
    if isinstance(dataflows, str) or not isinstance(dataflows, Sequence) or not dataflows:
        raise DataflowError(f"characterize: dataflows must be a non-empty list of {DATAFLOWS}; "
                            f"got {describe(dataflows)}")
    for d in dataflows:
        one_of(DataflowError, "dataflows entry", d, DATAFLOWS, where="characterize")
    if executor is not None and not isinstance(executor, Executor):
        raise DataflowError(f"characterize: executor must be a concurrent.futures.Executor or "
                            f"None; got {describe(executor)}")
    settings = Settings(Capacities() if capacities is None else capacities,
                        positive_int(DataflowError, "rows", rows, where="characterize"),
                        positive_int(DataflowError, "cols", cols, where="characterize"),
                        positive_int(DataflowError, "element_bytes", element_bytes,
                                     where="characterize"), costs)
    tasks = [(name, shape, d, settings) for name, shape in named.items() for d in dataflows]
    if executor is None:
        return Characterization(tuple(evaluate(*task) for task in tasks), settings)
    futures = [executor.submit(evaluate, *task) for task in tasks]
    return Characterization(tuple(f.result() for f in futures), settings)


def _named_shapes(shapes) -> dict[str, tuple[int, int, int]]:
    if shapes is None:
        return dict(SHAPES)
    if isinstance(shapes, Mapping):
        items = list(shapes.items())
    elif isinstance(shapes, Sequence) and not isinstance(shapes, str):
        items = [(None, s) for s in shapes]
    else:
        raise DataflowError(f"characterize: shapes must map names to (M, N, K) or list them; "
                            f"got {describe(shapes)}")
    if not items:
        raise DataflowError("characterize: shapes must not be empty; got no shapes")
    named = {}
    for name, shape in items:
        shape = positive_sizes(DataflowError, "shape", shape, ("M", "N", "K"), where="characterize")
        if not all(isinstance(v, int) for v in shape):
            raise DataflowError(f"characterize: shape must be concrete ints; got {describe(shape)}")
        named[name if name is not None else "×".join(map(str, shape))] = shape
    return named


def _number(value):
    """A NumPy scalar as a Python int (integral) or float."""
    return int(value.item()) if float(value.item()).is_integer() else value.item()
