"""Bit operations on non-negative integers as index-map expressions.

XOR, AND with a mask and shifts are what swizzles (CuTe's ``Swizzle<B,M,S>``,
``cute/swizzle.hpp``) and Triton's linear layouts are made of. Each is a SymPy
``Function`` with exact integer semantics on non-negative integers:
``bit_xor(a, b)`` is ``a ^ b``, ``bit_and(a, mask)`` is ``a & mask``,
``shift_right(a, k)`` is ``a >> k`` = ``⌊a / 2**k⌋`` and ``shift_left(a, k)``
is ``a << k`` = ``a * 2**k``.

They evaluate to a number as soon as their arguments are numbers, and refuse
a negative or non-integer constant with a :class:`~layoutalg.errors.MapError`
(Python's ``-1 ^ 2`` is two's complement, not a layout index). A symbolic
argument that may be negative (``i - 1``) gives no value where it is: the
operation then stays unfolded (``(i - 1) & 0`` is not 0) and its sign unknown.

>>> import sympy
>>> i = sympy.Symbol("i", integer=True, nonnegative=True)
>>> bit_xor(5, 3), bit_and(13, 6), shift_right(13, 2), shift_left(3, 4)
(6, 4, 3, 48)
>>> bit_xor(i, shift_right(bit_and(i, 0x380), 3)).subs(i, 0x3FF)
911
>>> bit_xor(-1, 2)
Traceback (most recent call last):
...
layoutalg.errors.MapError: bit_xor argument a must be a non-negative integer expression; got -1
"""

from __future__ import annotations

import operator
from collections import ChainMap
from functools import lru_cache

import sympy

from layoutalg.core.bounds import BoundsKernel, Escapes, compile_bounds
from layoutalg.core.expr import Unsupported
from layoutalg.errors import MapError, describe

# A shift by 63 or more is past what NumPy's int64 shifts define (x86 masks the
# count): such shifts always take the exact path.
MAX_FAST_SHIFT = 62


def _operand(value: object, function: str, name: str) -> sympy.Expr:
    """``value`` as a SymPy integer expression that may be non-negative, or ``MapError``."""
    try:
        expr = None if isinstance(value, bool) else sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError):
        expr = None
    if isinstance(expr, sympy.Expr) and expr.is_number and not expr.is_Integer:
        expr = expr.doit()  # an unevaluated Mod(66, 8) is the number 2
    if (not isinstance(expr, sympy.Expr) or expr.is_integer is False or expr.is_negative
            or (expr.is_number and not expr.is_Integer)):
        raise MapError(f"{function} argument {name} must be a non-negative integer "
                       f"expression; got {describe(value)}")
    return expr


def _known_nonnegative(args) -> bool:
    """SymPy shows every argument ``>= 0`` (then a bit operation has a value)."""
    return all(a.is_nonnegative is True for a in args)


class BitOp(sympy.Function):
    """Common base: integer, two arguments, exact on numbers.

    An argument below 0 has no value (like ``x mod 0``), so the sign and every
    symbolic fold follow the arguments: ``x & 0`` stays unfolded, and SymPy
    is not told ``x ^ 1 >= 0``, until ``x`` is known non-negative.
    """

    is_integer = True
    nargs = 2
    op_text = "?"        # plain-text operator
    op_latex = "?"       # LaTeX operator
    public = "?"         # the constructor's name, for messages
    arg_names = ("a", "b")
    # Read by SymPy's printers (sympy.printing.precedence): these bind looser
    # than + as in C and Python, so 2*(i ^ 3) keeps its parentheses.
    precedence = 37

    @classmethod
    def eval(cls, a, b):
        a, b = (v.doit() if v.is_number and not v.is_Integer else v for v in (a, b))
        for value, name in ((a, cls.arg_names[0]), (b, cls.arg_names[1])):
            if value.is_number and (not value.is_Integer or value.is_negative):
                raise MapError(f"{cls.public} argument {name} must be a non-negative integer "
                               f"expression; got {describe(value)}")
        if a.is_Integer and b.is_Integer:
            return sympy.Integer(cls.compute(int(a), int(b)))
        # a fold drops an argument's requirement to be >= 0: only when it is met
        return cls.simplify_symbolic(a, b) if _known_nonnegative((a, b)) else None

    def _eval_is_nonnegative(self):
        # a value, where one exists, is >= 0; but True would let SymPy fold a
        # sign test or a Min away with the argument that may be negative
        return True if _known_nonnegative(self.args) else None

    _eval_is_extended_nonnegative = _eval_is_nonnegative

    @classmethod
    def simplify_symbolic(cls, a, b) -> sympy.Expr | None:
        """A fold of ``a op b`` (None: none); called only when ``a, b >= 0``."""
        return None

    def _sympystr(self, printer) -> str:
        # Plain str() as C and Python write it; layoutalg.core.printing.show
        # prints the same (with its own floor and mod notation inside).
        a, b = (printer._print(x) if x.is_Atom else f"({printer._print(x)})" for x in self.args)
        return f"{a} {self.op_text} {b}"


class BitXor(BitOp):
    """``a ^ b`` on non-negative integers."""

    op_text = "^"
    op_latex = r"\oplus"
    public = "bit_xor"
    compute = staticmethod(operator.xor)

    @classmethod
    def simplify_symbolic(cls, a, b):
        if a == 0 or b == 0:
            return a + b  # the other one
        return sympy.Integer(0) if a == b else None


class BitAnd(BitOp):
    """``a & mask`` on non-negative integers."""

    op_text = "&"
    op_latex = r"\land"
    public = "bit_and"
    arg_names = ("a", "mask")
    compute = staticmethod(operator.and_)

    @classmethod
    def simplify_symbolic(cls, a, b):
        if a == 0 or b == 0:
            return sympy.Integer(0)
        return a if a == b else None


class _Shift(BitOp):
    """A shift of ``a`` by ``k`` bits: ``a`` itself when ``k`` is 0, 0 when ``a`` is."""

    arg_names = ("a", "k")

    @classmethod
    def simplify_symbolic(cls, a, b):
        return a if a == 0 or b == 0 else None


class ShiftRight(_Shift):
    """``a >> k`` = ``⌊a / 2**k⌋`` on non-negative integers."""

    op_text = ">>"
    op_latex = r"\gg"
    public = "shift_right"
    compute = staticmethod(operator.rshift)


class ShiftLeft(_Shift):
    """``a << k`` = ``a * 2**k`` on non-negative integers."""

    op_text = "<<"
    op_latex = r"\ll"
    public = "shift_left"
    compute = staticmethod(operator.lshift)


def _builder(op: type[BitOp]):
    """``op``'s public constructor (``op.public``, ``op``'s docstring): both operands checked."""

    def build(a: object, b: object) -> sympy.Expr:
        return op(*(_operand(v, op.public, name) for v, name in zip((a, b), op.arg_names)))

    build.__name__ = build.__qualname__ = op.public
    build.__doc__ = op.__doc__
    return build


bit_xor = _builder(BitXor)
bit_and = _builder(BitAnd)
shift_right = _builder(ShiftRight)
shift_left = _builder(ShiftLeft)


def _outermost(expr: sympy.Basic):
    if isinstance(expr, BitOp):
        yield expr
    else:
        for arg in expr.args:
            yield from _outermost(arg)


def _op_interval(op: type, a, b, limit):
    if a[0] < 0 or b[0] < 0:
        if limit is None:
            raise Unsupported(f"{op.public} of a value that may be negative")
        raise Escapes  # the exact path refuses it with a MapError
    if op is BitXor:
        return 0, (1 << max(a[1], b[1]).bit_length()) - 1
    if op is BitAnd:
        return 0, min(a[1], b[1])
    if limit is not None and b[1] > MAX_FAST_SHIFT:
        raise Escapes
    if op is ShiftRight:
        return a[0] >> b[1], a[1] >> b[0]
    if limit is not None and a[1] and a[1].bit_length() + b[1] > limit.bit_length():
        raise Escapes  # do not build the number
    return a[0] << b[0], a[1] << b[1]


@lru_cache(maxsize=4096)
def bounds_kernel(expr: sympy.Basic) -> BoundsKernel:
    """:func:`layoutalg.core.bounds.compile_bounds` for expressions that may hold
    bit operations: each outermost one stands for a dummy symbol whose range
    comes from its arguments' ranges (e.g. ``a ^ b`` lies in ``[0, 2**w)``,
    ``w`` the bit length of the larger upper bound).

    >>> from layoutalg.core.space import coordinate
    >>> i = coordinate("i")
    >>> bounds_kernel(bit_xor(i, 5) + 1)({i: (0, 9)}, None)
    (1, 16)
    """
    ops = list(dict.fromkeys(_outermost(expr)))
    if not ops:
        return compile_bounds(expr)
    dummies = {op: sympy.Dummy(f"bits{k}", integer=True, nonnegative=True)
               for k, op in enumerate(ops)}
    rest = compile_bounds(expr.xreplace(dummies))
    parts = [(dummies[op], type(op), bounds_kernel(op.args[0]), bounds_kernel(op.args[1]))
             for op in ops]

    def kernel(ranges, limit):
        extra = {}
        for dummy, kind, left, right in parts:
            low, high = _op_interval(kind, left(ranges, limit), right(ranges, limit), limit)
            if limit is not None and high > limit:
                raise Escapes
            extra[dummy] = (low, high)
        return rest(ChainMap(extra, ranges), limit)
    return kernel
