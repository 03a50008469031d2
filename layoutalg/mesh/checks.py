"""Mesh checks: a placed tensor fits each PE's budget and stays on the wafer; two
layouts put every element on the same PEs."""

from __future__ import annotations

import dataclasses

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import MeshError, describe
from layoutalg.mesh.compat import compare
from layoutalg.mesh.kinds import WSE2, Wafer
from layoutalg.mesh.layout import MeshLayout, PlacedTensor, require_layout
from layoutalg.mesh.shapes import check_shape
from layoutalg.validate import positive_int
from layoutalg.verify.checks import check_in_bounds
from layoutalg.verify.memory import check_fits
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS
from layoutalg.verify.result import CheckResult

#: 48 KB SRAM − 8 KB code − 4 KB stack, the seed's ``AVAILABLE_FOR_DATA``.
DEFAULT_DATA_BYTES = 48 * 1024 - 8 * 1024 - 4 * 1024


def _placed(subject: object) -> PlacedTensor:
    if not isinstance(subject, PlacedTensor):
        raise MeshError(f"subject: must be a PlacedTensor (layout.on(shape, dtype)); "
                        f"got {describe(subject)}")
    return subject


def check_fits_pe(subject: PlacedTensor, budget: int = DEFAULT_DATA_BYTES, *, assume=(),
                  timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every PE's slots end within ``budget`` bytes (Z3); REFUTED names the PE and bytes.

    >>> from layoutalg.mesh.layout import MeshLayout
    >>> print(check_fits_pe(MeshLayout.single_pe().on((1024, 1024))).reason)
    PE (0, 0) exceeds memory: 4194304 > 36864 bytes (element (i=1023, j=1023))
    """
    placed = _placed(subject)
    budget = positive_int(MeshError, "budget", budget, where="fits_pe", unit="bytes")
    return check_fits(placed.index_map(), budget, per=("pe_row", "pe_col"),
                         element_bytes=placed.element_size, offsets_in_bytes=True,
                         memory_name="PE", assume=assume, timeout_ms=timeout_ms)


def check_on_wafer(subject: PlacedTensor, rows: int | Wafer = WSE2, cols: int | None = None, *,
                   assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every element lands on a PE inside a wafer's usable rectangle: a ``Wafer``
    preset (``WSE2``, the default), or ``rows`` tall and ``cols`` wide (default 750).

    >>> from layoutalg.mesh.kinds import WSE3
    >>> tall = MeshLayout.row_partition(1000).on((1000, 8))
    >>> print(check_on_wafer(tall, WSE3).status, check_on_wafer(tall).status)
    PROVED REFUTED
    """
    placed = _placed(subject)
    if isinstance(rows, Wafer):
        if cols is not None:
            raise MeshError(f"on_wafer: cols must be left out when the first argument is a "
                            f"Wafer ({rows.name}); got cols={describe(cols)}")
        rows, cols, where = rows.rows, rows.cols, f"{rows.name}'s "
    else:
        rows = positive_int(MeshError, "rows", rows, where="on_wafer")
        cols = positive_int(MeshError, "cols", WSE2.cols if cols is None else cols,
                            where="on_wafer")
        where = ""
    m = placed.index_map()
    probe = IndexMap(m.domain, Space(pe_row=rows, pe_col=cols), m.exprs[:2],
                        name=f"{placed} on {where}{cols} wide × {rows} tall PEs")
    verdict = check_in_bounds(probe, assume=assume, timeout_ms=timeout_ms)
    return dataclasses.replace(verdict, check="on_wafer")


def check_compatible(a: MeshLayout, b: MeshLayout, shape, *, assume=(),
                     timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """PROVED when every element lives on the same PEs under ``a`` and ``b``.

    >>> check_compatible(MeshLayout.row_partition(4), MeshLayout.grid(4, 1), (1024, 512)).status
    <Status.PROVED: 'PROVED'>
    """
    for argument, value in (("layout", a), ("other", b)):
        require_layout(value, "compatible_with", argument)
    return compare(a, b, check_shape(shape), assume=assume, timeout_ms=timeout_ms)
