"""Audit reproducers for layoutalg.linear: each test asserts the correct behaviour, so each
is red until the defect it names is fixed.

Expected values are typed by hand or from Triton's own source (triton-lang/triton
``lib/Tools/LinearLayout.cpp``, ``LinearLayout::toString``), never computed by layoutalg.
No soundness defect (a false PROVED) was found: random comparisons of every rank verdict,
conversion, CuTe equivalence and bank-conflict degree against plain enumeration and the
triton wheel agreed. The defects below are wrong counterexamples, bad input that escapes as
a raw Python error or is silently accepted, and text that is not Triton's.
"""

from __future__ import annotations

import pytest

import layoutalg as la
from layoutalg.linear import (
    LinearLayout,
    LinearLayoutError,
    bank_conflicts,
    blocked,
    check_conversion,
    check_equivalent,
    distributed,
    parse_linear_layout,
    swizzled_shared,
)
from oracles import linear as brute

# each lane a row, registers the columns (a 32 × 32 tile); row-major fp32 shared memory
COLUMN_READER = distributed(reg=[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                            lane=[[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]])
ROW_MAJOR = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16],
                                     [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]})


# -- wrong counterexample ------------------------------------------------------------------

@pytest.mark.parametrize("check", [check_equivalent, brute.check_equivalent])
def test_cute_refutation_keeps_the_value_of_an_in_dim_named_i(check):
    """equivalence.py `_differ` (and brute.check_equivalent) store the flat index under the
    key "i", overwriting the in dim "i" of the counterexample point.

    By hand: bases i→1, j→3 (XOR) vs CuTe (2,2):(1,3) (sum). At flat index 3 = (i=1, j=1)
    the linear layout gives 1 ^ 3 = 2 and CuTe 1 + 3 = 4. The point is i=1, j=1; the
    result says i=3, which is not even an input (in dim i has size 2)."""
    layout = LinearLayout({"i": [[1]], "j": [[3]]})
    verdict = check(layout, la.CuteLayout((2, 2), (1, 3)))
    assert verdict.refuted
    assert (verdict.counterexample["i"], verdict.counterexample["j"]) == (1, 1)


# -- bad input escaping as a raw error, or silently accepted ------------------------------

def test_element_bytes_true_is_refused():
    """banks.py BankModel: `element_bytes not in (1, 2, 4, 8, 16)` lets True (== 1) through;
    the result then reports `element_bytes=True` and '(True-byte elements)'."""
    with pytest.raises(LinearLayoutError, match="element_bytes"):
        bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=True)


def test_element_bytes_float_is_one_clear_error():
    """4.0 == 4 passes the membership test, then `.bit_length()` raises AttributeError."""
    with pytest.raises(LinearLayoutError, match="element_bytes"):
        bank_conflicts(COLUMN_READER, ROW_MAJOR, element_bytes=4.0)


def test_distributed_with_an_int_for_bases_is_one_clear_error():
    """layout.py distributed: `list(reg)` raises TypeError: 'int' object is not iterable."""
    with pytest.raises(LinearLayoutError, match="register"):
        distributed(reg=3)


@pytest.mark.parametrize("in_dim, i", [("thread", 0), ("lane", 5)])
def test_basis_of_a_missing_dim_or_bit_is_one_clear_error(in_dim, i):
    """layout.py LinearLayout.basis: raw KeyError / IndexError."""
    with pytest.raises(LinearLayoutError, match=in_dim):
        LinearLayout({"lane": [[1], [2]]}).basis(in_dim, i)


@pytest.mark.parametrize("text", [
    "#ttg.linear<{register = [[1], [2]}>",      # SyntaxError from ast.literal_eval
    "#ttg.linear<{register = [[1-2]]}>",        # ValueError: malformed node
    "#ttg.linear<{register = [[-]]}>",          # SyntaxError
])
def test_malformed_attribute_is_one_clear_error(text):
    """text.py _from_attribute: the entry regex admits text that ast.literal_eval rejects."""
    with pytest.raises(LinearLayoutError, match="parse_linear_layout"):
        parse_linear_layout(text)


@pytest.mark.parametrize("call", [
    lambda: blocked([1, 1], [4, 8], [4, 1], [0, "1"], [16, 16]),
    lambda: swizzled_shared(1, 1, 4, ["a", 0], [8, 8]),
])
def test_order_with_a_string_is_one_clear_error(call):
    """encodings.py _order: `sorted(order)` raises TypeError before the is_int check."""
    with pytest.raises(LinearLayoutError, match="order"):
        call()


def test_distributed_does_not_drop_out_dims_silently():
    """layout.py distributed: with `shape` given, `out_dims` is overwritten by dim0, dim1, …
    without a word. Either honour the names or refuse the pair."""
    try:
        layout = distributed(lane=[[1]], shape=[2], out_dims=["x"])
    except LinearLayoutError:
        return
    assert layout.out_names == ("x",)


def test_shape_contradicting_the_texts_sizes_is_refused():
    """text.py parse_linear_layout: for toString text (which states its sizes), `shape`
    replaces them silently: the text says dim0 has size 16, the result has 32."""
    text = " - lane=1 -> (1)\n   lane=2 -> (2)\nwhere out dims are: [dim0 (size 16)]"
    with pytest.raises(LinearLayoutError, match="shape"):
        parse_linear_layout(text, shape=[32])


def test_contradictory_tostring_text_is_refused():
    """text.py _from_tostring: 'lane is a size 1 dimension' followed by a lane basis is read
    as lane = [[1]] without a word."""
    text = " - lane is a size 1 dimension\n - lane=1 -> (1)\nwhere out dims are: [dim0 (size 2)]"
    with pytest.raises(LinearLayoutError, match="lane"):
        parse_linear_layout(text)


def test_check_conversion_errors_name_check_conversion():
    """algebra.py conversion_obstacle calls reorder_outs(..., "convert"): the refusal of
    check_conversion's out dims names `convert`, a function the caller did not call."""
    wide = LinearLayout({"lane": [[1, 0]]}, {"x": 2, "y": 2})
    with pytest.raises(LinearLayoutError, match="check_conversion"):
        check_conversion(LinearLayout({"offset": [[1]]}), wide)


def test_bank_conflicts_errors_name_its_arguments():
    """banks.py bank_conflicts calls convert(shared, registers): a shared layout missing an
    element is reported as 'convert(a, b): ... nowhere in a', naming neither argument."""
    regs = LinearLayout({"lane": [[1], [2]]}, {"dim0": 8})
    too_small = LinearLayout({"offset": [[1]]}, {"dim0": 8})    # holds elements 0 and 1 only
    with pytest.raises(LinearLayoutError, match="shared"):
        bank_conflicts(regs, too_small)


# -- text that is not Triton's ------------------------------------------------------------

def test_str_without_in_dims_is_tritons_text():
    """layout.py __str__ claims 'Triton's LinearLayout::toString text, line for line', but
    for a layout with out dims and no in dims Triton writes (lib/Tools/LinearLayout.cpp):
        if (bases.empty()) { ... return "\\n(empty layout with out-dims " + outDimsStr + ")"; }
    (the triton 3.9 wheel prints exactly this); layoutalg writes 'where out dims are: …'."""
    assert str(LinearLayout([], {"dim0": 4})) == "\n(empty layout with out-dims [dim0 (size 4)])"


@pytest.mark.parametrize("text, expected", [
    ("\n(empty layout)", LinearLayout([], [])),
    ("\n(empty layout with out-dims [dim0 (size 4)])", LinearLayout([], {"dim0": 4})),
])
def test_tritons_empty_layout_text_parses(text, expected):
    """text.py: parse_linear_layout reads 'the forms Triton prints', but not these two."""
    assert parse_linear_layout(text) == expected
