"""Transform patterns from tile overlaps (vectorized) against a per-element Python loop.

For RESHARDs of growing [n, n] fp32 tensors from Grid(32, 30) to
BlockCyclic(7, 5, 16, 16), times ``create_transform`` (blocks from tile
overlaps, NumPy over blocks) and a baseline run alongside that walks every
element in Python, asks each layout for its PE and tallies bytes and
bytes × hops per PE pair. Both must agree on the totals; the ratio is the
speed-up. The Z3 proof is timed too (it does not grow with n).

    python bench/mesh_transforms.py [--sizes 128 256 512 1024]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from layoutalg.mesh import MeshLayout, create_transform

SOURCE = MeshLayout.grid(32, 30)
TARGET = MeshLayout.block_cyclic(7, 5, 16, 16)


def per_element(shape) -> tuple[int, int, int]:
    """(remote bytes, bytes × hops, messages) by walking every element."""
    pairs: Counter = Counter()
    for i in range(shape[0]):
        for j in range(shape[1]):
            src = SOURCE.pe_for_element((i, j), shape)
            dst = TARGET.pe_for_element((i, j), shape)
            if src != dst:
                pairs[src, dst] += 4
    hops = sum(b * (abs(s[0] - d[0]) + abs(s[1] - d[1])) for (s, d), b in pairs.items())
    return sum(pairs.values()), hops, len(pairs)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[128, 256, 512])
    args = parser.parse_args(argv)
    table = Table(title=f"RESHARD {SOURCE} → {TARGET}, fp32")
    for column in ("n", "blocks", "vectorized s", "per-element s", "ratio", "prove s"):
        table.add_column(column, justify="right")
    for n in args.sizes:
        shape = (n, n)
        start = time.perf_counter()
        transform = create_transform(SOURCE, TARGET, shape)
        cost = transform.cost
        fast = time.perf_counter() - start
        start = time.perf_counter()
        expected = per_element(shape)
        slow = time.perf_counter() - start
        if expected != (cost.bytes, cost.byte_hops, cost.messages):
            raise SystemExit(f"disagree at n={n}: {expected} vs {cost}")
        start = time.perf_counter()
        proved = transform.prove().proved
        prove = time.perf_counter() - start
        if not proved:
            raise SystemExit(f"not proved at n={n}")
        table.add_row(str(n), str(len(transform.blocks)), f"{fast:.3f}", f"{slow:.3f}",
                      f"{slow / fast:.0f}×", f"{prove:.2f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
