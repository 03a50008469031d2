"""The expression vocabulary of index maps and how to read it.

Index expressions use ``+ - *``, floor division ``//``, ``%`` (SymPy ``floor``
and ``Mod``), ``ceiling`` of a quotient, ``Min``, ``Max`` and ``Piecewise``.
SymPy writes ``a // b`` as ``floor(a/b)``; :func:`quotient` recovers the
integer numerator and denominator so that both translators (NumPy and Z3)
compute exact integer division instead of a rational.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import sympy
from sympy.core.relational import Relational

from layoutalg.core.sympy_fixes import common_denominator, integer_relation
from layoutalg.errors import MapError, describe


class Unsupported(Exception):
    """An expression uses an operator outside the vocabulary (internal)."""


def as_expr(value: object, what: str) -> sympy.Expr:
    """Sympify a user value as an integer expression, or raise ``MapError``."""
    try:
        expr = None if isinstance(value, bool) else sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError):
        expr = None
    if not isinstance(expr, sympy.Expr):
        raise MapError(f"{what} must be an integer expression; got {describe(value)}")
    return expr


def as_condition(value: object, what: str) -> sympy.Basic:
    """Sympify a user value as a boolean condition, or raise ``MapError``."""
    if isinstance(value, bool):
        return sympy.true if value else sympy.false
    try:
        cond = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError):
        cond = None
    if not isinstance(cond, sympy.logic.boolalg.Boolean):
        raise MapError(f"{what} must be a SymPy boolean; got {describe(value)}")
    return cond


def integer_form(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` in the integer vocabulary: no ``ITE``, no fractions in relations.

    SymPy turns a ``Piecewise`` inside a ``Piecewise`` condition into an
    ``ITE``; ``ITE(c, a, b)`` means ``(~c | a) & (c | b)``, which is in the
    vocabulary (rebuilt without a ``Piecewise`` in the condition, SymPy does
    not make the ``ITE`` again). ``floor(a) < n`` is held as ``a < n``, a
    fraction when ``a`` is a quotient; the relation is multiplied through.

    >>> a, b, c = sympy.symbols("a b c")
    >>> integer_form(sympy.ITE(c, a, b))
    (b | c) & (a | ~c)
    >>> x = sympy.Symbol("x", integer=True)
    >>> integer_form(x // 2 < 3)
    x < 6
    """
    if expr.has(sympy.ITE):
        expr = expr.replace(lambda e: isinstance(e, sympy.ITE), lambda e: e.to_nnf(simplify=False))
    if not expr.has(Relational):
        return expr
    return expr.replace(lambda e: isinstance(e, Relational) and common_denominator(e) != 1,
                        integer_relation)


@lru_cache(maxsize=4096)
def quotient(arg: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Split the argument of ``floor``/``ceiling`` into integer ``(num, den)``.

    The denominator must be a positive constant or a product of positive
    extent symbols; anything else is :class:`Unsupported`. Remembered by the
    argument's structure (a pure function; a refusal is not remembered).
    """
    # together() alone leaves a substituted Mul(1/3, Add(...)) as a sum of
    # thirds; as_numer_denom() then brings it over one denominator. It also
    # cancels shared factors ((i*r + r**2)/r becomes i + r), so every divisor
    # as written must pass the rule too: at r = 0 Python's // has no value.
    num, den = sympy.together(arg).as_numer_denom()
    for divisor in (den, *written_divisors(arg)):
        if not (divisor.is_integer and divisor.is_positive):
            raise Unsupported(
                f"division by {divisor}, which is not known to be a positive integer")
    if not num.is_integer:
        raise Unsupported(f"numerator {num} is not an integer expression")
    return num, den


def written_divisors(arg: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """The base of every negative power in ``arg`` as SymPy holds it, before
    any fraction is brought together (which may cancel one away).

    >>> i, r = sympy.symbols("i r", integer=True, nonnegative=True)
    >>> written_divisors((i * r + r**2) / r), written_divisors(i / 4)
    ((r,), ())
    """
    return tuple(dict.fromkeys(
        node.base for node in sympy.preorder_traversal(arg)
        if isinstance(node, sympy.Pow) and node.exp.is_negative))


@lru_cache(maxsize=4096)
def divisors(expr: sympy.Basic) -> tuple[sympy.Expr, ...]:
    """The divisor of every ``Mod``, ``floor`` and ``ceiling`` in ``expr`` (preorder,
    each once): ``Mod(a, b)`` divides by ``b``; ``floor(a/b)`` and ``ceiling(a/b)``
    (SymPy's ``a // b``) by the denominator of ``a/b`` over one fraction. The bit
    operations divide by nothing (a shift by ``k`` divides by ``2**k``). Where
    one is 0 there is no value (the evaluator raises ``UndefinedValueError``).

    >>> i, j = sympy.symbols("i j", integer=True, nonnegative=True)
    >>> sorted(map(str, divisors(sympy.Mod(i, j) + sympy.floor(i / (j + 2)) + sympy.Mod(j, 4))))
    ['4', 'j', 'j + 2']
    """
    found = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Mod):
            found[node.args[1]] = None
        elif isinstance(node, (sympy.floor, sympy.ceiling)):
            den = sympy.together(node.args[0]).as_numer_denom()[1]
            found[den] = None
            for written in written_divisors(node.args[0]):  # one den does not contain
                if sympy.cancel(den / written).as_numer_denom()[1] != 1:
                    found[written] = None
    return tuple(found)


def integer_terms(expr: sympy.Mul) -> list[sympy.Expr]:
    """Factors of a product, refusing non-integer rational coefficients."""
    for factor in expr.args:
        if factor.is_Rational and not factor.is_Integer:
            raise Unsupported(f"non-integer coefficient {factor} in {expr}")
    return list(expr.args)


def ceil_div(a: object, b: object) -> sympy.Expr:
    """``ceil(a / b)`` for positive ``b``, in the vocabulary (as a floor)."""
    return sympy.floor((sympy.sympify(a) + sympy.sympify(b) - 1) / sympy.sympify(b))


#: positive sizes tried before SymPy's simplify (two rotations over the symbols)
TRIAL_SIZES = (5, 4, 7, 3, 11, 6, 13, 2)


def same_for_every_size(a: object, b: object) -> bool:
    """True only when SymPy shows ``a - b`` is 0 for every size.

    Exact evaluation at two assignments of positive sizes first: a nonzero
    integer difference at either settles it at once (False) without
    ``simplify``, which is slow on nested ``ceiling``/``floor`` of sizes.
    An assignment where the difference has no value (``M mod (P - 4)`` at
    ``P = 4``) is skipped. Trials respect only "positive integer", the facts
    the Z3 translation knows: a difference that is 0 only by another declared
    fact (``P`` odd) stays "not shown", so no caller drops a condition Z3
    would then need. Otherwise ``simplify`` decides, so False can also mean
    "not shown".

    >>> M, P = sympy.symbols("M P", integer=True, positive=True)
    >>> same_for_every_size(ceil_div(M, ceil_div(M, P)), P)  # M=5, P=4: 3 != 4
    False
    >>> same_for_every_size(M + M, 2 * M)
    True
    >>> Q = sympy.Symbol("Q", integer=True, positive=True, odd=True)
    >>> same_for_every_size(sympy.Mod(M * Q + M, 2), 0), same_for_every_size(sympy.Mod(M, Q - 4), 0)
    (False, False)
    """
    difference = sympy.sympify(a) - sympy.sympify(b)
    if difference.is_Integer:
        return difference == 0
    symbols = sorted(difference.free_symbols, key=lambda s: s.name)
    for shift in range(2):
        sizes = itertools.cycle(TRIAL_SIZES[shift:] + TRIAL_SIZES[:shift])
        try:
            value = difference.xreplace({s: sympy.Integer(v) for s, v in zip(symbols, sizes)})
        except (ArithmeticError, MapError):  # no value there (x mod 0, a negative bit operand)
            continue
        if value.is_Integer and value != 0:
            return False
    return sympy.simplify(difference) == 0
