"""Matmul dataflows (output-, weight-, input-stationary) over DRAM → L2 → PEs.

Exact access counts (:mod:`layoutalg.dataflow.reuse`), energy, systolic
cycles, tile selection with a fit proof, Z3 proofs of the compulsory traffic
and a Pareto characterizer; ``docs/dataflow.md`` explains the model.

>>> import layoutalg as la
>>> s = la.dataflow.Schedule("os", (128, 768, 768), (64, 256, 32))
>>> la.dataflow.traffic(s).dram_bytes >= la.dataflow.traffic(s).compulsory_bytes
True
"""

from layoutalg.dataflow import claims as _claims
from layoutalg.dataflow.characterize import SHAPES, Characterization, characterize
from layoutalg.dataflow.checks import (
    check_energy_below,
    check_meets_compulsory,
    check_reuse_above,
    check_stationary_once,
    check_tiles_fit,
)
from layoutalg.dataflow.energy import EYERISS, AccessCosts, Energy, energy
from layoutalg.dataflow.reuse import events, fetch_factor, loop_nest, simulate
from layoutalg.dataflow.schedule import DATAFLOWS, LEVELS, OPERANDS, Schedule
from layoutalg.dataflow.seed import SeedReuse
from layoutalg.dataflow.systolic import schedule_cycles, systolic_cycles
from layoutalg.dataflow.tiling import Capacities, Tiling, candidates, optimize, tile_constraints
from layoutalg.dataflow.traffic import Traffic, traffic
from layoutalg.errors import DataflowError

_claims.register()

__all__ = [
    "DATAFLOWS", "EYERISS", "LEVELS", "OPERANDS", "SHAPES", "AccessCosts", "Capacities",
    "Characterization", "DataflowError", "Energy", "Schedule", "SeedReuse", "Tiling", "Traffic",
    "candidates", "characterize", "check_energy_below", "check_meets_compulsory",
    "check_reuse_above", "check_stationary_once", "check_tiles_fit", "energy", "events",
    "fetch_factor", "loop_nest", "optimize", "schedule_cycles", "simulate", "systolic_cycles",
    "tile_constraints", "traffic"
]
