"""``memory_proof._both``/``_box``: the overlap and budget conditions, by plain ints.

The proof joins the constant bounds of two regions into one box per unknown
(the tighter bound of each pair); here every (step, byte) of a small grid is
checked against "both live and both hold it" written out in Python, for
hand-picked regions (disjoint in time, in bytes, touching, nested) and random ones.
"""

from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.mesh.memory_plan import Region
from layoutalg.mesh.memory_proof import BYTE, STEP, _both, _box


def holds(condition, step: int, byte: int) -> bool:
    return bool(condition.xreplace({STEP: step, BYTE: byte}))


def by_hand(a: Region, b: Region, step: int, byte: int) -> bool:
    return all(r.start <= step <= r.end and r.offset <= byte < r.offset + r.size for r in (a, b))


def region(offset, size, start, end) -> Region:
    return Region("t", 0, offset, size, start, end)


CASES = [
    (region(0, 8, 0, 2), region(8, 8, 0, 2)),    # touching bytes: never share one
    (region(0, 8, 0, 1), region(0, 8, 2, 3)),    # same bytes, disjoint steps
    (region(0, 16, 0, 3), region(4, 4, 1, 2)),   # nested: share bytes 4..7 at steps 1..2
    (region(4, 8, 2, 2), region(0, 6, 0, 5)),    # overlap bytes 4, 5 at step 2
]


def test_hand_picked_pairs():
    shared = []
    for a, b in CASES:
        both = _both(a, b)
        points = [(s, x) for s, x in itertools.product(range(6), range(20)) if holds(both, s, x)]
        assert points == [(s, x) for s, x in itertools.product(range(6), range(20))
                          if by_hand(a, b, s, x)]
        shared.append(len(points))
    assert shared == [0, 0, 2 * 4, 1 * 2]


@settings(max_examples=100, deadline=None)
@given(*(st.tuples(st.integers(0, 12), st.integers(1, 8), st.integers(0, 5), st.integers(0, 5))
         for _ in range(2)))
def test_random_pairs(a, b):
    a, b = region(*a), region(*b)
    both = _both(a, b)
    for s, x in itertools.product(range(7), range(22)):
        assert holds(both, s, x) == by_hand(a, b, s, x)


def test_budget_box_is_bytes_past_the_budget_while_live():
    r = region(10, 10, 1, 3)
    over = _box(r.start, r.end, max(r.offset, 16), r.offset + r.size)
    points = [(s, x) for s, x in itertools.product(range(5), range(25)) if holds(over, s, x)]
    assert points == [(s, x) for s in (1, 2, 3) for x in range(16, 20)]
    assert isinstance(over, sympy.And)
