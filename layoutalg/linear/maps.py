"""A linear layout's map as an ``IndexMap``: ``dim_k = ⊕_{in dim d, bit j} ((d >> j) & 1) ·
bases[d][j][k]``, built from :mod:`layoutalg.core.bits`, so the generic Z3 checks apply.

An invertible layout's map carries its inverse (written the same way over the
codomain), which makes surjectivity quantifier-free.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce

import sympy

from layoutalg.core.bits import bit_and, bit_xor, shift_right
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space

Dims = Sequence[tuple[str, int]]
Bases = Sequence[Sequence[Sequence[int]]]


def xor_of_bases(symbols, bases: Bases, out_index: int) -> sympy.Expr:
    """``⊕ ((x >> j) & 1) · basis_j[out_index]`` over the symbols and their bases.

    >>> x = sympy.Symbol("x", integer=True, nonnegative=True)
    >>> xor_of_bases([x], [[[1], [3]]], 0).subs(x, 3)     # 1 ^ 3
    2
    """
    terms = [bit_and(shift_right(symbol, j) if j else symbol, 1) * vector[out_index]
             for symbol, vectors in zip(symbols, bases)
             for j, vector in enumerate(vectors) if vector[out_index]]
    return reduce(bit_xor, terms) if terms else sympy.Integer(0)


def xor_index_map(in_dims: Dims, out_dims: Dims, bases: Bases,
                  inverse_bases: Bases | None = None, *, name: str) -> IndexMap:
    """``[in dims] → [out dims]``, one XOR expression per out dim; the inverse
    (``inverse_bases``: per out dim, one vector of in-dim values per bit) when given."""
    domain, codomain = Space(**dict(in_dims)), Space(**dict(out_dims))
    exprs = [xor_of_bases(domain.symbols, bases, k) for k in range(len(out_dims))]
    inverse = None if inverse_bases is None else [
        xor_of_bases(codomain.symbols, inverse_bases, k) for k in range(len(in_dims))]
    return IndexMap(domain, codomain, exprs, inverse=inverse, name=name)


__all__ = ["xor_index_map", "xor_of_bases"]
