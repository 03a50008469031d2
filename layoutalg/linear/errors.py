"""Errors of the linear-layout family.

Messages name the argument, state the rule and end with the value given,
e.g. ``LinearLayout: bases['lane'][2] must hold one value per out dim
('dim0', 'dim1'); got [1]``.
"""

from __future__ import annotations

from layoutalg.errors import LayoutError


class LinearLayoutError(LayoutError):
    """Bad input to a Triton linear layout or one of its checks.

    Cause: a dimension name that is not an identifier, a basis with the
    wrong number of values, a negative value or one past its out dim's size,
    an out dim size that is not a power of two, layouts whose dimension
    names do not match, or an input point outside the layout. Fix: change
    the argument the message names.
    """


class ConversionError(LinearLayoutError):
    """``convert(a, b)`` (the layout ``a⁻¹∘b``) does not exist.

    Cause: ``a`` is not injective, so an element of ``b``'s image has two
    places in ``a`` (the message shows the two inputs of ``a``), or some
    element ``b`` holds is nowhere in ``a`` (the message shows the input of
    ``b``). Fix: choose an ``a`` that holds every element of ``b`` exactly
    once, or ask :func:`~layoutalg.linear.check_conversion` for the verdict.
    """


__all__ = ["ConversionError", "LinearLayoutError"]
