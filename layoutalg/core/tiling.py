"""Digit arithmetic of layouts: the one place a family's index maps divide.

Every layout family cuts an index into digits and glues digits back into an
index: row-major or colexicographic (un)flattening, ceil-division tiles, a
round-robin deal over parts, the faces inside a Tenstorrent tile, a memory's
channel interleave. These functions write that arithmetic once, on Python
ints, NumPy int arrays and SymPy expressions alike, and the combinators
(``split``, ``linearize``, ``delinearize``, ``cyclic``) and the families
build their index maps from them.

Unflattening peels digits from the innermost, each quotient feeding the
next (``((x // 4) // 3, (x // 4) % 3, x % 4)`` rather than ``x // 12``
beside ``(x // 4) % 3``): the values are the same, and Z3 sees one chain of
quotients instead of unrelated ones, which decides symbolic sizes in
seconds where the independent form times out (``bench/delinearize.py``).
The outermost digit is never reduced, so an index past the end shows up as
a first coordinate past its extent instead of wrapping onto another one.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

import sympy


def ceil_div(a, b):
    """``⌈a / b⌉``: an int (or int array) for numbers, a SymPy ``ceiling`` for symbols.

    >>> ceil_div(10, 4), ceil_div(8, 4)
    (3, 2)
    >>> ceil_div(sympy.Symbol("n", positive=True, integer=True), 4)
    ceiling(n/4)
    """
    if isinstance(a, sympy.Basic) or isinstance(b, sympy.Basic):
        value = sympy.ceiling(sympy.sympify(a) / b)
        return int(value) if value.is_Integer else value
    return -(-a // b)


def row_major_strides(sizes: Sequence) -> list:
    """Strides of a row-major grid (last coordinate fastest); ints where they are numbers.

    >>> row_major_strides((2, 3, 4))
    [12, 4, 1]
    """
    return _strides(list(sizes)[::-1])[::-1]


def colex_strides(sizes: Sequence) -> list:
    """Strides of a colexicographic grid (first coordinate fastest).

    >>> colex_strides((2, 3, 4))
    [1, 2, 6]
    """
    return _strides(list(sizes))


def dot(coords: Sequence, strides: Sequence):
    """``Σ coords[k]·strides[k]`` (the flat index of coordinates under strides).

    >>> dot((1, 2), (10, 1))
    12
    """
    start = sympy.Integer(0) if any(isinstance(v, sympy.Basic) for v in (*coords, *strides)) else 0
    return sum((c * s for c, s in zip(coords, strides)), start)


def flatten(coords: Sequence, sizes: Sequence):
    """Row-major index of ``coords`` in a grid of ``sizes``.

    >>> flatten((1, 2, 3), (2, 3, 4))
    23
    """
    return dot(coords, row_major_strides(sizes))


def flatten_colex(coords: Sequence, sizes: Sequence):
    """Colexicographic index of ``coords`` (first coordinate fastest).

    >>> flatten_colex((1, 2), (4, 3))
    9
    """
    return dot(coords, colex_strides(sizes))


def digits(value, factor, *, lazy: bool = False):
    """``(value // factor, value % factor)``, skipping the no-op factor 1.

    ``lazy`` leaves SymPy's ``floor`` and ``Mod`` of a SymPy value unevaluated (see
    :func:`remainder`; SymPy's evaluation asks the assumptions of every
    argument: half the time of building the Tenstorrent maps) but keeps one
    simplification Z3 needs (twice the work on the 16-core height-sharded
    tensor's inverse without it): ``Mod(x, k·m) mod m`` is ``Mod(x, m)``
    (for every integer x: ``x mod k·m ≡ x`` modulo ``m``).

    >>> digits(23, 4), digits(23, 1)
    ((5, 3), (23, 0))
    >>> x = sympy.Symbol("x", integer=True)
    >>> digits(remainder(x, 64), 16, lazy=True)
    (floor((Mod(x, 64))/16), Mod(x, 16))
    """
    if _is_one(factor):
        return value, 0 * value
    if not lazy or not isinstance(value, sympy.Basic) or value.is_Integer:
        return value // factor, (remainder if lazy else operator.mod)(value, factor)
    folds = (isinstance(value, sympy.Mod) and value.args[1].is_Integer and _is_int(factor)
             and 0 < factor and int(value.args[1]) % int(factor) == 0)
    inner = value.args[0] if folds else value
    return sympy.floor(value / factor, evaluate=False), remainder(inner, factor)


def unflatten(index, sizes: Sequence, *, lazy: bool = False) -> list:
    """Row-major coordinates of ``index``, peeled digit by digit from the innermost.

    ``sizes[0]`` bounds nothing: the first coordinate is the last quotient,
    unreduced (see the module docstring). No sizes, no coordinates (as
    :func:`flatten` of none is 0).

    >>> unflatten(23, (2, 3, 4)), unflatten(25, (2, 3, 4)), unflatten(0, ())
    ([1, 2, 3], [2, 0, 1], [])
    """
    if not len(sizes):
        return []
    coords, rest = [], index
    for size in reversed(list(sizes)[1:]):
        rest, digit = digits(rest, size, lazy=lazy)
        coords.append(digit)
    coords.append(rest)
    return coords[::-1]


def unflatten_colex(index, sizes: Sequence, *, lazy: bool = False) -> list:
    """Colexicographic coordinates of ``index`` (first fastest; the last unreduced).

    >>> unflatten_colex(9, (4, 3))
    [1, 2]
    """
    return unflatten(index, list(sizes)[::-1], lazy=lazy)[::-1]


def deal(x, parts, block=1, *, lazy: bool = False):
    """Blocks of ``block`` indices dealt round-robin over ``parts``: ``(part, local)``.

    Index ``x`` goes to part ``(x // block) % parts`` at local index
    ``(x // (block·parts))·block + x % block``. A ceil-division tile is the
    deal in one round (``block = ⌈extent / parts⌉``); a memory's channel
    interleave deals ``granule``-byte blocks over its channels. ``lazy``: as
    in :func:`remainder`.

    >>> [deal(x, 3, 2) for x in (0, 1, 2, 5, 6, 7)]
    [(0, 0), (0, 1), (1, 0), (2, 1), (0, 2), (0, 3)]
    """
    return deal_part(x, parts, block, lazy=lazy), deal_local(x, parts, block, lazy=lazy)


def deal_part(x, parts, block=1, *, lazy: bool = False):
    """The part of :func:`deal` alone (building one SymPy term, not two)."""
    mod = remainder if lazy else operator.mod
    return mod(x, parts) if _is_one(block) else mod(x // block, parts)


def deal_local(x, parts, block=1, *, lazy: bool = False):
    """The local index of :func:`deal` alone."""
    if _is_one(block):
        return x // parts
    return (x // (block * parts)) * block + (remainder if lazy else operator.mod)(x, block)


def undeal(part, local, parts, block=1, *, lazy: bool = False):
    """The index that :func:`deal` sends to ``(part, local)``.

    >>> undeal(0, 3, 3, 2), undeal(2, 1, 3, 2)
    (7, 5)
    """
    mod = remainder if lazy else operator.mod
    if _is_one(block):
        return local * parts + part
    return ((local // block) * parts + part) * block + mod(local, block)


def face_offset(row, col, face_shape: Sequence, faces_per_row):
    """Offset of ``(row, col)`` inside a tile stored face by face, each face row-major.

    Faces are numbered row-major over the tile; a 32 × 32 tile has four
    16 × 16 faces (TT-Metal, tt_metal/api/tt-metalium/tile.hpp).

    >>> [face_offset(r, c, (16, 16), 2) for r, c in ((0, 16), (16, 0), (17, 18))]
    [256, 512, 786]
    """
    fh, fw = face_shape
    face_row, in_row = digits(row, fh)
    face_col, in_col = digits(col, fw)
    return flatten((flatten((face_row, face_col), (None, faces_per_row)), in_row, in_col),
                   (None, fh, fw))


def face_position(offset, face_shape: Sequence, faces_per_row, *, lazy: bool = False):
    """``(row, col)`` stored at ``offset`` of a face-by-face tile (inverse of :func:`face_offset`).

    >>> face_position(786, (16, 16), 2)
    (17, 18)
    """
    fh, fw = face_shape
    face, in_row, in_col = unflatten(offset, (None, fh, fw), lazy=lazy)
    face_row, face_col = unflatten(face, (None, faces_per_row), lazy=lazy)
    return flatten((face_row, in_row), (None, fh)), flatten((face_col, in_col), (None, fw))


def remainder(value, modulus):
    """``value mod modulus`` for ints, int arrays or SymPy (an unevaluated ``Mod``).

    SymPy's own ``Mod`` spends tens of milliseconds per node in assumption
    queries while it tries to simplify; an unevaluated ``Mod`` means the same
    to both translators (NumPy and Z3) and costs nothing to build.

    >>> remainder(7, 3), remainder(sympy.Symbol("a", integer=True), 3)
    (1, Mod(a, 3))
    """
    if isinstance(value, sympy.Basic) or isinstance(modulus, sympy.Basic):
        value, modulus = sympy.sympify(value), sympy.sympify(modulus)
        if value.is_Integer and modulus.is_Integer:
            return int(value) % int(modulus)
        return sympy.Mod(value, modulus, evaluate=False)
    return value % modulus


def _strides(sizes_fastest_first: list) -> list:
    """Strides, fastest first; the slowest size is never used (it may be None)."""
    if not sizes_fastest_first:
        return []
    running = itertools.accumulate(sizes_fastest_first[:-1], operator.mul, initial=1)
    return [int(v) if isinstance(v, sympy.Basic) and v.is_Integer else v for v in running]


def _is_int(value) -> bool:
    return isinstance(value, (int, sympy.Integer)) and not isinstance(value, bool)


def _is_one(value) -> bool:
    return _is_int(value) and value == 1

