"""SymPy → Z3 bit-vectors: the whole query in two's complement at a proved width.

Used for concrete queries with bit operations (:func:`layoutalg.verify.encodings.choose_encoding`);
signed operations match Python's floor division and shifts.
"""

from __future__ import annotations


import sympy
import z3

from layoutalg.core.bits import BitAnd, BitOp, BitXor, ShiftRight
from layoutalg.core.expr import Unsupported, integer_terms, quotient

from layoutalg.verify.z3_backend.terms import _RELATIONS, Translator


class BitVectorTranslator(Translator):
    """SymPy → two's-complement bit-vectors of ``width`` bits. Used only when
    interval bounds prove every value of the query fits (see
    :func:`choose_encoding`), so no operation wraps; signed division and
    shifts round down as Python's ``//`` and ``>>`` do."""

    encoding = "bitvector"

    def __init__(self, ctx: z3.Context, width: int) -> None:
        super().__init__(ctx)
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

    def term(self, expr: sympy.Basic):
        if expr not in self.memo:
            self.memo[expr] = self._term(expr)
        return self.memo[expr]

    def _term(self, expr: sympy.Basic):  # noqa: C901 - one branch per operator
        if isinstance(expr, sympy.Symbol):
            if not expr.is_integer:
                raise Unsupported(f"symbol {expr} is not declared integer")
            return self._var(expr)
        if isinstance(expr, sympy.Integer):
            return self._number(int(expr))
        if isinstance(expr, sympy.Add):
            return z3.Sum([self.term(a) for a in expr.args])
        if isinstance(expr, sympy.Mul):
            return z3.Product([self.term(a) for a in integer_terms(expr)])
        if isinstance(expr, sympy.Pow):
            base, exponent = expr.args
            if not (exponent.is_Integer and exponent >= 0):
                raise Unsupported(f"power {expr} with a non-natural exponent")
            if int(exponent) == 0:
                return self._number(1)
            return z3.Product([self.term(base)] * int(exponent))
        if isinstance(expr, (sympy.floor, sympy.ceiling)):
            num, den = quotient(expr.args[0])
            if isinstance(expr, sympy.ceiling):
                num = num + den - 1
            return self._floor_div(self.term(num), self.term(den))
        if isinstance(expr, sympy.Mod):
            left, right = expr.args
            if not (right.is_integer and right.is_positive):
                raise Unsupported(f"modulo by {right}, which is not known to be positive")
            return self.term(left) % self.term(right)
        if isinstance(expr, BitOp):
            a, b = (self.term(x) for x in expr.args)
            if isinstance(expr, BitXor):
                return a ^ b
            if isinstance(expr, BitAnd):
                return a & b
            return a >> b if isinstance(expr, ShiftRight) else a << b  # >> is arithmetic
        if isinstance(expr, (sympy.Min, sympy.Max, sympy.Piecewise)):
            return super()._term(expr)
        raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index "
                          "vocabulary")

    def _relation(self, expr: sympy.Rel) -> z3.BoolRef:
        return _RELATIONS[type(expr)](self.term(expr.lhs), self.term(expr.rhs))
