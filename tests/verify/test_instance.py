"""Example sizes for pictures of parametric maps meet the map's assumptions."""

from __future__ import annotations

import sympy
from hypothesis import given
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.verify.instance import example_sizes

A, B, C = la.extents("A B C")
SYMBOLS = (A, B, C)


def grid(*extents):
    return la.linearize(la.Space(**{f"d{k}": e for k, e in enumerate(extents)}))


conditions = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(SYMBOLS), st.sampled_from(SYMBOLS)).map(
            lambda pair: sympy.Eq(pair[0] % pair[1], 0)),
        st.tuples(st.sampled_from(SYMBOLS), st.integers(1, 15)).map(
            lambda pair: sympy.Gt(pair[0], pair[1])),
        st.tuples(st.sampled_from(SYMBOLS), st.integers(2, 4)).map(
            lambda pair: sympy.Eq(pair[0] % pair[1], 1)),
    ),
    max_size=3,
)


def brute_sizes(assume):
    """Any sizes in 1..12 meeting every condition, by enumeration."""
    for a in range(1, 13):
        for b in range(1, 13):
            for c in range(1, 13):
                values = {A: a, B: b, C: c}
                if all(bool(cond.subs(values)) for cond in assume):
                    return values
    return None


@given(conditions)
def test_sizes_exist_exactly_when_enumeration_finds_some_and_meet_every_condition(assume):
    sizes = example_sizes(grid(A, B, C), assume)
    if brute_sizes(assume) is None:
        assert sizes is None
        return
    assert sizes is not None
    values = {A: sizes["A"], B: sizes["B"], C: sizes["C"]}
    assert all(bool(cond.subs(values)) for cond in assume)
    assert all(1 <= v <= 12 for v in sizes.values())


def test_tensor_extents_come_out_larger_than_the_other_sizes():
    M, P = la.extents("M P")
    tiles = la.split(la.Space(i=M), "i", P, names=("mem", "row"))
    sizes = example_sizes(tiles)
    assert sizes["M"] > sizes["P"] >= 2


def test_a_concrete_map_needs_no_sizes_and_contradictions_give_none():
    assert example_sizes(grid(4, 5)) == {}
    assert example_sizes(grid(A), [sympy.Gt(A, 5), sympy.Lt(A, 3)]) is None


def test_sizes_meet_an_assumption_naming_a_size_the_map_lacks():
    """A spec may bound a capacity the map does not mention (proofs/dataflow.py:
    tiles fit a symbolic L2); the picture's sizes must meet it, not refuse it."""
    M, N, L2 = la.extents("M N L2")
    assume = [sympy.Le(4 * M * N, L2), sympy.Le(L2, 300)]
    sizes = example_sizes(grid(M, N), assume)
    assert set(sizes) == {"M", "N"}
    assert 4 * sizes["M"] * sizes["N"] <= 300
    assert example_sizes(grid(M, N), [sympy.Le(4 * M * N, L2), sympy.Le(L2, 3)]) is None
