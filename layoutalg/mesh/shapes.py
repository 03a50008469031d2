"""Tensor shapes, indices and PE coordinates, and the 2-D view ``[shape[0],
prod(shape[1:])]`` a PE mesh places a tensor through (rank 1 is a column ``[n, 1]``).
"""

from __future__ import annotations

import math

import numpy as np

from layoutalg.errors import MeshError, describe
from layoutalg.validate import first_not_positive, first_out_of_range, is_int

_LETTERS = ("i", "j", "k", "l", "m", "n")


def check_shape(shape: object, argument: str = "shape") -> tuple[int, ...]:
    """``shape`` as a tuple of positive ints of rank at least 1.

    >>> check_shape([1024, 512])
    (1024, 512)
    """
    if not isinstance(shape, (tuple, list)):
        raise MeshError(f"{argument}: must be a tuple of positive ints; got {describe(shape)}")
    if len(shape) == 0:
        raise MeshError(f"{argument}: rank must be at least 1 (a PE mesh places arrays, "
                        f"not scalars); got ()")
    bad = first_not_positive(shape)
    if bad is not None:
        raise MeshError(f"{argument}: dimension {bad[0]} must be a positive int; "
                        f"got {describe(tuple(shape))}")
    return tuple(int(e) for e in shape)


def view(shape: tuple[int, ...]) -> tuple[int, int]:
    """The 2-D view ``(shape[0], prod(shape[1:]))`` a layout deals over the mesh.

    >>> view((8, 4, 4)), view((10,))
    ((8, 16), (10, 1))
    """
    return shape[0], math.prod(shape[1:])


def domain_names(rank: int) -> tuple[str, ...]:
    """Coordinate names of a tensor of ``rank``: i, j, k, … then d6, d7, …"""
    return tuple(_LETTERS[k] if k < len(_LETTERS) else f"d{k}" for k in range(rank))


def check_index(index: object, shape: tuple[int, ...], argument: str = "index") -> tuple[int, ...]:
    """``index`` as in-range ints, one per dimension of ``shape``."""
    if not isinstance(index, (tuple, list)) or not all(is_int(v) for v in index):
        raise MeshError(f"{argument}: must be a tuple of ints; got {describe(index)}")
    if len(index) != len(shape):
        raise MeshError(f"{argument}: must have {len(shape)} coordinates for shape {shape}; "
                        f"got {tuple(index)}")
    bad = first_out_of_range(index, shape)
    if bad is not None:
        k = bad[0]
        raise MeshError(f"{argument}: coordinate {k} must lie in [0, {shape[k]}) for shape "
                        f"{shape}; got {tuple(int(v) for v in index)}")
    return tuple(int(v) for v in index)


def view_index(index: tuple[int, ...], shape: tuple[int, ...]) -> tuple[int, int]:
    """The view coordinate ``(i, j)`` of a checked tensor index."""
    if len(shape) == 1:
        return index[0], 0
    return index[0], int(np.ravel_multi_index(index[1:], shape[1:]))


def check_pe(pe: object, pe_rows: int, pe_cols: int, argument: str = "pe") -> tuple[int, int]:
    """``pe`` as a ``(row, col)`` inside the layout's PE grid."""
    if not isinstance(pe, (tuple, list)) or len(pe) != 2 or not all(is_int(v) for v in pe):
        raise MeshError(f"{argument}: must be a (row, col) pair of ints; got {describe(pe)}")
    row, col = int(pe[0]), int(pe[1])
    if not (0 <= row < pe_rows and 0 <= col < pe_cols):
        raise MeshError(f"{argument}: must lie in the {pe_rows}×{pe_cols} PE grid of the layout; "
                        f"got {(row, col)}")
    return row, col
