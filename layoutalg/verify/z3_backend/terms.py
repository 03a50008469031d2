"""SymPy integer expressions and booleans → Z3 Int terms, memoized per node.

The translator of :mod:`layoutalg.verify.z3_backend.solver`: one per query and Z3
context. Bit operations are delegated to :class:`~layoutalg.verify.z3_backend.bits.BitSplitting`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from dataclasses import dataclass

import sympy
import z3

from layoutalg.core.bit_facts import known_nonnegative
from layoutalg.core.bits import BitOp
from layoutalg.core.expr import Unsupported, integer_terms, quotient
from layoutalg.verify.z3_backend.bits import BitSplitting


@dataclass(frozen=True)
class Bounded:
    """An integer unknown of a query with ``low <= symbol < high``."""

    symbol: sympy.Symbol
    low: object
    high: object


def _derived_extent(expr: sympy.Basic) -> bool:
    """A floor/ceiling/Mod over extent parameters only (no coordinates)."""
    if not isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Mod)):
        return False
    symbols = expr.free_symbols
    return bool(symbols) and all(s.is_positive for s in symbols)


def _defined(op: BitOp) -> None:
    """Bit operations are defined on non-negative ints only (core.bits): never
    encode one where an argument might be negative."""
    unshown = [a for a in op.args if not known_nonnegative(a)]
    if unshown:
        raise Unsupported(f"{op}: argument {unshown[0]} is not shown to be "
                          f"non-negative, where bit operations are defined")


def _positive_modulus(expr: sympy.Mod) -> tuple[sympy.Expr, sympy.Expr]:
    left, right = expr.args
    if not (right.is_integer and right.is_positive):
        raise Unsupported(f"modulo by {right}, which is not known to be positive")
    return left, right


_RELATIONS = {
    sympy.Eq: lambda a, b: a == b,
    sympy.Ne: lambda a, b: a != b,
    sympy.Lt: lambda a, b: a < b,
    sympy.Le: lambda a, b: a <= b,
    sympy.Gt: lambda a, b: a > b,
    sympy.Ge: lambda a, b: a >= b,
}
_CONNECTIVES = {
    sympy.And: z3.And,
    sympy.Or: z3.Or,
    sympy.Not: lambda args: z3.Not(args[0]),
    sympy.Implies: lambda args: z3.Implies(*args),
    sympy.ITE: lambda args: z3.If(*args),
    sympy.Xor: lambda args: functools.reduce(z3.Xor, args),
    sympy.Equivalent: lambda args: z3.And([args[0] == other for other in args[1:]]),
}


class Translator(BitSplitting):
    """SymPy → Z3 in one context, memoized per node."""

    encoding = "int"

    def __init__(self, ctx: z3.Context, *, quotients: bool = False, plain: bool = False) -> None:
        self.ctx = ctx
        self.quotients = quotients
        self.plain = plain  # no named terms: Z3's own div/mod and nothing else
        self.constant_divisions = 0
        self.made = 0
        self.memo: dict[sympy.Basic, z3.ExprRef] = {}
        self.names: dict[sympy.Symbol, z3.ArithRef] = {}
        self.definitions: list[z3.BoolRef] = []
        # each side-condition variable with the term (over the sizes, the unknowns and
        # variables before it) its definition gives it: vacuity.plugged_in reads them
        self.computed: list[tuple[z3.ArithRef, z3.ArithRef]] = []
        self.divisions: dict[tuple[sympy.Expr, sympy.Expr], tuple[z3.ArithRef, z3.ArithRef]] = {}
        self.bound: frozenset[sympy.Symbol] = frozenset()
        self.ranges: dict[sympy.Symbol, int] = {}  # symbol -> upper bound (lower bound 0)
        self.splits: dict[sympy.Expr, tuple[int, z3.ArithRef, list]] = {}
        self.split_memo: dict[tuple[sympy.Basic, int], tuple[z3.ArithRef, list]] = {}
        self.total_definitions: list[z3.BoolRef] = []  # bit splits: satisfiable for any value

    def note_ranges(self, bounded: Sequence[Bounded]) -> None:
        """Remember constant ranges ``0 <= symbol < high``: bit operations use them."""
        for unknown in bounded:
            low, high = sympy.sympify(unknown.low), sympy.sympify(unknown.high)
            if low.is_Integer and high.is_Integer and low >= 0:
                self.ranges[unknown.symbol] = max(int(high) - 1, 0)

    def asserted(self, parameters, assumptions, unknowns, constraints) -> list:
        """A query's assertions in order: each size ≥ 1, the assumptions, each
        unknown's range, the constraints (side conditions are the caller's)."""
        out = [self.term(p) >= 1 for p in parameters]
        out += [self.boolean(a) for a in assumptions]
        for unknown in unknowns:
            out += self._range(unknown)
        return out + [self.boolean(c) for c in constraints]

    def _range(self, unknown: Bounded) -> list:
        var = self.term(unknown.symbol)
        low, high = (self.term(sympy.sympify(e)) for e in (unknown.low, unknown.high))
        return [var >= low, var < high]

    def value(self, model, symbol: sympy.Symbol) -> int:
        return model.eval(self.term(symbol), model_completion=True).as_long()

    def term(self, expr: sympy.Basic) -> z3.ArithRef:
        if expr not in self.memo:
            named = _derived_extent(expr) and not self.plain
            self.memo[expr] = self._named(expr) if named else self._term(expr)
        return self.memo[expr]

    def fresh(self, prefix: str) -> z3.ArithRef:
        """A new Z3 integer no other term of this query shares. The counter is
        taken when the variable is made, after its definition's subterms are
        translated (they may make variables of their own). "#" never occurs
        in a dimension name, so these cannot alias a coordinate."""
        self.made += 1
        return z3.Int(f"{prefix}#{self.made}", self.ctx)

    def _named(self, expr: sympy.Basic) -> z3.ArithRef:
        # A quotient of extents (a tile size such as ceil(M/PR)) becomes a
        # variable of its own with a defining equation: Z3's nonlinear
        # reasoning handles TR*q far better than ((M+PR-1)/PR)*q. The value is
        # translated before the name is taken: ceil(ceil(M/8)/3) names its
        # inner ceiling first, and the two must not share a name.
        value = self._term(expr)
        var = self.fresh("extent")
        self.definitions.append(var == value)
        self.computed.append((var, value))
        return var

    def boolean(self, expr: sympy.Basic) -> z3.BoolRef:
        if expr not in self.memo:
            self.memo[expr] = self._boolean(expr)
        return self.memo[expr]

    def universal(self, bounded: Sequence[Bounded], body: sympy.Basic) -> z3.BoolRef:
        variables = [self.term(b.symbol) for b in bounded]
        self.note_ranges(bounded)
        ranges = [z3.And(self._range(b)) for b in bounded]
        # Divisions over bound variables stay inside the quantifier (no
        # top-level quotient variables for them).
        self.bound = frozenset(b.symbol for b in bounded)
        try:
            inner = self.boolean(body)
        finally:
            self.bound = frozenset()
        return z3.ForAll(variables, z3.Implies(z3.And(ranges), inner))

    def _divided(self, num: sympy.Expr, den: sympy.Expr) -> tuple[z3.ArithRef, z3.ArithRef] | None:
        """Quotient and remainder variables of ``num`` by a constant ``den``
        when translating ``quotients=True``; else None (Z3's own div/mod, as
        for a symbolic ``den`` or a ``num`` over quantified variables).

        ``num = den·q + r, 0 <= r < den`` keeps the query linear: Z3's own
        div/mod needs 70x the work (rlimit) to prove ``(8,4,1,5):(12,1,192,192)``
        split by 209 injective, but 1/3 of it for an XOR swizzle composed with
        itself, so ``solve`` races both.
        """
        if not den.is_Integer or num.free_symbols & self.bound:
            return None
        self.constant_divisions += 1
        if not self.quotients:
            return None
        key = (num, den)
        if key not in self.divisions:
            # Translate first: nested divisions register theirs before these.
            top, bottom = self.term(num), self.term(den)
            q, r = self.fresh("quot"), self.fresh("rem")
            self.definitions += [top == bottom * q + r, r >= 0, r < bottom]
            self.computed += [(q, top / bottom), (r, top % bottom)]  # Euclidean: bottom > 0
            self.divisions[key] = (q, r)
        return self.divisions[key]

    def _var(self, symbol: sympy.Symbol) -> z3.ArithRef:
        if symbol not in self.names:
            self.names[symbol] = z3.Int(f"{symbol.name}!{len(self.names)}", self.ctx)
        return self.names[symbol]

    def _term(self, expr: sympy.Basic) -> z3.ArithRef:  # one branch per operator
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
        if isinstance(expr, (sympy.floor, sympy.ceiling, sympy.Mod)):
            return self._division(expr)
        if isinstance(expr, BitOp):
            for op in expr.atoms(BitOp):  # the split reads nested ones from the tree
                _defined(op)
            return self._bit_term(expr)
        if isinstance(expr, (sympy.Min, sympy.Max)):
            better = operator.lt if isinstance(expr, sympy.Min) else operator.gt
            args = [self.term(a) for a in expr.args]
            return functools.reduce(lambda r, other: z3.If(better(other, r), other, r), args)
        if isinstance(expr, sympy.Piecewise):
            *branches, (last, final) = expr.args
            if final is not sympy.true:  # outside every branch the value is undefined
                raise Unsupported(f"Piecewise without a final True branch: {expr}")
            result = self.term(last)
            for value, cond in reversed(branches):
                result = z3.If(self.boolean(cond), self.term(value), result)
            return result
        raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index vocabulary")

    def _number(self, value: int) -> z3.ArithRef:
        return z3.IntVal(value, self.ctx)

    def _division(self, expr: sympy.Basic) -> z3.ArithRef:
        """``floor``, ``ceiling`` or ``Mod``: quotient variables when translating
        ``quotients=True``, else Z3's own div/mod (the bit-vector translator
        overrides this, and ``_number``, ``_var`` and ``_bit_term``)."""
        if isinstance(expr, (sympy.floor, sympy.Mod)) and expr.has(BitOp):
            # ``// 2**k`` and ``mod 2**k`` of bit operations read their bits.
            for op in expr.atoms(BitOp):
                _defined(op)  # the split reads a negative argument's two's complement
            split = self._structural_split(expr, 0)
            if split is not None:
                return split[0]
        if isinstance(expr, sympy.floor):
            num, den = quotient(expr.args[0])
            divided = self._divided(num, den)
            # Z3's integer division is Euclidean: floor division for den > 0.
            return self.term(num) / self.term(den) if divided is None else divided[0]
        if isinstance(expr, sympy.ceiling):
            num, den = quotient(expr.args[0])
            # (num + den - 1) / den, not -(-num / den): Z3 proves far more with it.
            divided = self._divided(num + den - 1, den)
            if divided is not None:
                return divided[0]
            bottom = self.term(den)
            return (self.term(num) + bottom - 1) / bottom
        left, right = _positive_modulus(expr)
        divided = self._divided(left, right)
        return self.term(left) % self.term(right) if divided is None else divided[1]

    def _relation(self, expr: sympy.Rel) -> z3.BoolRef:
        """``lhs op rhs``. SymPy may have divided an integer relation through
        (``9*d > 2`` held as ``d > 2/9``): when ``lhs − rhs`` is an integer
        term plus a fraction ``p/q``, it is decided as ``q·term + p op 0``,
        the same relation over the integers. Any other fraction (a
        non-integer image such as ``i/2``) stays outside the vocabulary."""
        compare = _RELATIONS[type(expr)]
        try:
            return compare(self.term(expr.lhs), self.term(expr.rhs))
        except Unsupported:
            fraction, rest = (expr.lhs - expr.rhs).as_coeff_Add()
            if not (fraction.is_Rational and not fraction.is_Integer):
                raise
            p, q = fraction.p, fraction.q
            return compare(q * self.term(rest) + p, z3.IntVal(0, self.ctx))

    def _boolean(self, expr: sympy.Basic) -> z3.BoolRef:
        if expr is sympy.true or expr is sympy.false:
            return z3.BoolVal(bool(expr), self.ctx)
        if type(expr) in _RELATIONS:
            return self._relation(expr)
        for kind, make in _CONNECTIVES.items():
            if isinstance(expr, kind):
                return make([self.boolean(a) for a in expr.args])
        raise Unsupported(f"condition {type(expr).__name__} in {expr} is outside the vocabulary")
