"""Readable text for index expressions: ``⌊i/4⌋`` and ``i mod 4``, not ``floor(i/4)``;
bit operations as ``^ & >> <<`` (LaTeX ``\\oplus \\land \\gg \\ll``)."""

from __future__ import annotations

import functools

import sympy
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.str import StrPrinter

from layoutalg.core.bits import BitOp
from layoutalg.core.expr import Unsupported, quotient


class IndexPrinter(StrPrinter):
    """Prints floor division with floor brackets (self-delimiting, so
    ``4*⌊n/8⌋`` cannot be misread) and modulo as a parenthesized ``mod``."""

    def _quotient(self, expr, left: str, right: str) -> str:
        try:
            num, den = quotient(expr.args[0])
        except Unsupported:
            return super()._print_Function(expr)
        return f"{left}{self._wrap(num)}/{self._wrap(den)}{right}"

    _print_floor = functools.partialmethod(_quotient, left="⌊", right="⌋")
    _print_ceiling = functools.partialmethod(_quotient, left="⌈", right="⌉")

    def _print_Mod(self, expr):
        left, right = expr.args
        return f"{self._wrap(left)} mod {self._wrap(right)}"

    def parenthesize(self, item, level, strict=False):
        # ``mod`` binds looser than ``*``: 2*(i mod 3), never 2*i mod 3. SymPy
        # prints a negated product at Add level, so wrap from there up. Bit
        # operations bind looser than ``+`` (as in C and Python): wrap them too.
        if isinstance(item, (sympy.Mod, BitOp)) and level >= PRECEDENCE["Add"]:
            return f"({self._print(item)})"
        return super().parenthesize(item, level, strict)

    def _wrap(self, expr) -> str:
        text = self._print(expr)
        return text if _self_delimiting(expr) else f"({text})"


def _self_delimiting(expr) -> bool:
    """An atom or a floor/ceiling: printed as an operand without parentheses."""
    return expr.is_Atom or isinstance(expr, (sympy.floor, sympy.ceiling))


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


class IndexLatexPrinter(LatexPrinter):
    """SymPy's LaTeX (which renders floor and mod well) plus the bit operations."""

    def _print_BitOp(self, expr):
        left, right = (self._bit_operand(a) for a in expr.args)
        return f"{left} {expr.op_latex} {right}"

    # SymPy dispatches a Function subclass on its own class name only. (Plain
    # text comes from BitOp._sympystr, which every StrPrinter asks first.)
    _print_BitXor = _print_BitAnd = _print_ShiftRight = _print_ShiftLeft = _print_BitOp

    def _bit_operand(self, expr) -> str:
        text = self._print(expr)
        return text if _self_delimiting(expr) else rf"\left({text}\right)"

    def _needs_mul_brackets(self, expr, first=False, last=False) -> bool:
        return isinstance(expr, BitOp) or super()._needs_mul_brackets(expr, first, last)

    def _needs_add_brackets(self, expr) -> bool:
        return isinstance(expr, BitOp) or super()._needs_add_brackets(expr)

    def parenthesize(self, item, level, is_neg=False, strict=False):
        if isinstance(item, BitOp):
            return rf"\left({self._print(item)}\right)"
        return super().parenthesize(item, level, is_neg=is_neg, strict=strict)


_LATEX = IndexLatexPrinter()


def latex(expr: sympy.Basic) -> str:
    """LaTeX of an index expression.

    >>> from layoutalg.core.bits import bit_xor, shift_right
    >>> i = sympy.Symbol("i", integer=True, nonnegative=True)
    >>> print(latex(bit_xor(i, shift_right(i, 3))))
    i \\oplus \\left(i \\gg 3\\right)
    """
    return _LATEX.doprint(expr)
