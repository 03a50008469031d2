"""Argument rules of the dataflow family (schedules, capacities, costs, sweeps);
each refusal is a :class:`~layoutalg.errors.DataflowError`."""

from __future__ import annotations

import numbers

import sympy

from layoutalg.errors import DataflowError, describe
from layoutalg.validate import is_int


def check_choice(where: str, name: str, value: object, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else a DataflowError naming them."""
    if not isinstance(value, str) or value not in choices:
        raise DataflowError(f"{where}: {name} must be one of {choices}; got {describe(value)}")
    return value


def check_size(where: str, name: str, value: object) -> int | sympy.Expr:
    """A positive int or a positive integer SymPy expression (a symbolic size)."""
    if isinstance(value, bool):
        raise DataflowError(f"{where}: {name} must be a positive int or a positive integer "
                            f"symbol; got {describe(value)}")
    if isinstance(value, (sympy.Integer, numbers.Integral)):
        value = int(value)  # NumPy and SymPy integers become plain ints
    if isinstance(value, int):
        if value < 1:
            raise DataflowError(f"{where}: {name} must be a positive int; got {value}")
        return value
    if isinstance(value, sympy.Expr) and value.is_integer and value.is_positive:
        return value
    raise DataflowError(f"{where}: {name} must be a positive int or a positive integer symbol "
                        f"(layoutalg.extents); got {describe(value)}")


def check_triple(where: str, name: str, value: object, labels: tuple[str, str, str]) -> tuple:
    """A 3-tuple of sizes, each checked with :func:`check_size`."""
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        raise DataflowError(f"{where}: {name} must be a tuple {labels}; got {describe(value)}")
    return tuple(check_size(where, f"{name} {label}", v) for label, v in zip(labels, value))


def check_count(where: str, name: str, value: object) -> int:
    """A positive int (Python or NumPy, no symbols), as a Python int."""
    if not is_int(value) or value < 1:
        raise DataflowError(f"{where}: {name} must be a positive int; got {describe(value)}")
    return int(value)


def check_kind(where: str, name: str, value: object, kind: type) -> None:
    """Refuse ``value`` unless it is a ``kind`` (a Schedule, a Capacities, ...)."""
    if not isinstance(value, kind):
        raise DataflowError(f"{where}: {name} must be a {kind.__name__}; got {describe(value)}")


def require_concrete(where: str, subject: object, *sizes: object) -> None:
    """Refuse symbolic sizes where a number is needed."""
    if any(not isinstance(s, int) for s in sizes):
        raise DataflowError(f"{where}: needs concrete sizes (bind the symbols first); "
                            f"got {subject}")
