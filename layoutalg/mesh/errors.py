"""Errors of the mesh family: bad layouts, shapes and plans.

Every message names the argument, states the rule and ends with the value
given, e.g. ``grid: rows must be a positive int; got 0``.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class MeshError(LayoutError):
    """A mesh layout, shape, index or PE was given a bad value.

    Cause: a PE count that is not a positive int or exceeds the WSE-2 program
    rectangle (750 PEs wide × 994 tall), a shape of rank 0, an index of the
    wrong rank or out of range. Fix: change the argument the message names.
    """


class PlanError(MeshError):
    """No layout within the constraints holds the tensor.

    Cause: the tensor needs more PEs than the rectangle allows at the data
    budget per PE. Fix: raise ``LayoutConstraints.data_bytes`` (up to SRAM
    minus code and stack), allow more PEs, or use a smaller dtype.
    """


class PEMemoryError(MeshError):
    """A PE's memory plan exceeds its data budget.

    The message reads like the seed's: ``PE (3, 7) exceeds memory: 40960 >
    36864 bytes``, followed by what is live at the peak. Fix: spread the
    tensors over more PEs, enable reuse (``strategy="linear_scan"``) or drop
    double buffering.
    """


class TransformError(MeshError):
    """A layout transform cannot be built for these layouts and shape.

    Cause: layouts of different PE-count limits for one tensor, or a custom
    layout too large to enumerate. Fix: as the message says.
    """
