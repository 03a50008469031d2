"""Time of each real-bug claim (specs/real_bugs.py) against an enumeration of the same
question where one is cheap to state, measured in the same run.

Each row is one claim: its verdict, the wall time of the spec's first run through the
spec runner (``prove_spec``: maps built, then Z3), the best of ``--repeat`` warm runs,
and, for the claims with a plain-integer twin, the twin's time and the ratio first /
twin. The issue asks each bug be caught "well
under a second"; the ratio shows what proving for every element (or every size) costs
over checking the one instance by brute force.

    python bench/real_bugs.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from layoutalg.runner.prover import discover, prove_spec

ROOT = Path(__file__).resolve().parents[1]


def _tile(i, j):
    return (2 * (i // 16) + j // 16) * 256 + (i % 16) * 16 + j % 16


def twin_53110():
    """Every padding write against every data slot of tt-metal#53110's tensor, by hand."""
    cores = [(0, 0), (0, 1), (1, 0), (1, 1)]

    def block(r, c):
        tr, tc = r // 32, c // 32
        return cores[(tr // 2) * 2 + tc // 4], ((tr % 2) * 4 + tc % 4) * 2048 + 2 * _tile(
            r % 32, c % 32)

    def runs(r, c):
        page = (r // 32) * 8 + c // 32
        return cores[page // 8], (page % 8) * 2048 + 2 * _tile(r % 32, c % 32)

    data = {block(r, c) for r in range(100) for c in range(256)}
    return any(runs(r, c) in data for r in range(100, 128) for c in range(256))


def twin_guard():
    """Every CB size the max-L1 guard admits on tt-metal#54621's core, by hand."""
    return all(119_936 + s <= 1_378_048 for s in range(1_572_864 - 119_936 + 1))


TWINS = {"tt_metal_53110_fill_pad_block_sharded": twin_53110,
         "tt_metal_54621_max_l1_guard": twin_guard}


def best(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    found = discover([ROOT / "specs" / "real_bugs.py"])
    print(f"{'spec':48} {'claim':28} {'verdict':8} {'first s':>8} {'warm s':>8} {'twin s':>8} "
          f"{'ratio':>6}")
    for item in found:
        start = time.perf_counter()
        outcomes = prove_spec(item)  # first run: builds the maps (the cold cost a user pays)
        first = time.perf_counter() - start
        warm = best(lambda: prove_spec(item), args.repeat)  # maps cached, Z3 run again
        twin = TWINS.get(item.spec.name)
        twin_s = best(twin, args.repeat) if twin else None
        for o in outcomes:
            ratio = f"{first / twin_s:6.2f}" if twin_s else ""
            shown = f"{twin_s:8.3f}" if twin_s else ""
            print(f"{o.spec:48} {o.claim[:28]:28} {o.status:8} {first:8.3f} {warm:8.3f} "
                  f"{shown:>8} {ratio}")


if __name__ == "__main__":
    main()
