"""CuTe layout algebra: documented compositions and complements, proved.

Each composition spec states CuTe's documented result R for A ∘ B and
proves ``A(B(i)) == R(i)`` for every i. Each complement spec proves that A
and its documented complement together tile ``[0, M)`` exactly once. Two
specs record published mistakes, which the tool refutes with the index.

Sources: NVIDIA CUTLASS ``media/docs/cpp/cute/02_layout_algebra.md`` and
the pycute tests (``test/python/pycute``).
"""

import layoutalg as la


def composed(a, b):
    """CuTe's ``A o B``: apply B, then A."""
    return la.compose(b, a)


@la.spec(claims=[("equivalent", la.strided(((2, 2), 3), ((24, 2), 8)))])
def composition_intro():
    """CuTe docs: (6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8)."""
    return composed(la.strided((6, 2), (8, 2)), la.strided((4, 3), (3, 1)))


@la.spec(claims=[("equivalent", la.strided((5, 4), (8, 2)))])
def composition_example_1():
    """CuTe docs, example 1: 20:2 o (5,4):(4,1) = (5,4):(8,2)."""
    return composed(la.strided(20, 2), la.strided((5, 4), (4, 1)))


@la.spec(claims=[("equivalent", la.strided((5, (2, 2)), (16, (80, 4))))])
def composition_example_2():
    """CuTe docs, example 2: (10,2):(16,4) o (5,4):(1,5) = (5,(2,2)):(16,(80,4))."""
    return composed(la.strided((10, 2), (16, 4)), la.strided((5, 4), (1, 5)))


@la.spec(claims=[("equivalent", la.strided(((2, 2), (2, 3)), ((4, 1), (2, 8))))])
def logical_divide_1d():
    """CuTe docs (current): (4,2,3):(2,1,8) o (4,(2,3)):(2,(1,8)) = ((2,2),(2,3)):((4,1),(2,8))."""
    return composed(la.strided((4, 2, 3), (2, 1, 8)), la.strided((4, (2, 3)), (2, (1, 8))))


@la.spec(claims=[("equivalent", la.strided(((2, 2), (2, 3)), ((4, 1), (2, 8))))],
         expect="REFUTED")
def logical_divide_1d_old_docs():
    """Known-bad: older CuTe docs used A = (2,4,3):(4,1,8) with the same claimed
    result; the correct one is (4,(2,3)):(1,(4,8)). Refuted with the index."""
    return composed(la.strided((2, 4, 3), (4, 1, 8)), la.strided((4, (2, 3)), (2, (1, 8))))


@la.spec(claims=[("equivalent", la.strided((4, (2, 3)), (1, (4, 8))))])
def logical_divide_1d_old_docs_corrected():
    """The correct result for the older docs' A: (4,(2,3)):(1,(4,8))."""
    return composed(la.strided((2, 4, 3), (4, 1, 8)), la.strided((4, (2, 3)), (2, (1, 8))))


@la.spec(claims=[("equivalent", la.strided(6, 1))])
def composition_precoalesced():
    """pycute test "pre-coalesced LHS": (4,6,8):(1,4,7) o 6:1 = 6:1."""
    return composed(la.strided((4, 6, 8), (1, 4, 7)), la.strided(6, 1))


@la.spec(claims=[("equivalent", la.strided((2, 3), (9, 5)))])
def composition_mid_truncation():
    """pycute test "mid-layout truncation": (4,6,8,10):(2,3,5,7) o 6:12 = (2,3):(9,5)."""
    return composed(la.strided((4, 6, 8, 10), (2, 3, 5, 7)), la.strided(6, 12))


@la.spec(claims=[("equivalent", la.strided((3, 2), (2, 3)))], expect="REFUTED")
def composition_wrong_claim():
    """Known-bad: (6,2):(1,7) o (3,2):(2,3) claimed as (3,2):(2,3). It is not:
    at i=5, B gives offset 7, which A sends to 1 + 7 = 8, not 7."""
    return composed(la.strided((6, 2), (1, 7)), la.strided((3, 2), (2, 3)))


def with_complement(a_shape, a_stride, r_shape, r_stride, m):
    """The layout (A, R) over ``[0, M)``: a bijection iff R complements A in M."""
    return la.strided((a_shape, r_shape), (a_stride, r_stride), cosize=m,
                      name=f"({a_shape}:{a_stride}, {r_shape}:{r_stride}) in [0, {m})")


@la.spec(claims=["bijective"])
def complement_4_1():
    """complement(4:1, 24) = 6:4."""
    return with_complement(4, 1, 6, 4, 24)


@la.spec(claims=["bijective"])
def complement_6_4():
    """complement(6:4, 24) = 4:1."""
    return with_complement(6, 4, 4, 1, 24)


@la.spec(claims=["bijective"])
def complement_compact():
    """complement((4,6):(1,4), 24) = 1:0."""
    return with_complement((4, 6), (1, 4), 1, 0, 24)


@la.spec(claims=["bijective"])
def complement_4_2():
    """complement(4:2, 24) = (2,3):(1,8)."""
    return with_complement(4, 2, (2, 3), (1, 8), 24)


@la.spec(claims=["bijective"], expect="REFUTED")
def complement_4_2_old_docs():
    """Known-bad: older CuTe docs gave complement(4:2, 24) = (2,4):(1,8)
    (fixed after NVIDIA/cutlass#1359); it spills past 24."""
    return with_complement(4, 2, (2, 4), (1, 8), 24)


@la.spec(claims=["bijective"])
def complement_strided_pair():
    """complement((2,4):(1,6), 24) = 3:2."""
    return with_complement((2, 4), (1, 6), 3, 2, 24)


@la.spec(claims=["bijective"])
def complement_2_2():
    """complement((2,2):(1,6), 24) = (3,2):(2,12)."""
    return with_complement((2, 2), (1, 6), (3, 2), (2, 12), 24)


@la.spec(claims=["bijective"])
def complement_logical_product():
    """complement((2,2):(4,1), 24) = (2,3):(2,8) (logical product example)."""
    return with_complement((2, 2), (4, 1), (2, 3), (2, 8), 24)
