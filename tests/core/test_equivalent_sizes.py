"""Issue 15 item 6: comparing layouts of different sizes is an answer.

``la.check_equivalent`` on domains of equal rank and different concrete
extents is REFUTED "sizes differ", with a point that lies in one domain only
(before, a MapError about equal extents). Different ranks stay bad input.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from agreement import agree
from layoutalg.verify import brute


def in_domain(space: la.Space, point: dict) -> bool:
    return all(0 <= point[n] < e for n, e in zip(space.names, space.extents))


def test_two_and_three_elements_are_not_equivalent():
    r = la.check_equivalent(la.identity(la.Space(i=2)), la.identity(la.Space(i=3)))
    assert r.refuted
    assert r.counterexample == {"i": 2}        # the index only the larger one has
    assert r.reason == "sizes differ: [i:2] vs [i:3]; (i=2) lies in one domain only"


def test_different_ranks_are_still_bad_input():
    with pytest.raises(la.MapError, match="equal extents"):
        la.check_equivalent(la.identity(la.Space(i=4, j=8)), la.identity(la.Space(i=2)))


def test_equal_sizes_still_go_to_the_solver():
    a = la.strided((4,), (1,))
    assert la.check_equivalent(a, la.strided((2, 2), (1, 2))).proved


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3),
       st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_z3_side_and_enumeration_agree_and_the_point_is_in_one_domain_only(e1, e2):
    n = min(len(e1), len(e2))
    d1 = la.Space(**{f"a{k}": e for k, e in enumerate(e1[:n])})
    d2 = la.Space(**{f"b{k}": e for k, e in enumerate(e2[:n])})
    m1, m2 = la.identity(d1), la.identity(d2)
    proved, enumerated = la.check_equivalent(m1, m2), brute.check_equivalent(m1, m2)
    agree(proved, enumerated)
    if e1[:n] == e2[:n]:
        assert proved.proved
        return
    for result in (proved, enumerated):
        point = tuple(result.counterexample.values())
        inside = [point in set(itertools.product(*(range(e) for e in d.extents)))
                  for d in (d1, d2)]
        assert inside.count(True) == 1, (result, inside)
