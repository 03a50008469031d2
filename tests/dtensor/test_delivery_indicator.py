"""``plan._indicator``: 1 where the delivery condition holds, else 0, built as it stands.

SymPy's ``ExprCondPair`` folds a ``Piecewise`` inside a condition out through
the whole condition (and rewrites it via ``as_set``) even with
``evaluate=False``; the indicator skips that. These tests pin that the
function is unchanged: its value at every point equals the condition
evaluated in plain Python, through NumPy, and through Z3 (a proof that it
is 1 exactly where the condition holds).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.core.index_map import IndexMap
from layoutalg.core.space import Space
from layoutalg.dtensor.plan import _indicator
from layoutalg.errors import DTensorError
from layoutalg.verify.checks import check_equivalent

SPACE = Space(x=7, y=5)
X, Y = SPACE.symbols


def chunk_rows(x):
    """A Piecewise chunk length inside a condition, as ``dtensor`` writes pieces."""
    return sympy.Piecewise((2, x < 2), (1, True))


def by_hand(x: int, y: int, bound: int) -> bool:
    return (2 if x < 2 else 1) + y < bound and x % 3 != 1


def condition(bound: int):
    return sympy.And(sympy.Lt(chunk_rows(X) + Y, bound), sympy.Ne(sympy.Mod(X, 3), 1))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 8))
def test_values_are_the_condition(bound):
    flag = _indicator(condition(bound))
    m = IndexMap(SPACE, Space(flag=2), [flag], name="flag")
    for x, y in np.ndindex(7, 5):
        assert m(x, y) == (int(by_hand(x, y, bound)),)
        assert flag.xreplace({X: x, Y: y}) == int(by_hand(x, y, bound))


def test_the_condition_is_kept_as_written():
    cond = condition(4)
    flag = _indicator(cond)
    assert isinstance(flag, sympy.Piecewise)
    assert flag.args[0].cond is cond and flag.args[1].cond is sympy.true
    assert (flag.args[0].expr, flag.args[1].expr) == (1, 0)


def test_z3_proves_it_equals_the_folded_form():
    """Against SymPy's own (folding) Piecewise, for every point: Z3 decides."""
    cond = condition(4)
    folded = sympy.Piecewise((1, cond), (0, True))
    ours = IndexMap(SPACE, Space(flag=2), [_indicator(cond)], name="ours")
    theirs = IndexMap(SPACE, Space(flag=2), [folded], name="sympy")
    assert check_equivalent(ours, theirs).proved
    wrong = IndexMap(SPACE, Space(flag=2), [_indicator(condition(5))], name="other bound")
    assert check_equivalent(wrong, theirs).refuted


def test_settled_conditions_are_constants_and_non_booleans_refused():
    assert _indicator(sympy.true) == 1 and _indicator(sympy.false) == 0
    with pytest.raises(DTensorError, match="Boolean"):
        _indicator(X + 1)
