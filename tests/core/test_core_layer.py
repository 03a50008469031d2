"""The core builds maps out of a Space; following an IndexMap (a proved composition) is verify's.

Issue 12, item 6: the core imports nothing above it, so the core's combinators
take a Space only, and ``la.split`` & co. (``layoutalg.verify.combinators``)
follow an IndexMap by ``compose``. Expected values are worked out by hand.
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.core import combinators as steps
from layoutalg.core.exact import Memo, is_exact, mark_exact
from layoutalg.errors import CompositionError, MapError
from layoutalg.verify import combinators


def test_a_core_combinator_refuses_a_map_and_says_what_follows_one():
    m = la.permute(la.Space(a=3, b=5), ["b", "a"])
    with pytest.raises(MapError, match=r"space must be a Space \(to follow an IndexMap, use "
                                       r"layoutalg's combinators, e\.g\. la\.split.*got IndexMap"):
        steps.split(m, "b", 2)
    with pytest.raises(MapError, match=r"^space must be a Space; got 3$"):
        steps.linearize(3)


def test_the_facade_combinators_are_verifys_and_follow_a_map():
    assert la.split is combinators.split and la.compose is combinators.compose
    m = la.permute(la.Space(a=3, b=5), ["b", "a"])
    tiled = la.split(m, "b", 2)
    # by hand: (a=2, b=3) -> permute -> (b=3, a=2) -> split b by 2 -> (1, 1, 2)
    assert tiled(2, 3) == (1, 1, 2)
    assert tiled.codomain.names == ("b_o", "b_i", "a")
    assert tiled.codomain.extents == (3, 2, 3)
    # b = 5 is not a multiple of 2: slot (2, 1, a) is padding, (2, 0, a) holds b = 4
    assert tiled.preimage(2, 1, 0) is None and tiled.preimage(2, 0, 1) == (1, 4)


def test_a_step_after_a_map_is_the_core_step_out_of_its_codomain_composed():
    m = la.permute(la.Space(a=3, b=4), ["b", "a"])
    step = steps.linearize(m.codomain)
    direct = la.compose(m, step)
    lifted = la.linearize(m)
    assert lifted.exprs == direct.exprs and lifted.inverse == direct.inverse
    assert lifted.label == "permute('b', 'a') ▷ linearize"
    # by hand: (a, b) -> (b, a) -> b * 3 + a
    assert [lifted(a, b) for a, b in ((0, 0), (2, 0), (0, 1), (2, 3))] == [(0,), (2,), (3,), (11,)]


def test_a_map_that_escapes_the_next_domain_is_still_refused_after_the_move():
    # x -> x + 2 sends 0..3 to 2..5, which leaves the codomain x < 4: compose refutes it
    s = la.Space(x=4)
    shifted = la.IndexMap(s, s, [s.symbols[0] + 2])
    with pytest.raises(CompositionError, match=r"must lie in its codomain"):
        la.split(shifted, "x", 2)


def test_exactness_is_bookkeeping_keyed_by_everything_but_the_name():
    s = la.Space(i=6)
    (i,) = s.symbols
    m = la.IndexMap(s, s, [5 - i], inverse=[5 - i], name="reverse")
    assert not is_exact(m)
    assert mark_exact(m) is m and is_exact(m) and is_exact(m.renamed("flip"))
    assert not is_exact(la.IndexMap(s, s, [5 - i], inverse=[5 - i], valid=sympy.Lt(i, 5)))
    assert is_exact(steps.split(la.Space(n=7), "n", 3))  # a core step is exact by construction


def test_the_memo_forgets_the_least_recently_used_first():
    memo = Memo(size=2)
    memo.put("a", 1)
    memo.put("b", 2)
    assert memo.get("a") == 1  # "a" used last: "b" goes first
    memo.put("c", 3)
    assert memo.get("b") is None and memo.get("a") == 1 and memo.get("c") == 3


def test_a_new_dim_may_be_called_space():
    # the Space is positional-only in the core, so a keyword "space" names a dim
    assert steps.rename(la.Space(space=2), space="x").codomain.names == ("x",)
    assert la.rename(la.Space(space=2), space="x").codomain.names == ("x",)
    m = steps.delinearize(la.Space(i=6), "i", space=2, j=3)
    assert m.codomain.names == ("space", "j") and m(5) == (1, 2)  # 5 = 1*3 + 2
    assert la.delinearize(la.Space(i=6), dim="i", a=2, b=3)(4) == (1, 1)  # 4 = 1*3 + 1
