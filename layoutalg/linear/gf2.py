"""Exact linear algebra over GF(2): a matrix is a list of columns, each an int whose bit
``j`` is row ``j``.

Gaussian elimination is exact (Python ints never wrap), so for a linear layout
of fixed power-of-two sizes the rank *is* a proof: injective iff rank = input
bits, surjective iff rank = output bits (Triton's ``isInjective`` /
``isSurjective``, ``include/triton/Tools/LinearLayout.h``, triton-lang/triton).
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce


@dataclass
class Elimination:
    """Columns reduced so far: pivot bit → (reduced column, which columns XOR to it)."""

    pivots: dict[int, tuple[int, int]] = field(default_factory=dict)
    kernel: list[int] = field(default_factory=list)

    def reduce(self, vector: int, combo: int = 0) -> tuple[int, int]:
        """``vector`` minus the span of the pivots, with the combination used."""
        while vector:
            top = vector.bit_length() - 1
            if top not in self.pivots:
                break
            column, used = self.pivots[top]
            vector ^= column
            combo ^= used
        return vector, combo

    def add(self, vector: int, combo: int) -> None:
        rest, used = self.reduce(vector, combo)
        if rest:
            self.pivots[rest.bit_length() - 1] = (rest, used)
        else:
            self.kernel.append(used)


def eliminate(columns: Sequence[int]) -> Elimination:
    """Gaussian elimination of ``columns`` (column ``i`` is combination ``1 << i``)."""
    state = Elimination()
    for i, column in enumerate(columns):
        state.add(column, 1 << i)
    return state


def rank(columns: Sequence[int]) -> int:
    """The rank over GF(2).

    >>> rank([1, 2, 3]), rank([0, 0]), rank([5, 4, 1])
    (2, 0, 2)
    """
    return len(eliminate(columns).pivots)


def kernel(columns: Sequence[int]) -> list[int]:
    """A basis of ``{x : XOR of the columns selected by x = 0}`` (bitmasks over columns).

    >>> kernel([1, 2, 3])
    [7]
    """
    return eliminate(columns).kernel


def apply(columns: Sequence[int], x: int) -> int:
    """``M x``: the XOR of the columns whose bit is set in ``x``.

    >>> apply([1, 2, 12], 0b101)
    13
    """
    return reduce(operator.xor, (c for i, c in enumerate(columns) if x >> i & 1), 0)


def missing_unit(columns: Sequence[int], bits: int) -> int | None:
    """The lowest ``j < bits`` with ``1 << j`` outside the span of ``columns``, or None."""
    state = eliminate(columns)
    return next((j for j in range(bits) if state.reduce(1 << j)[0]), None)


__all__ = ["Elimination", "apply", "eliminate", "kernel", "missing_unit", "rank"]
