"""Characterize matmul dataflows: Pareto frontier of energy vs cycles, plot and table.

Sweeps ``la.dataflow.SHAPES`` (BERT projections, MLPs, the seed's two
validation cases, convolutions as GEMMs) under OS, WS and IS on the default
machine (256 KiB L2, 16×16 PEs with 64 KiB of registers, fp32, Eyeriss
costs), writes the frontier plot to ``docs/assets/dataflow_frontier.svg``
and puts the table into ``docs/dataflow.md`` between its table markers.

    python bench/characterize.py [--jobs N] [--check]

``--jobs N`` runs the sweep in N worker processes; ``--check`` writes
nothing and exits 1 if the shipped plot or table differ from a fresh run.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from layoutalg import dataflow as df

ROOT = Path(__file__).resolve().parents[1]
PLOT = ROOT / "docs" / "assets" / "dataflow_frontier.svg"
PAGE = ROOT / "docs" / "dataflow.md"
START, END = "<!-- characterize:table:start -->", "<!-- characterize:table:end -->"


def page_with_table(page: str, table: str) -> str:
    """``page`` with the text between the table markers replaced by ``table``."""
    if START not in page or END not in page:
        raise SystemExit(f"{PAGE}: the markers {START} … {END} are missing")
    head, rest = page.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--check", action="store_true", help="compare with the shipped files")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            result = df.characterize(executor=pool)
    else:
        result = df.characterize()
    seconds = time.perf_counter() - start
    svg, table = result.svg(), result.table()
    page = page_with_table(PAGE.read_text(), table)
    if args.check:
        stale = [p for p, text in ((PLOT, svg), (PAGE, page))
                 if not p.exists() or p.read_text() != text]
        for path in stale:
            print(f"stale: {path.relative_to(ROOT)}")
        return 1 if stale else 0
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    PLOT.write_text(svg)
    PAGE.write_text(page)
    print(table)
    print(f"\n{len(result.evaluations)} evaluations in {seconds:.1f} s "
          f"({sum(e.feasible for e in result.evaluations)} tilings scored); "
          f"wrote {PLOT.relative_to(ROOT)} and the table in {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
