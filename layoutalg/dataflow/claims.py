"""Spec claims of the dataflow family on a ``Schedule`` or ``SeedReuse`` (the core
claims apply to its loop nest): ``("meets_compulsory"[, operand])``,
``"stationary_once"``, ``("tiles_fit", capacities)``, ``("energy_below", other[,
costs])`` and ``("reuse_above", other, operand[, factor])`` (the checks in
:mod:`layoutalg.dataflow.checks`).
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
