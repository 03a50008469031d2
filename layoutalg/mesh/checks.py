"""Mesh checks: a placed tensor fits each PE's budget and stays on the wafer; two
layouts put every element on the same PEs."""

from __future__ import annotations

import dataclasses

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.verify.checks import check_in_bounds
from layoutalg.verify.memory import check_fits
from layoutalg.errors import describe
from layoutalg.errors import MeshError
from layoutalg.mesh.compat import compare
from layoutalg.mesh.layout import WSE2, MeshLayout, PlacedTensor, require_layout
from layoutalg.mesh.shapes import check_shape
from layoutalg.validate import is_int
from layoutalg.verify.result import CheckResult
from layoutalg.verify.query import DEFAULT_TIMEOUT_MS

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
    if not is_int(budget) or budget < 1:
        raise MeshError(f"fits_pe: budget must be a positive int of bytes; got {describe(budget)}")
    budget = int(budget)
    return check_fits(placed.index_map(), budget, per=("pe_row", "pe_col"),
                         element_bytes=placed.element_size, offsets_in_bytes=True,
                         memory_name="PE", assume=assume, timeout_ms=timeout_ms)


def check_on_wafer(subject: PlacedTensor, rows: int = WSE2.rows, cols: int = WSE2.cols, *,
                   assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS) -> CheckResult:
    """Every element lands on a PE inside a ``rows``-tall, ``cols``-wide rectangle."""
    placed = _placed(subject)
    for argument, value in (("rows", rows), ("cols", cols)):
        if not is_int(value) or value < 1:
            raise MeshError(f"on_wafer: {argument} must be a positive int; got {describe(value)}")
    rows, cols = int(rows), int(cols)
    m = placed.index_map()
    probe = IndexMap(m.domain, Space(pe_row=rows, pe_col=cols), m.exprs[:2],
                        name=f"{placed} on {cols} wide × {rows} tall PEs")
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
