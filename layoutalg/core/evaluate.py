"""Exact vectorized evaluation of index expressions with NumPy (int64).

This is the one module that turns SymPy into NumPy. ``lambdify`` would print
``floor(i/4)`` as a float division, which is inexact past 2**53 and returns
floats, so expressions are compiled here into closures over ``int64`` arrays
instead; compiled closures are cached by expression.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np
import sympy

from layoutalg.core.expr import Unsupported, integer_terms, quotient

Kernel = Callable[[dict[sympy.Symbol, np.ndarray]], np.ndarray]


def evaluate(expr: sympy.Basic, env: dict[sympy.Symbol, np.ndarray | int]) -> np.ndarray:
    """Evaluate ``expr`` with symbols bound to integer arrays (broadcasting)."""
    bound = {symbol: np.asarray(value, dtype=np.int64) for symbol, value in env.items()}
    return np.asarray(compile_expr(expr)(bound))


def evaluate_all(
    exprs: Sequence[sympy.Basic], env: dict[sympy.Symbol, np.ndarray | int]
) -> list[np.ndarray]:
    bound = {symbol: np.asarray(value, dtype=np.int64) for symbol, value in env.items()}
    return [np.asarray(compile_expr(expr)(bound)) for expr in exprs]


@lru_cache(maxsize=4096)
def compile_expr(expr: sympy.Basic) -> Kernel:
    """Compile ``expr`` into a closure over a symbol → array mapping."""
    return _compile(expr)


def _compile(expr: sympy.Basic) -> Kernel:  # noqa: C901 - one branch per operator
    if expr is sympy.true:
        return lambda env: np.bool_(True)
    if expr is sympy.false:
        return lambda env: np.bool_(False)
    if isinstance(expr, sympy.Symbol):
        def lookup(env, symbol=expr):
            try:
                return env[symbol]
            except KeyError:
                raise Unsupported(f"symbol {symbol} has no value") from None
        return lookup
    if isinstance(expr, sympy.Integer):
        value = np.int64(int(expr))
        return lambda env: value
    if isinstance(expr, sympy.Add):
        parts = [_compile(arg) for arg in expr.args]
        def add(env):
            total = parts[0](env)
            for part in parts[1:]:
                total = total + part(env)
            return total
        return add
    if isinstance(expr, sympy.Mul):
        parts = [_compile(arg) for arg in integer_terms(expr)]
        def mul(env):
            total = parts[0](env)
            for part in parts[1:]:
                total = total * part(env)
            return total
        return mul
    if isinstance(expr, sympy.Pow):
        base, exponent = expr.args
        if not (exponent.is_Integer and exponent >= 0):
            raise Unsupported(f"power {expr} with a non-natural exponent")
        inner = _compile(base)
        power = int(exponent)
        return lambda env: inner(env) ** power
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        num, den = quotient(expr.args[0])
        top, bottom = _compile(num), _compile(den)
        if isinstance(expr, sympy.floor):
            return lambda env: np.floor_divide(top(env), bottom(env))
        return lambda env: -np.floor_divide(-top(env), bottom(env))
    if isinstance(expr, sympy.Mod):
        top, bottom = _compile(expr.args[0]), _compile(expr.args[1])
        return lambda env: np.mod(top(env), bottom(env))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        parts = [_compile(arg) for arg in expr.args]
        pick = np.minimum if isinstance(expr, sympy.Min) else np.maximum
        def extreme(env):
            result = parts[0](env)
            for part in parts[1:]:
                result = pick(result, part(env))
            return result
        return extreme
    if isinstance(expr, sympy.Piecewise):
        branches = [(_compile(value), _compile(cond)) for value, cond in expr.args]
        def piecewise(env):
            conds = [np.asarray(cond(env), dtype=bool) for _, cond in branches]
            values = [np.asarray(value(env)) for value, _ in branches]
            shape = np.broadcast_shapes(*(c.shape for c in conds), *(v.shape for v in values))
            conds = [np.broadcast_to(c, shape) for c in conds]
            values = [np.broadcast_to(v, shape) for v in values]
            if not np.logical_or.reduce(conds).all():
                # Outside every branch the value is undefined: never invent one.
                raise Unsupported(f"{expr} is undefined where no branch condition holds")
            return np.select(conds, values)
        return piecewise
    relations = {
        sympy.Eq: np.equal, sympy.Ne: np.not_equal, sympy.Lt: np.less,
        sympy.Le: np.less_equal, sympy.Gt: np.greater, sympy.Ge: np.greater_equal,
    }
    for kind, op in relations.items():
        if isinstance(expr, kind):
            left, right = _compile(expr.args[0]), _compile(expr.args[1])
            return lambda env, op=op: op(left(env), right(env))
    if isinstance(expr, (sympy.And, sympy.Or)):
        parts = [_compile(arg) for arg in expr.args]
        op = np.logical_and if isinstance(expr, sympy.And) else np.logical_or
        def connect(env):
            result = parts[0](env)
            for part in parts[1:]:
                result = op(result, part(env))
            return result
        return connect
    if isinstance(expr, sympy.Not):
        inner = _compile(expr.args[0])
        return lambda env: np.logical_not(inner(env))
    raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index vocabulary")
