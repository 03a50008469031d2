"""Exact vectorized evaluation of index expressions with NumPy.

This is the one module that turns SymPy into NumPy. ``lambdify`` would print
``floor(i/4)`` as a float division, which is inexact past 2**53 and returns
floats, so expressions are compiled here into closures instead, cached by
expression. Every expression is compiled twice:

* the **fast** kernel runs on int64 arrays. It is taken only when interval
  arithmetic (:mod:`layoutalg.core.bounds`) proves that every intermediate
  value fits in int64 for the ranges of the given inputs, so it cannot wrap;
* the **exact** kernel runs on object arrays of Python ints, with Python's
  operators (never a NumPy integer loop), for everything else.

Results are int64 arrays when every value fits (even if an intermediate did
not), else object arrays of exact Python ints (:func:`as_int64` refuses
them); conditions are bool arrays.

``x mod 0`` and ``x // 0`` have no value (NumPy's rule would give 0): where a
divisor is 0, outside any ``Piecewise`` branch not taken there, both kernels
refuse with ``UndefinedValueError`` naming the divisor and the first point
(over no points there is none: the result is empty, as Python's ``[]``).

>>> import sympy
>>> from layoutalg.core.space import coordinate
>>> i = coordinate("i")
>>> evaluate(sympy.floor(i * 2**62 / (2**61 + 1)), {i: np.arange(4)}).tolist()
[0, 1, 3, 5]
>>> evaluate(i * 2**62, {i: np.arange(4)}).dtype     # the images themselves are past int64
dtype('O')
>>> evaluate(sympy.Mod(7, i), {i: np.arange(3)})
Traceback (most recent call last):
...
layoutalg.errors.UndefinedValueError: Mod(7, i) has no value at i=0: its divisor i is 0 there; x mod 0 and x // 0 have no value
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import sympy

from layoutalg.core.bits import BitAnd, BitOp, BitXor, ShiftLeft, ShiftRight, bounds_kernel
from layoutalg.core.bounds import INT64_LIMIT, Escapes
from layoutalg.core.expr import Unsupported, integer_terms, quotient
from layoutalg.core.integers import INT64_MIN, fits, narrow, shrink
from layoutalg.errors import MapError, UndefinedValueError

Kernel = Callable[[dict[sympy.Symbol, np.ndarray]], np.ndarray]
_CHUNK = 1 << 16  # elements per min/max pass over a large input (fits in L2)


@dataclass(frozen=True)
class Compiled:
    """The kernels of one expression: int64, exact, and its interval."""

    expr: sympy.Basic
    fast: Kernel
    exact: Kernel
    bounds: Callable
    is_condition: bool


def evaluate(expr: sympy.Basic, env: dict[sympy.Symbol, object]) -> np.ndarray:
    """Evaluate ``expr`` exactly with symbols bound to integer arrays (broadcasting)."""
    return _run(compile_expr(expr), _Inputs(env))


def evaluate_all(exprs: Sequence[sympy.Basic], env: dict[sympy.Symbol, object]) -> list[np.ndarray]:
    """Evaluate several expressions over one binding (inputs converted once)."""
    inputs = _Inputs(env)
    return [_run(compile_expr(expr), inputs) for expr in exprs]


@lru_cache(maxsize=4096)
def compile_expr(expr: sympy.Basic) -> Compiled:
    """Compile ``expr`` into its kernels (raises ``Unsupported`` outside the vocabulary)."""
    return Compiled(expr, _compile(expr, _FAST), _compile(expr, _EXACT), bounds_kernel(expr),
                    not isinstance(expr, sympy.Expr))  # a Symbol is Boolean too


def as_int64(values: object, what: str) -> np.ndarray:
    """``values`` as an int64 array, or ``MapError`` naming ``what`` and the first
    value past int64 (never a wrapped value).

    >>> as_int64(np.array([1, 2**64], dtype=object), "images of m")
    Traceback (most recent call last):
    ...
    layoutalg.errors.MapError: images of m must fit in int64 ...; got 18446744073709551616
    """
    array = narrow(values, what)
    if array.dtype == object:
        wide = next(int(v) for v in array.reshape(-1) if not INT64_MIN <= v <= INT64_LIMIT)
        raise MapError(f"{what} must fit in int64 to be used as NumPy indices or offsets; "
                       f"got {wide}")
    return array


class _Inputs:
    """One binding of symbols to values: int64 when all fit, exact on demand."""

    def __init__(self, env: dict[sympy.Symbol, object]) -> None:
        self.values = {symbol: narrow(value, f"the values of {symbol}")
                       for symbol, value in env.items()}
        self.int64 = all(v.dtype != object for v in self.values.values())
        self.scalar = all(v.ndim == 0 for v in self.values.values())
        self.ranges = _Ranges(self.values)

    @cached_property
    def exact(self) -> dict[sympy.Symbol, object]:
        """Python ints for single values, object arrays of them otherwise."""
        return {s: int(v) if v.ndim == 0 else v.astype(object) for s, v in self.values.items()}


class _Ranges(dict):
    """Symbol → (min, max) of its values, computed when a bounds kernel first asks
    (a symbol without a value is a KeyError, as in a plain dict)."""

    def __init__(self, values: dict[sympy.Symbol, np.ndarray]) -> None:
        super().__init__()
        self._values = values

    def __missing__(self, symbol: sympy.Symbol) -> tuple[int, int]:
        self[symbol] = _range(self._values[symbol])
        return self[symbol]


def _range(array: np.ndarray) -> tuple[int, int]:
    if array.size == 0:
        return 0, 0
    if array.dtype == object:
        return int(array.min()), int(array.max())
    # A broadcast input repeats along its zero-stride axes: read one copy.
    if 0 in array.strides:
        array = array[tuple(slice(0, 1) if s == 0 else slice(None) for s in array.strides)]
    if array.size <= _CHUNK or not array.flags.c_contiguous:
        return int(array.min()), int(array.max())
    # min and max chunk by chunk: the second reduction reads from cache.
    flat = array.reshape(-1)
    pairs = [(c.min(), c.max()) for c in (flat[k:k + _CHUNK] for k in range(0, flat.size, _CHUNK))]
    return int(min(low for low, _ in pairs)), int(max(high for _, high in pairs))


def _run(compiled: Compiled, inputs: _Inputs) -> np.ndarray:
    # int64 where the bounds allow, else Python ints (exact), narrowed back.
    fast = inputs.int64 and not inputs.scalar and _bounded(compiled, inputs)
    scope = _Scope(inputs.values if fast else inputs.exact)
    result = (compiled.fast if fast else compiled.exact)(scope)
    empty = scope.refuse(compiled.expr)
    if empty is not None:   # no points: no values (none computed with a stand-in divisor)
        result = np.empty(np.broadcast_shapes(np.shape(result), empty), np.asarray(result).dtype)
    if fast:
        return np.asarray(result)
    return np.asarray(result, dtype=bool) if compiled.is_condition else shrink(result)


def _bounded(compiled: Compiled, inputs: _Inputs) -> bool:
    try:
        compiled.bounds(inputs.ranges, INT64_LIMIT)
    except Escapes:
        return False
    return True


class _Scope(dict):
    """The symbol values of one run, and ``undefined``: (divisor, mask) where a
    division met a 0 divisor (a mask of the points, broadcasting over the values)."""

    def __init__(self, values: dict) -> None:
        super().__init__(values)
        self.undefined: list[tuple[sympy.Expr, np.ndarray]] = []

    def refuse(self, expr: sympy.Basic) -> tuple[int, ...] | None:
        """``UndefinedValueError`` at the first point (row-major) where ``expr`` divides
        by 0; over no points there is none: then the empty shape of the points."""
        found = [(divisor, mask) for divisor, mask in self.undefined if mask.any()]
        if not found:
            return None
        shape = np.broadcast_shapes(*map(np.shape, self.values()), *(m.shape for _, m in found))
        if 0 in shape:   # no point needs a value (Python: [x % 0 for x in []] == [])
            return shape
        flat, divisor = min((int(np.argmax(np.broadcast_to(m, shape))), str(d)) for d, m in found)
        index = np.unravel_index(flat, shape)
        at = ", ".join(f"{s}={int(np.broadcast_to(v, shape)[index])}" for s, v in self.items())
        raise UndefinedValueError(f"{expr} has no value at {at}: its divisor {divisor} is 0 "
                                  "there; x mod 0 and x // 0 have no value")


@dataclass(frozen=True)
class _Mode:
    """How a kernel holds constants and does integer arithmetic."""

    constant: Callable[[int], object]
    pick: Callable  # (min or max) -> elementwise function
    bits: dict  # bit operation class -> elementwise function


def _fast_constant(value: int):
    # A constant past int64 only appears where the bounds send evaluation to
    # the exact kernel, so the fast kernel never computes with it.
    return np.int64(value) if fits(value, value) else value


def _exact_pick(which):
    ufunc = np.minimum if which is min else np.maximum

    def pick(a, b):
        if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            return ufunc(np.asarray(a, dtype=object), np.asarray(b, dtype=object))
        return which(a, b)
    return pick


def _division(op, divisor: sympy.Expr):
    """``op`` (// or %) by ``divisor``: Python's floor rule on Python ints and on
    int64 arrays alike. Where the divisor is 0 there is no value: the points
    are noted in the scope (the run then refuses) and 1 divides there meanwhile."""
    if divisor.is_Integer and divisor != 0:
        return lambda env, a, b: op(a, b)

    def divide(env, a, b):
        try:  # Python raises ZeroDivisionError, NumPy (told to) FloatingPointError
            with np.errstate(divide="raise"):
                return op(a, b)
        except (ZeroDivisionError, FloatingPointError):
            zero = np.equal(b, 0)
            env.undefined.append((divisor, zero))
            return op(a, np.where(zero, 1, b) if np.ndim(b) else 1)
    return divide


def _exact_bits(kind):
    """``kind``'s operation on Python ints (or object arrays of them), refusing negative
    values: Python's ``-1 ^ 2`` is two's complement, not an index."""
    def apply(a, b):
        for value, name in zip((a, b), kind.arg_names):
            if np.any(np.asarray(value, dtype=object) < 0):
                worst = int(np.min(np.asarray(value, dtype=object)))
                raise MapError(f"{kind.public} argument {name} must be non-negative; got {worst}")
        return kind.compute(a, b)
    return apply


# The fast kernels run only where bits.bounds_kernel proved the arguments are
# non-negative and the shifts below 63 with results inside int64.
_FAST_BITS = {BitXor: np.bitwise_xor, BitAnd: np.bitwise_and,
              ShiftRight: np.right_shift, ShiftLeft: np.left_shift}
_EXACT_BITS = {kind: _exact_bits(kind) for kind in _FAST_BITS}
_FAST = _Mode(_fast_constant, {min: np.minimum, max: np.maximum}.get, _FAST_BITS)
_EXACT = _Mode(int, _exact_pick, _EXACT_BITS)

_RELATIONS = {
    sympy.Eq: operator.eq, sympy.Ne: operator.ne, sympy.Lt: operator.lt,
    sympy.Le: operator.le, sympy.Gt: operator.gt, sympy.Ge: operator.ge,
}


def _fold(parts, combine):
    def fold(env):
        total = parts[0](env)
        for part in parts[1:]:
            total = combine(total, part(env))
        return total
    return fold


def _compile(expr: sympy.Basic, mode: _Mode) -> Kernel:
    if expr is sympy.true or expr is sympy.false:
        truth = np.bool_(expr is sympy.true)
        return lambda env: truth
    if isinstance(expr, sympy.Symbol):
        def lookup(env, symbol=expr):
            try:
                return env[symbol]
            except KeyError:
                raise Unsupported(f"symbol {symbol} has no value") from None
        return lookup
    if isinstance(expr, sympy.Integer):
        value = mode.constant(int(expr))
        return lambda env: value
    if isinstance(expr, sympy.Add):
        return _fold([_compile(arg, mode) for arg in expr.args], operator.add)
    if isinstance(expr, sympy.Mul):
        return _fold([_compile(arg, mode) for arg in integer_terms(expr)], operator.mul)
    if isinstance(expr, sympy.Pow):
        base, exponent = expr.args
        if not (exponent.is_Integer and exponent >= 0):
            raise Unsupported(f"power {expr} with a non-natural exponent")
        inner, power = _compile(base, mode), int(exponent)
        return lambda env: inner(env) ** power
    if isinstance(expr, (sympy.floor, sympy.ceiling)):
        num, den = quotient(expr.args[0])
        top, bottom = _compile(num, mode), _compile(den, mode)
        divide = _division(operator.floordiv, den)
        if isinstance(expr, sympy.floor):
            return lambda env: divide(env, top(env), bottom(env))
        return lambda env: -divide(env, -top(env), bottom(env))
    if isinstance(expr, sympy.Mod):
        top, bottom = _compile(expr.args[0], mode), _compile(expr.args[1], mode)
        mod = _division(operator.mod, expr.args[1])
        return lambda env: mod(env, top(env), bottom(env))
    if isinstance(expr, BitOp):
        left, right = _compile(expr.args[0], mode), _compile(expr.args[1], mode)
        op = mode.bits[type(expr)]
        return lambda env: op(left(env), right(env))
    if isinstance(expr, (sympy.Min, sympy.Max)):
        pick = mode.pick(min if isinstance(expr, sympy.Min) else max)
        return _fold([_compile(arg, mode) for arg in expr.args], pick)
    if isinstance(expr, sympy.Piecewise):
        branches = [(_compile(v, mode), _compile(c, mode)) for v, c in expr.args]
        return _piecewise(expr, branches, exact=mode is _EXACT)
    for kind, op in _RELATIONS.items():
        if isinstance(expr, kind):
            left, right = _compile(expr.args[0], mode), _compile(expr.args[1], mode)
            return lambda env, op=op: np.asarray(op(left(env), right(env)), dtype=bool)
    if isinstance(expr, (sympy.And, sympy.Or)):
        op = np.logical_and if isinstance(expr, sympy.And) else np.logical_or
        return _fold([_compile(arg, mode) for arg in expr.args], op)
    if isinstance(expr, sympy.Not):
        inner = _compile(expr.args[0], mode)
        return lambda env: np.logical_not(inner(env))
    raise Unsupported(f"operator {type(expr).__name__} in {expr} is outside the index vocabulary")


def _piecewise(expr, branches, *, exact: bool) -> Kernel:
    def piecewise(env):
        conds, values, spans = [], [], []
        for value, cond in branches:
            start = len(env.undefined)
            conds.append(np.asarray(cond(env), dtype=bool))
            middle = len(env.undefined)
            values.append(np.asarray(value(env)))
            spans.append((start, middle, len(env.undefined)))
        shape = np.broadcast_shapes(*(c.shape for c in conds), *(v.shape for v in values))
        conds = [np.broadcast_to(c, shape) for c in conds]
        if not np.logical_or.reduce(conds).all():
            # Outside every branch the value is undefined: never invent one.
            raise Unsupported(f"{expr} is undefined where no branch condition holds")
        if env.undefined:
            _where_needed(env.undefined, conds, spans)
        if exact:
            # Keep Python ints: an int64 result would send the next operator
            # back to NumPy's wrapping integer loops.
            values = [v.astype(object) for v in values]
        return np.select(conds, [np.broadcast_to(v, shape) for v in values])
    return piecewise


def _where_needed(undefined: list, conds: list, spans: list) -> None:
    """Keep a zero divisor of a ``Piecewise`` only where it matters: in a branch's
    condition where no earlier condition holds, in its value where it is taken."""
    earlier = np.zeros_like(conds[0])
    for cond, (start, middle, end) in zip(conds, spans):
        for k in range(start, end):
            divisor, mask = undefined[k]
            undefined[k] = divisor, mask & ~earlier & (cond if k >= middle else True)
        earlier = earlier | cond
