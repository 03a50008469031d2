"""Argument rules shared by the layout families, without their wording.

Each family words its errors its own way (``index: coordinate 1 must lie in
…`` for mesh, ``coord[1] must lie in …`` for Spyre) and raises its own error
class, so these helpers only find the offending entry; the caller raises.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


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


__all__ = ["first_not_positive", "first_out_of_range", "is_bool", "is_int"]
