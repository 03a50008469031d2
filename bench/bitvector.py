"""Int theory (blasting only the touched bits) vs bit-vectors on the shipped swizzle claims.

Runs every swizzle claim of ``specs/swizzle.py`` and ``specs/channel.py``
under each encoding forced with ``solver.use_encoding`` (best of ``--repeat``
runs, wall time of the whole check) and prints the two side by side with
the ratio bit-vector / Int. Bit-vectors need concrete sizes, so each
symbolic claim is also run at a few concrete heights; the symbolic row
itself has only an Int time. The last rows are the baseline from before bit
operations: the same column read with the XOR written as ``//`` and ``%``
digit sums (``Swizzle.arithmetic_expr``), in Int theory.

    python bench/bitvector.py [--repeat N] [--timeout-ms MS]
"""

from __future__ import annotations

import argparse
import time

import sympy

import layoutalg as la
from layoutalg.channel import Banks, Interleave, check_bank_conflict_free
from layoutalg.channel.bank_model import NVIDIA_32BIT, NVIDIA_64BIT, NVIDIA_128BIT
from layoutalg.channel.banks import check_bank_conflicts
from layoutalg.channel.smem_tiles import column_read, row_read, swizzled_tile
from layoutalg.channel.swizzle import Swizzle
from layoutalg.verify.z3_backend import solver

R = la.extents("R")[0]
SW128 = Swizzle(3, 4, 3)


def conflicts(read, model, lane="row", **options):
    return lambda timeout: check_bank_conflicts(read, model, lane=lane, timeout_ms=timeout,
                                                **options)


def cases(rows):
    """(spec name, claim text, check) for one tile height (an int or the symbol R)."""
    eight = [sympy.Eq(R % 8, 0)] if rows is R else []
    sixteen = [sympy.Eq(R % 16, 0)] if rows is R else []
    thirty_two = [sympy.Eq(R % 32, 0)] if rows is R else []
    return [
        ("sw128_tile_is_a_bijection", "bijective",
         lambda t: la.check_bijective(swizzled_tile(SW128, rows, 128), assume=eight,
                                      timeout_ms=t)),
        ("sw128_column_access_is_conflict_free", "read, 16 B",
         conflicts(column_read(SW128, rows), NVIDIA_128BIT, assume=eight)),
        ("sw128_column_access_is_conflict_free", "write, 16 B",
         conflicts(column_read(SW128, rows), NVIDIA_128BIT, op="write", assume=eight)),
        ("sw128_row_read_is_conflict_free", "read, 16 B",
         conflicts(row_read(SW128, rows), NVIDIA_128BIT, lane="chunk")),
        ("unswizzled_column_read_is_8_way", "refuted, 16 B",
         conflicts(column_read(None, rows), NVIDIA_128BIT, assume=eight)),
        ("unswizzled_column_read_is_8_way", "at most 8-way",
         conflicts(column_read(None, rows), NVIDIA_128BIT, max_degree=8, assume=eight)),
        ("sw128_with_64bit_accesses_is_2_way", "refuted, 8 B",
         conflicts(column_read(SW128, rows, access_bytes=8), NVIDIA_64BIT, assume=sixteen)),
        ("sw128_with_64bit_accesses_is_2_way", "at most 2-way, 8 B",
         conflicts(column_read(SW128, rows, access_bytes=8), NVIDIA_64BIT, max_degree=2,
                   assume=sixteen)),
        ("two_bit_swizzle_is_2_way", "refuted, 16 B",
         conflicts(column_read(Swizzle(2, 4, 3), rows), NVIDIA_128BIT, assume=eight)),
        ("sw_fp32_column_read_is_conflict_free", "read, 4 B",
         conflicts(column_read(Swizzle(5, 2, 5), rows, access_bytes=4), NVIDIA_32BIT,
                   assume=thirty_two)),
    ]


def channel_cases():
    """specs/channel.py's swizzle claims (8 × 8 and 32 × 32 tiles, the older Banks check)."""
    def smem_read(swizzle, by):
        space = la.Space(col=8, thread=8)
        col, thread = space.symbols
        row, chunk = (thread, col) if by == "column" else (col, thread)
        logical = la.IndexMap(space, la.Space(offset=1024), [row * 128 + chunk * 16])
        return la.compose(logical, swizzle.index_map(1024))

    def fp32(swizzle):
        space = la.Space(col=32, thread=32)
        col, thread = space.symbols
        logical = la.IndexMap(space, la.Space(offset=4096), [thread * 128 + col * 4])
        return la.compose(logical, swizzle.index_map(4096))

    def banks(access, resource, lane="thread"):
        return lambda t: check_bank_conflict_free(access, resource, lane=lane, method="z3",
                                                  timeout_ms=t)

    space = la.Space(col=64, stream=4)
    col, stream = space.symbols
    streams = la.IndexMap(space, la.Space(addr=16384), [stream * 4096 + col * 64])

    return [
        ("channel::swizzle_128b_column_read", "Banks(8, 16)",
         banks(smem_read(SW128, "column"), Banks(8, 16))),
        ("channel::swizzle_128b_row_read", "Banks(8, 16)",
         banks(smem_read(SW128, "row"), Banks(8, 16))),
        ("channel::swizzle_fp32_column_read", "Banks(32, 4), z3",
         banks(fp32(Swizzle(5, 2, 5)), Banks(32, 4))),
        ("channel::hashed_interleave_row_streams", "Swizzle<2,6,6> hash",
         banks(streams, Interleave(4, 64, Swizzle(2, 6, 6)), "stream")),
    ]


def arithmetic_read(swizzle, rows, access_bytes):
    """The column read with the XOR as digit sums (the encoding before bit operations)."""
    space = la.Space(col=128 // access_bytes, row=rows)
    col, row = space.symbols
    address = swizzle.arithmetic_expr(row * 128 + col * access_bytes)
    return la.IndexMap(space, la.Space(addr=rows * 128), [address], name="arithmetic read")


def timed(check, encoding: str, timeout: int, repeat: int) -> tuple[float, str]:
    best, status = float("inf"), ""
    for _ in range(repeat):
        with solver.use_encoding(encoding):
            start = time.perf_counter()
            result = check(timeout)
            best = min(best, time.perf_counter() - start)
        status = result.status.value
    return best, status


def row(name, claim, sizes, check, timeout, repeat, *, bitvector=True) -> str:
    int_s, int_status = timed(check, "int", timeout, repeat)
    if bitvector:
        bv_s, bv_status = timed(check, "bitvector", timeout, repeat)
        ratio = f"{bv_s / int_s:6.2f}"
        winner = "BV" if bv_s < int_s else "Int"
        bv_text = f"{bv_s:7.3f} {bv_status:8s}"
    else:
        ratio, winner, bv_text = "     —", "Int only", "      — (symbolic)"
    return (f"{name[:40]:40s} {claim[:18]:18s} {sizes:>6s} {int_s:7.3f} {int_status:8s} "
            f"{bv_text} {ratio}  {winner}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell (best is kept)")
    parser.add_argument("--timeout-ms", type=int, default=20_000)
    args = parser.parse_args(argv)
    print(f"{'claim':40s} {'':18s} {'rows':>6s} {'Int s':>7s} {'':8s} {'BV s':>7s} {'':8s} "
          f"{'BV/Int':>6s}  faster")
    for rows in (R, 32, 256, 4096):
        for name, claim, check in cases(rows):
            print(row(name, claim, str(rows), check, args.timeout_ms, args.repeat,
                      bitvector=rows is not R), flush=True)
    for name, claim, check in channel_cases():
        print(row(name, claim, "8/32", check, args.timeout_ms, args.repeat), flush=True)
    for swizzle, access, model in ((SW128, 16, NVIDIA_128BIT), (Swizzle(5, 2, 5), 4, NVIDIA_32BIT)):
        for rows in (8, 32):
            check = conflicts(arithmetic_read(swizzle, rows, access), model)
            int_s, status = timed(check, "int", args.timeout_ms, 1)
            print(f"{'baseline: ' + str(swizzle) + ' XOR as // % sums':40s} "
                  f"{f'read, {access} B':18s} {rows:>6d} {int_s:7.3f} {status:8s} "
                  f"(Int theory; the form before bit operations)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
