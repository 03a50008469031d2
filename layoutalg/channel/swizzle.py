"""CuTe's ``Swizzle<B, M, S>``: XOR a field of address bits into a lower one.

CuTe (``include/cute/swizzle.hpp``) permutes offsets by

    yyy_msk = ((1 << B) - 1) << (M + max(0, S))
    zzz_msk = ((1 << B) - 1) << (M - min(0, S))
    apply(x) = x ^ shiftr(x & yyy_msk, S)

so the B bits at ``M + max(0, S)`` (the "row") are XORed into the B bits at
``M + max(0, -S)`` (the "column" the banks see), and the lowest M bits stay.
GPU kernels lay shared-memory tiles out this way so that a column of a
row-major tile spreads over all banks.

Bitwise XOR is not in the Z3 Int vocabulary of index maps, so
:meth:`Swizzle.expr` writes the same function with ``//`` and ``%`` by powers
of two: with ``y`` and ``z`` the B-bit source and target fields,

    y XOR z = Σ_k 2^k · ((⌊y/2^k⌋ + ⌊z/2^k⌋) mod 2)

(only the k-th bits survive the ``mod 2``), and the target field of ``x`` is
replaced by it. Z3 decides this with linear integer arithmetic, but
bit-level reasoning is not its strength: it refutes a bad swizzle at once,
yet proving a good one for 32 lanes can outlast any sensible timeout, so
``check_bank_conflict_free`` settles such cases by exhaustive enumeration
(``method="auto"``; see ``docs/channel.md``). :meth:`Swizzle.__call__`
keeps the real bitwise form; tests check the two agree on every offset.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy

from layoutalg.channel.args import mod, nonnegative_int
from layoutalg.channel.errors import SwizzleError
from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.errors import describe
from layoutalg.validate import is_int


@dataclass(frozen=True)
class Swizzle:
    """CuTe ``Swizzle<bits, base, shift>`` on integer offsets.

    Args:
        bits: B, the number of bits XORed (0 gives the identity).
        base: M, the number of low bits kept as they are.
        shift: S, the distance from the source bits down to the target bits
            (negative: up); CuTe requires ``|S| >= B``.

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
        for name in ("bits", "base"):
            value = nonnegative_int("Swizzle", name, getattr(self, name), SwizzleError)
            object.__setattr__(self, name, value)
        if not is_int(self.shift):
            raise SwizzleError(f"Swizzle: shift must be an int; got {describe(self.shift)}")
        object.__setattr__(self, "shift", int(self.shift))
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
        """The same function in the index vocabulary (``//`` and ``%`` only):
        ``offset + (y XOR z − z)·2^target`` with ``y``, ``z`` the source and
        target fields.

        >>> x = sympy.Symbol("x", integer=True, nonnegative=True)
        >>> sw = Swizzle(2, 1, 3)
        >>> all(int(sw.expr(x).subs(x, v)) == sw(v) for v in range(256))
        True
        """
        offset = sympy.sympify(offset)
        field = 2 ** self.bits
        z = mod(offset // 2 ** self.target, field)
        y = mod(offset // 2 ** self.source, field)
        return offset + (xor_expr(y, z, self.bits) - z) * 2 ** self.target

    def index_map(self, size: int, *, name: str | None = None) -> IndexMap:
        """``[offset:size] → [address:size]``; its own inverse (an involution).

        Whether it is a bijection of ``[0, size)`` depends on ``size`` (a
        multiple of ``2**(target + bits)`` keeps every image inside); check it.
        """
        if not is_int(size) or size < 1:
            raise SwizzleError(f"Swizzle.index_map: size must be a positive int; got {describe(size)}")
        size = int(size)
        domain, codomain = Space(offset=size), Space(address=size)
        (o,) = domain.symbols
        (a,) = codomain.symbols
        return IndexMap(domain, codomain, [self.expr(o)], inverse=[self.expr(a)],
                        name=name or f"{self}[{size}]")

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
