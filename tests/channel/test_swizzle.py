"""CuTe's Swizzle<B,M,S> as bit operations: CuTe's definition, symbolic proofs, twins.

Truths: CuTe's own examples in include/cute/swizzle.hpp (make_swizzle's
masks), hand-computed offsets, and Python's bitwise operators on NumPy
arrays (``Swizzle.__call__``), never the SymPy expression under test.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import layoutalg as la
import bank_twins
from layoutalg.channel.bank_model import NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT
from layoutalg.channel.banks import check_bank_conflicts
from layoutalg.errors import SwizzleError
from layoutalg.channel.smem_tiles import column_read, row_read, swizzled_tile
from layoutalg.channel.swizzle import Swizzle
from layoutalg.core.evaluate import evaluate
from layoutalg.core.space import coordinate

R = la.extents("R")[0]
SW128 = Swizzle(3, 4, 3)
x = coordinate("x")


def test_masks_are_cutes_make_swizzle_examples():
    # swizzle.hpp: make_swizzle<0b1000, 0b0100>() -> Swizzle<1,2,1>,
    #              make_swizzle<0b11000000, 0b00000110>() -> Swizzle<2,1,5>
    assert (Swizzle(1, 2, 1).yyy_mask, Swizzle(1, 2, 1).zzz_mask) == (0b1000, 0b0100)
    assert (Swizzle(2, 1, 5).yyy_mask, Swizzle(2, 1, 5).zzz_mask) == (0b11000000, 0b110)


@pytest.mark.parametrize("swizzle, offset, value", [
    (SW128, 128, 144),            # row 1, chunk 0 -> chunk 1 (hand)
    (SW128, 1023, 911),           # 0b1111111111 ^ 0b0001110000
    (SW128, 127, 127),            # row 0 unchanged
    (Swizzle(2, 1, -3), 6, 54),   # negative shift: (6 & 6) << 3 = 48; 6 ^ 48
    (Swizzle(0, 4, 3), 999, 999),  # no bits: the identity
])
def test_hand_computed_offsets(swizzle, offset, value):
    assert swizzle(offset) == value
    assert int(swizzle.expr(sympy.Integer(offset))) == value
    assert int(swizzle.expr(x).subs(x, offset)) == value


@pytest.mark.parametrize("swizzle", [SW128, Swizzle(5, 2, 5), Swizzle(2, 1, -3), Swizzle(3, 3, 4),
                                     Swizzle(1, 0, 1)])
def test_expression_equals_bitwise_on_every_offset(swizzle):
    offsets = np.arange(1 << 13)
    assert evaluate(swizzle.expr(x), {x: offsets}).tolist() == swizzle(offsets).tolist()
    arithmetic = evaluate(swizzle.arithmetic_expr(x), {x: offsets})
    assert arithmetic.tolist() == swizzle(offsets).tolist()  # the old // % form agrees


def test_bijection_for_every_height():
    assert la.check_bijective(swizzled_tile(SW128, R, 128), assume=[sympy.Eq(R % 8, 0)]).proved
    assert la.check_bijective(SW128.index_map(R * 1024)).proved


@pytest.mark.parametrize("rows", [8, 24, 64])
def test_bijection_twin_by_enumeration(rows):
    tile = swizzled_tile(SW128, rows, 128)
    rr, cc = np.indices((rows, 128)).reshape(2, -1)
    (images,) = tile.apply(rr, cc)
    assert sorted(images.tolist()) == list(range(rows * 128))
    assert images.tolist() == SW128(rr * 128 + cc).tolist()


def test_a_size_off_the_period_is_refuted_with_an_offset_that_leaves():
    result = la.check_in_bounds(SW128.index_map(1000))
    assert result.refuted
    offset = result.counterexample["offset"]
    assert offset < 1000 <= SW128(offset)   # confirmed with Python's operators
    outside = [o for o in range(1000) if SW128(o) >= 1000]
    assert offset in outside


def test_column_reads_conflict_free_for_every_height_and_8_way_without():
    assume = [sympy.Eq(R % 8, 0)]
    assert check_bank_conflicts(column_read(SW128, R), NVIDIA_128BIT, lane="row",
                                assume=assume).proved
    plain = check_bank_conflicts(column_read(None, R), NVIDIA_128BIT, lane="row", assume=assume)
    assert plain.refuted
    ce = plain.counterexample
    assert ce["degree"] == 8 and ce["bank"] == 0
    # the lane pair: same phase, same bank, checked with plain integers
    assert ce["row"] // 8 == ce["row'"] // 8
    first, second = (ce[lane] * 128 + 16 * ce["col"] for lane in ("row", "row'"))
    assert first // 16 % 8 == second // 16 % 8


@pytest.mark.parametrize("rows", [8, 16, 32, 64])
def test_column_reads_twin_by_enumeration(rows):
    for swizzle, degree in ((SW128, 1), (None, 8)):
        table = np.array([[row * 128 + col * 16 for row in range(rows)] for col in range(8)])
        if swizzle is not None:
            table = swizzle(table)
        assert bank_twins.worst_conflict(table, (8,), NVIDIA_128BIT).degree == degree
        z3_result = check_bank_conflicts(column_read(swizzle, rows), NVIDIA_128BIT, lane="row")
        assert z3_result.proved == (degree == 1)


def test_the_128_byte_swizzle_is_2_way_for_64_bit_accesses():
    read = column_read(SW128, R, access_bytes=8)
    assume = [sympy.Eq(R % 16, 0)]
    assert check_bank_conflicts(read, NVIDIA_64BIT, lane="row", assume=assume).refuted
    assert check_bank_conflicts(read, NVIDIA_64BIT, lane="row", max_degree=2, assume=assume).proved
    table = SW128(np.array([[r * 128 + c * 8 for r in range(32)] for c in range(16)]))
    assert bank_twins.worst_conflict(table, (16,), NVIDIA_64BIT).degree == 2


def test_fp32_swizzle_decided_by_z3_not_enumerated():
    result = check_bank_conflicts(column_read(Swizzle(5, 2, 5), R, access_bytes=4), NVIDIA_32BIT,
                                  lane="row", assume=[sympy.Eq(R % 32, 0)])
    assert result.proved and result.method == "z3"


def test_after_composes_with_cute_layouts_and_index_maps():
    layout = la.CuteLayout((8, 8), (128, 16))      # (row, chunk) -> byte
    tile = SW128.after(layout)
    assert [tile(i)[0] for i in range(64)] == [SW128(layout(i)) for i in range(64)]
    space = la.Space(i=64)
    (i,) = space.symbols
    strided = la.IndexMap(space, la.Space(o=1024), [16 * i])
    assert [SW128.after(strided)(k)[0] for k in range(64)] == [SW128(16 * k) for k in range(64)]
    assert la.check_bijective(SW128.after(la.CuteLayout((8, 128), (128, 1)))).proved


@settings(max_examples=40, deadline=None)
@given(bits=st.integers(0, 3), base=st.integers(0, 4), extra=st.integers(0, 2),
       negative=st.booleans(), rows=st.sampled_from([8, 16, 32]),
       model=st.sampled_from([NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT]))
def test_random_swizzles_z3_matches_enumeration(bits, base, extra, negative, rows, model):
    shift = (bits + extra) * (-1 if negative else 1)
    if shift == 0 and bits == 0:
        shift = 1
    swizzle = Swizzle(bits, base, shift)
    read = column_read(swizzle, rows, access_bytes=model.access_bytes)
    table = swizzle(np.array([[r * 128 + c * model.access_bytes for r in range(rows)]
                              for c in range(128 // model.access_bytes)]))
    aligned = not (table % model.access_bytes).any()
    worst = bank_twins.worst_conflict(table, (table.shape[0],), model)
    result = check_bank_conflicts(read, model, lane="row")
    assert result.proved == (aligned and worst.degree == 1), result.reason
    bijective = sorted(swizzle(np.arange(rows * 128)).tolist()) == list(range(rows * 128))
    assert la.check_bijective(swizzled_tile(swizzle, rows, 128)).proved == bijective


@pytest.mark.parametrize("build, message", [
    (lambda: Swizzle(3, 4, 2), "Swizzle: |shift| must be >= bits (CuTe: abs(SShift) >= BBits), "
     "or the XOR reads bits it writes; got bits=3, shift=2"),
    (lambda: SW128.index_map(0), "Swizzle.index_map: size must be a positive int; got 0"),
    (lambda: SW128.index_map(sympy.Symbol("n")), "Swizzle.index_map: size must be a positive "
     "int or a positive integer symbol (declare it with layoutalg.extents); got n"),
    (lambda: SW128.after(la.IndexMap(la.Space(i=4), la.Space(a=4, b=4), [0, 0])),
     "Swizzle<3,4,3>.after: layout must be a CuteLayout or an IndexMap with one output; got "),
    (lambda: column_read(SW128, -8), "rows must be a positive int; got -8"),
    (lambda: column_read(SW128, 8.0), "rows must be a positive int or a positive integer symbol "
     "(declare it with layoutalg.extents); got 8.0"),
    (lambda: row_read(SW128, 8, row_bytes=0), "row_bytes must be a positive int; got 0"),
    (lambda: row_read(SW128, 8, row_bytes=100),
     "row_bytes must be a multiple of access_bytes=16; got 100"),
    (lambda: row_read(SW128, 8, access_bytes=0), "access_bytes must be a positive int; got 0"),
])
def test_bad_input(build, message):
    with pytest.raises(SwizzleError) as info:
        build()
    assert str(info.value).startswith(message)


@settings(max_examples=30, deadline=None)
@given(bits=st.integers(0, 3), base=st.integers(2, 5), extra=st.integers(0, 2),
       negative=st.booleans(), model=st.sampled_from([NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT]))
def test_symbolic_verdicts_hold_at_every_enumerated_height(bits, base, extra, negative, model):
    """A verdict for every R is checked at concrete heights by enumeration: PROVED
    holds at each; REFUTED's witness height really conflicts, to the degree it says."""
    shift = max(bits + extra, 1) * (-1 if negative else 1)
    swizzle = Swizzle(bits, base, shift)
    per_phase = model.lanes_per_phase
    result = check_bank_conflicts(column_read(swizzle, R, access_bytes=model.access_bytes),
                                  model, lane="row", assume=[sympy.Eq(R % per_phase, 0)])
    assert result.status is not la.Status.UNKNOWN, result.reason

    def worst(rows):
        table = swizzle(np.array([[r * 128 + c * model.access_bytes for r in range(rows)]
                                  for c in range(128 // model.access_bytes)]))
        if (table % model.access_bytes).any():
            return None  # misaligned
        return bank_twins.worst_conflict(table, (table.shape[0],), model).degree

    if result.proved:
        assert all(worst(rows) == 1 for rows in (per_phase, 2 * per_phase, 8 * per_phase))
    else:
        rows = result.counterexample["R"]
        assert rows % per_phase == 0
        found = worst(rows)
        if "degree" in result.counterexample:
            assert 2 <= result.counterexample["degree"] <= found
        else:
            assert found is None  # refuted as misaligned


@pytest.mark.parametrize("method", ["z3", "auto"])
def test_a_fractional_byte_address_is_unknown_not_proved(method):
    """thread/2 is no byte address (threads 1 and 3 land on 0.5 and 1.5); Z3 only
    saw its banks and words, floor(a/16), and said PROVED. The address itself now
    goes through the translation: UNKNOWN, and enumeration cannot take it either."""
    from layoutalg.channel.banks import check_bank_conflict_free
    from layoutalg.channel.resources import Banks

    assert [t / 2 for t in (1, 3)] == [0.5, 1.5]
    space = la.Space(col=8, thread=8)
    col, thread = space.symbols
    half = la.IndexMap(space, la.Space(addr=1024), [thread * sympy.Rational(1, 2) + col * 16])
    verdict = check_bank_conflict_free(half, Banks(8, 16), method=method)
    assert verdict.status is la.Status.UNKNOWN
    assert "non-integer coefficient 1/2" in verdict.reason
