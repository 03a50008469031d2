"""Argument checks shared by the channel family: one rule per helper."""

from __future__ import annotations

import sympy

from layoutalg.errors import ChannelError
from layoutalg.core.space import Extent
from layoutalg.errors import describe
from layoutalg.validate import is_int


def positive_int(owner: str, name: str, value: object, error=ChannelError) -> int:
    """``value`` as a Python int if it is a positive int (NumPy too, not a bool),
    else raise naming the rule."""
    if not is_int(value) or value < 1:
        raise error(f"{owner}: {name} must be a positive int; got {describe(value)}")
    return int(value)


def nonnegative_int(owner: str, name: str, value: object, error=ChannelError) -> int:
    if not is_int(value) or value < 0:
        raise error(f"{owner}: {name} must be an int >= 0; got {describe(value)}")
    return int(value)


def extent(owner: str, name: str, value: object) -> Extent:
    """A positive int, or a positive integer SymPy expression (a parametric size)."""
    if isinstance(value, sympy.Integer):
        value = int(value)
    if isinstance(value, bool):
        raise ChannelError(f"{owner}: {name} must be a positive int or a positive integer "
                           f"symbol; got {describe(value)}")
    if is_int(value):
        return positive_int(owner, name, value)
    if isinstance(value, sympy.Expr) and value.is_integer and value.is_positive:
        return value
    raise ChannelError(f"{owner}: {name} must be a positive int or a positive integer symbol "
                       f"(declare it with layoutalg.extents); got {describe(value)}")


def choice(owner: str, name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ChannelError(f"{owner}: {name} must be one of {allowed}; got {describe(value)}")
    return value


def is_symbolic(*values: object) -> bool:
    return any(isinstance(v, sympy.Basic) and not isinstance(v, sympy.Integer) for v in values)


def as_int_if_number(value):
    """A SymPy integer becomes an int; anything else is returned unchanged."""
    if isinstance(value, sympy.Integer):
        return int(value)
    return value
