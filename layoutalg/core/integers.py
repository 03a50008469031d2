"""Integer values as NumPy arrays: int64 when every one fits, else exact Python ints.

The evaluator (:mod:`layoutalg.core.evaluate`) takes its inputs through
:func:`narrow`. Values must be integers: Python ints, NumPy integers, bools,
anything with ``__index__`` (a SymPy ``Integer``), or floats with an integral
value (``2.0``), alike in a typed array and in an object array. Anything else
(``2.5``, ``Fraction(5, 2)``, the string ``'3'``, ``None``, ``nan``, ``1j``) is
refused, never rounded or parsed: ``int()`` would make 2 of 2.5 and 3 of '3'.

>>> narrow(np.array([1, 2**64], dtype=object)).tolist()
[1, 18446744073709551616]
>>> narrow([1, 2]).dtype
dtype('int64')
>>> narrow(np.array([1, 2.5], dtype=object), "the values of i")
Traceback (most recent call last):
...
layoutalg.core.expr.Unsupported: values must be integers (ints, NumPy integers, bools or floats with an integral value); the values of i hold 2.5 (a float) at index (1,)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from layoutalg.core.bounds import INT64_LIMIT
from layoutalg.core.expr import Unsupported

INT64_MIN = -(2**63)
_RULE = "values must be integers (ints, NumPy integers, bools or floats with an integral value)"


def narrow(value: object, what: str = "the values") -> np.ndarray:
    """Integer ``value`` as int64 when every one fits, else an object array of
    Python ints; ``Unsupported`` naming ``what``, the rule and the first value
    that is not an integer."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return shrink(int(value))
    array = np.asarray(value)
    kind = array.dtype.kind
    if kind == "u" and array.dtype.itemsize == 8 and array.size and array.max() > INT64_LIMIT:
        return array.astype(object)
    if kind in "iub":
        return array.astype(np.int64, copy=False)
    if kind == "O":
        return shrink(_exact_ints(array, what))
    if kind == "f":
        integral = np.isfinite(array) & (array == np.floor(array))
        if integral.all():
            # Integral floats, exactly (a cast would wrap or saturate past int64).
            return shrink(np.frompyfunc(int, 1, 1)(array))
        at = np.unravel_index(int(np.argmin(integral)), array.shape)
        raise _refuse(array[at].item(), what, at, f" (an array of {array.dtype})")
    at = (0,) * array.ndim
    sample = array[at].item() if array.size else None
    raise Unsupported(f"{_RULE}; {what} are an array of {array.dtype}"
                      + (f" holding {sample!r} at index {at}" if array.size else ""))


def shrink(exact: object) -> np.ndarray:
    """Python ints (one, or an object array of them) as int64 when all fit."""
    if isinstance(exact, int):
        return np.asarray(exact, dtype=np.int64 if fits(exact, exact) else object)
    exact = np.asarray(exact, dtype=object)
    return exact.astype(np.int64) if exact.size == 0 or fits(exact.min(), exact.max()) else exact


def fits(low: int, high: int) -> bool:
    """Whether ``[low, high]`` lies inside int64."""
    return INT64_MIN <= low and high <= INT64_LIMIT


def _integer(value: object) -> int | None:
    """``value`` as a Python int, or None when it is not an integer."""
    if type(value) is int:
        return value
    if isinstance(value, (float, np.floating)):
        return int(value) if math.isfinite(value) and value == math.floor(value) else None
    if isinstance(value, np.bool_):
        return int(value)
    try:
        return operator.index(value)   # int, bool, NumPy and SymPy integers
    except TypeError:
        return None


_INDEX = np.frompyfunc(operator.index, 1, 1)   # C speed; refuses floats and NumPy bools
_TO_INT = np.frompyfunc(_integer, 1, 1)


def _exact_ints(array: np.ndarray, what: str) -> np.ndarray:
    """An object array's elements as Python ints, or ``Unsupported`` at the first other."""
    try:
        return np.asarray(_INDEX(array), dtype=object)   # a 0-d input gives a scalar
    except TypeError:
        pass
    converted = np.asarray(_TO_INT(array), dtype=object)
    missing = np.equal(converted, None)
    if missing.any():
        at = np.unravel_index(int(np.argmax(missing)), array.shape)
        raise _refuse(array[at], what, at)
    return converted


def _refuse(value: object, what: str, at: tuple, note: str = "") -> Unsupported:
    kind = type(value).__name__
    return Unsupported(f"{_RULE}; {what} hold {value!r} (a {kind}) at index "
                       f"{tuple(int(k) for k in at)}{note}")
