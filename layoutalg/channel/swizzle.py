"""CuTe's ``Swizzle<B, M, S>``: XOR a field of address bits into a lower one.

CuTe (NVIDIA/cutlass ``include/cute/swizzle.hpp``, struct ``Swizzle``)
permutes offsets by

    bit_msk = (1 << B) - 1
    yyy_msk = bit_msk << (M + max(0, S))
    zzz_msk = bit_msk << (M - min(0, S))
    apply(x) = x ^ shiftr(x & yyy_msk, S)      (shiftr by a negative S shifts left)

with ``M >= 0``, ``B >= 0`` and ``|S| >= B`` (its static_asserts): the B bits
at ``M + max(0, S)`` are XORed into the B bits at ``M + max(0, -S)`` and the
lowest M bits stay. :meth:`Swizzle.expr` writes that with the core bit
operations (:mod:`layoutalg.core.bits`), which Z3 decides for symbolic tile
sizes; :meth:`Swizzle.after` composes it after an index map or
``CuteLayout`` (CuTe's ``ComposedLayout<Swizzle, 0, Layout>``);
:func:`xor_expr` keeps the old ``//``/``%`` form for ``bench/bitvector.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.core.bits import bit_and, bit_xor, shift_left, shift_right
from layoutalg.core.cute_layout import CuteLayout
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.core.tiling import remainder as mod
from layoutalg.errors import SwizzleError, describe
from layoutalg.validate import integer, nonnegative_int, positive_size
from layoutalg.verify.compose import compose


@dataclass(frozen=True)
class Swizzle:
    """CuTe ``Swizzle<bits, base, shift>`` on integer offsets: B bits XORed (0: the
    identity), M low bits kept, S the distance from the source bits down to the
    target bits (negative: up; CuTe requires ``|S| >= B``).

    >>> sw = Swizzle(3, 4, 3)          # the 128-byte swizzle of TMA / ldmatrix tiles
    >>> [sw(row * 128) % 128 // 16 for row in range(8)]   # where chunk 0 of rows 0..7 goes
    [0, 1, 2, 3, 4, 5, 6, 7]
    >>> str(sw)
    'Swizzle<3,4,3>'
    """

    bits: int
    base: int
    shift: int

    def __post_init__(self) -> None:
        for name, rule in (("bits", nonnegative_int), ("base", nonnegative_int),
                           ("shift", integer)):
            object.__setattr__(self, name, rule(SwizzleError, name, getattr(self, name),
                                                where="Swizzle"))
        if abs(self.shift) < self.bits:
            raise SwizzleError(
                f"Swizzle: |shift| must be >= bits (CuTe: abs(SShift) >= BBits), or the XOR "
                f"reads bits it writes; got bits={self.bits}, shift={self.shift}"
            )

    @property
    def source(self) -> int:
        """Position of the lowest source (YYY) bit."""
        return self.base + max(0, self.shift)

    @property
    def target(self) -> int:
        """Position of the lowest target (ZZZ) bit, the bits that change."""
        return self.base + max(0, -self.shift)

    @property
    def period(self) -> int:
        """Offsets ``[q·period, (q+1)·period)`` are permuted among themselves."""
        return 1 << (self.bits + self.base + abs(self.shift))

    @property
    def yyy_mask(self) -> int:
        return ((1 << self.bits) - 1) << self.source

    @property
    def zzz_mask(self) -> int:
        return ((1 << self.bits) - 1) << self.target

    def __call__(self, offset):
        """The swizzled offset, bitwise as CuTe computes it (ints or int arrays)."""
        if isinstance(offset, sympy.Basic):
            return self.expr(offset)
        picked = offset & self.yyy_mask
        moved = picked >> self.shift if self.shift >= 0 else picked << -self.shift
        return offset ^ moved

    def expr(self, offset: sympy.Expr) -> sympy.Expr:
        """CuTe's ``offset ^ shiftr(offset & yyy_msk, S)`` as an index expression.

        >>> x = sympy.Symbol("x", integer=True, nonnegative=True)
        >>> print(Swizzle(3, 4, 3).expr(x))
        x ^ ((x & 896) >> 3)
        >>> all(int(Swizzle(2, 1, -3).expr(x).subs(x, v)) == Swizzle(2, 1, -3)(v)
        ...     for v in range(256))
        True
        """
        offset = sympy.sympify(offset)
        picked = bit_and(offset, self.yyy_mask)
        moved = shift_right(picked, self.shift) if self.shift >= 0 else \
            shift_left(picked, -self.shift)
        return bit_xor(offset, moved)

    def arithmetic_expr(self, offset: sympy.Expr) -> sympy.Expr:
        """The same function with ``//`` and ``%`` only (the form used before bit
        operations existed): ``offset + (y XOR z − z)·2^target`` with ``y``, ``z``
        the source and target fields, the XOR as digit sums (:func:`xor_expr`)."""
        offset = sympy.sympify(offset)
        field = 2 ** self.bits
        z = mod(offset // 2 ** self.target, field)
        y = mod(offset // 2 ** self.source, field)
        return offset + (xor_expr(y, z, self.bits) - z) * 2 ** self.target

    def index_map(self, size, *, name: str | None = None) -> IndexMap:
        """``[offset:size] → [address:size]``, its own inverse (an involution); ``size``
        may be symbolic (``R*128``). It is a bijection of ``[0, size)`` only for some
        sizes (a multiple of ``2**(target + bits)`` keeps every image inside): check it.
        """
        size = positive_size(SwizzleError, "size", size, where="Swizzle.index_map")
        domain, codomain = Space(offset=size), Space(address=size)
        return IndexMap(domain, codomain, [self.expr(*domain.symbols)],
                        inverse=[self.expr(*codomain.symbols)], name=name or f"{self}[{size}]")

    def after(self, layout, *, size=None, name: str | None = None) -> IndexMap:
        """``Swizzle ∘ layout`` (an IndexMap with one output, or a
        :class:`~layoutalg.CuteLayout`), as CuTe's ``composition(Swizzle, Layout)``,
        acting on ``[0, size)`` (default: the codomain extent or cosize);
        :func:`layoutalg.compose` proves every offset lands there.

        >>> from layoutalg import CuteLayout
        >>> tile = Swizzle(3, 4, 3).after(CuteLayout((8, 8), (128, 16)))  # (row, chunk) in bytes
        >>> [tile(8 * c)[0] // 16 % 8 for c in range(8)]   # chunk 0 of rows 0..7
        [0, 1, 2, 3, 4, 5, 6, 7]
        """
        if isinstance(layout, CuteLayout):
            layout = layout.index_map(cosize=size)
        if not isinstance(layout, IndexMap) or layout.codomain.rank != 1:
            raise SwizzleError(f"{self}.after: layout must be a CuteLayout or an IndexMap with "
                               f"one output; got {describe(layout)}")
        size = layout.codomain.extents[0] if size is None else size
        return compose(layout, self.index_map(size), name=name or f"{self} ∘ {layout.label}")

    def table(self, size: int) -> np.ndarray:
        """Swizzled offsets of ``0 .. size-1`` (bitwise)."""
        return self(np.arange(size, dtype=np.int64))

    def __str__(self) -> str:
        return f"Swizzle<{self.bits},{self.base},{self.shift}>"


def xor_expr(y, z, bits: int):
    """``y XOR z`` for ``bits``-bit values, with ``//`` and ``%`` only: bit k of the
    result is ``(⌊y/2^k⌋ + ⌊z/2^k⌋) mod 2`` (the higher bits add an even number)."""
    return sum((2 ** k * mod(y // 2 ** k + z // 2 ** k, 2) for k in range(bits)), sympy.Integer(0))


__all__ = ["Swizzle", "xor_expr"]
