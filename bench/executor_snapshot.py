"""A snapshot of what the executor computes and counts, to compare two versions.

Runs ``la.execute.matmul`` on integer data (so every sum is exact and C is
the same bit for bit whatever the order of the additions) over the runs of
``bench/executor.py`` and some uneven sizes, dtypes and channel layouts,
and writes one line per run: the SHA-256 of C's bytes, its dtype and shape,
and every count (accesses, DRAM bytes per channel, messages, MACs, steps).
Nothing is timed.

    python bench/executor_snapshot.py OUT.json            # write a snapshot
    python bench/executor_snapshot.py --compare A.json B.json

To compare the executor before and after a change, run the first form with
``PYTHONPATH`` pointing at each version's checkout.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import pathlib
import sys

import numpy as np

import layoutalg as la
from layoutalg.execute import Hierarchy, Machine, matmul

MiB = 1 << 20

# (name, (M, N, K), dataflow, tiles, machine factory, dtype, workers)
RUNS = [
    ("bench summa", (1024, 1024, 1024), "summa", (64, 64, 64),
     lambda: Machine.wse(16, 16, sram_bytes=80 * 1024), "float32", 1),
    ("bench summa, 2 workers", (1024, 1024, 1024), "summa", (64, 64, 64),
     lambda: Machine.wse(16, 16, sram_bytes=80 * 1024), "float32", 2),
    ("bench os", (1024, 1024, 1024), "os", (128, 128, 128), Hierarchy.kpu, "float32", 1),
    ("bench ws", (1024, 1024, 1024), "ws", (256, 128, 128), Hierarchy.kpu, "float32", 1),
    ("bench is", (1024, 1024, 1024), "is", (128, 256, 128), Hierarchy.kpu, "float32", 1),
    ("bench big os", (1024, 1024, 1024), "os", (512, 512, 512),
     lambda: Hierarchy(l2_bytes=4 * MiB, register_bytes=MiB), "float32", 1),
    ("bench big ws", (1024, 1024, 1024), "ws", (1024, 512, 512),
     lambda: Hierarchy(l2_bytes=4 * MiB, register_bytes=MiB), "float32", 1),
    ("bench big is", (1024, 1024, 1024), "is", (512, 1024, 512),
     lambda: Hierarchy(l2_bytes=4 * MiB, register_bytes=MiB), "float32", 1),
    ("uneven os", (1000, 968, 1010), "os", (128, 128, 128), Hierarchy.kpu, "float32", 1),
    ("uneven ws", (300, 257, 190), "ws", (64, 48, 32), Hierarchy.kpu, "float32", 1),
    ("uneven is", (300, 257, 190), "is", (64, 48, 32), Hierarchy.kpu, "float64", 1),
    ("uneven os round robin", (333, 222, 111), "os", (128, 64, 32),
     lambda: Hierarchy(channels=3, channel_option="round_robin"), "float32", 1),
    ("uneven ws iteration aware", (200, 300, 130), "ws", (96, 128, 64),
     lambda: Hierarchy(channels=8, channel_option="iteration_aware"), "float32", 1),
    ("uneven is matrix", (130, 250, 300), "is", (64, 128, 96),
     lambda: Hierarchy(channels=5, channel_option="matrix"), "float64", 1),
    ("int32 os", (160, 96, 200), "os", (64, 32, 64), Hierarchy.kpu, "int32", 1),
    ("uneven summa", (1000, 1000, 1000), "summa", (64, 64, 64),
     lambda: Machine.wse(16, 16, sram_bytes=80 * 1024), "float32", 1),
    ("uneven summa 3 workers", (250, 130, 333), "summa", (32, 16, 24),
     lambda: Machine.wse(8, 9), "float64", 3),
]


def snapshot_of(name, problem, dataflow, tiles, make, dtype, workers) -> dict:
    M, N, K = problem
    rng = np.random.default_rng(sum(problem))
    a = rng.integers(-8, 9, (M, K)).astype(dtype)
    b = rng.integers(-8, 9, (K, N)).astype(dtype)
    options = {"workers": workers} if workers != 1 else {}
    c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=make(), **options)
    exact = np.array_equal(c, a.astype(np.int64) @ b.astype(np.int64))
    return {"run": name, "C sha256": hashlib.sha256(np.ascontiguousarray(c).tobytes()).hexdigest(),
            "C dtype": str(c.dtype), "C shape": list(c.shape), "C exact": bool(exact),
            "accesses": sorted(map(str, counters.accesses)),
            "channel bytes": sorted(map(str, counters.channel_bytes)),
            "messages": sorted(map(str, counters.messages)),
            "macs": counters.macs, "steps": counters.steps}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="file to write the snapshot to")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two snapshots")
    args = parser.parse_args()
    if args.compare:
        first, second = (json.loads(pathlib.Path(path).read_text()) for path in args.compare)
        same = first == second
        for x, y in zip(first, second):
            print(f"{x['run']:30} {'same' if x == y else 'DIFFERENT'}; C exact: {x['C exact']} / "
                  f"{y['C exact']}")
        print("identical" if same else "SNAPSHOTS DIFFER")
        return 0 if same and len(first) == len(second) == len(RUNS) else 1
    found = [snapshot_of(*run) for run in RUNS]
    pathlib.Path(args.out).write_text(json.dumps(found, indent=1))
    print(f"{len(found)} runs written to {args.out} by {la.__file__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
