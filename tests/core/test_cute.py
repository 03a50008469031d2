"""la.strided: CuTe ``shape:stride`` layouts as index maps.

The reference below is an independent, tiny reimplementation of CuTe's
``crd2idx`` on a flat index (pycute's ``idx2crd`` colexicographic, then the
inner product with the strides), so offsets are never taken from the code
under test.
"""

import math

import pytest
import sympy

import layoutalg as la
from layoutalg.errors import MapError, SpaceError
from layoutalg.verify import brute


def flatten(value):
    if isinstance(value, tuple):
        return [leaf for part in value for leaf in flatten(part)]
    return [value]


def crd2idx(index, shape, stride):
    """CuTe: the offset of flat index ``index`` (first mode fastest)."""
    if isinstance(shape, tuple):
        offset = 0
        for sub_shape, sub_stride in zip(shape, stride):
            size = math.prod(flatten(sub_shape))
            offset += crd2idx(index % size, sub_shape, sub_stride)
            index //= size
        return offset
    return index * stride


def size_of(shape):
    return math.prod(flatten(shape))


def cosize_of(shape, stride):
    return max(crd2idx(i, shape, stride) for i in range(size_of(shape))) + 1


LAYOUTS = [
    (8, 1),
    (8, 3),
    ((4,), (2,)),
    ((3, 4), (1, 3)),  # column-major (compact)
    ((3, 4), (4, 1)),  # row-major (compact)
    ((6, 2), (8, 2)),
    ((2, 2, 2), (4, 2, 1)),
    ((4, 4), (1, 8)),
    (((2, 2), 3), ((1, 6), 2)),
    ((4, (2, 3)), (2, (1, 8))),
    (((2, 3), (2, 2)), ((1, 2), (6, 12))),
    ((5, 1, 3), (1, 7, 5)),
    ((2, 2), (0, 1)),
]
IDS = [f"{shape}:{stride}".replace(" ", "") for shape, stride in LAYOUTS]


def test_reference_crd2idx_on_textbook_examples():
    # Sanity of the reference itself, by hand: (3,4):(4,1) is row-major over a
    # colexicographic index, so index 1 is coordinate (1, 0) → offset 4.
    assert [crd2idx(i, (3, 4), (4, 1)) for i in range(4)] == [0, 4, 8, 1]
    # ((2,2),3):((1,6),2): index 3 = ((1,1),0) → 1 + 6 = 7.
    assert crd2idx(3, ((2, 2), 3), ((1, 6), 2)) == 7


@pytest.mark.parametrize("shape, stride", LAYOUTS, ids=IDS)
def test_offsets_match_cute_crd2idx(shape, stride):
    m = la.strided(shape, stride)
    assert m.domain.names == ("i",)
    assert m.codomain.names == ("offset",)
    assert m.domain.extents == (size_of(shape),)
    for i in range(size_of(shape)):
        assert m(i) == (crd2idx(i, shape, stride),), i


@pytest.mark.parametrize("shape, stride", LAYOUTS, ids=IDS)
def test_codomain_is_the_cosize(shape, stride):
    m = la.strided(shape, stride)
    assert m.codomain.extents == (cosize_of(shape, stride),)
    assert la.check_in_bounds(m).status is la.Status.PROVED


@pytest.mark.parametrize("shape, stride", LAYOUTS, ids=IDS)
def test_injectivity_is_decided_as_by_enumeration(shape, stride):
    offsets = [crd2idx(i, shape, stride) for i in range(size_of(shape))]
    injective = len(set(offsets)) == len(offsets)
    verdict = la.check_injective(la.strided(shape, stride))
    assert verdict.status is (la.Status.PROVED if injective else la.Status.REFUTED)


def test_name_is_cute_notation():
    assert la.strided((6, 2), (8, 2)).name == "(6,2):(8,2)"
    assert la.strided(((2, 2), 3), ((1, 6), 2)).name == "((2,2),3):((1,6),2)"
    assert la.strided(8, 1, name="vec").name == "vec"


COMPACT = [
    (8, 1),
    ((3, 4), (1, 3)),
    ((3, 4), (4, 1)),
    ((2, 2, 2), (4, 2, 1)),
    (((2, 2), 3), ((1, 6), 2)),
    (((2, 3), (2, 2)), ((1, 2), (6, 12))),
    ((5, 1, 3), (1, 7, 5)),  # a size-1 mode's stride does not matter
    ((1, 4), (0, 1)),
]


@pytest.mark.parametrize("shape, stride", COMPACT, ids=[f"{a}:{b}".replace(" ", "") for a, b in COMPACT])
def test_compact_layouts_have_an_inverse_and_are_bijections(shape, stride):
    m = la.strided(shape, stride)
    n = size_of(shape)
    assert sorted(crd2idx(i, shape, stride) for i in range(n)) == list(range(n))  # compact
    assert m.codomain.extents == (n,)
    assert m.inverse is not None
    for i in range(n):
        assert m.preimage(crd2idx(i, shape, stride)) == (i,)
    assert la.check_bijective(m).status is la.Status.PROVED
    assert brute.check_bijective(m).status is la.Status.PROVED


def test_non_compact_layout_is_injective_but_not_bijective():
    m = la.strided((4,), (2,))  # offsets 0, 2, 4, 6 in [0, 7)
    assert m.codomain.extents == (7,)
    assert m.inverse is None
    assert la.check_injective(m).status is la.Status.PROVED
    verdict = la.check_bijective(m)
    assert verdict.status is la.Status.REFUTED
    # The counterexample is a slot no index reaches.
    slot = verdict.counterexample["offset"]
    assert 0 <= slot < 7
    assert slot not in {crd2idx(i, (4,), (2,)) for i in range(4)}
    assert f"(offset={slot}) holds no element" in verdict.reason
    assert brute.check_bijective(m).status is la.Status.REFUTED


def test_layout_with_holes_is_refuted_bijective():
    m = la.strided((4, 4), (1, 8))  # rows of 4 every 8: half of [0, 28) empty
    verdict = la.check_bijective(m)
    assert verdict.status is la.Status.REFUTED
    slot = verdict.counterexample["offset"]
    assert slot not in {crd2idx(i, (4, 4), (1, 8)) for i in range(16)}


@pytest.mark.parametrize("shape, stride", [((4,), (0,)), ((2, 2), (1, 0)), ((16, 8), (1, 8))])
def test_overlapping_layouts_are_refuted_injective_with_a_real_collision(shape, stride):
    m = la.strided(shape, stride)
    verdict = la.check_injective(m)
    assert verdict.status is la.Status.REFUTED
    first, second = verdict.counterexample["i"], verdict.counterexample["i'"]
    assert first != second
    assert crd2idx(first, shape, stride) == crd2idx(second, shape, stride)
    assert m(first) == m(second)
    assert "both map to" in verdict.reason


def test_cosize_override_can_make_a_layout_out_of_bounds():
    m = la.strided((4,), (2,), cosize=4)  # offsets reach 6
    assert m.codomain.extents == (4,)
    verdict = la.check_in_bounds(m)
    assert verdict.status is la.Status.REFUTED
    i = verdict.counterexample["i"]
    assert crd2idx(i, (4,), (2,)) >= 4


def test_cute_composition_example_from_the_docs():
    # CuTe docs: (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8).
    # In layoutalg, A o B is compose(B, A): apply B first.
    a = la.strided((6, 2), (8, 2))
    b = la.strided((4, 3), (3, 1))
    composed = la.compose(b, a)
    result = (((2, 2), 3), ((24, 2), 8))
    for i in range(12):
        inner = crd2idx(i, (4, 3), (3, 1))
        assert composed(i) == (crd2idx(inner, (6, 2), (8, 2)),) == (crd2idx(i, *result),)
    assert la.check_equivalent(composed, la.strided(*result)).status is la.Status.PROVED


def test_wrong_composition_claim_is_refuted_at_an_index_that_differs():
    a = la.strided((6, 2), (8, 2))
    b = la.strided((4, 3), (3, 1))
    wrong = la.strided(((2, 2), 3), ((24, 2), 9))  # last stride mistyped
    verdict = la.check_equivalent(la.compose(b, a), wrong)
    assert verdict.status is la.Status.REFUTED
    i = verdict.counterexample["i"]
    truth = crd2idx(crd2idx(i, (4, 3), (3, 1)), (6, 2), (8, 2))
    assert truth != crd2idx(i, ((2, 2), 3), ((24, 2), 9))


def test_symbolic_column_major_is_proved_bijective_for_all_sizes():
    M, N = la.extents("M N")
    m = la.strided((M, N), (1, M))
    assert sympy.simplify(m.domain.size - M * N) == 0
    assert sympy.simplify(m.codomain.extents[0] - M * N) == 0
    assert la.check_bijective(m).status is la.Status.PROVED
    bound = m.bind(M=3, N=4)
    assert [bound(i)[0] for i in range(12)] == [crd2idx(i, (3, 4), (1, 3)) for i in range(12)]


def test_symbolic_stride_injectivity_depends_on_the_stride():
    M, D = la.extents("M D")
    verdict = la.check_injective(la.strided((M, 2), (1, D)))
    assert verdict.status is la.Status.REFUTED
    ce = verdict.counterexample
    shape, stride = (ce["M"], 2), (1, ce["D"])
    assert crd2idx(ce["i"], shape, stride) == crd2idx(ce["i'"], shape, stride)
    assert ce["i"] != ce["i'"]


BAD = [
    ("mismatched nesting", ((2, (2, 2)), (1, 2, 4)), MapError,
     r"strided: shape and stride must have the same nesting; got shape \(2,\(2,2\)\) and stride \(1,2,4\)"),
    ("rank mismatch", ((2, 2), (1,)), MapError, r"same nesting"),
    ("negative stride", ((2, 2), (1, -2)), MapError,
     r"strided: stride\[1\] must be a nonnegative integer .*got -2"),
    ("float stride", ((2,), (1.5,)), MapError, r"stride\[0\] must be a nonnegative integer; got 1\.5"),
    ("list shape", ([2, 2], [1, 2]), MapError, r"shape must use tuples, not lists; got \[2, 2\]"),
    ("empty shape", ((), ()), MapError, r"shape must not contain an empty tuple"),
    ("zero size", ((2, 0), (1, 2)), SpaceError, r"extent shape\[1\] must be .*got 0"),
]


@pytest.mark.parametrize("args, error, pattern", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_cute_layouts_are_refused(args, error, pattern):
    with pytest.raises(error, match=pattern):
        la.strided(*args)
