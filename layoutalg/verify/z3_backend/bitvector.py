"""SymPy → Z3 bit-vectors: the whole query in two's complement at a proved width.

Used for concrete queries with bit operations (:func:`layoutalg.verify.encodings.choose_encoding`);
signed operations match Python's floor division and shifts.
"""

from __future__ import annotations

import sympy
import z3

from layoutalg.core.bits import BitAnd, BitOp, BitXor, ShiftRight
from layoutalg.core.expr import quotient
from layoutalg.verify.z3_backend.terms import _RELATIONS, Translator, _positive_modulus


class BitVectorTranslator(Translator):
    """SymPy → two's-complement bit-vectors of ``width`` bits. Used only when
    interval bounds prove every value of the query fits (see
    :func:`choose_encoding`), so no operation wraps; signed division and
    shifts round down as Python's ``//`` and ``>>`` do."""

    encoding = "bitvector"

    def __init__(self, ctx: z3.Context, width: int) -> None:
        super().__init__(ctx, plain=True)  # no named terms
        self.width = width

    def value(self, model, symbol: sympy.Symbol) -> int:
        return model.eval(self.term(symbol), model_completion=True).as_signed_long()

    def _number(self, value: int):
        return z3.BitVecVal(value, self.width, self.ctx)

    def _var(self, symbol: sympy.Symbol):
        if symbol not in self.names:
            self.names[symbol] = z3.BitVec(f"{symbol.name}!{len(self.names)}", self.width,
                                           self.ctx)
        return self.names[symbol]

    def _floor_div(self, num, den):
        # bvsmod takes the divisor's sign: for den > 0, num - num mod den is an
        # exact multiple of den, so the signed (truncating) division is exact.
        return (num - num % den) / den

    def _division(self, expr: sympy.Basic):
        if isinstance(expr, sympy.Mod):
            left, right = _positive_modulus(expr)
            return self.term(left) % self.term(right)
        num, den = quotient(expr.args[0])
        if isinstance(expr, sympy.ceiling):
            num = num + den - 1
        return self._floor_div(self.term(num), self.term(den))

    def _bit_term(self, expr: BitOp):
        a, b = (self.term(x) for x in expr.args)
        if isinstance(expr, BitXor):
            return a ^ b
        if isinstance(expr, BitAnd):
            return a & b
        return a >> b if isinstance(expr, ShiftRight) else a << b  # >> is arithmetic

    def _relation(self, expr: sympy.Rel) -> z3.BoolRef:
        return _RELATIONS[type(expr)](self.term(expr.lhs), self.term(expr.rhs))
