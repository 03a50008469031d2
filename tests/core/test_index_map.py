"""IndexMap: construction, canonicalization, evaluation, preimage, bind, text
forms, value semantics and bad input."""

import dataclasses
import itertools

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.errors import MapError

S = la.Space


def plain(*names):
    """Plain SymPy symbols, without assumptions (as a user would write them)."""
    return sympy.symbols(names)


def every_point(space):
    return list(itertools.product(*(range(e) for e in space.extents)))


def tile_map(name="tile"):
    """[i:16, j:3] → [a:4, b:4, c:3]; (i, j) ↦ (i // 4, i % 4, j)."""
    dom, cod = S(i=16, j=3), S(a=4, b=4, c=3)
    i, j = dom.symbols
    a, b, c = cod.symbols
    return la.IndexMap(dom, cod, [i // 4, i % 4, j], inverse=[4 * a + b, c], name=name)


# -- construction -----------------------------------------------------------------


def test_sequence_exprs_are_stored_per_codomain_dim():
    dom, cod = S(i=4, j=8), S(o=32)
    i, j = dom.symbols
    m = la.IndexMap(dom, cod, [8 * i + j], name="row_major")
    assert m.domain == dom and m.codomain == cod
    assert m.exprs == (8 * i + j,)
    assert m.inverse is None and m.valid is None
    assert m.name == "row_major"


def test_mapping_exprs_are_ordered_by_codomain_names():
    dom, cod = S(i=4, j=8), S(r=8, c=4)
    i, j = dom.symbols
    by_name = la.IndexMap(dom, cod, {"c": i, "r": j})
    by_position = la.IndexMap(dom, cod, [j, i])
    assert by_name.exprs == (j, i)
    assert by_name == by_position


def test_plain_symbols_are_rebound_to_the_domain_coordinates():
    i, j = plain("i", "j")
    dom = S(i=4, j=8)
    m = la.IndexMap(dom, S(o=32), [8 * i + j])
    assert m.exprs[0].free_symbols == set(dom.symbols)
    for symbol in m.exprs[0].free_symbols:
        assert symbol.is_integer and symbol.is_nonnegative
    # ... so it equals the map written with the canonical symbols.
    ci, cj = dom.symbols
    assert m == la.IndexMap(dom, S(o=32), [8 * ci + cj])
    assert m(1, 2) == (10,)


def test_plain_symbols_in_inverse_and_valid_are_rebound_to_codomain_coordinates():
    (i,) = plain("i")
    a, b = plain("a", "b")
    dom, cod = S(i=10), S(a=3, b=4)
    m = la.IndexMap(dom, cod, [i // 4, i % 4], inverse=[4 * a + b], valid=4 * a + b < 10)
    assert m.inverse[0].free_symbols == set(cod.symbols)
    assert m.valid.free_symbols == set(cod.symbols)
    assert m.preimage(2, 1) == (9,)
    assert m.preimage(2, 2) is None


def test_plain_symbol_named_like_a_parameter_is_rebound_to_it():
    (M,) = la.extents("M")
    (m_plain,) = plain("M")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=2 * M), [i + m_plain])
    assert M in m.exprs[0].free_symbols
    assert m.parameters == frozenset({M})


def test_valid_true_is_the_same_as_no_valid():
    dom = S(i=4)
    (i,) = dom.symbols
    assert la.IndexMap(dom, dom, [i], valid=True) == la.IndexMap(dom, dom, [i])
    assert la.IndexMap(dom, dom, [i], valid=sympy.true).valid is None


# -- evaluation -------------------------------------------------------------------


def test_point_evaluation_matches_the_formula_everywhere():
    m = tile_map()
    for i, j in every_point(m.domain):
        assert m(i, j) == (i // 4, i % 4, j)


def test_point_evaluation_returns_plain_ints():
    m = tile_map()
    image = m(np.int64(13), 2)
    assert image == (3, 1, 2)
    assert all(type(v) is int for v in image)


def test_apply_agrees_with_point_evaluation_over_the_whole_domain():
    m = tile_map()
    points = np.array(every_point(m.domain), dtype=np.int64)
    columns = m.apply(*points.T)
    assert len(columns) == m.codomain.rank
    table = np.stack(columns, axis=1)
    assert table.shape == (m.domain.size, m.codomain.rank)
    for point, row in zip(points, table):
        assert tuple(int(v) for v in row) == m(*(int(p) for p in point))


def test_apply_broadcasts_constant_expressions():
    dom = S(i=5)
    (i,) = dom.symbols
    m = la.IndexMap(dom, S(a=1, b=5), [0, i])
    a, b = m.apply(np.arange(5))
    assert a.shape == b.shape == (5,)
    assert a.tolist() == [0] * 5
    assert b.tolist() == [0, 1, 2, 3, 4]


def test_floor_and_mod_evaluate_exactly_beyond_float_precision():
    big = 2**60 + 3
    dom = S(i=big)
    (i,) = dom.symbols
    m = la.IndexMap(dom, S(q=2**58 + 1, r=4), [i // 4, i % 4])
    x = big - 1  # 2**60 + 2
    assert m(x) == (x // 4, x % 4)
    q, r = m.apply(np.array([x], dtype=np.int64))
    assert (int(q[0]), int(r[0])) == (x // 4, x % 4)


def test_min_max_and_piecewise_evaluate():
    dom = S(i=6)
    (i,) = dom.symbols
    m = la.IndexMap(
        dom, S(a=6, b=6, c=6),
        [sympy.Min(i, 3), sympy.Max(i, 2), sympy.Piecewise((i, i < 3), (5 - i, True))],
    )
    for x in range(6):
        assert m(x) == (min(x, 3), max(x, 2), x if x < 3 else 5 - x)


# -- preimage ---------------------------------------------------------------------


def test_preimage_inverts_every_image():
    m = tile_map()
    for point in every_point(m.domain):
        assert m.preimage(*m(*point)) == point


def test_preimage_is_none_exactly_on_padding_slots():
    dom, cod = S(i=10), S(a=3, b=4)
    (i,) = dom.symbols
    a, b = cod.symbols
    m = la.IndexMap(dom, cod, [i // 4, i % 4], inverse=[4 * a + b])
    images = {(x // 4, x % 4) for x in range(10)}
    for slot in every_point(cod):
        expected = (4 * slot[0] + slot[1],) if slot in images else None
        assert m.preimage(*slot) == expected


def test_preimage_without_inverse_is_refused_naming_the_map():
    dom = S(i=4)
    (i,) = dom.symbols
    m = la.IndexMap(dom, dom, [3 - i], name="reverse")
    with pytest.raises(MapError, match=r"preimage needs an inverse; map reverse has none"):
        m.preimage(0)


def test_preimage_checks_the_slot_range():
    with pytest.raises(MapError, match=r"slot a must lie in \[0, 4\); got 4"):
        tile_map().preimage(4, 0, 0)


# -- bind -------------------------------------------------------------------------


def test_bind_makes_a_parametric_map_concrete():
    M, N = la.extents("M N")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=M * N), [N * i], name="stretch")
    bound = m.bind(M=5, N=3)
    assert bound.domain == S(i=5)
    assert bound.codomain == S(o=15)
    assert bound.is_concrete and not bound.parameters
    assert bound.name == "stretch"
    assert [bound(x) for x in range(5)] == [(3 * x,) for x in range(5)]


def test_bind_reaches_parameters_that_only_appear_in_expressions():
    (D,) = la.extents("D")
    (i,) = plain("i")
    m = la.IndexMap(S(i=4), S(o=16), [D * i])
    assert m.parameters == frozenset({D})
    assert m.bind(D=3)(2) == (6,)


def test_bind_rejects_unknown_names_and_bad_values():
    (M,) = la.extents("M")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=M), [i], name="ident")
    with pytest.raises(MapError, match=r"bind: 'N' is not a parameter of ident; its parameters are \['M'\]"):
        m.bind(N=3)
    with pytest.raises(MapError, match=r"bind: M must be a positive int; got 0"):
        m.bind(M=0)
    with pytest.raises(MapError, match=r"bind: M must be a positive int; got 2\.0"):
        m.bind(M=2.0)
    with pytest.raises(MapError, match=r"bind: M must be a positive int; got True"):
        m.bind(M=True)


def test_bind_that_violates_an_assumption_is_not_silently_accepted():
    M, N = la.extents("M N")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=N), [i], name="embed").assuming(sympy.Le(M, N))
    try:
        bound = m.bind(M=5, N=3)
    except la.LayoutError:
        return  # refusing the binding is a fine answer
    # i = 4 maps to o = 4, outside [0, 3): the bound map is not in bounds.
    assert bound(4) == (4,)
    assert la.check_in_bounds(bound).status is not la.Status.PROVED


# -- text -------------------------------------------------------------------------


def test_str_reads_like_math():
    m = tile_map(name="tile")
    text = str(m)
    assert text.startswith("tile: [i:16, j:3] → [a:4, b:4, c:3]; ")
    assert "(i, j) ↦ (⌊i/4⌋, i mod 4, j)" in text
    assert "↦" in text and "⌊i/4⌋" in text and "mod" in text
    assert "floor" not in text and "Mod" not in text


def test_str_of_unnamed_map_has_no_label_and_shows_valid():
    dom, cod = S(i=10), S(o=12)
    (i,) = dom.symbols
    (o,) = cod.symbols
    text = str(la.IndexMap(dom, cod, [i], valid=o < 10))
    assert text == "[i:10] → [o:12]; (i) ↦ (i) where o < 10"


def test_str_parenthesizes_mod_under_multiplication():
    dom = S(i=9)
    (i,) = dom.symbols
    text = la.IndexMap(dom, S(o=20), [2 * (i % 3)]).formula()
    assert text == "(i) ↦ (2*(i mod 3))"


def test_str_parenthesizes_compound_operands_of_floor_and_mod():
    dom = S(i=9, j=3)
    i, j = dom.symbols
    text = la.IndexMap(dom, S(a=4, b=4), [(i + j) // 4, (i + 1) % (j + 1)]).formula()
    assert text == "(i, j) ↦ (⌊(i + j)/4⌋, (i + 1) mod (j + 1))"


def test_str_of_negated_mod_is_not_ambiguous():
    dom = S(i=9)
    (i,) = dom.symbols
    text = la.IndexMap(dom, S(o=9), [-(i % 3)]).formula()
    assert "-i mod 3" not in text
    assert "-(i mod 3)" in text


def test_repr_is_the_constructor_and_evaluates_back():
    m = tile_map(name="tile")
    text = repr(m)
    assert text.startswith("IndexMap(Space(i=16, j=3), Space(a=4, b=4, c=3), ")
    assert "inverse=" in text and "name='tile'" in text
    names = {n: sympy.Symbol(n) for n in ("i", "j", "a", "b", "c")}
    namespace = {"IndexMap": la.IndexMap, "Space": la.Space, "floor": sympy.floor,
                 "Mod": sympy.Mod, **names}
    assert eval(text, namespace) == m


# -- value semantics --------------------------------------------------------------


def test_structurally_equal_maps_are_equal_and_hash_equal():
    first, second = tile_map(), tile_map()
    assert first is not second
    assert first == second and hash(first) == hash(second)
    assert len({first, second}) == 1


def test_maps_differing_in_any_part_are_not_equal():
    base = tile_map(name="tile")
    assert base != tile_map(name="other")
    assert base != base.renamed("other")
    dom, cod = base.domain, base.codomain
    i, j = dom.symbols
    assert base != la.IndexMap(dom, cod, [i // 4, i % 4, j], name="tile")  # no inverse


def test_index_map_is_frozen():
    m = tile_map()
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.name = "renamed"
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.exprs = ()
    assert m.name == "tile"


def test_renamed_and_assuming_return_new_values():
    (M,) = la.extents("M")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=M), [i], name="a")
    assert m.renamed("b").name == "b" and m.name == "a"
    stated = m.assuming(sympy.Eq(M % 2, 0))
    assert stated.assumptions == (sympy.Eq(M % 2, 0),)
    assert m.assumptions == ()
    # The same assumption twice is kept once.
    assert stated.assuming(sympy.Eq(M % 2, 0)).assumptions == stated.assumptions


# -- bad input --------------------------------------------------------------------

DOM, COD = S(i=4, j=8), S(o=32)
I, J = DOM.symbols

BAD_MAPS = [
    ("too many exprs", lambda: la.IndexMap(DOM, COD, [I, J]),
     r"exprs must have one expression per dimension of \[o:32\] \(1\); got 2"),
    ("too few exprs", lambda: la.IndexMap(DOM, S(a=4, b=8), [I]),
     r"exprs must have one expression per dimension of \[a:4, b:8\] \(2\); got 1"),
    ("unknown symbol", lambda: la.IndexMap(DOM, COD, [8 * I + sympy.Symbol("k")]),
     r"exprs\[0\] uses symbol k, which is neither a dimension of \[i:4, j:8\]"),
    ("codomain symbol in exprs", lambda: la.IndexMap(DOM, COD, [sympy.Symbol("o")]),
     r"exprs\[0\] uses symbol o"),
    ("mapping with wrong names", lambda: la.IndexMap(DOM, COD, {"p": I}),
     r"exprs must give one expression per dimension \('o',\); missing \['o'\], unknown \['p'\]"),
    ("string exprs", lambda: la.IndexMap(DOM, COD, "8*i + j"),
     r"exprs must be a sequence of expressions; got '8\*i \+ j'"),
    ("bool expr", lambda: la.IndexMap(DOM, COD, [True]),
     r"exprs\[0\] must be an integer expression; got True"),
    ("condition as expr", lambda: la.IndexMap(DOM, COD, [I < 2]),
     r"exprs\[0\] must be an integer expression; got i < 2"),
    ("inverse count", lambda: la.IndexMap(DOM, COD, [8 * I + J], inverse=[sympy.Symbol("o")]),
     r"inverse must have one expression per dimension of \[i:4, j:8\] \(2\); got 1"),
    ("domain symbol in inverse", lambda: la.IndexMap(DOM, COD, [8 * I + J], inverse=[I, J]),
     r"inverse\[0\] uses symbol i, which is neither a dimension of \[o:32\]"),
    ("valid not a condition", lambda: la.IndexMap(DOM, COD, [8 * I + J], valid=3),
     r"valid must be a SymPy boolean; got 3"),
    ("domain not a space", lambda: la.IndexMap({"i": 4}, COD, [0]),
     r"domain must be a Space; got \{'i': 4\}"),
    ("codomain not a space", lambda: la.IndexMap(DOM, 32, [0]),
     r"codomain must be a Space; got 32"),
    ("name not a string", lambda: la.IndexMap(DOM, COD, [8 * I + J], name=7),
     r"name must be a string; got 7"),
]


@pytest.mark.parametrize("build, pattern", [c[1:] for c in BAD_MAPS], ids=[c[0] for c in BAD_MAPS])
def test_bad_map_construction_is_refused_with_the_rule_and_the_value(build, pattern):
    with pytest.raises(MapError, match=pattern):
        build()


ROW_MAJOR = la.IndexMap(DOM, COD, [8 * I + J], name="row_major")

BAD_POINTS = [
    ("coordinate past the extent", (4, 0), r"coord i must lie in \[0, 4\); got 4"),
    ("negative coordinate", (0, -1), r"coord j must lie in \[0, 8\); got -1"),
    ("too few values", (1,), r"coord must have 2 values for \[i:4, j:8\]; got \(1,\)"),
    ("too many values", (1, 2, 3), r"coord must have 2 values for \[i:4, j:8\]; got \(1, 2, 3\)"),
    ("float coordinate", (1.0, 2), r"coord i must be an int; got 1\.0"),
    ("bool coordinate", (1, True), r"coord j must be an int; got True"),
]


@pytest.mark.parametrize("coord, pattern", [c[1:] for c in BAD_POINTS], ids=[c[0] for c in BAD_POINTS])
def test_bad_points_are_refused(coord, pattern):
    with pytest.raises(MapError, match=pattern):
        ROW_MAJOR(*coord)


def test_evaluating_a_parametric_map_without_bind_is_refused():
    (M,) = la.extents("M")
    (i,) = plain("i")
    m = la.IndexMap(S(i=M), S(o=2 * M), [2 * i], name="double")
    with pytest.raises(MapError, match=r"map double has symbolic extents \['M'\]; bind them"):
        m(1)
    with pytest.raises(MapError, match=r"bind"):
        m.apply(np.arange(3))


def test_apply_needs_one_array_per_domain_dim():
    with pytest.raises(MapError, match=r"apply needs one array per domain dim \(2\); got 1"):
        ROW_MAJOR.apply(np.arange(4))


def test_evaluating_an_unsupported_operator_is_refused():
    dom = S(i=4)
    (i,) = dom.symbols
    m = la.IndexMap(dom, dom, [sympy.sin(i)], name="wavy")
    with pytest.raises(MapError, match=r"map wavy cannot be evaluated: .*sin"):
        m(1)


def test_partial_piecewise_is_not_given_an_invented_value():
    dom = S(i=4)
    (i,) = dom.symbols
    m = la.IndexMap(dom, dom, [sympy.Piecewise((i, i < 2))], name="partial")
    assert m(1) == (1,)
    with pytest.raises(MapError):
        m(3)
