"""Spec claims of the dataflow family (``@la.spec(claims=[...])``).

- ``"meets_compulsory"`` / ``("meets_compulsory", operand)``: a Schedule
  or the seed's reuse model moves at least the compulsory DRAM traffic;
- ``"stationary_once"``: the stationary operand crosses DRAM once;
- ``("tiles_fit", capacities)``: every step's tiles fit L2 and registers;
- ``("energy_below", other[, costs])``: less energy than another schedule;
- ``("reuse_above", other, operand[, factor])``: more DRAM reuse of an
  operand than ``factor`` times another schedule's.

The subject is the object the spec returns (a ``Schedule`` or
``SeedReuse``); the core claims ("bijective" …) apply to its loop nest.
"""

from __future__ import annotations

from layoutalg.dataflow import checks
from layoutalg.verify.claims import register_claim


def register() -> None:
    register_claim("meets_compulsory", checks.check_meets_compulsory, index_map=False,
                   arguments=(0, 1))
    register_claim("stationary_once", checks.check_stationary_once, index_map=False)
    register_claim("tiles_fit", checks.check_tiles_fit, index_map=False, arguments=(1, 1))
    register_claim("energy_below", checks.check_energy_below, index_map=False, arguments=(1, 2))
    register_claim("reuse_above", checks.check_reuse_above, index_map=False, arguments=(2, 3))
