"""XOR swizzles (CuTe ``Swizzle<B,M,S>``) on shared-memory tiles, proved for every tile height.

The tile has ``R`` rows of 128 bytes, ``R`` symbolic: each claim holds for
every ``R`` the assumptions allow, decided by Z3 with the bit operations
(no enumeration). Bank model: NVIDIA's 32 banks of 4 bytes; 128-bit accesses
are served 8 lanes per phase, 64-bit ones 16, 32-bit ones 32 (see
``layoutalg/channel/bank_model.py`` for the sources). Lane ``row`` reads
chunk ``col`` of its row. REFUTED specs show a bug on purpose and say which.
"""

import sympy

import layoutalg as la
from layoutalg.channel.bank_model import NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT
from layoutalg.channel.banks import check_bank_conflicts  # noqa: F401 - defines "bank_conflicts"
from layoutalg.channel.smem_tiles import column_read, row_read, swizzled_tile
from layoutalg.channel.swizzle import Swizzle

R = la.extents("R")[0]
SW128 = Swizzle(3, 4, 3)  # CuTe's 128-byte swizzle (8 rows × 8 chunks of 16 B)
EIGHT_ROWS = [sympy.Eq(R % 8, 0)]


@la.spec(claims=["bijective"], assume=EIGHT_ROWS)
def sw128_tile_is_a_bijection():
    """Swizzle<3,4,3> over a row-major tile of R × 128 bytes permutes its offsets,
    for every R that is a multiple of 8."""
    return swizzled_tile(SW128, R, 128)


@la.spec(claims=["bijective"])
def sw128_tile_is_a_bijection_for_any_height():
    """In fact for every R: the swizzle only trades 16-byte chunks within a row."""
    return swizzled_tile(SW128, R, 128)


@la.spec(claims=["bijective"])
def sw128_over_a_cute_layout():
    """Composed with CuTe's row-major (8,128):(128,1) (CuTe's ComposedLayout)."""
    return SW128.after(la.CuteLayout((8, 128), (128, 1)))


@la.spec(claims=[("bank_conflicts", NVIDIA_128BIT, "row"),
                 ("bank_conflicts", NVIDIA_128BIT, "row", "write")], assume=EIGHT_ROWS)
def sw128_column_access_is_conflict_free():
    """128-bit column reads and writes through Swizzle<3,4,3>: the 8 rows of a phase
    land in 8 different 16-byte bank groups, for every R that is a multiple of 8."""
    return column_read(SW128, R)


@la.spec(claims=[("bank_conflicts", NVIDIA_128BIT, "chunk")])
def sw128_row_read_is_conflict_free():
    """Row reads stay conflict-free: the swizzle permutes the chunks of a row."""
    return row_read(SW128, R)


@la.spec(claims=[("bank_conflicts", NVIDIA_128BIT, "row"),
                 ("bank_conflicts", NVIDIA_128BIT, "row", "read", 8),
                 ("bank_conflicts", NVIDIA_128BIT, "row", "read", 7)],
         expect=["REFUTED", "PROVED", "REFUTED"], assume=EIGHT_ROWS)
def unswizzled_column_read_is_8_way():
    """Bug on purpose: without the swizzle every row starts at bank 0, so a phase's 8
    lanes all hit banks 0–3: exactly an 8-way conflict (at most 8 proved, 7 refuted)."""
    return column_read(None, R)


@la.spec(claims=[("bank_conflicts", NVIDIA_64BIT, "row"),
                 ("bank_conflicts", NVIDIA_64BIT, "row", "read", 2)],
         expect=["REFUTED", "PROVED"], assume=[sympy.Eq(R % 16, 0)])
def sw128_with_64bit_accesses_is_2_way():
    """Bug on purpose: the 128-byte swizzle repeats every 8 rows, and a 64-bit phase
    has 16 lanes: rows r and r+8 share a bank — a 2-way conflict, no worse."""
    return column_read(SW128, R, access_bytes=8)


@la.spec(claims=[("bank_conflicts", NVIDIA_128BIT, "row")], expect="REFUTED",
         assume=EIGHT_ROWS)
def two_bit_swizzle_is_2_way():
    """Bug on purpose: Swizzle<2,4,3> XORs only 2 row bits into the chunk, so 8 rows
    reach only 4 chunks: a 2-way conflict."""
    return column_read(Swizzle(2, 4, 3), R)


@la.spec(claims=[("bank_conflicts", NVIDIA_32BIT, "row")], assume=[sympy.Eq(R % 32, 0)])
def sw_fp32_column_read_is_conflict_free():
    """Swizzle<5,2,5> on rows of 32 fp32 words: a column read by 32 lanes touches all
    32 banks, for every R that is a multiple of 32 (decided by Z3, not enumerated)."""
    return column_read(Swizzle(5, 2, 5), R, access_bytes=4)


@la.spec(claims=[("bank_conflicts", NVIDIA_32BIT, "row")], expect="REFUTED",
         assume=[sympy.Eq(R % 32, 0)])
def unswizzled_fp32_column_read_is_32_way():
    """Bug on purpose: unswizzled, the whole fp32 column sits in bank 0 (32-way)."""
    return column_read(None, R, access_bytes=4)
