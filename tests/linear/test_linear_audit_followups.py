"""Follow-ups to the linear-layout audit (tests/linear/test_linear_audit.py): the behaviour its fixes
settle, pinned with values typed by hand or taken from the triton wheel, never from layoutalg.

- check_equivalent of two LinearLayouts REFUTES out dims of different sizes, as Triton's
  ``LinearLayout::operator==`` (the wheel's ``==``) says they differ;
- the swizzle formula of docs/linear.md holds exactly for power-of-two parameters (plain ints
  over every offset) and fails otherwise (a hand-computed row);
- the bank-conflict phase model for 1- to 16-byte elements, by hand, for the GF(2) check and
  its enumeration twin, which writes the model itself;
- the texts Triton prints for layouts without in dims, and the refusals of bad input.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_linear_differential import any_layout, layouts, plain_apply

import layoutalg as la
from layoutalg.errors import VerificationError
from layoutalg.linear import (
    LinearLayout,
    LinearLayoutError,
    bank_conflicts,
    check_conversion,
    check_equivalent,
    distributed,
    parse_linear_layout,
    swizzled_shared,
)
from oracles import linear as brute
from layoutalg.linear.banks import BankModel

ROOT = Path(__file__).resolve().parents[2]

# a 32 × 32 tile: ROW_MAJOR stores (r, c) at offset 32 r + c, XOR_SWIZZLED at 32 r + (c ^ r)
ROW_MAJOR = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                     [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]})
XOR_SWIZZLED = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                        [1, 1], [2, 2], [4, 4], [8, 8], [16, 16]]})
# lane = row r, register = column c (a column per instruction)
COLUMN_READER = distributed(reg=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                            lane=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])
# lane = column c, register = row r (a row per instruction)
ROW_WRITER = distributed(reg=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
                         lane=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]])
# lane l holds element 2 l of a 64-element vector stored in order
EVEN_LANES = LinearLayout({"lane": [[2], [4], [8], [16], [32]]}, {"dim0": 64})
IN_ORDER = LinearLayout({"offset": [[1], [2], [4], [8], [16], [32]]})


# -- check_equivalent: out dim sizes ------------------------------------------------------

def test_equivalent_refutes_out_dims_of_different_sizes():
    small = LinearLayout({"lane": [[1]]}, {"dim0": 2})
    large = LinearLayout({"lane": [[1]]}, {"dim0": 4})
    for check in (check_equivalent, brute.check_equivalent):
        verdict = check(small, large)
        assert verdict.refuted, check
    reason = check_equivalent(small, large).reason
    assert "{'dim0': 2}" in reason and "{'dim0': 4}" in reason
    # the same sizes with the out dims listed in another order: the same layout
    xy = LinearLayout({"lane": [[1, 0]]}, {"x": 2, "y": 4})
    yx = LinearLayout({"lane": [[0, 1]]}, {"y": 4, "x": 2})
    assert check_equivalent(xy, yx).proved and brute.check_equivalent(xy, yx).proved


@given(any_layout, st.integers(0, 1))
def test_a_resized_out_dim_is_refuted_by_both(layout, which):
    which = min(which, len(layout.out_dims) - 1)
    grown = [(n, s * 2 if k == which else s) for k, (n, s) in enumerate(layout.out_dims)]
    other = LinearLayout([(n, [list(v) for v in vs]) for n, vs in layout.bases], grown)
    assert check_equivalent(layout, other).refuted
    assert brute.check_equivalent(layout, other).refuted


@settings(max_examples=100)
@given(any_layout, st.booleans())
def test_equivalence_of_sizes_as_tritons_equality(layout, grow):
    libtriton = pytest.importorskip("triton._C.libtriton")
    triton_layout = libtriton.linear_layout.LinearLayout

    def to_triton(ll):
        return triton_layout.from_bases([(n, [list(v) for v in vs]) for n, vs in ll.bases],
                                        list(ll.out_names), [s for _, s in ll.out_dims], False)

    sizes = [(n, s * 2 if grow and k == 0 else s) for k, (n, s) in enumerate(layout.out_dims)]
    other = LinearLayout([(n, [list(v) for v in vs]) for n, vs in layout.bases], sizes)
    assert check_equivalent(layout, other).proved == (to_triton(layout) == to_triton(other))


# -- the CuTe counterexample holds the in dims, whatever their names ----------------------

@st.composite
def two_dim_layouts_and_cute(draw):
    names = draw(st.lists(st.sampled_from(["i", "j", "register", "lane", "k"]), min_size=2,
                          max_size=2, unique=True))
    counts = [draw(st.integers(0, 2)) for _ in names]
    values = [draw(st.sampled_from([0, 1, 2, 3, 4, 5, 8])) for _ in range(sum(counts))]
    bases, k = [], 0
    for name, count in zip(names, counts):
        bases.append((name, [[values[k + j]] for j in range(count)]))
        k += count
    layout = LinearLayout(bases, {"dim0": 16})
    shape = tuple(1 << c for c in counts)
    strides = tuple(draw(st.sampled_from([0, 1, 2, 3, 4])) for _ in counts)
    return layout, la.CuteLayout(shape, strides)


@given(two_dim_layouts_and_cute())
def test_cute_counterexample_is_an_input_where_they_differ(pair):
    layout, cute = pair
    for check in (check_equivalent, brute.check_equivalent):
        verdict = check(layout, cute)
        if not verdict.refuted or verdict.counterexample is None:
            continue
        point = verdict.counterexample
        assert set(point) == set(layout.in_names)
        sizes = dict(layout.in_dims)
        assert all(0 <= point[n] < sizes[n] for n in point)
        flat, shift = 0, 0            # first in dim fastest, by hand
        for name, size in layout.in_dims:
            flat += point[name] << shift
            shift += size.bit_length() - 1
        assert plain_apply(layout, point)[0] != cute(flat)


# -- the swizzle formula ------------------------------------------------------------------

@settings(max_examples=60)
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]), st.sampled_from([1, 2, 4, 8]),
       st.sampled_from([2, 4, 8, 16, 32]), st.sampled_from([2, 4, 8, 16, 32]))
def test_swizzle_formula_holds_for_powers_of_two(vec, per_phase, max_phase, rows, cols):
    layout = swizzled_shared(vec, per_phase, max_phase, [1, 0], [rows, cols])
    for r in range(rows):
        swizzle = (vec * ((r // per_phase) % max_phase)) % cols
        for m in range(cols):                   # memory column m of row r holds column m ^ swz
            assert layout(offset=r * cols + m) == (r, m ^ swizzle)


def test_swizzle_formula_fails_for_other_parameters():
    # vec = perPhase = 1, maxPhase = 3 on 8 × 8 (the triton 3.9 wheel gives the same bases):
    # rows 1 and 2 XOR with 1 and 2, so row 3 with 1 ^ 2 = 3, where the formula says 3 % 3 = 0
    layout = swizzled_shared(1, 1, 3, [1, 0], [8, 8])
    assert layout(offset=3 * 8 + 0) == (3, 3)
    assert (1 * ((3 // 1) % 3)) % 8 == 0


# -- bank conflicts: the phase model by hand ----------------------------------------------

# Degrees worked out with the CUDA guide's rule (32 banks of 4 bytes, same-word lanes
# broadcast) and phases of 32, 32, 32, 16, 8 lanes for 1-, 2-, 4-, 8-, 16-byte elements:
# COLUMN_READER × ROW_MAJOR, element (r, c) at byte b·(32 r + c), lanes r, register c fixed:
#   1 B: word 8r + c//4, bank (8r + c//4) % 32: rows 4 apart share a bank, 8 words   -> 8
#   2 B: word 16r + c//2, bank (16r + c//2) % 32: even rows, odd rows, 16 words each -> 16
#   4 B: word 32r + c, bank c: 32 words                                           -> 32
#   8 B: words 64r + 2c (+1), banks 2c, 2c+1: 16 lanes a phase, 16 words           -> 16
#  16 B: words 128r + 4c (..+3), banks 4c..4c+3: 8 lanes a phase, 8 words          -> 8
# XOR_SWIZZLED: column c ^ r, so the lanes of each phase use different banks       -> 1
# ROW_WRITER × ROW_MAJOR, lane c: 8 B banks 2(c % 16) repeat only 16 lanes apart, and 16 B
# banks 4(c % 8) only 8 lanes apart: always in another phase                        -> 1
# EVEN_LANES × IN_ORDER, lane l at element 2 l, byte 2 l·b:
#   1 B: word l//2 (pairs broadcast) -> 1; 2 B: word l, bank l -> 1;
#   4 B: word 2l, bank 2l % 32: l, l+16 -> 2; 8 B: bank 4l % 32: l, l+8 in a 16-lane phase
#   -> 2; 16 B: bank 8l % 32: l, l+4 in an 8-lane phase -> 2 (without phases: 4 and 8)
BY_HAND = [
    (COLUMN_READER, ROW_MAJOR, {1: 8, 2: 16, 4: 32, 8: 16, 16: 8}),
    (COLUMN_READER, XOR_SWIZZLED, {1: 1, 2: 1, 4: 1, 8: 1, 16: 1}),
    (ROW_WRITER, ROW_MAJOR, {1: 1, 2: 1, 4: 1, 8: 1, 16: 1}),
    (EVEN_LANES, IN_ORDER, {1: 1, 2: 1, 4: 2, 8: 2, 16: 2}),
]


@pytest.mark.parametrize("registers, shared, degrees", BY_HAND)
@pytest.mark.parametrize("element_bytes", [1, 2, 4, 8, 16])
def test_bank_conflict_degrees_by_hand(registers, shared, degrees, element_bytes):
    expected = degrees[element_bytes]
    assert bank_conflicts(registers, shared, element_bytes=element_bytes).degree == expected
    assert brute.bank_conflict_degree(registers, shared,
                                      element_bytes=element_bytes) == expected


def test_the_bank_twin_does_not_import_the_model_it_checks():
    tree = ast.parse((ROOT / "tests" / "oracles" / "linear.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "layoutalg.linear.banks" not in imported
    assert not any(isinstance(node, ast.Name) and node.id == "BankModel" for node in ast.walk(tree))


@pytest.mark.parametrize("element_bytes", [True, False, 4.0, "4", None, 3, 32, -4])
def test_element_bytes_other_than_the_five_widths_is_refused(element_bytes):
    with pytest.raises(LinearLayoutError, match="element_bytes must be one of"):
        BankModel(element_bytes)


def test_element_bytes_as_a_numpy_int_is_accepted():
    np = pytest.importorskip("numpy")
    found = bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=np.int64(8))
    assert found.degree == 16 and type(found.element_bytes) is int


def test_the_bank_twin_refuses_a_bool_width():
    with pytest.raises(VerificationError, match="element_bytes"):
        brute.bank_conflict_degree(COLUMN_READER, ROW_MAJOR, element_bytes=True)


def test_bank_conflicts_names_its_arguments():
    broadcast = LinearLayout({"offset": [[0], [1]]}, {"dim0": 8})       # offsets 0, 1 on one
    regs = LinearLayout({"lane": [[1]]}, {"dim0": 8})
    with pytest.raises(LinearLayoutError, match="shared is not injective"):
        bank_conflicts(regs, broadcast)
    renamed = LinearLayout({"lane": [[1]]}, {"x": 8})
    with pytest.raises(LinearLayoutError, match="^bank_conflicts: the layouts must have"):
        bank_conflicts(renamed, IN_ORDER)


def test_check_conversion_refusal_names_a_and_b():
    verdict = check_conversion(LinearLayout({"offset": [[1]]}, {"dim0": 4}),
                               LinearLayout({"lane": [[2]]}, {"dim0": 4}))
    assert verdict.refuted
    assert verdict.reason == "b's element (dim0=2) at (lane=1) is nowhere in a"


# -- text ---------------------------------------------------------------------------------

# Triton 3.9's toString for these (lib/Tools/LinearLayout.cpp; the wheel prints exactly this)
TRITON_TEXTS = [
    (LinearLayout([], []), "\n(empty layout)"),
    (LinearLayout([], {"dim0": 4, "dim1": 1}),
     "\n(empty layout with out-dims [dim0 (size 4), dim1 (size 1)])"),
    (LinearLayout({"lane": []}, {"dim0": 4}),
     "\n - lane is a size 1 dimension\nwhere out dims are: [dim0 (size 4)]"),
    (LinearLayout({"lane": []}, []), "\n - lane is a size 1 dimension\nwhere out dims are: []"),
]


@pytest.mark.parametrize("layout, text", TRITON_TEXTS)
def test_text_without_bases_is_tritons_and_reads_back(layout, text):
    assert str(layout) == text
    assert parse_linear_layout(text) == layout


@pytest.mark.parametrize("layout, text", TRITON_TEXTS)
def test_text_without_bases_as_the_wheel_prints_it(layout, text):
    libtriton = pytest.importorskip("triton._C.libtriton")
    theirs = libtriton.linear_layout.LinearLayout.from_bases(
        [(n, [list(v) for v in vs]) for n, vs in layout.bases], list(layout.out_names),
        [s for _, s in layout.out_dims], False)
    assert str(theirs) == text


@given(layouts(in_dims=("register", "lane"), max_bits=4) | any_layout)
def test_every_text_reads_back(layout):
    assert parse_linear_layout(str(layout)) == layout
    stated = [s for _, s in layout.out_dims]
    assert parse_linear_layout(str(layout), shape=stated) == layout


BAD_TEXT = [
    (" - lane=1 -> (1)\n - lane is a size 1 dimension\nwhere out dims are: [dim0 (size 2)]",
     "in dim 'lane' again"),
    (" - lane=1 -> (1)\n - warp=1 -> (0)\n   lane=2 -> (0)\nwhere out dims are: [dim0 (size 2)]",
     "in dim 'lane' again"),
    (" - lane=1 -> (1)\nwhere out dims are: [dim0 (size 2)]\n - warp=1 -> (1)",
     "follows the 'where out dims are' line"),
    ("\n(empty layout with out-dims [dim0 size 4])", "cannot read out dim"),
    ("#ttg.linear<{register = [[1,], [2]]}>", "register must be a list of lists of ints"),
    ("#ttg.linear<{register = [[1] [2]]}>", "register must be a list of lists of ints"),
    ("#ttg.linear<{register = [[1]], [[2]]}>", "register must be a list of lists of ints"),
    ("#ttg.linear<{register = [[-1]]}>", "must be an int >= 0; got -1"),
]


@pytest.mark.parametrize("text, message", BAD_TEXT)
def test_bad_text_is_one_clear_error(text, message):
    with pytest.raises(LinearLayoutError, match=message):
        parse_linear_layout(text)


def test_shape_of_an_empty_layout_text_must_agree():
    text = "\n(empty layout with out-dims [dim0 (size 4)])"
    assert parse_linear_layout(text, shape=[4]) == LinearLayout([], {"dim0": 4})
    with pytest.raises(LinearLayoutError, match=r"shape must agree .* \[4\]"):
        parse_linear_layout(text, shape=[8])


def test_attribute_text_still_takes_its_sizes_from_shape():
    attr = "#ttg.linear<{register = [], lane = [[1], [2]], warp = [], block = []}>"
    assert parse_linear_layout(attr).out_dims == (("dim0", 4),)
    assert parse_linear_layout(attr, shape=[16]).out_dims == (("dim0", 16),)


# -- constructors -------------------------------------------------------------------------

def test_distributed_names_out_dims_with_shape():
    layout = distributed(lane=[[1, 0]], shape=[2, 4], out_dims=["m", "n"])
    assert layout.out_dims == (("m", 2), ("n", 4))
    with pytest.raises(LinearLayoutError, match="out_dims must be 2 out dim names"):
        distributed(lane=[[1, 0]], shape=[2, 4], out_dims=["m"])
    with pytest.raises(LinearLayoutError, match="out_dims must be 1 out dim names"):
        distributed(lane=[[1]], shape=[2], out_dims={"x": 2})


@pytest.mark.parametrize("argument", ["reg", "lane", "warp", "block"])
def test_distributed_bases_must_be_lists(argument):
    with pytest.raises(LinearLayoutError, match=f"distributed: {argument} "):
        distributed(**{argument: 3})


def test_basis_in_range_and_refusals():
    layout = LinearLayout({"lane": [[1], [2]]})
    assert layout.basis("lane", 1) == (2,)
    for in_dim, i, message in [("lane", -1, r"\[0, 2\)"), ("lane", True, "got True"),
                               (3, 0, "in_dim must be one of")]:
        with pytest.raises(LinearLayoutError, match=message):
            layout.basis(in_dim, i)


class _Duck:
    def __init__(self, **attributes):
        self.__dict__.update(attributes)


@pytest.mark.parametrize("call, message", [
    (lambda: LinearLayout.from_triton(_Duck(bases=3, out_dims=[])), "layout.bases must be"),
    (lambda: LinearLayout.from_gluon(_Duck(reg_bases=3, lane_bases=[], warp_bases=[],
                                           block_bases=[], shape=[4])), "layout.reg_bases"),
    (lambda: LinearLayout.from_gluon(_Duck(reg_bases=[], lane_bases=[[1]], warp_bases=[],
                                           block_bases=[], shape=["a"])), "got 'a'"),
    (lambda: parse_linear_layout("#ttg.linear<{lane = [[" + "9" * 5000 + "]]}>"),
     "at most 4300 digits"),
    (lambda: parse_linear_layout(" - lane=" + "9" * 5000 + " -> (1)\n"
                                 "where out dims are: [dim0 (size 2)]"), "at most 4300 digits"),
    (lambda: parse_linear_layout("#ttg.linear<{lane = [[1]]}>", shape=[4.0]),
     "parse_linear_layout: shape must give one int size"),
])
def test_bridges_and_text_refuse_with_one_clear_error(call, message):
    with pytest.raises(LinearLayoutError, match=message):
        call()


def test_bridges_read_ducks():
    assert LinearLayout.from_triton(_Duck(bases=[("lane", [[1]])], out_dims=[("dim0", 2)])) \
        == LinearLayout({"lane": [[1]]})
    gluon = _Duck(reg_bases=[], lane_bases=[[1]], warp_bases=[], block_bases=[], shape=(2,))
    assert LinearLayout.from_gluon(gluon) == distributed(lane=[[1]], shape=[2])


def test_conversion_bank_conflicts_names_src_and_dst():
    lanes = LinearLayout({"lane": [[1]]}, {"dim0": 64})
    no_lane = LinearLayout({"register": [[1]]}, {"dim0": 64})
    far = LinearLayout({"lane": [[1]]}, {"dim0": 64})
    with pytest.raises(LinearLayoutError, match="^conversion_bank_conflicts: dst must have an "
                                                "in dim 'lane'"):
        la.linear.conversion_bank_conflicts(lanes, no_lane, IN_ORDER)
    short = LinearLayout({"offset": [[1]]}, {"dim0": 64})              # elements 0 and 1 only
    wide = LinearLayout({"lane": [[2]]}, {"dim0": 64})
    with pytest.raises(LinearLayoutError, match=r"src's element \(dim0=2\) at \(lane=1\) is "
                                                r"nowhere in shared"):
        la.linear.conversion_bank_conflicts(wide, far, short)
    with pytest.raises(LinearLayoutError, match="^check_bank_conflict_free: element_bytes"):
        la.linear.check_bank_conflict_free(lanes, IN_ORDER, element_bytes=2.0)


# lane has size 4, warp size 2: an index past lane's size would silently spill into warp's bits
TWO_DIMS = LinearLayout({"lane": [[1], [2]], "warp": [[4]]})


@pytest.mark.parametrize("call, message", [
    (lambda: TWO_DIMS.flat_in({"lane": 4}), r"lane must lie in \[0, 4\); got 4"),
    (lambda: TWO_DIMS.flat_in({"thread": 1}), "unknown in dim 'thread'"),
    (lambda: TWO_DIMS.flat_in([("lane", 1)]), "point must be a dict"),
    (lambda: TWO_DIMS.unflat_in(8), r"LinearLayout.unflat_in: .* \[0, 8\); got 8"),
    (lambda: TWO_DIMS.apply_flat(-1), r"LinearLayout.apply_flat: .* got -1"),
    (lambda: TWO_DIMS.flat_out([8]), r"LinearLayout.flat_out: .* got \[8\]"),
    (lambda: TWO_DIMS.flat_out([1, 0]), "one int per out dim"),
    (lambda: TWO_DIMS.unflat_out(8), r"LinearLayout.unflat_out: .* got 8"),
])
def test_points_and_flat_indices_are_checked(call, message):
    with pytest.raises(LinearLayoutError, match=message):
        call()


def test_flat_indices_by_hand():
    assert TWO_DIMS.flat_in({"lane": 3, "warp": 1}) == 3 + 4 * 1
    assert TWO_DIMS.unflat_in(7) == {"lane": 3, "warp": 1}
    assert TWO_DIMS.apply_flat(7) == 1 ^ 2 ^ 4
