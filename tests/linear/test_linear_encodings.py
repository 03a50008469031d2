"""Triton encodings (``#ttg.blocked``, ``#ttg.swizzled_shared``) as linear layouts.

Expected bases are typed from triton-lang/triton
``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp`` (the single-CTA
cases; the test's ``blocked(spt, tpw, wpb, cpg, cSplit, ord, cOrd)`` and
``shared(vec, perPhase, maxPhase, hasLeadingOffset, cpg, cSplit, ord, cOrd)``);
with the ``triton`` wheel installed, random encodings are also compared with
Triton's own conversion (``GluonOpBuilder.to_linear_layout``).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutalg.linear import LinearLayout, LinearLayoutError, blocked, swizzled_shared


def regs(reg, lane, warp, dims):
    return LinearLayout([("register", reg), ("lane", lane), ("warp", warp), ("block", [])], dims)


BLOCKED_CASES = [
    # SimpleBlocked: toLinearLayout({16}, blocked({1}, {4}, {4}, {1}, {1}, {0}, {0}))
    (([1], [4], [4], [0], [16]), regs([], [[1], [2]], [[4], [8]], {"dim0": 16})),
    # ShapeLargerThanLayout: shape 128, the 16-element layout repeats in registers
    (([1], [4], [4], [0], [128]), regs([[16], [32], [64]], [[1], [2]], [[4], [8]],
                                       {"dim0": 128})),
    # ShapeLargerThanLayout2DDegenerate
    (([1, 1], [4, 1], [4, 1], [0, 1], [128, 1]),
     regs([[16, 0], [32, 0], [64, 0]], [[1, 0], [2, 0]], [[4, 0], [8, 0]],
          {"dim0": 128, "dim1": 1})),
    # ShapeSmallerThanLayout: "the log2(64/8) = 3 most major bases are 0"
    (([4], [4], [4], [0], [8]), regs([[1], [2]], [[4], [0]], [[0], [0]], {"dim0": 8})),
    # ReversedOrder
    (([1, 1], [32, 1], [1, 8], [0, 1], [1, 64]),
     regs([[0, 8], [0, 16], [0, 32]], [[0, 0]] * 5, [[0, 1], [0, 2], [0, 4]],
          {"dim0": 1, "dim1": 64})),
    # ReplicateInRegisterDim
    (([2], [4], [1], [0], [32]), regs([[1], [8], [16]], [[2], [4]], [], {"dim0": 32})),
    # Blocked4D (the test at commit 00dbc5c lists two zero register bases; Triton 3.x drops
    # registers that would repeat an element, as the wheel's own conversion shows)
    (([1, 1, 1, 4], [2, 1, 1, 16], [1, 2, 4, 1], [3, 0, 1, 2], [2, 1, 1, 1]),
     regs([], [[0, 0, 0, 0]] * 4 + [[1, 0, 0, 0]], [[0, 0, 0, 0]] * 3,
          {"dim0": 2, "dim1": 1, "dim2": 1, "dim3": 1})),
]


@pytest.mark.parametrize("args, expected", BLOCKED_CASES)
def test_blocked_as_in_triton_unit_tests(args, expected):
    assert blocked(*args) == expected


def shared_layout(offsets, dims):
    return LinearLayout([("offset", offsets), ("block", [])], dims)


SHARED_CASES = [
    # SharedSwizzled2D_MaxPhaseOnly: shared(1, 1, 4, false, ..., {1, 0}, ...) on 32 × 32
    ((1, 1, 4, [1, 0], [32, 32]),
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 1], [2, 2], [4, 0], [8, 0], [16, 0]]),
    # SharedSwizzled2D_PerPhaseMaxPhase
    ((1, 2, 4, [1, 0], [32, 32]),
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 1], [4, 2], [8, 0], [16, 0]]),
    # SharedSwizzled2D_Vec
    ((2, 1, 4, [1, 0], [4, 8]), [[0, 1], [0, 2], [0, 4], [1, 2], [2, 4]]),
    # SharedSwizzled2D_PerPhaseMaxPhaseVec
    ((2, 2, 4, [1, 0], [32, 32]),
     [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 2], [4, 4], [8, 0], [16, 0]]),
    # SharedSwizzled2D_Order01
    ((1, 1, 4, [0, 1], [4, 8]), [[1, 0], [2, 0], [1, 1], [2, 2], [0, 4]]),
    # SharedSwizzled4D
    ((2, 2, 4, [3, 2, 1, 0], [2, 4, 32, 32]),
     [[0, 0, 0, 1], [0, 0, 0, 2], [0, 0, 0, 4], [0, 0, 0, 8], [0, 0, 0, 16], [0, 0, 1, 0],
      [0, 0, 2, 2], [0, 0, 4, 4], [0, 0, 8, 0], [0, 0, 16, 0], [0, 1, 0, 0], [0, 2, 0, 0],
      [1, 0, 0, 0]]),
]


@pytest.mark.parametrize("args, offsets", SHARED_CASES)
def test_swizzled_shared_as_in_triton_unit_tests(args, offsets):
    vec, per_phase, max_phase, order, shape = args
    expected = shared_layout(offsets, [(f"dim{d}", s) for d, s in enumerate(shape)])
    assert swizzled_shared(vec, per_phase, max_phase, order, shape) == expected


@pytest.mark.parametrize("call, message", [
    (lambda: blocked([1], [4], [4], [0], [12]), "shape.0. must be a power of two; got 12"),
    (lambda: blocked([1, 1], [4], [4, 1], [0, 1], [16, 16]), "threads_per_warp must be a list of 2"),
    (lambda: blocked([1], [4], [4], [1], [16]), "order must be a permutation of range(1)"),
    (lambda: swizzled_shared(0, 1, 1, [1, 0], [8, 8]), "vec must be a positive int; got 0"),
])
def test_bad_encodings(call, message):
    with pytest.raises(LinearLayoutError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call()


# -- against Triton's own conversion -----------------------------------------------------------


@st.composite
def blocked_args(draw):
    rank = draw(st.integers(1, 3))
    pick = st.sampled_from([1, 2, 4])
    spt = [draw(pick) for _ in range(rank)]
    tpw = [draw(pick) for _ in range(rank)]
    wpc = [draw(st.sampled_from([1, 2])) for _ in range(rank)]
    order = draw(st.permutations(list(range(rank))))
    shape = [draw(st.sampled_from([1, 2, 4, 8, 16, 32])) for _ in range(rank)]
    return spt, tpw, wpc, order, shape


@st.composite
def shared_args(draw):
    rank = draw(st.integers(1, 3))
    order = draw(st.permutations(list(range(rank))))
    # gluon's SharedLinearLayout cannot hold a layout without offset bases (a 1-element tile)
    shape = [draw(st.sampled_from([2, 4, 8, 16, 32])) for _ in range(rank)]
    return (draw(st.sampled_from([1, 2, 4, 8])), draw(st.sampled_from([1, 2, 4])),
            draw(st.sampled_from([1, 2, 4, 8])), order, shape)


@pytest.fixture(scope="module")
def builder():
    libtriton = pytest.importorskip("triton._C.libtriton")
    pytest.importorskip("triton.experimental.gluon")
    context = libtriton.ir.context()
    libtriton.ir.load_dialects(context)
    return context, libtriton.gluon_ir.GluonOpBuilder(context)


@settings(max_examples=100)
@given(args=blocked_args())
def test_blocked_as_triton_converts_it(builder, args):
    spt, tpw, wpc, order, shape = args
    theirs = builder[1].to_linear_layout(builder[1].get_blocked_layout(spt, tpw, wpc, order, []),
                                         shape)
    assert blocked(*args) == LinearLayout.from_gluon(theirs)


@settings(max_examples=100)
@given(args=shared_args())
def test_swizzled_shared_as_triton_converts_it(builder, args):
    vec, per_phase, max_phase, order, shape = args
    attr = builder[1].get_swizzled_shared_layout(vec, per_phase, max_phase, order, [])
    theirs = builder[1].to_linear_layout(attr, shape)
    ours = swizzled_shared(*args)
    assert [list(v) for v in ours.bases[0][1]] == theirs.offset_bases
