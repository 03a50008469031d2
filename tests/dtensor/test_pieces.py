"""``maps.by_pieces``: flat rank and local row among uneven pieces, in plain ints.

The rank and the start of its piece are both written over the ``[row ≥ end]``
terms; pinned here by hand (pytorch#194457: 5 rows over a 2 × 2 mesh are
pieces 2/1/1/1) and, for every row of random pieces (empty ones included),
against a walk over the pieces in Python.
"""

from __future__ import annotations

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.dtensor.maps import by_pieces

X = sympy.Symbol("x", integer=True, nonnegative=True)


def walk(row: int, lengths: list[int]) -> tuple[int, int]:
    """(piece, index in it) of ``row``: the first piece whose end lies past it."""
    start = 0
    for piece, n in enumerate(lengths):
        if row < start + n:
            return piece, row - start
        start += n
    raise AssertionError("row past the pieces")


def at(exprs, row: int) -> tuple[int, int]:
    return tuple(int(sympy.sympify(e).xreplace({X: row})) for e in exprs)


def test_pytorch_194457_pieces_by_hand():
    assert [at(by_pieces(X, [2, 1, 1, 1], 5), r) for r in range(5)] == [
        (0, 0), (0, 1), (1, 0), (2, 0), (3, 0)]


def test_empty_pieces_are_skipped():
    # 4 rows over 3 × 2 nested: pieces 2/0/1/0/1/0 — rank 1, 3 and 5 hold nothing
    assert [at(by_pieces(X, [2, 0, 1, 0, 1, 0], 4), r) for r in range(4)] == [
        (0, 0), (0, 1), (2, 0), (4, 0)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=7).filter(lambda n: sum(n) > 0))
def test_every_row_against_a_walk(lengths):
    size = sum(lengths)
    rank, local = by_pieces(X, lengths, size)
    for row in range(size):
        assert at((rank, local), row) == walk(row, lengths)
