"""Argument checks shared by the Spyre modules: each raises naming the rule."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from layoutalg.errors import describe
from layoutalg.errors import SpyreError
from layoutalg.validate import first_not_positive, first_out_of_range, is_int


def int_tuple(name: str, value: object, error: type[SpyreError] = SpyreError) -> tuple[int, ...]:
    """``value`` as a tuple of ints, or raise ``error`` naming ``name``."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise error(f"{name} must be a sequence of ints; got {describe(value)}")
    items = list(value)
    for k, item in enumerate(items):
        if not is_int(item):
            raise error(f"{name}[{k}] must be an int; got {describe(item)} in {name}="
                        f"{describe(value)}")
    return tuple(int(item) for item in items)


def positive_ints(name: str, value: object) -> tuple[int, ...]:
    """A tuple of ints, each at least 1."""
    items = int_tuple(name, value)
    bad = first_not_positive(items)
    if bad is not None:
        k, item = bad
        raise SpyreError(f"{name}[{k}] must be a positive int; got {item} in "
                         f"{name}={list(items)}")
    return items


def coordinate(name: str, coord: object, extents: Sequence[int], what: str) -> tuple[int, ...]:
    """A point inside ``extents``: one int per dim, each in ``[0, extent)``."""
    point = int_tuple(name, coord)
    if len(point) != len(extents):
        raise SpyreError(f"{name} must have {len(extents)} ints for {what} {list(extents)}; "
                         f"got {describe(coord)}")
    bad = first_out_of_range(point, extents)
    if bad is not None:
        k, value = bad
        raise SpyreError(f"{name}[{k}] must lie in [0, {extents[k]}) for {what} "
                         f"{list(extents)}; got {value}")
    return point


def listed(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"
