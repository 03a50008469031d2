"""CuTe Swizzle<B,M,S> as bank and channel maps: hand-checked bits and bank verdicts.

``cute_swizzle`` is CuTe's ``Swizzle::apply`` (``cute/swizzle.hpp``) typed out
with plain ints, the reference the swizzle expressions are held to here and
in ``test_channel_differential``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy

import layoutalg as la
from layoutalg.channel import Banks, Interleave, Swizzle, check_bank_conflict_free
from layoutalg.verify import brute as core_brute
from layoutalg.verify.result import Status
from oracles import channel as brute


def cute_swizzle(bits: int, base: int, shift: int, offset: int) -> int:
    """CuTe: ``offset ^ shiftr(offset & yyy_msk, S)``, ``yyy_msk = bit_msk << (M + max(0, S))``,
    ``shiftr(x, s) = x >> s`` for ``s >= 0`` else ``x << -s``."""
    yyy_msk = ((1 << bits) - 1) << (base + max(0, shift))
    picked = offset & yyy_msk
    return offset ^ (picked >> shift if shift >= 0 else picked << -shift)


def test_masks_are_cutes():
    sw = Swizzle(3, 4, 3)
    assert sw.yyy_mask == 0b11_1000_0000  # bits 7..9, the 128-byte row index mod 8
    assert sw.zzz_mask == 0b111_0000  # bits 4..6, the 16-byte chunk in the row
    assert sw.period == 1024


def test_hand_computed_values():
    # Swizzle<3,4,3>: chunk c of row r moves to chunk c XOR (r mod 8).
    sw = Swizzle(3, 4, 3)
    assert sw(5 * 128 + 3 * 16 + 7) == 5 * 128 + (3 ^ 5) * 16 + 7
    # Negative shift: the low field moves up. Swizzle<2,0,-3> XORs bits 0-1 into bits 3-4.
    assert Swizzle(2, 0, -3)(0b00011) == 0b11011
    assert Swizzle(0, 5, 0)(12345) == 12345


def test_swizzle_permutes_a_tile():
    m = Swizzle(3, 4, 3).index_map(2048)
    assert core_brute.check_bijective(m).proved
    assert sorted(Swizzle(3, 4, 3).table(2048)) == list(range(2048))


def test_swizzle_on_a_partial_block_escapes():
    # 1000 bytes is not a whole number of 1 KB swizzle blocks: offset 896 (row 7)
    # sends its chunk 0 to chunk 7, byte 1008.
    result = la.check_in_bounds(Swizzle(3, 4, 3).index_map(1000))
    assert result.refuted
    offset = result.counterexample["offset"]
    assert Swizzle(3, 4, 3)(offset) >= 1000


def column_read(swizzle, rows, row_bytes, access_bytes):
    space = la.Space(col=row_bytes // access_bytes, thread=rows)
    col, thread = space.symbols
    logical = thread * row_bytes + col * access_bytes
    address = logical if swizzle is None else swizzle.expr(logical)
    return la.IndexMap(space, la.Space(addr=rows * row_bytes), [address])


def test_128_byte_swizzle_makes_column_reads_conflict_free():
    banks = Banks(8, 16)
    swizzled = column_read(Swizzle(3, 4, 3), 8, 128, 16)
    plain = column_read(None, 8, 128, 16)
    assert check_bank_conflict_free(swizzled, banks, method="z3").proved
    refuted = check_bank_conflict_free(plain, banks, method="z3")
    assert refuted.refuted
    ce = refuted.counterexample
    first, second = plain(ce["col"], ce["thread"])[0], plain(ce["col"], ce["thread'"])[0]
    assert banks.bank(first) == banks.bank(second) and first != second
    assert brute.bank_conflict_degree(plain, banks) == 8
    assert brute.bank_conflict_degree(swizzled, banks) == 1


def test_fp32_column_needs_a_five_bit_swizzle():
    swizzled = column_read(Swizzle(5, 2, 5), 32, 128, 4)
    assert brute.bank_conflict_degree(column_read(None, 32, 128, 4)) == 32
    # XORing only 3 of the 5 row bits (rows 7..9 into words 2..4) spreads a column
    # over 8 banks: 32 threads, 4 per bank.
    assert brute.bank_conflict_degree(column_read(Swizzle(3, 2, 5), 32, 128, 4)) == 4
    result = check_bank_conflict_free(swizzled, method="enumeration")
    assert result.proved and result.method == "enumeration"


def test_auto_settles_a_z3_timeout_by_enumeration():
    swizzled = column_read(Swizzle(5, 2, 5), 32, 128, 4)
    result = check_bank_conflict_free(swizzled, timeout_ms=50)
    assert result.status is Status.PROVED
    if result.method == "enumeration":
        assert "decided by enumerating all 1024 points" in result.reason
    strict = check_bank_conflict_free(swizzled, method="z3", timeout_ms=50)
    assert strict.status in (Status.PROVED, Status.UNKNOWN)  # never REFUTED, never a guess


def test_z3_decides_the_five_bit_swizzle_itself():
    # Before bit operations the XOR was digit sums Z3 could not finish; now it is
    # decided with the swizzled bits blasted, for 32 and for every number of rows.
    swizzled = column_read(Swizzle(5, 2, 5), 32, 128, 4)
    result = check_bank_conflict_free(swizzled, Banks(32, 4), method="z3")
    assert result.proved and result.method == "z3"
    # Over R rows this older check lets all R lanes issue together (no phases), so
    # rows t and t + 32 collide; check_bank_conflicts' phases of 32 lanes do not.
    rows, = la.extents("R")
    tall = check_bank_conflict_free(column_read(Swizzle(5, 2, 5), rows, 128, 4), Banks(32, 4),
                                    method="z3", assume=[sympy.Eq(rows % 32, 0)])
    first, second = tall.counterexample["thread"], tall.counterexample["thread'"]
    assert tall.refuted and (second - first) % 32 == 0


def test_same_word_is_a_broadcast_not_a_conflict():
    space = la.Space(step=2, thread=4)
    step, thread = space.symbols
    everyone_reads_one_word = la.IndexMap(space, la.Space(addr=64), [step * 4])
    assert check_bank_conflict_free(everyone_reads_one_word, method="z3").proved
    # Channels do not broadcast: the same address from two streams is a conflict.
    assert check_bank_conflict_free(everyone_reads_one_word, Interleave(4, 64),
                                    method="z3").refuted


def test_channel_hash_spreads_rows_4kb_apart():
    space = la.Space(col=64, stream=4)
    col, stream = space.symbols
    rows = la.IndexMap(space, la.Space(addr=16384), [stream * 4096 + col * 64])
    plain = check_bank_conflict_free(rows, Interleave(4, 64), lane="stream", method="z3")
    hashed = check_bank_conflict_free(rows, Interleave(4, 64, Swizzle(2, 6, 6)),
                                      lane="stream", method="z3")
    assert plain.refuted and hashed.proved
    channels = Interleave(4, 64, Swizzle(2, 6, 6)).channel(np.arange(4) * 4096)
    assert sorted(channels) == [0, 1, 2, 3]


@pytest.mark.parametrize("bits, base, shift", [(3, 4, 3), (2, 0, -3), (1, 2, 5), (0, 3, 0)])
def test_expression_matches_bitwise_on_every_offset(bits, base, shift):
    sw = Swizzle(bits, base, shift)
    size = 2 * sw.period
    (values,) = sw.index_map(size).apply(np.arange(size))
    assert (values == sw.table(size)).all()
    assert values.tolist() == [cute_swizzle(bits, base, shift, v) for v in range(size)]
