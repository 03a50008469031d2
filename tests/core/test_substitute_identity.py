"""core.index_map.substitute leaves out symbols mapped to themselves: nothing
is rebuilt (so nothing re-evaluated) where nothing changes, and the rest is
substituted as before. Values are held to plain Python."""

from __future__ import annotations

import itertools

import sympy

from layoutalg.core.index_map import substitute, substitute_exprs

i, j = sympy.symbols("i j", integer=True, nonnegative=True)
M = sympy.Symbol("M", integer=True, positive=True)


def test_an_identity_mapping_returns_the_expression_itself():
    e = sympy.Mod(i, 4, evaluate=False) + sympy.floor(i / 3) + j
    assert substitute(e, {i: i, j: j}) is e
    assert substitute_exprs([e], (i, j), (i, j))[0] is e


def test_the_identity_pairs_are_left_out_and_the_rest_substituted():
    e = sympy.Mod(i, M - 1) - sympy.Mod(j, M - 1) + i
    mixed = substitute(e, {i: i, j: i})  # j -> i cancels the Mods: the witness stays
    assert mixed.has(sympy.Mod)  # the divisor M - 1 (0 at M = 1) is kept
    for x, m in itertools.product(range(6), range(2, 6)):
        assert int(mixed.subs({i: x, M: m})) == x % (m - 1) - x % (m - 1) + x
