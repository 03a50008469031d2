"""Argument checks of :class:`~layoutalg.linear.LinearLayout`: names, bases, out dims.

Each returns the value in its canonical form (nested tuples of ints, ``(name,
size)`` pairs) or raises one :class:`~layoutalg.errors.LinearLayoutError`
naming the argument, the rule and the value.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping

from layoutalg.errors import describe
from layoutalg.errors import LinearLayoutError
from layoutalg.validate import is_int

Bases = tuple[tuple[str, tuple[tuple[int, ...], ...]], ...]
OutDims = tuple[tuple[str, int], ...]


def _name(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.isidentifier() or keyword.iskeyword(value):
        raise LinearLayoutError(f"LinearLayout: {what} must be a Python identifier such as "
                                f"'lane' or 'dim0'; got {describe(value)}")
    return value


def _pairs(value: object, what: str) -> list[tuple[object, object]]:
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (list, tuple)) and all(
            isinstance(p, (list, tuple)) and len(p) == 2 for p in value):
        return [tuple(p) for p in value]
    raise LinearLayoutError(f"LinearLayout: {what} must be a dict {{name: ...}} or a list of "
                            f"(name, ...) pairs; got {describe(value)}")


def bases_of(value: object) -> Bases:
    """The bases as nested tuples of ints, checked (values ≥ 0, equal lengths)."""
    result = []
    for name, vectors in _pairs(value, "bases"):
        name = _name(name, "an in dim name")
        if not isinstance(vectors, (list, tuple)):
            raise LinearLayoutError(f"LinearLayout: bases[{name!r}] must be a list of basis "
                                    f"vectors such as [[0, 1], [1, 0]]; got {describe(vectors)}")
        rows = []
        for i, vector in enumerate(vectors):
            if not isinstance(vector, (list, tuple)):
                raise LinearLayoutError(f"LinearLayout: bases[{name!r}][{i}] must be a list of "
                                        f"ints (one per out dim); got {describe(vector)}")
            for v in vector:
                if not is_int(v) or v < 0:
                    raise LinearLayoutError(
                        f"LinearLayout: bases[{name!r}][{i}] must hold nonnegative ints; "
                        f"got {describe(list(vector))}")
            rows.append(tuple(int(v) for v in vector))
        result.append((name, tuple(rows)))
    names = [n for n, _ in result]
    if len(set(names)) != len(names):
        raise LinearLayoutError(f"LinearLayout: in dim names must differ; got {names}")
    return tuple(result)


def out_dims_of(value: object, bases: Bases) -> OutDims:
    """Out dims from names (sizes inferred as Triton does) or from name → size."""
    width = {len(v) for _, vs in bases for v in vs}
    if value is None:
        if len(width) > 1:
            raise LinearLayoutError(f"LinearLayout: every basis must have the same length; "
                                    f"got lengths {sorted(width)}")
        value = [f"dim{k}" for k in range(width.pop() if width else 0)]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        names = [_name(v, "an out dim name") for v in value]
        # Triton's inferring constructor: the largest value, rounded up to a power of two.
        top = [max((vs[k] for _, b in bases for vs in b if len(vs) == len(names)), default=0)
               for k in range(len(names))]
        pairs = [(n, 1 << t.bit_length()) for n, t in zip(names, top)]
    else:
        pairs = []
        for name, size in _pairs(value, "out_dims"):
            name = _name(name, "an out dim name")
            if not is_int(size) or size < 1 or size & (size - 1):
                raise LinearLayoutError(f"LinearLayout: out dim {name!r} must have a "
                                        f"power-of-two size; got {describe(size)}")
            pairs.append((name, int(size)))
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names):
        raise LinearLayoutError(f"LinearLayout: out dim names must differ; got {names}")
    return tuple(pairs)


__all__ = ["Bases", "OutDims", "bases_of", "out_dims_of"]
