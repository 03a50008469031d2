"""Coordinates and parameters never share a name (issue 11, item 7).

Expressions are rebound to canonical symbols by name, so a dimension named
like an extent parameter turned the coordinate into the size: the identity
on ``Space(K=K)`` became the constant ``K``, and its equivalence with that
constant was PROVED. Such a name clash is refused, and so is a look-alike
symbol declared with a property its namesake lacks (SymPy has already used
the property by the time the symbol would be rebound).
"""

from __future__ import annotations

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import MapError, SpaceError

K, M = la.extents("K M")


def test_a_dimension_named_like_its_own_extent_parameter_is_refused():
    with pytest.raises(SpaceError, match=r"dimension 'K' of Space\(K=K\) has the name of the "
                                          r"parameter K; .*rename one of them"):
        la.Space(K=K)


def test_a_dimension_named_like_another_dimensions_parameter_is_refused():
    with pytest.raises(SpaceError, match="dimension 'K'"):
        la.Space(i=K, K=4)


@pytest.mark.parametrize(
    ("domain", "codomain"),
    [(la.Space(K=4), la.Space(o=K)), (la.Space(i=K), la.Space(K=8))],
    ids=["domain-dim", "codomain-dim"],
)
def test_a_map_whose_dimension_is_named_like_a_parameter_is_refused(domain, codomain):
    rule = "dimension 'K' of map clash has the name of the parameter K"
    with pytest.raises(MapError, match=rule):
        la.IndexMap(domain, codomain, [0], name="clash")


def test_a_parameter_beyond_the_extents_named_like_a_dimension_is_refused():
    stride = sympy.Symbol("o", integer=True, positive=True)
    dom = la.Space(i=4)
    (i,) = dom.symbols
    with pytest.raises(MapError, match="dimension 'o' .* parameter o"):
        la.IndexMap(dom, la.Space(o=8), [stride * i])


def test_the_identity_and_the_size_are_told_apart_once_the_names_differ():
    # The reproducer, with the dimension renamed as the error asks.
    dom = la.Space(k=K)
    (k,) = dom.symbols
    identity = la.IndexMap(dom, dom, [k], name="identity")
    constant = la.IndexMap(dom, dom, [K - 1], name="last")
    assert identity.exprs == (k,) and identity.exprs[0] != K
    result = la.check_equivalent(identity, constant)
    assert result.status is la.Status.REFUTED
    size = result.counterexample["K"]
    point = result.counterexample["k"]
    assert point != size - 1
    assert identity.bind(K=size)(point) != constant.bind(K=size)(point)


def test_a_coordinate_look_alike_declared_positive_is_refused():
    # Built with i > 0, SymPy folds Max(i - 1, 0) to i - 1, which is -1 at i = 0.
    i = sympy.Symbol("i", integer=True, positive=True)
    written = sympy.Max(i - 1, 0)
    assert written == i - 1
    with pytest.raises(MapError, match=r"exprs\[0\] uses symbol i declared positive=True, which "
                                       r"the coordinate i of the same name is not known to be"):
        la.IndexMap(la.Space(i=4), la.Space(o=4), [written])


def test_a_parameter_look_alike_declared_even_is_refused():
    even = sympy.Symbol("M", integer=True, even=True)
    dom = la.Space(i=M)
    (i,) = dom.symbols
    with pytest.raises(MapError, match="symbol M declared even=True, which the parameter M"):
        la.IndexMap(dom, la.Space(o=M), [(i + even // 2) % M])


@pytest.mark.parametrize(
    "look_alike",
    [sympy.Symbol("i"), sympy.Symbol("i", integer=True), sympy.Symbol("i", nonnegative=True)],
    ids=["plain", "integer", "nonnegative"],
)
def test_weaker_look_alikes_are_still_rebound(look_alike):
    dom = la.Space(i=4)
    m = la.IndexMap(dom, la.Space(o=8), [2 * look_alike])
    assert m.exprs == (2 * dom.symbols[0],)
    assert [m(v) for v in range(4)] == [(0,), (2,), (4,), (6,)]


def test_a_plain_parameter_look_alike_is_rebound_to_the_parameter():
    dom = la.Space(i=M)
    (i,) = dom.symbols
    m = la.IndexMap(dom, la.Space(o=M), [sympy.Symbol("M") - 1 - i])
    assert m.parameters == {M}
    assert [m.bind(M=3)(v) for v in range(3)] == [(2,), (1,), (0,)]
