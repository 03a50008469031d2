"""CuTe's layout algebra: each operation's result proved against its definition.

Each spec computes a CuTe operation with layoutalg (``layoutalg.core.cute_algebra``)
and proves its postcondition on the result with Z3: composition ``R(i) ==
A(B(i))`` for every i, complement ``(L, R)`` a bijection, coalesce keeping
the function, the inverses undoing the layout. Two specs record pycute's
wrong answers (issue 15), which the tool refutes with the index.

Sources: NVIDIA CUTLASS ``media/docs/cpp/cute/02_layout_algebra.md`` ("CuTe
docs") and pycute 4.2 from the ``nvidia-cutlass`` wheel.
"""

import layoutalg as la
from layoutalg.core import cute_algebra as cute
from layoutalg.core import cute_tiling as tiling
from layoutalg.core.cute_layout import parse_layout
from layoutalg.verify.cute_postconditions import composed_map

A_DOCS, B_DOCS = parse_layout("(6,2):(8,2)"), parse_layout("(4,3):(3,1)")


@la.spec(claims=[("equivalent", composed_map(A_DOCS, B_DOCS))])
def composition_docs():
    """CuTe docs: (6,2):(8,2) ∘ (4,3):(3,1) = ((2,2),3):((24,2),8), and R(i) == A(B(i))."""
    return cute.composition(A_DOCS, B_DOCS).index_map()


@la.spec(claims=[("equivalent", composed_map(parse_layout("(10,2):(16,4)"),
                                             parse_layout("(5,4):(1,5)")))])
def composition_docs_example_2():
    """CuTe docs, example 2: (10,2):(16,4) ∘ (5,4):(1,5) = (5,(2,2)):(16,(80,4))."""
    return cute.composition(parse_layout("(10,2):(16,4)"), parse_layout("(5,4):(1,5)")).index_map()


@la.spec(claims=[("equivalent", composed_map(parse_layout("(2,2):(1,3)"),
                                             parse_layout("(2,2):(1,1)")))], expect="REFUTED")
def composition_pycute_wrong_value():
    """Known-bad: pycute answers (2,2):(1,3) ∘ (2,2):(1,1) with (2,2):(1,1), composing B's
    overlapping modes one by one. Refuted at i=3: A(B(3)) = A(2) = 3, not 2.
    layoutalg's composition refuses this pair."""
    return parse_layout("(2,2):(1,1)").index_map()


@la.spec(claims=[("equivalent", parse_layout("(2,(1,6)):(1,(6,2))").index_map())])
def coalesce_keeps_the_function():
    """coalesce((2,(1,6)):(1,(6,2))) = 12:1, the same function."""
    return cute.coalesce(parse_layout("(2,(1,6)):(1,(6,2))")).index_map()


def _with_complement(layout, hi, rest=None):
    """(filter(layout), rest) over [0, N), N the least multiple of the layout's span >= hi."""
    rest = cute.complement(layout, hi) if rest is None else rest
    span = max(s * d for s, d in layout.leaves() if s > 1 and d > 0)
    both = cute.make_layout(cute.filter_layout(layout), rest)
    return both.index_map(cosize=-(-hi // span) * span)


@la.spec(claims=["bijective"])
def complement_4_2_in_24():
    """CuTe docs: complement(4:2, 24) = (2,3):(1,8); with 4:2 it tiles [0, 24) once."""
    return _with_complement(parse_layout("4:2"), 24)


@la.spec(claims=["bijective"])
def complement_of_a_2d_tile():
    """CuTe docs (logical product): complement((2,2):(4,1), 24) = (2,3):(2,8)."""
    return _with_complement(parse_layout("(2,2):(4,1)"), 24)


@la.spec(claims=["bijective"], expect="REFUTED")
def complement_pycute_misses_offsets():
    """Known-bad: pycute's complement((2,2):(1,3), 24) = 4:6 leaves offsets 2 and 5 empty
    and reaches past 24 (no layout fills the gaps; layoutalg refuses). Refuted with the
    index that lands outside [0, 24)."""
    return _with_complement(parse_layout("(2,2):(1,3)"), 24, parse_layout("4:6"))


@la.spec(claims=[("equivalent", composed_map(
    parse_layout("(4,2,3):(2,1,8)"),
    cute.make_layout(parse_layout("4:2"), cute.complement(parse_layout("4:2"), 24))))])
def logical_divide_docs():
    """CuTe docs: logical_divide((4,2,3):(2,1,8), 4:2) = ((2,2),(2,3)):((4,1),(2,8)),
    which is A ∘ (B, complement(B, 24))."""
    return tiling.logical_divide(parse_layout("(4,2,3):(2,1,8)"), parse_layout("4:2")).index_map()


@la.spec(claims=[("equivalent", composed_map(
    cute.complement(parse_layout("(2,2):(4,1)"), 24), parse_layout("6:1")))])
def logical_product_docs():
    """CuTe docs: logical_product((2,2):(4,1), 6:1) = ((2,2),(2,3)):((4,1),(2,8)); its
    second mode is complement(A, 24) ∘ B."""
    return tiling.logical_product(parse_layout("(2,2):(4,1)"), 6)[1].index_map()


@la.spec(claims=[("equivalent", composed_map(parse_layout("6:1"), parse_layout("(4,2):(1,4)")))])
def logical_divide_past_the_end():
    """logical_divide(6:1, 4:1) = (4,2):(1,4): the second tile reads A past its size 6, as
    CuTe does (A's last mode keeps counting); proved against A so extended."""
    return tiling.logical_divide(parse_layout("6:1"), parse_layout("4:1")).index_map()


def _round_trip(first, then):
    return la.compose(first.index_map(cosize=then.size), then.index_map())


@la.spec(claims=[("equivalent", la.strided(8, 1))])
def right_inverse_undoes():
    """right_inverse((4,2):(2,1)) = (2,4):(4,1), and L(R(i)) == i for every i < 8."""
    layout = parse_layout("(4,2):(2,1)")
    return _round_trip(cute.right_inverse(layout), layout)


@la.spec(claims=[("equivalent", la.strided(4, 1))])
def left_inverse_undoes():
    """left_inverse(4:2) = (2,4):(4,1), and R(L(i)) == i for every i < 4."""
    layout = parse_layout("4:2")
    return _round_trip(layout, cute.left_inverse(layout))
