"""Triton linear layouts: GF(2) rank vs Z3 (bit operations) vs enumeration, same run.

For Triton's MMAv3 accumulator layout on an N × N tensor (the bases of
``unittest/Dialect/TritonGPU/LinearLayoutConversionsTest.cpp``, MMAv3_1024x1024,
generalised to N), ask "is it a bijection?" three ways and print the times and
the ratios to the GF(2) rank: ``la.linear.check_invertible`` (Gaussian
elimination), ``la.check_bijective`` on the XOR index map (Z3, through the one
query path), and ``la.linear.brute.check_invertible`` (every input, up to 2**22).

    python bench/linear.py [--max-log2 12]
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

import layoutalg as la
from layoutalg.linear import check_invertible, distributed

# the enumeration oracle lives with the tests (tests/oracles/linear.py)
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from oracles import linear as brute  # noqa: E402


def mma_v3(n: int):
    """MMAv3 (instr 16×16×8, warps 4×1) on n × n, n a power of two ≥ 64."""
    reg = [[0, 1], [8, 0]]
    reg += [[0, c] for c in (8, 16, 32, 64, 128, 256, 512, 1024, 2048) if c < n]
    reg += [[r, 0] for r in (64, 128, 256, 512, 1024, 2048) if r < n]
    return distributed(reg=reg, lane=[[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                       warp=[[16, 0], [32, 0]], shape=[n, n])


def timed(function, repeat: int) -> tuple[float, str]:
    times, status = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        status = function().status.value
        times.append(time.perf_counter() - start)
    return statistics.median(times), status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-log2", type=int, default=11, help="largest N is 2**max_log2")
    args = parser.parse_args()
    print(f"{'tensor':>11} {'bits':>4} {'gf2 s':>9} {'z3 s':>8} {'z3/gf2':>8} "
          f"{'enum s':>8} {'enum/gf2':>9}")
    for log in range(6, args.max_log2 + 1):
        layout = mma_v3(1 << log)
        gf2, v1 = timed(lambda: check_invertible(layout), 5)
        z3, v2 = timed(lambda: la.check_bijective(layout.index_map()), 1)
        enum, v3 = (timed(lambda: brute.check_invertible(layout), 1)
                    if layout.in_bits <= 20 else (float("nan"), v1))
        assert v1 == v2 == v3, (v1, v2, v3)
        print(f"{1 << log:>5}×{1 << log:<5} {layout.in_bits:>4} {gf2:>9.5f} {z3:>8.3f} "
              f"{z3 / gf2:>8.0f} {enum:>8.3f} {enum / gf2:>9.0f}")


if __name__ == "__main__":
    main()
