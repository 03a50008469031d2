"""CuTe layouts ``shape:stride`` as index maps, so CuTe users can check theirs.

As in CuTe (and pycute), a flat index ``i`` becomes a coordinate
colexicographically (the first mode varies fastest; nested modes are
flattened in order) and the offset is the dot product with the strides.
The codomain is ``[0, cosize)`` with ``cosize = f(size - 1) + 1``.
"""

from __future__ import annotations

import sympy

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Extent, Space, check_extent
from layoutalg.core.tiling import colex_strides
from layoutalg.errors import MapError, describe
from layoutalg.validate import is_int

Nested = int | sympy.Expr | tuple


def strided(shape: Nested, stride: Nested, *, cosize: Extent | None = None,
            name: str | None = None) -> IndexMap:
    """The CuTe layout ``shape:stride`` as a map ``[i:size] → [offset:cosize]``.

    ``cosize`` overrides the codomain extent (e.g. to check a CuTe
    ``complement(A, M)`` result covers exactly ``[0, M)``). A compact layout
    (its strides, sorted, are the running products of its sizes) carries its
    inverse, so it can be proved a bijection.

    >>> m = strided((6, 2), (8, 2))
    >>> print(m.name, m(7))
    (6,2):(8,2) (10,)
    """
    sizes = _flatten(shape, "shape")
    strides = _flatten(stride, "stride")
    if nesting(shape) != nesting(stride):
        raise MapError(f"strided: shape and stride must have the same nesting; got shape "
                       f"{format_nested(shape)} and stride {format_nested(stride)}")
    sizes = [check_extent(f"shape[{k}]", s) for k, s in enumerate(sizes)]
    strides = [_check_stride(k, d) for k, d in enumerate(strides)]
    size = sympy.Mul(*sizes)
    if cosize is None:
        cosize = sum(((s - 1) * d for s, d in zip(sizes, strides)), sympy.Integer(0)) + 1
    domain = Space(i=size)  # a Space holds a SymPy integer as an int
    codomain = Space(offset=check_extent("cosize", _tidy(cosize)))
    (i,), (o,) = domain.symbols, codomain.symbols
    offset_expr = sympy.Integer(0)
    running = sympy.Integer(1)
    for k, (s, d) in enumerate(zip(sizes, strides)):
        coord = i // running if k == len(sizes) - 1 else (i // running) % s
        offset_expr += coord * d
        running *= s
    return IndexMap(domain, codomain, [offset_expr], inverse=_inverse(sizes, strides, o),
                    name=name or f"{format_nested(shape)}:{format_nested(stride)}")


def format_nested(value: Nested) -> str:
    """CuTe's text form: ``((2,2),3)``."""
    if isinstance(value, tuple):
        return "(" + ",".join(format_nested(v) for v in value) + ")"
    return str(value)


def _inverse(sizes, strides, o):
    """``offset → i`` when the layout is compact, else None."""
    modes = [(d, s, k) for k, (s, d) in enumerate(zip(sizes, strides)) if s != 1]
    colex = colex_strides(sizes)
    ordered = []
    expected = sympy.Integer(1)
    while modes:
        match = next((m for m in modes if sympy.simplify(m[0] - expected) == 0), None)
        if match is None:
            return None
        modes.remove(match)
        ordered.append(match)
        expected = expected * match[1]
    return [sum(((o // d) % s * colex[k] for d, s, k in ordered), sympy.Integer(0))]


def _flatten(value: Nested, argument: str) -> list:
    if isinstance(value, tuple):
        if not value:
            raise MapError(f"strided: {argument} must not contain an empty tuple; got ()")
        return [leaf for part in value for leaf in _flatten(part, argument)]
    if isinstance(value, list):
        raise MapError(f"strided: {argument} must use tuples, not lists; got {describe(value)}")
    return [value]


def nesting(value: Nested):
    """The tuple structure of ``value`` with its leaves as None: ``nesting((2,(3,4)))``
    is ``(None, (None, None))``."""
    return tuple(nesting(v) for v in value) if isinstance(value, tuple) else None


def _check_stride(k: int, d: object) -> Extent:
    if is_int(d):  # NumPy integers are as good as Python ints
        d = int(d)
    if isinstance(d, bool) or not isinstance(d, (int, sympy.Expr)):
        raise MapError(f"strided: stride[{k}] must be a nonnegative integer; got {describe(d)}")
    d = sympy.sympify(d)
    if not (d.is_integer and d.is_nonnegative):
        raise MapError(f"strided: stride[{k}] must be a nonnegative integer (negative strides "
                       f"are not supported); got {d}")
    return d


def _tidy(extent: sympy.Expr) -> sympy.Expr:
    """The expanded extent when SymPy still sees it is positive, else as built."""
    expanded = sympy.expand(extent)
    return expanded if expanded.is_positive else extent
