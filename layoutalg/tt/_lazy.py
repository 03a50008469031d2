"""The core's digit arithmetic for the Tenstorrent maps, with SymPy's ``Mod`` left unevaluated.

A TensorSpec's element and page maps cut indices and addresses into digits a
few dozen times (``layoutalg.core.tiling``: ``digits``, ``unflatten``, tile
faces). SymPy evaluates each ``floor`` and ``Mod`` as it is built, asking the
assumptions of its arguments; that was most of the time of building the maps
of ``specs/tt.py`` (0.74 s → 0.37 s CPU left unevaluated). An unevaluated
``floor`` or ``Mod`` (``core.tiling.remainder``) has the same value for NumPy
and for Z3. One simplification of SymPy's is kept, because
Z3 needs it: a remainder of a remainder by a multiple, ``Mod(Mod(x, k·m), m)``,
is written ``Mod(x, m)`` (equal for every integer ``x`` when ``k·m`` and ``m``
are positive). Without it Z3 worked twice as long on the 16-core
height-sharded tensor's inverse (rlimit 653k → 1239k); with it Z3 does the
same work as on SymPy's evaluated forms (rlimit, the slow bijective claims of specs/tt.py).

Ints and NumPy arrays go through unchanged (``core.tiling`` handles them).
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy

from layoutalg.core import tiling


def digits(value, factor):
    """``(value // factor, value mod factor)``, both unevaluated for SymPy values.

    >>> x = sympy.Symbol("x", integer=True)
    >>> digits(sympy.Mod(x, 64, evaluate=False), 16)
    (floor((Mod(x, 64))/16), Mod(x, 16))
    >>> digits(23, 4)
    (5, 3)
    """
    if not isinstance(value, sympy.Basic) or value.is_Integer or _is_one(factor):
        return tiling.digits(value, factor, lazy=True)
    inner = value.args[0] if _remainder_of_a_multiple(value, factor) else value
    return sympy.floor(value / factor, evaluate=False), tiling.remainder(inner, factor)


def unflatten(index, sizes: Sequence) -> list:
    """``core.tiling.unflatten`` (row-major, the first coordinate unreduced) with
    :func:`digits`.

    >>> unflatten(23, (2, 3, 4)), unflatten(25, (2, 3, 4))
    ([1, 2, 3], [2, 0, 1])
    """
    if not len(sizes):
        return []
    coords, rest = [], index
    for size in reversed(list(sizes)[1:]):
        rest, digit = digits(rest, size)
        coords.append(digit)
    coords.append(rest)
    return coords[::-1]


def unflatten_colex(index, sizes: Sequence) -> list:
    """Colexicographic coordinates (first fastest; the last unreduced).

    >>> unflatten_colex(9, (4, 3))
    [1, 2]
    """
    return unflatten(index, list(sizes)[::-1])[::-1]


def face_position(offset, face_shape: Sequence, faces_per_row):
    """``core.tiling.face_position`` with :func:`unflatten`: ``(row, col)`` at
    ``offset`` of a tile stored face by face.

    >>> face_position(786, (16, 16), 2)
    (17, 18)
    """
    fh, fw = face_shape
    face, in_row, in_col = unflatten(offset, (None, fh, fw))
    face_row, face_col = unflatten(face, (None, faces_per_row))
    return (tiling.flatten((face_row, in_row), (None, fh)),
            tiling.flatten((face_col, in_col), (None, fw)))


def _is_one(factor) -> bool:
    return isinstance(factor, (int, sympy.Integer)) and int(factor) == 1


def _remainder_of_a_multiple(value, factor) -> bool:
    """``value`` is ``Mod(x, n)`` with ``n`` a positive multiple of the positive int ``factor``."""
    if not (isinstance(value, sympy.Mod) and isinstance(factor, (int, sympy.Integer))):
        return False
    modulus = value.args[1]
    return (modulus.is_Integer and int(factor) > 0 and int(modulus) > 0
            and int(modulus) % int(factor) == 0)


__all__ = ["digits", "face_position", "unflatten", "unflatten_colex"]
