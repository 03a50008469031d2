"""Bit operations in Z3's Int theory, with only the touched bits blasted.

``a ^ b`` with ``0 <= b < 2**K`` splits ``a = high·2**K + Σ bit_j·2**j``
(Boolean ``bit_j``, Int ``high``) and is ``high·2**K + Σ (bit_j ⊕ b_j)·2**j``,
so ``a`` may be unbounded (a symbolic number of rows); masks, shifts by
constants, ``//`` and ``mod`` by powers of two and sums of disjoint bit fields
are read bit by bit. A mixin of :class:`layoutalg.verify.z3_backend.terms.Translator`;
part of the Z3 back end (:mod:`layoutalg.verify.z3_backend`).
"""

from __future__ import annotations

import itertools

import sympy
import z3

from layoutalg.core.bit_facts import MAX_SHIFT, log2_exact, trailing_zeros, upper_bound
from layoutalg.core.bits import BitAnd, BitOp, BitXor, ShiftLeft, ShiftRight
from layoutalg.core.expr import Unsupported, quotient


class BitSplitting:
    """The bit-level methods of the Int translator (``self`` is a Translator)."""

    def _upper(self, expr: sympy.Basic) -> int | None:
        """``u`` with ``0 <= expr <= u`` (see :func:`layoutalg.core.bit_facts.upper_bound`)."""
        return upper_bound(expr, self.ranges)

    def _from_bits(self, bits: list) -> z3.ArithRef:
        if not bits:
            return z3.IntVal(0, self.ctx)
        return z3.Sum([z3.If(b, z3.IntVal(1 << j, self.ctx), z3.IntVal(0, self.ctx))
                       for j, b in enumerate(bits)])

    def _false(self, count: int) -> list:
        return [z3.BoolVal(False, self.ctx)] * max(count, 0)

    def _bits(self, expr: sympy.Basic, width: int) -> list:
        """The low ``width`` bits of ``expr`` (bit 0 first)."""
        return self._split(expr, width)[1]

    def _split(self, expr: sympy.Basic, width: int) -> tuple[z3.ArithRef, list]:
        """``expr = high·2**width + Σ bit_j·2**j``: ``(high, [bit_0 …])``.

        Read through the structure where it shows the bits (constants, masks,
        shifts, XOR, ``//`` and ``mod`` by powers of two, sums of disjoint bit
        fields such as ``row·128 + col·16``); otherwise the bits are fresh
        Booleans defined once per term (see :meth:`_fresh_split`)."""
        key = (expr, width)
        if key not in self.split_memo:
            self.split_memo[key] = self._structural_split(expr, width) or \
                self._fresh_split(expr, width)
        return self.split_memo[key]

    def _shifted(self, inner: sympy.Basic, shift: int, width: int):
        """The split of ``inner·2**shift`` at ``width``."""
        if width >= shift:
            high, bits = self._split(inner, width - shift)
            return high, self._false(shift) + bits
        return self.term(inner) * (1 << (shift - width)), self._false(width)

    def _structural_split(self, expr: sympy.Basic, width: int):  # one branch per operator
        if isinstance(expr, sympy.Integer) and expr >= 0:
            value = int(expr)
            return (z3.IntVal(value >> width, self.ctx),
                    [z3.BoolVal(bool(value >> j & 1), self.ctx) for j in range(width)])
        a, b = expr.args if isinstance(expr, BitOp) else (None, None)
        if isinstance(expr, ShiftRight) and b.is_Integer:
            high, bits = self._split(a, width + int(b))
            return high, bits[int(b):]
        if isinstance(expr, ShiftLeft) and b.is_Integer:
            return self._shifted(a, int(b), width)
        if isinstance(expr, BitAnd) and (a.is_Integer or b.is_Integer):
            mask, value = (int(a), b) if a.is_Integer else (int(b), a)
            top = mask.bit_length()
            _, bits = self._split(value, max(width, top))
            kept = [bits[j] if mask >> j & 1 else z3.BoolVal(False, self.ctx)
                    for j in range(max(width, top))]
            return self._from_bits(kept[width:]), kept[:width]
        if isinstance(expr, BitXor):
            return self._xor_split(a, b, width)
        if isinstance(expr, sympy.floor):
            num, den = quotient(expr.args[0])
            k = log2_exact(den)
            if k is not None:
                high, bits = self._split(num, width + k)
                return high, bits[k:]
        if isinstance(expr, sympy.Mod) and log2_exact(expr.args[1]) is not None:
            k = log2_exact(expr.args[1])
            _, bits = self._split(expr.args[0], max(k, width))
            kept = bits[:k] + self._false(width - k)
            return self._from_bits(kept[width:]), kept[:width]
        if isinstance(expr, sympy.Mul) and len(expr.args) == 2 and expr.args[0].is_Integer:
            k = log2_exact(expr.args[0])
            if k is not None:
                return self._shifted(expr.args[1], k, width)
            if expr.args[0] > 0 and self._upper(expr.args[1]) == 1:
                # c·b for a bit b (a linear layout's basis value): c's bits where b is set
                (bit,) = self._bits(expr.args[1], 1)
                c = int(expr.args[0])
                bits = [z3.And(bit, z3.BoolVal(bool(c >> j & 1), self.ctx)) for j in range(width)]
                return z3.If(bit, z3.IntVal(c >> width, self.ctx), z3.IntVal(0, self.ctx)), bits
        if isinstance(expr, sympy.Add):
            return self._fields_split(expr, width)
        return None

    def _xor_split(self, a, b, width: int):
        """``a ^ b`` with one side below ``2**w``: the other side's high part, XORed bits."""
        sides = [(self._upper(x), k) for k, x in enumerate((a, b))]
        known = [(u.bit_length(), k) for u, k in sides if u is not None]
        if not known:
            return None
        small_width, small = min(known)
        both = max(small_width, width)
        small_bits = self._bits((a, b)[small], both)
        high, big_bits = self._split((a, b)[1 - small], both)
        mixed = [z3.Xor(x, y) for x, y in zip(big_bits, small_bits)]
        return high * (1 << (both - width)) + self._from_bits(mixed[width:]), mixed[:width]

    def _fields_split(self, expr: sympy.Add, width: int):
        """A sum whose terms occupy disjoint bit fields (no carries): bits are ORs.

        At most one term may be unbounded, and its known trailing zero bits
        must lie above every bounded term's top bit."""
        bounded, free = [], []
        for term in expr.args:
            top = self._upper(term)
            (free if top is None else bounded).append((term, top))
        if len(free) > 1 or any(term.is_Integer and term < 0 for term, _ in bounded):
            return None
        fields = sorted((trailing_zeros(t), top.bit_length()) for t, top in bounded)
        fields = [(low, high) for low, high in fields if low < high]  # zero terms have none
        if any(low < high for (_, high), (low, _) in itertools.pairwise(fields)):
            return None
        if free and fields and trailing_zeros(free[0][0]) < fields[-1][1]:
            return None
        highs, columns = zip(*(self._split(term, width) for term, _ in bounded + free))
        bits = [z3.Or([column[j] for column in columns]) for j in range(width)]
        return z3.Sum(highs), bits

    def _fresh_split(self, expr: sympy.Basic, width: int):
        """Fresh Booleans ``bit_j`` and an Int ``high`` with ``expr = high·2**width +
        Σ bit_j·2**j`` (one definition per term; a wider split serves a narrower
        one). Over quantified variables, or in a plain translation, terms
        ``(expr div 2**j) mod 2`` instead."""
        value = self.term(expr)
        if self.plain or expr.free_symbols & self.bound:
            bits = [(value / (1 << j)) % 2 == 1 for j in range(width)]
            return value / (1 << width), bits
        known = self.splits.get(expr)
        if known is None or known[0] < width:
            self.made += 1
            bits = [z3.Bool(f"bit{j}#{self.made}", self.ctx) for j in range(width)]
            upper = self._upper(expr)
            above = upper is None or upper >= (1 << width)  # else high is 0: fewer unknowns
            high = self.fresh("high") if above else z3.IntVal(0, self.ctx)
            # Total: every integer value has exactly one such high part and bits,
            # so this can never rule sizes out, and the vacuity check (which
            # guards definitions that could) leaves it aside.
            self.total_definitions.append(value == high * (1 << width) + self._from_bits(bits))
            known = self.splits[expr] = (width, high, bits)
        have, high, bits = known
        if have > width:
            high = high * (1 << (have - width)) + self._from_bits(bits[width:])
        return high, bits[:width]

    def _power_of_two(self, k: sympy.Expr) -> z3.ArithRef:
        if k.is_Integer:
            return z3.IntVal(1 << int(k), self.ctx)
        top = self._upper(k)
        if top is None or top > MAX_SHIFT:
            raise Unsupported(f"shift by {k}, which is not known to be at most {MAX_SHIFT}")
        amount, result = self.term(k), z3.IntVal(1 << top, self.ctx)
        for j in reversed(range(top)):
            result = z3.If(amount == j, z3.IntVal(1 << j, self.ctx), result)
        return result

    def _bit_term(self, expr: BitOp) -> z3.ArithRef:
        a, b = expr.args
        if isinstance(expr, ShiftRight):
            # Z3's integer division is Euclidean: floor division for 2**k > 0.
            return self.term(a) / self._power_of_two(b)
        if isinstance(expr, ShiftLeft):
            return self.term(a) * self._power_of_two(b)
        upper = self._upper(expr)
        if upper is not None:
            return self._from_bits(self._bits(expr, upper.bit_length()))
        if isinstance(expr, BitAnd):
            raise Unsupported(f"{expr}: neither side of & has a known bound")
        split = self._xor_split(a, b, 0)
        if split is None:
            raise Unsupported(f"{expr}: neither side of ^ has a known bound")
        return split[0]
