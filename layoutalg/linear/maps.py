"""A linear layout's map as a layoutalg ``IndexMap``, written with bit operations.

Output ``k`` is the XOR, over every input bit set, of that bit's basis value:

    dim_k = ⊕_{in dim d, bit j}  ((d >> j) & 1) · bases[d][j][k]

built from :mod:`layoutalg.core.bits` (``shift_right``, ``bit_and``,
``bit_xor``), so the generic checks (``la.check_bijective`` …) can be asked
of it through the one Z3 path; the GF(2) checks of
:mod:`layoutalg.linear.checks` decide the same questions by rank. An
invertible layout's map carries its inverse (the inverse layout, written
the same way over the codomain), which makes surjectivity quantifier-free.
:meth:`LinearLayout.index_map <layoutalg.linear.LinearLayout.index_map>` calls this.
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
    terms = []
    for symbol, vectors in zip(symbols, bases):
        for j, vector in enumerate(vectors):
            value = vector[out_index]
            if value:
                bit = bit_and(shift_right(symbol, j), 1) if j else bit_and(symbol, 1)
                terms.append(bit * value)
    if not terms:
        return sympy.Integer(0)
    return reduce(bit_xor, terms)


def xor_index_map(in_dims: Dims, out_dims: Dims, bases: Bases,
                  inverse_bases: Bases | None = None, *, name: str) -> IndexMap:
    """``[in dims] → [out dims]``, one XOR expression per out dim; the inverse
    (``inverse_bases``: per out dim, one vector of in-dim values per bit) when given."""
    domain = Space(**dict(in_dims))
    codomain = Space(**dict(out_dims))
    exprs = [xor_of_bases(domain.symbols, bases, k) for k in range(len(out_dims))]
    inverse = None
    if inverse_bases is not None:
        inverse = [xor_of_bases(codomain.symbols, inverse_bases, k) for k in range(len(in_dims))]
    return IndexMap(domain, codomain, exprs, inverse=inverse, name=name)


__all__ = ["xor_index_map", "xor_of_bases"]
