"""Readable text for index expressions: ``⌊i/4⌋`` and ``i mod 4``, not ``floor(i/4)``."""

from __future__ import annotations

import sympy
from sympy.printing.str import StrPrinter

from layoutalg.core.expr import Unsupported, quotient


class IndexPrinter(StrPrinter):
    """Prints floor division with floor brackets (self-delimiting, so
    ``4*⌊n/8⌋`` cannot be misread) and modulo as a parenthesized ``mod``."""

    def _print_floor(self, expr):
        try:
            num, den = quotient(expr.args[0])
        except Unsupported:
            return super()._print_Function(expr)
        return f"⌊{self._wrap(num)}/{self._wrap(den)}⌋"

    def _print_ceiling(self, expr):
        try:
            num, den = quotient(expr.args[0])
        except Unsupported:
            return super()._print_Function(expr)
        return f"⌈{self._wrap(num)}/{self._wrap(den)}⌉"

    def _print_Mod(self, expr):
        left, right = expr.args
        return f"{self._wrap(left)} mod {self._wrap(right)}"

    def parenthesize(self, item, level, strict=False):
        # ``mod`` binds looser than ``*``: 2*(i mod 3), never 2*i mod 3. SymPy
        # prints a negated product at Add level, so wrap from there up.
        if isinstance(item, sympy.Mod) and level >= precedence_of_add():
            return f"({self._print(item)})"
        return super().parenthesize(item, level, strict)

    def _wrap(self, expr) -> str:
        text = self._print(expr)
        if expr.is_Atom or isinstance(expr, (sympy.floor, sympy.ceiling)):
            return text
        return f"({text})"


def precedence_of_add() -> int:
    from sympy.printing.precedence import PRECEDENCE

    return PRECEDENCE["Add"]


_PRINTER = IndexPrinter()


def show(expr: sympy.Basic) -> str:
    """``str`` of an index expression in math-like notation.

    >>> i = sympy.Symbol("i", integer=True, nonnegative=True)
    >>> show(4 * (i // 8) + i % 2)
    'i mod 2 + 4*⌊i/8⌋'
    >>> show(i % 2)
    'i mod 2'
    """
    return _PRINTER.doprint(expr)


def latex(expr: sympy.Basic) -> str:
    """LaTeX of an index expression (SymPy's, which renders floor and mod well)."""
    return sympy.latex(expr)
