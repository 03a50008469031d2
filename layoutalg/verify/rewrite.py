"""Substitution for queries: structural integer rules instead of SymPy's evaluation.

SymPy re-evaluates each ``Mod``, ``floor`` and ``ceiling`` that ``xreplace``
rebuilds, asking its assumptions system about every subterm (issue 17: 31 % of
the CPU of the ISL question set). A query only needs a term with the same value
at every point, so :func:`substitute` rebuilds sums, products and powers as
SymPy does and ``Mod``/``floor``/``ceiling`` unevaluated, after a few rules
that hold for all integers:

* ``Mod(c·t + p, q) = Mod((c mod q)·t + p, q)`` for an integer ``c`` and a
  constant ``q > 0``, and a term that is a multiple of ``q`` (``q·t``, with
  ``q`` symbolic too) is dropped;
* ``Mod(Mod(a, k), q) = Mod(a, q)`` when ``q`` divides ``k``;
* ``Mod(p, q) = p`` and ``floor(p/q) = 0`` when ``0 ≤ p < q`` (``p``'s
  range from its constants, ``Mod`` by constants and the given ranges);
* ``floor(i + y) = i + floor(y)`` and ``ceiling(i + y) = i + ceiling(y)``
  for an integer term ``i`` (``floor((q·t + r)/q) = t + floor(r/q)``).

Each rule holds for a divisor of either sign (Python's floor semantics), but
``x mod 0`` and ``x // 0`` have no value, and a term that has none at some
point must not become one that has: a rule may remove a divisor (the ``k``
of ``Mod(a, k)``, the ``r`` of a dropped ``4·Mod(i, r)``, a ``floor``'s
denominator) only when that divisor is shown non-zero — a non-zero integer,
a product of positive symbols, or a range (from the given ones) without 0.
Otherwise the term is kept as written, and the query's translation answers
UNKNOWN for the divisor it cannot show positive. A divisor SymPy itself
cancels in a rebuilt sum or product (``x/y`` at ``x = y = a`` is 1) stays as
a witness ``Mod(0, d)``: 0 where ``d != 0``, no value where ``d = 0``.

"Integer term" is decided from the tree alone: integers, integer symbols,
``floor``/``ceiling``/``Mod`` of integer terms, and sums, products and
natural powers of those. Nothing else is simplified, so a rule that SymPy
gets wrong (``layoutalg.core.sympy_fixes``) cannot apply here; the result
is the same integer function, which ``tests/verify/test_prove_speed_rewrite.py``
and ``tests/verify/test_rewrite_zero_divisors.py`` (divisors that may be 0 or
negative) check against Python's own ``//`` and ``%``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import sympy

Range = tuple[int | None, int | None]  # inclusive; None: unbounded on that side


def substitute(exprs: Sequence[sympy.Basic], symbols: Sequence[sympy.Basic],
               values: Sequence[sympy.Basic], ranges: Mapping[sympy.Symbol, Range] | None = None
               ) -> tuple[sympy.Basic, ...]:
    """``values`` for ``symbols`` in each of ``exprs``, simultaneously.

    ``ranges`` (inclusive bounds of the query's unknowns) lets the
    ``0 ≤ p < q`` rules apply, and every term that mentions one of them is
    put through the rules even where nothing was substituted, so two ways
    of writing one term meet (``floor(floor(i/B)/P)`` and ``floor(i/(B·P))``).
    Terms of the sizes alone are left as written: the solver names them.
    """
    mapping = {s: sympy.sympify(v) for s, v in zip(symbols, values)}
    rewriter = _Rewriter(mapping, dict(ranges or {}))
    return tuple(rewriter.go(sympy.sympify(e)) for e in exprs)


def integral(e: sympy.Basic) -> bool:
    """Is ``e`` an integer at every point, by its form alone?"""
    if isinstance(e, sympy.Integer):
        return True
    if isinstance(e, sympy.Symbol):
        return bool(e.is_integer)
    if isinstance(e, (sympy.Add, sympy.Mul, sympy.Min, sympy.Max, sympy.Mod)):
        return all(integral(a) for a in e.args)
    if isinstance(e, sympy.Pow):
        base, exponent = e.args
        return exponent.is_Integer and exponent >= 0 and integral(base)
    return isinstance(e, (sympy.floor, sympy.ceiling))


class _Rewriter:
    def __init__(self, mapping: dict, ranges: dict) -> None:
        self.mapping = mapping
        self.ranges = ranges
        self.done: dict[sympy.Basic, sympy.Basic] = {}
        self.mentioned: dict[sympy.Basic, bool] = {}

    def go(self, e: sympy.Basic) -> sympy.Basic:
        if e in self.mapping:
            return self.mapping[e]
        if not e.args:
            return e
        if e not in self.done:
            args = tuple(self.go(a) for a in e.args)
            same = args == e.args and not self.mentions(e)
            self.done[e] = e if same else self.build(e, args)
        return self.done[e]

    def mentions(self, e: sympy.Basic) -> bool:
        """Does ``e`` mention an unknown with a range (so the rules apply)?"""
        if not e.args:
            return e in self.ranges
        if e not in self.mentioned:
            self.mentioned[e] = any(self.mentions(a) for a in e.args)
        return self.mentioned[e]

    def build(self, e: sympy.Basic, args: tuple) -> sympy.Basic:
        if isinstance(e, sympy.Mod):
            return self.modulo(*args)
        if isinstance(e, (sympy.floor, sympy.ceiling)):
            return self.rounding(type(e), args[0])
        if isinstance(e, (sympy.core.relational.Relational, sympy.Min, sympy.Max,
                          sympy.Piecewise)):
            return e.func(*args, evaluate=False)
        return self.witnessed(args, e.func(*args))  # +, ·, powers, And/Or/Not, bit operations

    def witnessed(self, args: tuple, result: sympy.Basic) -> sympy.Basic:
        """``result``, SymPy's evaluation of ``args`` under an operator, keeping each
        divisor ``d`` not shown non-zero that SymPy cancelled: ``x/y`` at
        ``x = y = a`` is 1 and ``X | ~X`` is true, but Python's ``a // a`` has no
        value at a = 0. A number gets ``+ Mod(0, d)`` (0 where ``d != 0``, no value
        where ``d = 0``), a condition ``& Eq(Mod(0, d), 0)``."""
        risky = {d for a in args for d in _divisors(a) if not self.nonzero(d)}
        lost = risky.difference(_divisors(result)) if risky else ()
        if not lost:
            return result
        zeros = [sympy.Mod(0, d, evaluate=False) for d in sorted(lost, key=sympy.default_sort_key)]
        if not isinstance(result, sympy.Expr):  # a condition (a Symbol is both)
            return sympy.And(result, *(sympy.Eq(z, 0, evaluate=False) for z in zeros))
        return sympy.Add(result, *zeros)

    def modulo(self, p: sympy.Expr, q: sympy.Expr) -> sympy.Expr:
        if not (integral(p) and integral(q)) or q == 0:
            return sympy.Mod(p, q, evaluate=False)
        if p.is_Integer and q.is_Integer:
            return sympy.Integer(int(p) % int(q))
        kept = []
        for term in sympy.Add.make_args(p):
            reduced = self.reduced_term(term, q)
            if not self.keeps_divisors(term, reduced, also=(q,)):
                reduced = term  # it would lose a divisor that may be 0 (Mod(i, 4·r) at r = 0)
            if reduced != 0:
                kept.append(reduced)
        p = sympy.Add(*kept)
        if p.is_Integer and q.is_Integer:
            return sympy.Integer(int(p) % int(q))
        if q.is_Integer and q > 0 and _within(self.range(p), 0, int(q) - 1):
            return p
        return sympy.Mod(p, q, evaluate=False)

    def reduced_term(self, term: sympy.Expr, q: sympy.Expr) -> sympy.Expr:
        """``term`` with the same remainder by ``q``: 0 for a multiple of ``q``,
        its coefficient reduced, a ``Mod(a, k)`` with ``q | k`` as ``a``."""
        if integral(term / q):
            return sympy.Integer(0)
        coefficient, rest = term.as_coeff_Mul()
        if q.is_Integer and q > 0 and coefficient.is_Integer:
            coefficient = sympy.Integer(int(coefficient) % int(q))
        if isinstance(rest, sympy.Mod) and integral(rest.args[1] / q):
            rest = rest.args[0]
        return coefficient * rest

    def rounding(self, func, arg: sympy.Expr) -> sympy.Expr:
        result = self.rounded(func, arg)
        if self.keeps_divisors(func(arg, evaluate=False), result):
            return result
        return func(arg, evaluate=False)  # it would lose a divisor that may be 0

    def keeps_divisors(self, before: sympy.Expr, after: sympy.Expr, also=()) -> bool:
        """Is every divisor of ``before`` missing from ``after`` (and from
        ``also``, the divisors still around it) shown non-zero? Then ``after``
        has a value wherever ``before`` has."""
        if before == after:
            return True
        lost = set(_divisors(before)).difference(_divisors(after), also)
        return all(self.nonzero(d) for d in lost)

    def nonzero(self, d: sympy.Expr) -> bool:
        """Is ``d`` non-zero at every point of the ranges, by its form alone?"""
        if d.is_Integer:
            return d != 0
        if positive(d):
            return True
        low, high = self.range(d)
        return (low is not None and low > 0) or (high is not None and high < 0)

    def rounded(self, func, arg: sympy.Expr) -> sympy.Expr:
        num, den = arg.as_numer_denom()
        if not (integral(num) and integral(den)) or den == 0:
            return func(arg, evaluate=False)
        if isinstance(num, func) and positive(den):
            # floor(floor(a/b)/c) = floor(a/(b·c)) for integer a and b, c > 0; ceiling alike
            inner, below = num.args[0].as_numer_denom()
            if integral(inner) and positive(below):
                num, den = inner, below * den
        whole, rest = [], []
        for term in sympy.Add.make_args(num):
            share = term / den
            (whole if integral(share) else rest).append(term if not integral(share) else share)
        remainder = sympy.Add(*rest)
        if remainder == 0:
            return sympy.Add(*whole)
        if func is sympy.floor and den.is_Integer and den > 0 \
                and _within(self.range(remainder), 0, int(den) - 1):
            # 0 <= r < den: floor(r/den) = 0 (ceiling(r/den) = 0 only for r = 0)
            return sympy.Add(*whole)
        return sympy.Add(*whole, func(remainder / den, evaluate=False))

    def range(self, e: sympy.Expr) -> Range:
        """Inclusive bounds of an integer term (None: not known)."""
        if e.is_Integer:
            return int(e), int(e)
        if isinstance(e, sympy.Symbol):
            if e in self.ranges:
                return self.ranges[e]
            return (0, None) if e.is_nonnegative else (None, None)
        if isinstance(e, sympy.Mod):
            q = e.args[1]
            if q.is_Integer and q > 0:
                return 0, int(q) - 1
            return (0, None) if q.is_Symbol and q.is_positive else (None, None)
        if isinstance(e, sympy.Add):
            low, high = 0, 0
            for a in e.args:
                a_low, a_high = self.range(a)
                low = None if low is None or a_low is None else low + a_low
                high = None if high is None or a_high is None else high + a_high
            return low, high
        if isinstance(e, sympy.Mul):
            coefficient, rest = e.as_coeff_Mul()
            if not coefficient.is_Integer or isinstance(rest, sympy.Mul):
                return None, None
            low, high = self.range(rest)
            c = int(coefficient)
            if c < 0:
                low, high = high, low
            return (None if low is None else c * low), (None if high is None else c * high)
        if isinstance(e, sympy.floor):
            num, den = e.args[0].as_numer_denom()
            if den.is_Integer and den > 0:
                low, high = self.range(num)
                return ((None if low is None else low // int(den)),
                        (None if high is None else high // int(den)))
        return None, None


def positive(e: sympy.Basic) -> bool:
    """Is ``e`` a positive integer at every point, by its form alone?"""
    if isinstance(e, sympy.Integer):
        return e > 0
    if isinstance(e, sympy.Symbol):
        return bool(e.is_integer and e.is_positive)
    if isinstance(e, (sympy.Mul, sympy.Add, sympy.Min)):
        return all(positive(a) for a in e.args)
    if isinstance(e, sympy.Max):
        return any(positive(a) for a in e.args) and all(integral(a) for a in e.args)
    if isinstance(e, sympy.Pow):
        return e.args[1].is_Integer and e.args[1] >= 0 and positive(e.args[0])
    if isinstance(e, sympy.ceiling):
        # ceiling(p/q) >= 1 for p, q > 0 (a tile count: ceiling(M/PR))
        num, den = e.args[0].as_numer_denom()
        return positive(num) and positive(den)
    return False


@lru_cache(maxsize=1 << 14)
def _divisors(e: sympy.Basic) -> frozenset[sympy.Expr]:
    """The divisor of every ``Mod``, ``floor``, ``ceiling`` and negative power in
    ``e``, each as written: ``floor((i·r + r²)/r)`` divides by ``r`` (``core.expr.
    divisors`` brings the argument over one fraction first, which cancels that
    ``r``; Python's ``(i*r + r*r) // r`` has no value at r = 0)."""
    if not e.args:
        return frozenset()
    found = set().union(*(_divisors(a) for a in e.args))
    if isinstance(e, sympy.Mod):
        found.add(e.args[1])
    elif isinstance(e, (sympy.floor, sympy.ceiling)):
        found.add(e.args[0].as_numer_denom()[1])
    elif isinstance(e, sympy.Pow) and e.args[1].is_negative:
        found.add(e.args[0])
    return frozenset(found)


def _within(bounds: Range, low: int, high: int) -> bool:
    return bounds[0] is not None and bounds[1] is not None and low <= bounds[0] \
        and bounds[1] <= high
