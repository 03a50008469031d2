"""Tile selection under the seed's capacity constraints, by exhaustive search.

The full tiles resident at each level must fit it (the seed's constraints,
tabulated in ``docs/dataflow.md``; its OS register bound, only an assumption
there, is checked here). Access counts depend on the tile counts only, so per
dimension D the search visits the smallest tile for each count
(``⌈D/⌈D/T⌉⌉``): any other tile with that count needs more room for the same
traffic. Every candidate is scored with NumPy at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.core.tiling import ceil_div
from layoutalg.dataflow.capacities import Capacities
from layoutalg.dataflow.checks import check_tiles_fit
from layoutalg.dataflow.energy import EYERISS, AccessCosts, Energy, energy
from layoutalg.dataflow.schedule import DATAFLOWS, INDEXED_BY, LOOPS, RESIDENCY, Schedule
from layoutalg.dataflow.systolic import schedule_cycles, tiled_cycles
from layoutalg.dataflow.traffic import Traffic, closed_form, traffic
from layoutalg.errors import DataflowError, describe
from layoutalg.validate import instance_of, one_of, positive_int, positive_sizes
from layoutalg.verify.result import CheckResult

LIMIT = 2**62


def requirements(dataflow: str, tiles: tuple, element_bytes: int) -> dict[str, object]:
    """Bytes of full tiles each level holds: ``{"l2": …, "register": …}``."""
    def full_tile(operand):
        rows, cols = INDEXED_BY[operand]
        return tiles[LOOPS.index(rows)] * tiles[LOOPS.index(cols)] * element_bytes

    return {level: sum((full_tile(x) for x, chain in RESIDENCY[dataflow].items() if level in chain),
                       0) for level in ("l2", "register")}


def tile_constraints(schedule: Schedule, capacities: Capacities) -> list[sympy.Basic]:
    """The capacity constraints of ``schedule`` as SymPy relations (for ``assume=``)."""
    instance_of(DataflowError, "schedule", schedule, Schedule, where="tile_constraints")
    instance_of(DataflowError, "capacities", capacities, Capacities, where="tile_constraints")
    need = requirements(schedule.dataflow, schedule.tiles, schedule.element_bytes)
    return [sympy.Le(need[level], capacities.of(level), evaluate=False) for level in need]


@dataclass(frozen=True)
class Tiling:
    """The tiles chosen for one problem and dataflow, with what they cost; ``proof`` is
    the ``tiles_fit`` check (PROVED), ``candidates`` how many feasible tilings competed."""

    schedule: Schedule
    traffic: Traffic
    energy: Energy
    cycles: int
    proof: CheckResult
    candidates: int

    @property
    def tiles(self) -> tuple[int, int, int]:
        return self.schedule.tiles


@dataclass(frozen=True)
class Candidates:
    """Every feasible tiling of a problem (canonical tiles), with energy and cycles."""

    dataflow: str
    problem: tuple[int, int, int]
    tiles: np.ndarray  # shape (n, 3)
    energy: np.ndarray
    cycles: np.ndarray


def canonical_tiles(dim: int) -> np.ndarray:
    """The smallest tile giving each tile count: ``⌈D/n⌉`` for n = 1..D, distinct.

    >>> canonical_tiles(10).tolist()
    [1, 2, 3, 4, 5, 10]
    """
    counts = np.arange(1, dim + 1, dtype=np.int64)
    return np.unique(ceil_div(dim, counts))


def candidates(problem: tuple, dataflow: str, capacities: Capacities, *, element_bytes: int = 4,
               costs: AccessCosts = EYERISS, rows: int = 16, cols: int = 16) -> Candidates:
    """Score every feasible canonical tiling (see the module docstring)."""
    problem, capacities = _check_search(problem, dataflow, capacities, element_bytes, costs)
    rows = positive_int(DataflowError, "rows", rows, where="candidates")
    cols = positive_int(DataflowError, "cols", cols, where="candidates")
    M, N, K = problem
    dearest = max(costs.of(x) for x in ("dram", "l2", "array", "register", "mac"))
    if 24 * M * N * K * dearest >= LIMIT:
        raise DataflowError(f"candidates: problem {problem} is too large to score in 64-bit "
                            "integers; scale the sizes down")
    tj_grid, tk_grid = (g.ravel() for g in np.meshgrid(canonical_tiles(N), canonical_tiles(K),
                                                        indexing="ij"))
    found = []  # (tiles, energy, cycles) per feasible block of tilings
    for ti in canonical_tiles(M):
        tiles = (np.full_like(tj_grid, ti), tj_grid, tk_grid)
        need = requirements(dataflow, tiles, element_bytes)
        ok = (need["l2"] <= capacities.l2_bytes) & (need["register"] <= capacities.register_bytes)
        if not ok.any():
            continue
        tiles = tuple(t[ok] for t in tiles)
        counts = closed_form(dataflow, problem, tiles)
        total = sum((value * costs.of(level) for (level, _, _), value in counts.items()
                     if level != "mac"), counts["mac", "-", "op"] * costs.mac)
        found.append((np.stack(tiles, axis=1), np.broadcast_to(total, tiles[0].shape),
                      tiled_cycles(dataflow, problem, tiles, rows, cols)))
    if not found:
        least = requirements(dataflow, (1, 1, 1), element_bytes)
        raise DataflowError(
            f"optimize: no tiling of {problem} fits under {dataflow.upper()}: even 1×1×1 tiles "
            f"need {least['l2']} B of L2 and {least['register']} B of registers; "
            f"got {capacities}")
    return Candidates(dataflow, problem, *(np.concatenate(part) for part in zip(*found)))


def optimize(problem: tuple, dataflow: str, capacities: Capacities | None = None, *,
             element_bytes: int = 4, costs: AccessCosts = EYERISS, rows: int = 16,
             cols: int = 16) -> Tiling:
    """The feasible tiles with the least energy (then fewest cycles, then larger tiles),
    with the traffic, energy, cycles on a ``rows × cols`` array and a Z3 fit proof.

    >>> t = optimize((256, 64, 64), "ws")
    >>> t.tiles, t.proof.status.value
    ((256, 64, 64), 'PROVED')
    """
    capacities = Capacities() if capacities is None else capacities
    found = candidates(problem, dataflow, capacities, element_bytes=element_bytes, costs=costs,
                       rows=rows, cols=cols)
    tiles = found.tiles
    order = np.lexsort((-tiles[:, 2], -tiles[:, 1], -tiles[:, 0], -tiles.prod(axis=1),
                        found.cycles, found.energy))
    best = tuple(int(v) for v in tiles[order[0]])
    schedule = Schedule(dataflow, found.problem, best, element_bytes=element_bytes)
    proof = check_tiles_fit(schedule, capacities)
    if not proof.proved:
        raise AssertionError(f"optimize chose tiles that do not fit: {proof}")  # a bug, not input
    return Tiling(schedule, traffic(schedule), energy(schedule, costs),
                  schedule_cycles(schedule, rows=rows, cols=cols), proof, len(found.energy))


def _check_search(problem, dataflow, capacities, element_bytes, costs):
    one_of(DataflowError, "dataflow", dataflow, DATAFLOWS, where="optimize")
    problem = positive_sizes(DataflowError, "problem", problem, ("M", "N", "K"), where="optimize")
    if not all(isinstance(v, int) for v in problem):
        raise DataflowError(f"optimize: problem must be concrete ints; got {describe(problem)}")
    instance_of(DataflowError, "capacities", capacities, Capacities, where="optimize")
    if not (isinstance(capacities.l2_bytes, int) and isinstance(capacities.register_bytes, int)):
        raise DataflowError(f"optimize: capacities must be concrete ints; got {capacities}")
    positive_int(DataflowError, "element_bytes", element_bytes, where="optimize")
    instance_of(DataflowError, "costs", costs, AccessCosts, where="optimize")
    return problem, capacities

