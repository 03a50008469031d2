"""The checked arguments of ``matmul``: its operands and its tiles.

Both the KPU dataflows (:mod:`.matmul`) and SUMMA (:mod:`.summa`) read them,
so they live below both.
"""

from __future__ import annotations

import numpy as np

from layoutalg.errors import MachineError, describe


def operands(a, b) -> tuple[np.ndarray, np.ndarray, np.dtype]:
    """``A`` and ``B`` as arrays, and the dtype of the product (their result type)."""
    a, b = np.asarray(a), np.asarray(b)
    for name, value in (("A", a), ("B", b)):
        if value.ndim != 2:
            raise MachineError(f"matmul: {name} must be a 2-D array; got shape {value.shape}")
        if value.dtype.kind not in "iuf" or value.size == 0:
            raise MachineError(f"matmul: {name} must be a non-empty array of numbers; "
                               f"got dtype {value.dtype}, shape {value.shape}")
    if a.shape[1] != b.shape[0]:
        raise MachineError(f"matmul: A's columns must equal B's rows; got A {a.shape[0]}×"
                           f"{a.shape[1]} and B {b.shape[0]}×{b.shape[1]}")
    return a, b, np.result_type(a, b)


def tiles_of(tiles) -> tuple[int, int, int]:
    """``(Ti, Tj, Tk)`` as three Python ints, each at least 1."""
    if not (isinstance(tiles, (tuple, list)) and len(tiles) == 3 and all(
            isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 1
            for t in tiles)):
        raise MachineError(f"matmul: tiles must be (Ti, Tj, Tk), three positive ints; "
                           f"got {describe(tiles)}")
    return tuple(int(t) for t in tiles)
