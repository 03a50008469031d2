"""The expression vocabulary of index maps and how to read it.

Index expressions use ``+ - *``, floor division ``//``, ``%`` (SymPy ``floor``
and ``Mod``), ``ceiling`` of a quotient, ``Min``, ``Max`` and ``Piecewise``.
SymPy writes ``a // b`` as ``floor(a/b)``; :func:`quotient` recovers the
integer numerator and denominator so that both translators (NumPy and Z3)
compute exact integer division instead of a rational.
"""

from __future__ import annotations

import sympy

from layoutalg.errors import MapError, describe


class Unsupported(Exception):
    """An expression uses an operator outside the vocabulary (internal)."""


class Mod(sympy.Mod):
    """``sympy.Mod`` that never contracts a product holding a ``Mod``.

    SymPy 1.14 evaluates ``Mod(2*Mod(a, 3), 3)`` to ``2*Mod(a, 3)`` (4 at
    a = 2, not 1) and ``Mod(5*Mod(a, 5), 8)`` to ``Mod(5*Mod(a, 5)**2, 8)``
    (SymPy issues 24215, 28744, 29757). ``compose`` substitutes such products
    into mods all the time, so index maps hold this class: such a product
    stays unevaluated, everything else evaluates as in SymPy. Named ``Mod``
    so every printer treats it as one; a distinct class (never equal to
    ``sympy.Mod``) so that SymPy's cache cannot hand a ``sympy.Mod`` back.

    >>> from layoutalg.core.space import coordinate
    >>> a = coordinate("a")
    >>> Mod(2 * Mod(a, 3), 3).subs(a, 2)
    1
    """

    @classmethod
    def eval(cls, p, q):
        if not _product_of_mod(p):
            return super().eval(p, q)
        # SymPy's rules for a product holding a Mod are the wrong ones; keep
        # only "a factor divisible by q makes the product 0".
        for factor in p.args:
            if factor.is_integer and not factor.has(sympy.Mod) and sympy.Mod(factor, q) == 0:
                return sympy.Integer(0)
        return None


def _product_of_mod(p: sympy.Basic) -> bool:
    return isinstance(p, sympy.Mul) and any(isinstance(f, sympy.Mod) for f in p.args)


def safe_mods(expr: sympy.Basic) -> sympy.Basic:
    """``expr`` with every ``sympy.Mod`` rebuilt (innermost first) as :class:`Mod`."""
    if not expr.has(sympy.Mod):
        return expr
    return expr.replace(lambda e: type(e) is sympy.Mod, lambda e: Mod(*e.args))


def as_expr(value: object, what: str) -> sympy.Expr:
    """Sympify a user value as an integer expression, or raise ``MapError``."""
    if isinstance(value, bool):
        raise MapError(f"{what} must be an integer expression; got {describe(value)}")
    try:
        expr = sympy.sympify(value, strict=True)
    except (sympy.SympifyError, TypeError):
        raise MapError(f"{what} must be an integer expression; got {describe(value)}") from None
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
        raise MapError(f"{what} must be a SymPy boolean; got {describe(value)}") from None
    if not isinstance(cond, sympy.logic.boolalg.Boolean):
        raise MapError(f"{what} must be a SymPy boolean; got {describe(value)}")
    return cond


def quotient(arg: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Split the argument of ``floor``/``ceiling`` into integer ``(num, den)``.

    The denominator must be a positive constant or a product of positive
    extent symbols; anything else is :class:`Unsupported`.
    """
    # together() alone leaves a substituted Mul(1/3, Add(...)) as a sum of
    # thirds; as_numer_denom() then brings it over one denominator.
    num, den = sympy.together(arg).as_numer_denom()
    if not (den.is_integer and den.is_positive):
        raise Unsupported(f"division by {den}, which is not known to be a positive integer")
    if not num.is_integer:
        raise Unsupported(f"numerator {num} is not an integer expression")
    return num, den


def integer_terms(expr: sympy.Mul) -> list[sympy.Expr]:
    """Factors of a product, refusing non-integer rational coefficients."""
    factors = []
    for factor in expr.args:
        if factor.is_Rational and not factor.is_Integer:
            raise Unsupported(f"non-integer coefficient {factor} in {expr}")
        factors.append(factor)
    return factors


def ceil_div(a: object, b: object) -> sympy.Expr:
    """``ceil(a / b)`` for positive ``b``, in the vocabulary (as a floor)."""
    return sympy.floor((sympy.sympify(a) + sympy.sympify(b) - 1) / sympy.sympify(b))

