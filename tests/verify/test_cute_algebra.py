"""The CuTe algebra (layoutalg.core.cute_algebra): CuTe's documented answers,
each postcondition over whole domains in plain Python ints, and Z3's proofs.

The truth is pinned three ways: results CuTe's documentation prints (cited),
an independent evaluator below (``offset``: CuTe's colexicographic
``crd2idx``, written from the docs, not taken from the code under test),
and the postconditions checked index by index with it; the Z3 proofs
(``prove_*``) are compared with that enumeration on random layouts.

Docs: NVIDIA CUTLASS ``media/docs/cpp/cute/02_layout_algebra.md`` (cited
as "CuTe docs"); pycute's tests ``test/python/pycute/test_*.py``.
"""

from __future__ import annotations

import doctest
import math
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
from layoutalg.core import cute_algebra, cute_layout, cute_tiling
from layoutalg.errors import LayoutError, MapError
from layoutalg.verify import cute_api, cute_postconditions
from layoutalg.verify.cute_api import (  # the CuTe namespace, as pycute offers it
    CuteLayout, blocked_product, check_layout_equivalent, coalesce, complement, composition,
    left_inverse, logical_divide, logical_product, parse_layout, prove_blocked_product,
    prove_coalesce, prove_complement, prove_composition, prove_left_inverse,
    prove_logical_divide, prove_logical_product, prove_raked_product, prove_right_inverse,
    prove_tiled_divide, prove_zipped_divide, raked_product, right_inverse, tiled_divide,
    tiled_product, zipped_divide,
)

P = parse_layout
PROVED, REFUTED = la.Status.PROVED, la.Status.REFUTED


# -- an independent evaluator ---------------------------------------------------------


def leaves(value):
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in leaves(part)]
    return [value]


def offset(i, shape, stride, *, extend=False):
    """CuTe's offset of flat index ``i`` (first mode fastest). With ``extend``, the
    last mode of size > 1 keeps counting past the size, and a layout of size 1 stays
    at 0: CuTe's composition reads A so (it composes with coalesced A)."""
    pairs = list(zip(leaves(shape), leaves(stride)))
    if extend:
        pairs = [(s, d) for s, d in pairs if s > 1] or [(1, 0)]
    total = 0
    for k, (s, d) in enumerate(pairs):
        last = k == len(pairs) - 1
        total += (i if (last and extend) else i % s) * d
        i //= s
    return total


def values(layout):
    layout = P(layout) if isinstance(layout, str) else layout
    return [offset(i, layout.shape, layout.stride) for i in range(layout.size)]


def size_of(layout):
    return math.prod(leaves(layout.shape))


def test_the_evaluator_by_hand():
    # (3,4):(4,1) is row-major over a colexicographic index: index 1 is (1,0) → 4.
    assert [offset(i, (3, 4), (4, 1)) for i in range(4)] == [0, 4, 8, 1]
    # Extended: (2,2):(0,1) read at 5 = coordinate (1, 2) → 2.
    assert offset(5, (2, 2), (0, 1), extend=True) == 2


# -- the value type and its notation -------------------------------------------------


def test_layout_value_text_and_map():
    a = CuteLayout((4, (2, 2)), (2, (1, 8)))
    assert str(a) == "(4,(2,2)):(2,(1,8))"
    assert repr(a) == "CuteLayout((4, (2, 2)), (2, (1, 8)))"
    assert P(str(a)) == a and hash(P(str(a))) == hash(a)
    assert (a.size, a.rank, a.cosize) == (16, 2, 16)
    assert [a(i) for i in range(16)] == values(a)
    m = a.index_map()
    assert m.name == str(a) and [m(i)[0] for i in range(16)] == values(a)
    assert la.check_equivalent(m, la.strided((4, (2, 2)), (2, (1, 8)))).status is PROVED
    assert str(a[1]) == "(2,2):(1,8)" and a.leaves() == ((4, 2), (2, 1), (2, 8))


def test_from_pycute_is_duck_typed():
    fake = types.SimpleNamespace(shape=(4, 2), stride=(1, 4))
    assert CuteLayout.from_pycute(fake) == P("(4,2):(1,4)")
    with pytest.raises(MapError, match=r"must have \.shape and \.stride"):
        CuteLayout.from_pycute(42)


PARSE_ERRORS = [
    ("(4,(2,2):(2,(1,8))", r"expected ',' or '\)' in the shape at position 8 .*got ':'"),
    ("(4,2):(1,4", r"expected ',' or '\)' in the stride at position 10 .*got the end"),
    ("4:", r"expected a number or '\(' in the stride at position 2"),
    ("(4,2)x(1,4)", r"expected ':' between shape and stride at position 5 .*got 'x'"),
    ("(4,-2):(1,4)", r"expected a number or '\(' in the shape at position 3 .*got '-'"),
    ("4:1 junk", r"expected the end of the layout at position 4"),
    ("(4,2):(1,(2,4))", r"shape and stride must have the same nesting"),
    ("(4,0):(1,4)", r"shape must hold positive integers .*got 0"),
    ("():()", r"expected a number or '\(' in the shape at position 1"),
]


@pytest.mark.parametrize("text, message", PARSE_ERRORS, ids=[t for t, _ in PARSE_ERRORS])
def test_bad_notation_is_refused_naming_the_position(text, message):
    with pytest.raises(LayoutError, match=message):
        P(text)


@pytest.mark.parametrize("shape, stride, message", [
    ((2, 2), (1, -2), "stride must hold nonnegative integers"),
    ([2, 2], [1, 2], "must use tuples, not lists"),
    ((2, True), (1, 2), "shape must hold positive integers"),
])
def test_bad_values_are_refused(shape, stride, message):
    with pytest.raises(MapError, match=message):
        CuteLayout(shape, stride)


def test_parse_ignores_spaces():
    assert P(" ( 6 , 2 ) : ( 8 , 2 ) ") == CuteLayout((6, 2), (8, 2))


# -- CuTe's documented answers --------------------------------------------------------

COMPOSITIONS = [
    # CuTe docs, "Composition" (intro, examples 1 and 2).
    ("(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
    ("20:2", "(5,4):(4,1)", "(5,4):(8,2)"),
    ("(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
    # pycute tests: "pre-coalesced LHS", "mid-layout truncation".
    ("(4,6,8):(1,4,7)", "6:1", "6:1"),
    ("(4,6,8,10):(2,3,5,7)", "6:12", "(2,3):(9,5)"),
]


@pytest.mark.parametrize("a, b, expected", COMPOSITIONS)
def test_composition_matches_the_docs_and_its_postcondition(a, b, expected):
    result = composition(P(a), P(b))
    assert str(result) == expected
    bv = values(b)
    assert values(result) == [offset(x, P(a).shape, P(a).stride, extend=True) for x in bv]
    assert prove_composition(a, b).status is PROVED


COMPLEMENTS = [
    # CuTe docs, "Complement" examples.
    ("4:1", 24, "6:4"), ("6:4", 24, "4:1"), ("(4,6):(1,4)", 24, "1:0"),
    ("4:2", 24, "(2,3):(1,8)"), ("(2,4):(1,6)", 24, "3:2"), ("(2,2):(1,6)", 24, "(3,2):(2,12)"),
    ("(2,2):(4,1)", 24, "(2,3):(2,8)"),
]


@pytest.mark.parametrize("layout, hi, expected", COMPLEMENTS)
def test_complement_matches_the_docs_and_tiles_the_range(layout, hi, expected):
    result = complement(P(layout), hi)
    assert str(result) == expected
    both = [x + y for y in values(result) for x in values(P(layout))]
    assert sorted(both) == list(range(len(both))) and len(both) >= hi
    assert prove_complement(layout, hi).status is PROVED


def test_divides_and_products_match_the_docs():
    # CuTe docs, "Logical Divide" 1-D and 2-D examples, zipped and tiled.
    assert str(logical_divide(P("(4,2,3):(2,1,8)"), P("4:2"))) == "((2,2),(2,3)):((4,1),(2,8))"
    a, tiler = P("(9,(4,8)):(59,(13,1))"), (P("3:3"), P("(2,4):(1,8)"))
    assert str(logical_divide(a, tiler)) == "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    assert str(zipped_divide(a, tiler)) == "((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,1)))"
    assert str(tiled_divide(a, tiler)) == "((3,(2,4)),3,(2,2)):((177,(13,2)),59,(26,1))"
    # CuTe docs, "Logical Product" 1-D and 2-D, and the blocked and raked products of
    # tile (2,2):(1,2) over (3,4):(4,1); the docs print the blocked product before its
    # second mode (2,4):(2,4) is coalesced to 8:2.
    assert str(logical_product(P("(2,2):(4,1)"), 6)) == "((2,2),(2,3)):((4,1),(2,8))"
    tile, grid = P("(2,2):(1,2)"), P("(3,4):(4,1)")
    assert str(logical_product(tile, grid)) == "((2,2),(3,4)):((1,2),(16,4))"
    assert values(blocked_product(tile, grid)) == values(P("((2,3),(2,4)):((1,16),(2,4))"))
    assert str(blocked_product(tile, grid)) == "((2,3),8):((1,16),2)"
    assert str(raked_product(tile, grid)) == "((3,2),(4,2)):((16,1),(4,2))"
    assert str(tiled_product(tile, grid)) == "((2,2),3,4):((1,2),16,4)"


def test_divide_and_product_postconditions_are_proved():
    a, tiler = P("(9,(4,8)):(59,(13,1))"), (P("3:3"), P("(2,4):(1,8)"))
    tile, grid = P("(2,2):(1,2)"), P("(3,4):(4,1)")
    for verdict in (prove_logical_divide(P("(4,2,3):(2,1,8)"), P("4:2")),
                    prove_logical_divide(a, tiler), prove_zipped_divide(a, tiler),
                    prove_tiled_divide(a, tiler), prove_logical_product(tile, grid),
                    prove_blocked_product(tile, grid), prove_raked_product(tile, grid)):
        assert verdict.status is PROVED, verdict


def test_a_wrong_regrouping_is_refuted_at_an_index():
    a, tiler = P("(9,(4,8)):(59,(13,1))"), (P("3:3"), P("(2,4):(1,8)"))
    wrong = P("((3,(2,4)),(3,(2,2))):((177,(13,2)),(59,(26,2)))")
    verdict = prove_zipped_divide(a, tiler, wrong)
    assert verdict.status is REFUTED
    i = verdict.counterexample["i"]
    assert values(wrong)[i] != values(zipped_divide(a, tiler))[i]


INVERSES = [
    # by hand: (4,2):(2,1) sends (c0, c1) to 2·c0 + c1, so offset o comes from
    # index o//2 + 4·(o%2): the layout (2,4):(4,1).
    ("(4,2):(2,1)", "(2,4):(4,1)"),
    ("(3,4):(4,1)", "(4,3):(3,1)"),
    ("4:2", "1:0"),  # no stride-1 mode: only index 0 is inverted
]


@pytest.mark.parametrize("layout, expected", INVERSES)
def test_right_inverse(layout, expected):
    result = right_inverse(P(layout))
    assert str(result) == expected
    assert all(offset(offset(i, result.shape, result.stride), P(layout).shape,
                      P(layout).stride) == i for i in range(result.size))
    assert prove_right_inverse(layout).status is PROVED


def test_left_inverse_of_a_layout_with_gaps():
    # 4:2 hits 0, 2, 4, 6; its left inverse reads them back: R(2·i) == i.
    result = left_inverse(P("4:2"))
    assert str(result) == "(2,4):(4,1)"
    assert [result(2 * i) for i in range(4)] == [0, 1, 2, 3]
    assert prove_left_inverse("4:2").status is PROVED
    with pytest.raises(MapError, match=r"left_inverse: \(2,2\):\(1,0\) is not injective"):
        left_inverse(P("(2,2):(1,0)"))


# -- refusals: never a silently wrong layout ------------------------------------------


REFUSED = [
    # issue 15's two pycute answers: (2,2):(1,1) (wrong at i=3) and 2:0 (wrong size).
    ("(2,2):(1,3)", "(2,2):(1,1)", r"B's modes overlap.*differs from A\(B\(i\)\) at i=3: "
     r"A\(B\(3\)\) = A\(2\) = 3, but \(2,2\):\(1,1\) gives 2"),
    ("(2,2):(0,1)", "3:1", r"B's mode 0 \(3:1\) takes 2 of coalesced A's mode 0 \(size 2\) "
     r"and has 3 left, not a multiple of 2 \(CuTe's shape divisibility condition\)"),
    ("(4,3):(1,10)", "2:3", r"B's mode 0 \(2:3\) reaches coalesced A's mode 0 \(size 4\) with "
     r"stride 3, and 4 and 3 must divide one another \(CuTe's stride divisibility"),
]


@pytest.mark.parametrize("a, b, message", REFUSED)
def test_inadmissible_compositions_are_refused(a, b, message):
    with pytest.raises(MapError, match=message):
        composition(P(a), P(b))


def test_pycute_answers_from_issue_15_are_refuted():
    wrong_value = prove_composition("(2,2):(1,3)", "(2,2):(1,1)", "(2,2):(1,1)")
    assert wrong_value.status is REFUTED and wrong_value.counterexample == {"i": 3}
    assert offset(offset(3, (2, 2), (1, 1)), (2, 2), (1, 3)) == 3 != offset(3, (2, 2), (1, 1))
    wrong_size = prove_composition("(2,2):(0,1)", "3:1", "2:0")
    assert wrong_size.status is REFUTED
    assert wrong_size.reason.startswith("sizes differ: 2 vs 3")


def test_complement_refusals():
    with pytest.raises(MapError, match=r"\(3,2\):\(1,2\) is not injective: its mode 2:2"):
        complement(P("(3,2):(1,2)"), 12)
    with pytest.raises(MapError, match=r"\(2,2\):\(1,3\) has no complement: its mode 2:3"):
        complement(P("(2,2):(1,3)"), 24)
    with pytest.raises(MapError, match="cosize_hi must be a positive int; got 0"):
        complement(P("4:1"), 0)
    # The older docs' complement(4:2, 24) = (2,4):(1,8) (fixed after NVIDIA/cutlass#1359).
    verdict = prove_complement("4:2", 24, "(2,4):(1,8)")
    assert verdict.status is REFUTED


def test_sizes_differ_is_an_answer_not_an_error():
    verdict = check_layout_equivalent("2:1", "3:1")
    assert verdict.status is REFUTED
    assert verdict.reason.startswith("sizes differ: 2 vs 3")
    assert verdict.counterexample == {"i": 2}
    assert check_layout_equivalent("(2,2):(1,2)", "4:1").status is PROVED
    different = check_layout_equivalent("(2,2):(2,1)", "4:1")
    assert different.status is REFUTED
    i = different.counterexample["i"]
    assert values("(2,2):(2,1)")[i] != i


def test_tuple_tiler_with_too_many_modes_is_refused():
    with pytest.raises(MapError, match="logical_divide: the tiler .* has 3 modes, more than the 2"):
        logical_divide(P("(4,4):(1,4)"), (2, 2, 2))


def test_modules_doctests_pass():
    for module in (cute_layout, cute_algebra, cute_tiling, cute_postconditions, cute_api):
        failures, _ = doctest.testmod(module)
        assert failures == 0, module.__name__


# -- random layouts: postconditions by enumeration, and Z3 against enumeration ---------


@st.composite
def layouts(draw, max_size=48, strides=(0, 1, 2, 3, 4, 6, 8, 12, 16)):
    budget = max_size
    top = []
    for _ in range(draw(st.integers(1, 3))):
        mode = []
        for _ in range(draw(st.integers(1, 2))):
            s = draw(st.integers(1, max(1, min(6, budget))))
            budget = max(1, budget // s)
            mode.append((s, draw(st.sampled_from(strides))))
        top.append(mode[0] if len(mode) == 1 else (tuple(m[0] for m in mode),
                                                   tuple(m[1] for m in mode)))
    if len(top) == 1:
        return CuteLayout(*top[0])
    return CuteLayout(tuple(t[0] for t in top), tuple(t[1] for t in top))


def complementable(layout):
    """Sorted by stride, each mode starts at a multiple of the span before it (by hand)."""
    span = 1
    for d, s in sorted((d, s) for s, d in layout.leaves() if s > 1 and d > 0):
        if d < span or d % span:
            return False
        span = s * d
    return True


def composes_right(a, b, result):
    truth = [offset(x, a.shape, a.stride, extend=True) for x in values(b)]
    return size_of(result) == b.size and values(result) == truth


@settings(max_examples=300, deadline=None)
@given(layouts(), layouts())
def test_composition_is_right_or_refused(a, b):
    try:
        result = composition(a, b)
    except MapError:
        return
    assert composes_right(a, b, result), (a, b, result)


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_coalesce_keeps_the_function_and_merges_all_it_can(layout):
    result = coalesce(layout)
    assert values(result) == values(layout)
    pairs = result.leaves()
    assert all(s > 1 for s, _ in pairs) or pairs == ((1, 0),)
    assert all(s1 * d1 != d2 for (s1, d1), (_, d2) in zip(pairs, pairs[1:]))


@settings(max_examples=200, deadline=None)
@given(layouts(), st.integers(1, 64))
def test_complement_tiles_or_is_refused(layout, hi):
    try:
        result = complement(layout, hi)
    except MapError:
        assert not complementable(layout), layout  # refused only when no layout fills the gaps
        return
    kept = [(s, d) for s, d in layout.leaves() if s > 1 and d > 0] or [(1, 0)]
    base = CuteLayout(tuple(s for s, _ in kept), tuple(d for _, d in kept))
    both = sorted(x + y for y in values(result) for x in values(base))
    assert both == list(range(len(both))) and len(both) >= hi


@settings(max_examples=200, deadline=None)
@given(layouts())
def test_inverses_invert(layout):
    r = right_inverse(layout)
    assert all(offset(r(i), layout.shape, layout.stride) == i for i in range(r.size))
    try:
        left = left_inverse(layout)
    except MapError:
        injective = len(set(values(layout))) == layout.size
        assert not (injective and complementable(layout)), layout
        return
    image = values(layout)
    assert all(offset(image[i], left.shape, left.stride) == i for i in range(layout.size))


@settings(max_examples=150, deadline=None)
@given(layouts(max_size=32), layouts(max_size=8, strides=(1, 2, 4)))
def test_divides_and_products_are_their_definitions(a, b):
    try:
        divided = logical_divide(a, b)
    except MapError:
        divided = None
    if divided is not None:
        rest = complement(b, a.size)
        both = CuteLayout((b.shape, rest.shape), (b.stride, rest.stride))
        assert composes_right(a, both, divided)
        assert zipped_divide(a, b) == divided
    try:
        product = logical_product(a, b)
    except MapError:
        return
    assert product[0] == a
    assert sorted(values(product)) == sorted(set(values(product))) or (
        len(set(values(a))) < a.size or len(set(values(b))) < b.size)


@settings(max_examples=25, deadline=None)
@given(layouts(max_size=16), layouts(max_size=16))
def test_z3_agrees_with_enumeration_on_compositions(a, b):
    try:
        result = composition(a, b)
    except MapError:
        return
    verdict = prove_composition(a, b, result)
    assert verdict.status is PROVED
    # And a perturbed claim is refuted at an index that really differs.
    flat = result.leaves()
    wrong = CuteLayout(tuple(s for s, _ in flat), tuple(d + (k == 0) for k, (_, d) in
                                                      enumerate(flat)))
    right = composes_right(a, b, wrong)
    verdict = prove_composition(a, b, wrong)
    assert verdict.status is (PROVED if right else REFUTED)
    if not right:
        i = verdict.counterexample["i"]
        truth = offset(offset(i, b.shape, b.stride), a.shape, a.stride, extend=True)
        assert offset(i, wrong.shape, wrong.stride) != truth


@settings(max_examples=20, deadline=None)
@given(layouts(max_size=24))
def test_z3_agrees_with_enumeration_on_coalesce_and_inverses(layout):
    assert prove_coalesce(layout).status is PROVED
    assert prove_right_inverse(layout).status is PROVED
    injective = len(set(values(layout))) == layout.size
    try:
        left = left_inverse(layout)
    except MapError:
        return
    assert injective
    assert prove_left_inverse(layout, left).status is PROVED


def test_a_large_overlapping_composition_is_refused_not_guessed():
    with pytest.raises(MapError, match="B's modes overlap and B has 80000 indices"):
        composition(P("(2,2):(1,3)"), CuteLayout((2, 40000), (1, 1)))


def test_unknown_method_is_refused():
    with pytest.raises(MapError, match=r"method must be one of \('z3', 'enumeration'\); got 'smt'"):
        prove_coalesce("4:1", method="smt")


def perturbed(layout: CuteLayout) -> CuteLayout:
    """The same shape, the first stride one larger: usually a different function."""
    flat = layout.leaves()
    return CuteLayout(tuple(s for s, _ in flat),
                      tuple(d + (k == 0) for k, (_, d) in enumerate(flat)))


@settings(max_examples=15, deadline=None)
@given(layouts(max_size=16), layouts(max_size=8, strides=(1, 2, 4)), st.booleans())
def test_every_prove_agrees_with_its_enumeration_twin(a, b, wrong):
    """Each prove_* by Z3 and by enumeration (layoutalg.verify.brute): the same verdict,
    on layoutalg's own result and on a perturbed claim."""
    cases = [
        (prove_coalesce, (a,), coalesce, (a,)),
        (prove_right_inverse, (a,), right_inverse, (a,)),
        (prove_composition, (a, b), composition, (a, b)),
        (prove_complement, (b, 16), complement, (b, 16)),
        (prove_logical_divide, (a, b), logical_divide, (a, b)),
        (prove_logical_product, (b, a), logical_product, (b, a)),
        (prove_left_inverse, (b,), left_inverse, (b,)),
    ]
    for prove, args, operation, op_args in cases:
        try:
            result = operation(*op_args)
        except MapError:
            continue
        claim = perturbed(result) if wrong else result
        by_z3 = prove(*args, claim)
        by_enumeration = prove(*args, claim, method="enumeration")
        assert by_z3.status is by_enumeration.status, (prove.__name__, args, claim, by_z3)
        assert by_z3.status is not la.Status.UNKNOWN
        if claim is result:
            assert by_z3.status is PROVED, (prove.__name__, args, by_z3)


def test_cutlass_3513_non_dividing_tiler_is_refused():
    """NVIDIA/cutlass#3513: zipped_divide((12,(4,8)):(7,(1,30)), 128) with a dynamic tiler
    returns ((12,4,2),(1,1,3)):((7,1,30),(896,11,90)), of size 288 for a layout of 384.
    layoutalg names the condition CuTe's static path asserts; the reported answer is
    refuted as a re-indexing of the layout (a divide keeps the size)."""
    layout = P("(12,(4,8)):(7,(1,30))")
    with pytest.raises(MapError, match=r"B's mode 0 \(128:1\) takes 12 of coalesced A's mode 0 "
                       r"\(size 12\) and has 128 left, not a multiple of 12"):
        zipped_divide(layout, 128)
    reported = P("((12,4,2),(1,1,3)):((7,1,30),(896,11,90))")
    verdict = check_layout_equivalent(reported, layout)
    assert verdict.status is REFUTED
    assert verdict.reason.startswith("sizes differ: 288 vs 384")
    assert str(zipped_divide(layout, 12)) == str(layout)  # 12 divides: the layout itself


def test_the_namespace_exports_every_name_it_lists():
    for name in cute_api.__all__:
        assert getattr(cute_api, name) is not None, name
    public = {n for m in (cute_algebra, cute_tiling, cute_postconditions)
              for n in m.__all__ if n.startswith(("prove_", "check_"))}
    assert public - set(cute_api.__all__) == set()


def test_the_cute_equivalent_claim_keeps_the_specs_assumptions():
    """A spec whose assumptions contradict each other proves nothing: its
    cute_equivalent claim is UNKNOWN (the wrapper used to drop ``assume`` and say
    PROVED). (2,2):(1,2) and 4:1 are the same map: offsets by hand below."""
    import sympy

    from layoutalg.runner import dsl

    assert [i % 2 + 2 * (i // 2) for i in range(4)] == [0, 1, 2, 3]
    (m,) = la.extents("M")
    for assume, status in (([m > 0], la.Status.PROVED), ([m < 0], la.Status.UNKNOWN)):
        spec = la.spec(claims=[("cute_equivalent", "4:1")], assume=assume)(
            lambda: la.CuteLayout((2, 2), (1, 2)))
        assert dsl.run_claim(spec, spec.claims[0], spec.build()).status is status
    assert la.check_layout_equivalent("2:1", "3:1", assume=[sympy.false]).status is la.Status.UNKNOWN
    assert la.check_layout_equivalent("2:1", "3:1").refuted
    with pytest.raises(MapError, match="takes no assumptions"):
        la.check_layout_equivalent("2:1", "2:1", method="enumeration", assume=[sympy.true])
