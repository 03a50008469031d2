"""``torch.chunk``'s rule, as DTensor applies it, in ints and in SymPy.

pytorch/pytorch ``torch/distributed/tensor/placement_types.py``
(``Shard.local_shard_size_and_offset``, ``Shard._split_tensor``): over ``k``
ranks, chunks of ``c = ⌈s/k⌉``; rank ``a`` holds ``[min(s, a·c), min(s, a·c + c))``
(trailing ranks fewer rows or none). Several mesh dims apply it left to right,
each to the piece the previous one left (``torch/distributed/tensor/_utils.py``,
``_compute_local_shape_and_global_offset``). ``docs/dtensor.md`` shows examples.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import sympy

from layoutalg.core.tiling import ceil_div


def chunk(size: int, parts: int, rank: int) -> tuple[int, int]:
    """``(start, length)`` of rank ``rank``'s chunk of ``size`` rows over ``parts`` ranks.

    >>> [chunk(5, 4, a) for a in range(4)]
    [(0, 2), (2, 2), (4, 1), (5, 0)]
    """
    c = ceil_div(size, parts)
    start = min(size, rank * c)
    return start, min(size, rank * c + c) - start


def nested_chunk(size: int, parts: Sequence[int], ranks: Sequence[int]) -> tuple[int, int]:
    """``(start, length)`` after chunking by ``parts[0]``, then the piece by ``parts[1]`` …

    >>> [nested_chunk(5, (2, 2), (a, b)) for a in range(2) for b in range(2)]
    [(0, 2), (2, 1), (3, 1), (4, 1)]
    """
    start, length = 0, size
    for k, a in zip(parts, ranks):
        offset, length = chunk(length, k, a)
        start += offset
    return start, length


def nested_lengths(size: int, parts: Sequence[int]) -> list[int]:
    """The lengths of every rank's piece, ranks in row-major (lexicographic) order."""
    return [nested_chunk(size, parts, r)[1] for r in itertools.product(*map(range, parts))]


def chunk_expr(size, parts, rank) -> tuple[sympy.Expr, sympy.Expr]:
    """``(start, length)`` as SymPy expressions: the same rule, written with Min/Max.

    Left unevaluated: SymPy's Min/Max compare every pair of arguments by
    assumption queries (most of the time of building torch's rule over
    symbolic sizes) and find nothing to drop here; the function is the same
    to NumPy and Z3, and a substitution of numbers still evaluates it."""
    c = ceil_div(size, parts)
    start = sympy.Min(size, rank * c, evaluate=False)
    end = sympy.Min(size, rank * c + c, evaluate=False)
    return start, sympy.Max(0, end - rank * c, evaluate=False)


def nested_chunk_expr(size, parts: Sequence, ranks: Sequence) -> tuple[sympy.Expr, sympy.Expr]:
    """``nested_chunk`` over SymPy ranks (and sizes)."""
    start, length = sympy.Integer(0), sympy.sympify(size)
    for k, a in zip(parts, ranks):
        offset, length = chunk_expr(length, k, a)
        start = start + offset
    return start, length
