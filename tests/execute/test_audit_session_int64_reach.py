"""Audit (session after 92c76b2): the int64 reach rule of the placement tables.

``execute.analysis._weighted`` multiplied each per-axis table by its row-major
stride before the reach test could help: a stride past int64 whose coordinate is
always 0 (its extent is wide, its values are not) made NumPy raise a bare
``OverflowError`` instead of the placement the per-element path gives (whose
``_offsets`` skips such a stride: "a larger stride only ever multiplies 0").
Fixed: ``_weighted`` skips such a stride too.

Truth in plain Python ints: the element ``i`` lands at ``(pe, a, b) = (0, i // 8, i)``
= ``(0, 0, i)``, in-memory offset ``a * 2**64 + b = i`` (row-major over
``(a, b)`` with extents ``(2, 2**64)``), so 8 elements need 8 bytes of one memory.
"""

from __future__ import annotations

import numpy as np
import sympy

import layoutalg as la

WIDE = 2**64  # the inner extent: its stride for ``a`` is past int64


def _layout() -> la.IndexMap:
    dom = la.Space(i=8)
    (i,) = dom.symbols
    cod = la.Space(pe=1, a=2, b=WIDE)
    return la.IndexMap(dom, cod, [0, sympy.floor(i / 8), i], name="wide_inner")


def test_the_truth_in_python_ints():
    offsets = [(i // 8) * WIDE + i for i in range(8)]
    assert offsets == list(range(8))


def test_a_stride_past_int64_over_zero_coordinates_places_exactly():
    m = _layout()
    machine = la.execute.Machine.for_layout(m, capacity=1 << 10, memory_dims=1, name="PE")
    la.execute.place(np.arange(8, dtype=np.int64), m, machine)
    assert la.execute.fetch(m, machine, np.int64).tolist() == [(i // 8) * WIDE + i
                                                                 for i in range(8)]
