"""What an index expression's structure says about its bits, read without a solver.

The Z3 encoding of bit operations (:mod:`layoutalg.verify.z3_backend`) blasts
only the bits it needs; these facts tell it which: an upper bound (so
``x ^ small`` touches only ``small``'s bits), the low bits known to be zero
(so ``row·128 + col·16`` is two disjoint bit fields), and whether a
constant is a power of two (so ``// 16`` and ``mod 8`` read bits).

>>> from layoutalg.core.bits import bit_and, shift_right
>>> x = sympy.Symbol("x", integer=True, nonnegative=True)
>>> upper_bound(shift_right(bit_and(x, 896), 3), {}), trailing_zeros(128 * x + 64)
(112, 6)
>>> log2_exact(sympy.Integer(1024)), log2_exact(sympy.Integer(96))
(10, None)
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import sympy

from layoutalg.core.bits import BitAnd, BitXor, ShiftLeft, ShiftRight
from layoutalg.core.expr import Unsupported, quotient

MAX_SHIFT = 64  # a symbolic shift amount is decided up to this many bits
NO_BITS = 1 << 20  # the trailing zeros of 0: more than any width asked for


def log2_exact(value: sympy.Basic) -> int | None:
    """``k`` when ``value`` is the integer ``2**k``, else None."""
    if not (isinstance(value, sympy.Integer) and value >= 1):
        return None
    number = int(value)
    return number.bit_length() - 1 if number & (number - 1) == 0 else None


def trailing_zeros(expr: sympy.Basic) -> int:
    """Low bits known to be 0 in every value of ``expr`` (0 when unknown)."""
    if isinstance(expr, sympy.Integer):
        number = abs(int(expr))
        return (number & -number).bit_length() - 1 if number else NO_BITS
    if isinstance(expr, sympy.Mul):
        return sum(trailing_zeros(a) for a in expr.args)
    if isinstance(expr, ShiftLeft) and expr.args[1].is_Integer:
        return trailing_zeros(expr.args[0]) + int(expr.args[1])
    if isinstance(expr, sympy.Add):
        return min(trailing_zeros(a) for a in expr.args)
    return 0


def upper_bound(expr: sympy.Basic, ranges: Mapping[sympy.Symbol, int]) -> int | None:
    """``u`` with ``0 <= expr <= u`` for every value, when the structure shows one.

    ``ranges`` gives each bounded symbol's largest value (its least is 0);
    a symbol not in it (a size parameter) has no bound, and neither has any
    term that may be negative.
    """
    if isinstance(expr, sympy.Integer):
        return int(expr) if expr >= 0 else None
    if isinstance(expr, sympy.Symbol):
        return ranges.get(expr)
    args = expr.args
    if isinstance(expr, BitAnd):  # x & m lies in [0, m] for m >= 0, whatever x is
        known = [u for u in (upper_bound(a, ranges) for a in args) if u is not None]
        return min(known) if known else None
    if isinstance(expr, (ShiftRight, ShiftLeft, BitXor)):
        a, b = (upper_bound(x, ranges) for x in args)
        if a is None or b is None:
            return a if a is not None and isinstance(expr, ShiftRight) else None
        if isinstance(expr, BitXor):
            return (1 << max(a, b).bit_length()) - 1
        if isinstance(expr, ShiftRight):
            return a >> int(args[1]) if args[1].is_Integer else a
        return a << b if b <= MAX_SHIFT else None
    if isinstance(expr, sympy.Mod):
        n = args[1]
        return int(n) - 1 if n.is_Integer and n > 0 else None
    if isinstance(expr, sympy.floor):
        try:
            num, den = quotient(args[0])
        except Unsupported:
            return None
        top = upper_bound(num, ranges)
        return top // int(den) if top is not None and den.is_Integer else None
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        parts = [upper_bound(a, ranges) for a in args]
        if any(p is None for p in parts):
            return None
        return sum(parts) if isinstance(expr, sympy.Add) else math.prod(parts)
    return None


def known_nonnegative(expr: sympy.Basic) -> bool:
    """True when the structure shows ``expr >= 0`` for every value of its symbols
    (each symbol declared non-negative). Bit operations are defined on
    non-negative integers only, so a solver may encode one only where this
    holds; False means "not shown", never "negative".

    >>> i = sympy.Symbol("i", integer=True, nonnegative=True)
    >>> known_nonnegative(3 * i + sympy.floor(i / 4)), known_nonnegative(i - 2)
    (True, False)
    """
    if isinstance(expr, sympy.Rational):  # integers too
        return expr >= 0
    if isinstance(expr, sympy.Symbol):
        return expr.is_nonnegative is True
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Max, sympy.Min)):
        args = [known_nonnegative(a) for a in expr.args]
        return any(args) if isinstance(expr, sympy.Max) else all(args)
    if isinstance(expr, sympy.Pow):
        base, exponent = expr.args
        if exponent.is_Integer and exponent >= 0:
            return known_nonnegative(base)
        return exponent.is_Integer and _known_positive(base)  # a division by base
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        return known_nonnegative(expr.args[0])
    if isinstance(expr, sympy.Mod):
        return _known_positive(expr.args[1])  # floored: in [0, b) for b > 0
    # a bit operation's own arguments are checked where it is encoded
    return isinstance(expr, (BitAnd, BitXor, ShiftLeft, ShiftRight))


def _known_positive(expr: sympy.Basic) -> bool:
    if isinstance(expr, sympy.Rational):
        return expr > 0
    return expr.is_positive is True or (expr.is_integer is True and known_nonnegative(expr - 1))
