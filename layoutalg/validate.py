"""Argument rules, one place for every family: "positive int", "one of", …

Each rule takes the error class to raise (a :class:`~layoutalg.errors.LayoutError`
subclass: the family's own, so callers can catch it), the argument's name and
the value, and returns the value in its canonical form (a NumPy integer, or
a SymPy integer given as a size, becomes a Python int) or raises one error
whose message names the argument, states the rule and ends with the value::

    [where: ]name must be <rule>; got <value>

``where`` (keyword) names the function or class that was called, e.g.
``Schedule: tiles Ti must be a positive int; got 0``. A bool is never an int
here (``True`` is not a count), a float is never an int (``2.0`` is refused,
not truncated), and nothing is ever silently corrected.

The predicates (:func:`is_int`, :func:`is_bool`, :func:`is_symbolic`) and
finders (:func:`first_not_positive`, :func:`first_out_of_range`) serve callers
that word a message their own way. No family re-checks these rules itself: a
rule that is missing is added here.
"""

from __future__ import annotations

import keyword
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import sympy

from layoutalg.errors import LayoutError, describe

Error = type[LayoutError]
_EXTENTS_HINT = " (declare it with layoutalg.extents)"


# -- predicates and finders ------------------------------------------------------


def is_int(value: object) -> bool:
    """True for a Python or NumPy integer, False for a bool.

    >>> is_int(3), is_int(np.int64(3)), is_int(True), is_int(3.0)
    (True, True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_bool(value: object) -> bool:
    """True for a Python or NumPy bool only: a flag is never a truthy string.

    >>> is_bool(False), is_bool(np.bool_(True)), is_bool("yes"), is_bool(1)
    (True, True, False, False)
    """
    return isinstance(value, (bool, np.bool_))


def is_symbolic(*values: object) -> bool:
    """True if some value is a SymPy expression other than a plain integer.

    >>> M = sympy.Symbol("M", integer=True, positive=True)
    >>> is_symbolic(4, M), is_symbolic(4, sympy.Integer(2))
    (True, False)
    """
    return any(isinstance(v, sympy.Basic) and not isinstance(v, sympy.Integer) for v in values)


def first_not_positive(values: Iterable[object]) -> tuple[int, object] | None:
    """``(k, value)`` of the first entry that is not a positive int, or None.

    >>> first_not_positive((4, 2)), first_not_positive((4, 0, -1)), first_not_positive((1, 2.0))
    (None, (1, 0), (1, 2.0))
    """
    for k, value in enumerate(values):
        if not is_int(value) or value < 1:
            return k, value
    return None


def first_out_of_range(point: Iterable[int], extents: Sequence[int]) -> tuple[int, int] | None:
    """``(k, value)`` of the first coordinate outside ``[0, extents[k])``, or None.

    ``point`` holds ints, one per entry of ``extents`` (check the count first).

    >>> first_out_of_range((0, 3), (2, 4)), first_out_of_range((1, 4), (2, 4))
    (None, (1, 4))
    """
    for k, (value, extent) in enumerate(zip(point, extents)):
        if not 0 <= value < extent:
            return k, value
    return None


def listed(values: Iterable[object]) -> str:
    """Values as a list in a message, without NumPy's reprs: ``[2, 64]``.

    >>> listed((np.int64(2), 64))
    '[2, 64]'
    """
    return "[" + ", ".join(str(v) for v in values) + "]"


def _refuse(error: Error, where: str, name: str, rule: str, shown: str) -> LayoutError:
    prefix = f"{where}: " if where else ""
    return error(f"{prefix}{name} must {rule}; got {shown}")


# -- integers --------------------------------------------------------------------


def integer(error: Error, name: str, value: object, *, where: str = "") -> int:
    """``value`` as a Python int if it is an int of any sign (NumPy too, never a bool).

    >>> integer(LayoutError, "shift", -3)
    -3
    >>> integer(LayoutError, "shift", 3.0, where="Swizzle")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: Swizzle: shift must be an int; got 3.0
    """
    if not is_int(value):
        raise _refuse(error, where, name, "be an int", describe(value))
    return int(value)


def index(error: Error, name: str, value: object, extent: int, *, where: str = "") -> int:
    """``value`` as a Python int if it is an int in ``[0, extent)``.

    >>> index(LayoutError, "ti", np.int64(1), 2)
    1
    >>> index(LayoutError, "ti", 2, 2)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: ti must lie in [0, 2); got 2
    """
    value = integer(error, name, value, where=where)
    if not 0 <= value < extent:
        raise _refuse(error, where, name, f"lie in [0, {extent})", str(value))
    return value


def positive_int(error: Error, name: str, value: object, *, where: str = "",
                 unit: str = "") -> int:
    """``value`` as a Python int if it is an int ≥ 1 (NumPy too, never a bool);
    ``unit`` names what it counts in the message (``a positive int of bytes``).

    >>> positive_int(LayoutError, "rows", np.int32(4))
    4
    >>> positive_int(LayoutError, "rows", True, where="grid")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: grid: rows must be a positive int; got True
    """
    if not is_int(value) or value < 1:
        raise _refuse(error, where, name, "be a positive int" + (f" of {unit}" if unit else ""),
                      describe(value))
    return int(value)


def nonnegative_int(error: Error, name: str, value: object, *, where: str = "") -> int:
    """``value`` as a Python int if it is an int ≥ 0.

    >>> nonnegative_int(LayoutError, "base", -2, where="Swizzle")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: Swizzle: base must be an int >= 0; got -2
    """
    if not is_int(value) or value < 0:
        raise _refuse(error, where, name, "be an int >= 0", describe(value))
    return int(value)


def power_of_two(error: Error, name: str, value: object, *, where: str = "") -> int:
    """``value`` as a Python int if it is 1, 2, 4, 8, …

    >>> power_of_two(LayoutError, "size", 64)
    64
    >>> power_of_two(LayoutError, "size", 48)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: size must be a power of two; got 48
    """
    if not is_int(value) or value < 1 or value & (value - 1):
        raise _refuse(error, where, name, "be a power of two", describe(value))
    return int(value)


def positive_number(error: Error, name: str, value: object, *, where: str = "") -> float | int:
    """``value`` if it is a finite int or float > 0 (seconds, ratios): never a bool,
    NaN or infinity.

    >>> positive_number(LayoutError, "seconds", 0.5)
    0.5
    >>> positive_number(LayoutError, "seconds", float("inf"))
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: seconds must be a positive finite number; got inf
    """
    if is_bool(value) or not isinstance(value, (int, float, np.integer, np.floating)) or not (
            0 < value < float("inf")):
        raise _refuse(error, where, name, "be a positive finite number", describe(value))
    return int(value) if is_int(value) else float(value)


def int_tuple(error: Error, name: str, value: object, *, least: int | None = None,
         where: str = "") -> tuple[int, ...]:
    """A sequence of ints (a list, tuple or NumPy array) as a tuple of Python
    ints; with ``least``, each at least that (``least=1``: positive ints).

    >>> int_tuple(LayoutError, "size", [2, np.int64(3)])
    (2, 3)
    >>> int_tuple(LayoutError, "size", (4, 0), least=1)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: size[1] must be a positive int; got 0 in size=[4, 0]
    """
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise _refuse(error, where, name, "be a sequence of ints", describe(value))
    items = list(value)
    for k, item in enumerate(items):
        if not is_int(item):
            raise _refuse(error, where, f"{name}[{k}]", "be an int",
                          f"{describe(item)} in {name}={describe(value)}")
    result = tuple(int(item) for item in items)
    for k, item in enumerate(result):
        if least is not None and item < least:
            rule = {0: "be an int >= 0", 1: "be a positive int"}.get(least, f"be an int >= {least}")
            raise _refuse(error, where, f"{name}[{k}]", rule,
                          f"{item} in {name}={listed(result)}")
    return result


def int_point(error: Error, name: str, value: object, extents: Sequence[int],
          what: str) -> tuple[int, ...]:
    """A point inside ``extents`` (called ``what`` in the message): one int per
    dim, each in ``[0, extent)``.

    >>> int_point(LayoutError, "coord", (1, 2), (2, 4), "size")
    (1, 2)
    >>> int_point(LayoutError, "coord", (1, 4), (2, 4), "size")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: coord[1] must lie in [0, 4) for size [2, 4]; got 4
    """
    given = int_tuple(error, name, value)
    if len(given) != len(extents):
        raise _refuse(error, "", name, f"have {len(extents)} ints for {what} {list(extents)}",
                      describe(value))
    bad = first_out_of_range(given, extents)
    if bad is not None:
        k, item = bad
        raise _refuse(error, "", f"{name}[{k}]",
                      f"lie in [0, {extents[k]}) for {what} {list(extents)}", str(item))
    return given


# -- sizes: ints or positive integer symbols ---------------------------------------


def positive_size(error: Error, name: str, value: object, *,
                  where: str = "") -> int | sympy.Expr:
    """A positive int, or a positive integer SymPy expression (a parametric size
    from ``layoutalg.extents``); a SymPy or NumPy integer becomes an int.

    >>> M = sympy.Symbol("M", integer=True, positive=True)
    >>> positive_size(LayoutError, "rows", sympy.Integer(4)), positive_size(LayoutError, "n", 2 * M)
    (4, 2*M)
    >>> positive_size(LayoutError, "rows", 2.0)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: rows must be a positive int or a positive integer symbol
    (declare it with layoutalg.extents); got 2.0
    """
    rule = "be a positive int or a positive integer symbol"
    if is_bool(value):
        raise _refuse(error, where, name, rule, describe(value))
    if isinstance(value, sympy.Integer):
        value = int(value)
    if is_int(value):
        return positive_int(error, name, value, where=where)
    if isinstance(value, sympy.Expr) and value.is_integer and value.is_positive:
        return value
    raise _refuse(error, where, name, rule + _EXTENTS_HINT, describe(value))


def positive_sizes(error: Error, name: str, value: object, labels: Sequence[str], *,
          where: str = "") -> tuple:
    """One :func:`positive_size` per label, from a tuple or list of that length.

    >>> positive_sizes(LayoutError, "shape", [4, 2, 8], ("M", "N", "K"))
    (4, 2, 8)
    >>> positive_sizes(LayoutError, "shape", (4, 0, 8), ("M", "N", "K"), where="f")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: f: shape N must be a positive int; got 0
    """
    labels = tuple(labels)
    if not isinstance(value, (tuple, list)) or len(value) != len(labels):
        raise _refuse(error, where, name, f"be a tuple {labels}", describe(value))
    return tuple(positive_size(error, f"{name} {label}", v, where=where)
                 for label, v in zip(labels, value))


def concrete_sizes(error: Error, where: str, subject: object, *values: object) -> None:
    """Refuse symbolic sizes (anything not a Python int) where a number is needed.

    >>> concrete_sizes(LayoutError, "cycles", "M×4", sympy.Symbol("M"), 4)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: cycles: needs concrete sizes (bind the symbols first); got M×4
    """
    if any(not isinstance(v, int) or is_bool(v) for v in values):
        raise error(f"{where}: needs concrete sizes (bind the symbols first); got {subject}")


# -- choices, kinds, names ---------------------------------------------------------


def one_of(error: Error, name: str, value: object, allowed: Sequence[str], *,
           where: str = "") -> str:
    """``value`` if it is one of the strings ``allowed`` (case matters).

    >>> one_of(LayoutError, "dataflow", "OS", ("os", "ws"), where="Schedule")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: Schedule: dataflow must be one of ('os', 'ws'); got 'OS'
    """
    if not isinstance(value, str) or value not in allowed:
        raise _refuse(error, where, name, f"be one of {allowed}", describe(value))
    return value


def instance_of(error: Error, name: str, value: object, kind: type, *, where: str = "") -> None:
    """Refuse ``value`` unless it is a ``kind`` (a Schedule, a Capacities, …).

    >>> instance_of(LayoutError, "schedule", (4, 4), tuple), instance_of(LayoutError, "n", 4, str)
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: n must be a str; got 4
    """
    if not isinstance(value, kind):
        raise _refuse(error, where, name, f"be a {kind.__name__}", describe(value))


def boolean(error: Error, name: str, value: object, *, where: str = "") -> bool:
    """``value`` as a bool if it is one (Python or NumPy): never a truthy string.

    >>> boolean(LayoutError, "strict", np.bool_(True))
    True
    >>> boolean(LayoutError, "strict", "no")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: strict must be True or False; got 'no'
    """
    if not is_bool(value):
        raise _refuse(error, where, name, "be True or False", describe(value))
    return bool(value)


def identifier(error: Error, name: str, value: object, *, where: str = "",
               example: str = "") -> str:
    """``value`` if it is a Python identifier and not a keyword.

    >>> identifier(LayoutError, "in dim", "class", example="'lane'")
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: in dim must be a Python identifier such as 'lane'; got 'class'
    """
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        such = f" such as {example}" if example else ""
        raise _refuse(error, where, name, f"be a Python identifier{such}", describe(value))
    return value


def named_pairs(error: Error, name: str, value: object, *, where: str = "") -> list[tuple]:
    """A dict ``{key: item}`` or a list of ``(key, item)`` pairs, as a list of pairs.

    >>> named_pairs(LayoutError, "b", {"lane": [[1]]}), named_pairs(LayoutError, "b", [("a", 2)])
    ([('lane', [[1]])], [('a', 2)])
    """
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple)) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        return [tuple(p) for p in value]
    raise _refuse(error, where, name, "be a dict {name: ...} or a list of (name, ...) pairs",
                  describe(value))


def all_distinct(error: Error, name: str, values: Sequence[object], *, where: str = "") -> None:
    """Refuse repeated entries.

    >>> all_distinct(LayoutError, "in dim names", ["lane", "lane"])
    Traceback (most recent call last):
    layoutalg.errors.LayoutError: in dim names must differ; got ['lane', 'lane']
    """
    if len(set(values)) != len(values):
        raise _refuse(error, where, name, "differ", repr(list(values)))


__all__ = [
    "all_distinct", "boolean", "concrete_sizes", "first_not_positive",
    "first_out_of_range", "identifier", "index", "instance_of", "int_point", "int_tuple",
    "integer", "is_bool",
    "is_int", "is_symbolic", "listed", "named_pairs", "nonnegative_int", "one_of",
    "positive_int", "positive_number", "positive_size", "positive_sizes", "power_of_two",
]
