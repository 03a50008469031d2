"""core.bounds.holds_throughout: a relation shown true on a whole box by interval
bounds must be true at every point of it (checked with Python ints), and a
divisor that may be 0 is never shown."""

from __future__ import annotations

import itertools

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.bounds import holds_throughout
from layoutalg.core.space import coordinate

i, j = coordinate("i"), coordinate("j")
RELATIONS = [sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge]


def python_value(kind: str, a: int, x: int, y: int, c: int) -> int:
    return {"mod": x % a + y, "floor": x // a - y, "sum": a * x + y}[kind] - c


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["mod", "floor", "sum"]), st.integers(1, 9), st.integers(0, 12),
       st.integers(0, 5), st.integers(-20, 40), st.sampled_from(range(4)))
def test_shown_means_true_at_every_point(kind, a, top_i, top_j, c, r):
    expr = {"mod": sympy.Mod(i, a, evaluate=False) + j,
            "floor": sympy.floor(i / a) - j, "sum": a * i + j}[kind]
    relation = RELATIONS[r](expr, c, evaluate=False)
    ops = [lambda v: v < 0, lambda v: v <= 0, lambda v: v > 0, lambda v: v >= 0]
    truth = all(ops[r](python_value(kind, a, x, y, c))
                for x, y in itertools.product(range(top_i + 1), range(top_j + 1)))
    if holds_throughout(relation, {i: (0, top_i), j: (0, top_j)}):
        assert truth


def test_the_bounds_that_tt_drops_and_keeps():
    assert holds_throughout(sympy.Lt(sympy.Mod(i, 1024, evaluate=False), 1024), {i: (0, 9999)})
    assert not holds_throughout(sympy.Lt(i, 1000), {i: (0, 1023)})  # i = 1000 fails


def test_a_divisor_that_may_be_zero_is_never_shown():
    m = sympy.Symbol("m", integer=True, nonnegative=True)
    assert not holds_throughout(sympy.Lt(sympy.Mod(i, m, evaluate=False), 10**9),
                                {i: (0, 3), m: (0, 3)})


def test_other_conditions_are_not_shown():
    assert not holds_throughout(sympy.Eq(i, i, evaluate=False), {i: (0, 3)})
    assert holds_throughout(sympy.true, {})
