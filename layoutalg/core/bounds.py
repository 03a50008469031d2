"""Interval bounds of index expressions: every value a subexpression can take.

The NumPy evaluator (:mod:`layoutalg.core.evaluate`) runs int64 kernels only
where this module proves every intermediate value fits: interval arithmetic
over the same tree the evaluator computes (the same ``quotient`` split of
divisions, the same left-to-right folds of sums and products, every branch
of a ``Piecewise``), given a range for each symbol.

>>> import sympy
>>> from layoutalg.core.space import coordinate
>>> i = coordinate("i")
>>> interval(sympy.floor(i * 2**62 / (2**61 + 1)), {i: (0, 3)})
(0, 5)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache

import sympy

from layoutalg.core.expr import Unsupported, divisors, integer_terms, quotient

Interval = tuple[int, int]
Ranges = Mapping[sympy.Symbol, Interval]
# Symmetric, so that negating a value in range (ceiling, Mod) never overflows.
INT64_LIMIT = 2**63 - 1
BOOLEAN: Interval = (0, 1)


class Escapes(Exception):
    """Some intermediate value may lie outside ``[-limit, limit]`` (internal)."""


# A bounds kernel: (symbol ranges, limit or None) -> interval of the value.
BoundsKernel = Callable[[Ranges, "int | None"], Interval]


def interval(expr: sympy.Basic, ranges: Ranges) -> Interval:
    """Lowest and highest value of ``expr`` (a superset: corners of each operator)."""
    return compile_bounds(expr)(ranges, None)


# relation type -> does it hold for every value in [low, high] of ``lhs - rhs``?
_ALWAYS = {sympy.StrictLessThan: lambda low, high: high < 0,
           sympy.LessThan: lambda low, high: high <= 0,
           sympy.StrictGreaterThan: lambda low, high: low > 0,
           sympy.GreaterThan: lambda low, high: low >= 0}


def holds_throughout(condition: sympy.Basic, ranges: Ranges) -> bool:
    """Do interval bounds show the relation ``condition`` true at every point of
    the box ``ranges``? False means "not shown": another kind of condition, a
    symbol without a range, or a divisor not known positive (at 0 there is no
    value, where the bounds read ``x // 0`` as 0).

    >>> from layoutalg.core.space import coordinate
    >>> i = coordinate("i")
    >>> holds_throughout(sympy.Lt(sympy.Mod(i, 64), 64), {i: (0, 10**6)})
    True
    >>> holds_throughout(sympy.Lt(i, 64), {i: (0, 64)})
    False
    """
    test = _ALWAYS.get(type(condition))
    if test is None:
        return condition is sympy.true
    if not all(d.is_integer and d.is_positive for d in divisors(condition)):
        return False
    try:
        return test(*interval(condition.lhs - condition.rhs, ranges))
    except Unsupported:
        return False


@lru_cache(maxsize=4096)
def compile_bounds(expr: sympy.Basic) -> BoundsKernel:
    """Compile ``expr`` into a closure computing its interval from symbol ranges."""
    return _compile(expr)


def _checked(low: int, high: int, limit: int | None) -> Interval:
    if limit is not None and (low < -limit or high > limit):
        raise Escapes
    return low, high


def _corners(op, a: Interval, b: Interval) -> tuple[int, int]:
    values = [op(x, y) for x in a for y in b]
    return min(values), max(values)


def _fold(parts, combine):
    def fold(ranges, limit):
        total = parts[0](ranges, limit)
        for part in parts[1:]:
            total = _checked(*combine(total, part(ranges, limit)), limit)
        return total
    return fold


def _floor_div(n: Interval, d: Interval) -> Interval:
    if d[0] >= 1 or d[1] <= -1:
        # n/d is monotone in each argument on a box where d keeps its sign.
        return _corners(lambda x, y: x // y, n, d)
    # A zero divisor has no value (the evaluator refuses it); a nonzero one
    # gives at most |n| in magnitude.
    top = max(abs(n[0]), abs(n[1]))
    return -top, top


def _mod(a: Interval, b: Interval) -> Interval:
    if b[0] >= 1:
        return a if 0 <= a[0] and a[1] < b[0] else (0, b[1] - 1)
    if b[1] <= -1:
        return a if b[1] < a[0] and a[1] <= 0 else (b[0] + 1, 0)
    return min(0, b[0] + 1), max(0, b[1] - 1)


def _power(base: Interval, exponent: int, limit: int | None) -> Interval:
    if exponent == 0:
        return 1, 1
    top = max(abs(base[0]), abs(base[1]))
    if limit is not None and top >= 2 and (top.bit_length() - 1) * exponent > limit.bit_length():
        raise Escapes  # |base|**exponent is past the limit; do not build the number
    # Repeated squaring never exceeds |base|**exponent in magnitude.
    _checked(-(top ** exponent), top ** exponent, limit)
    low, high = base[0] ** exponent, base[1] ** exponent
    if exponent % 2 == 0 and base[0] < 0 < base[1]:
        return 0, max(low, high)
    return min(low, high), max(low, high)


def _compile(expr: sympy.Basic) -> BoundsKernel:
    if expr is sympy.true or expr is sympy.false:
        return lambda ranges, limit: BOOLEAN
    if isinstance(expr, sympy.Symbol):
        def lookup(ranges, limit, symbol=expr):
            try:
                low, high = ranges[symbol]
            except KeyError:
                raise Unsupported(f"symbol {symbol} has no value") from None
            return _checked(low, high, limit)
        return lookup
    if isinstance(expr, sympy.Integer):
        value = int(expr)
        return lambda ranges, limit: _checked(value, value, limit)
    if isinstance(expr, sympy.Add):
        return _fold([_compile(a) for a in expr.args], lambda x, y: (x[0] + y[0], x[1] + y[1]))
    if isinstance(expr, sympy.Mul):
        parts = [_compile(a) for a in integer_terms(expr)]
        return _fold(parts, lambda x, y: _corners(lambda p, q: p * q, x, y))
    if isinstance(expr, sympy.Pow):
        base, exponent = expr.args
        if not (exponent.is_Integer and exponent >= 0):
            raise Unsupported(f"power {expr} with a non-natural exponent")
        inner, power = _compile(base), int(exponent)
        return lambda ranges, limit: _power(inner(ranges, limit), power, limit)
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        num, den = quotient(expr.args[0])
        top, bottom = _compile(num), _compile(den)
        if isinstance(expr, sympy.floor):
            return lambda ranges, limit: _checked(
                *_floor_div(top(ranges, limit), bottom(ranges, limit)), limit)

        def ceiling(ranges, limit):
            low, high = top(ranges, limit)
            q = _floor_div((-high, -low), bottom(ranges, limit))
            return _checked(-q[1], -q[0], limit)
        return ceiling
    if isinstance(expr, sympy.Mod):
        top, bottom = _compile(expr.args[0]), _compile(expr.args[1])
        return lambda ranges, limit: _checked(
            *_mod(top(ranges, limit), bottom(ranges, limit)), limit)
    if isinstance(expr, (sympy.Min, sympy.Max)):
        pick = min if isinstance(expr, sympy.Min) else max
        return _fold([_compile(a) for a in expr.args],
                     lambda x, y: (pick(x[0], y[0]), pick(x[1], y[1])))
    if isinstance(expr, sympy.Piecewise):
        # The evaluator computes every branch everywhere, so every branch counts.
        branches = [(_compile(value), _compile(cond)) for value, cond in expr.args]

        def piecewise(ranges, limit):
            spans = []
            for value, cond in branches:
                cond(ranges, limit)
                spans.append(value(ranges, limit))
            return min(s[0] for s in spans), max(s[1] for s in spans)
        return piecewise
    if isinstance(expr, (sympy.core.relational.Relational, sympy.And, sympy.Or, sympy.Not)):
        parts = [_compile(a) for a in expr.args]

        def condition(ranges, limit):
            for part in parts:
                part(ranges, limit)
            return BOOLEAN
        return condition
    raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index vocabulary")
