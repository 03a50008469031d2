"""Z3 proof vs NumPy enumeration: injectivity of grid layouts from 2^10 to 2^40 elements.

Each size is a square M = N = 2^(e/2) tensor over a PE grid (the WSE-2
rectangle, 994 rows × 750 columns, shrunk to the smallest grid with the
same tile so no PE row or column is empty), built from layoutalg
combinators: split i by TR = ⌈M/PR⌉, split j by TC = ⌈N/PC⌉, permute to
(pe_row, pe_col, row, col), linearize (row, col) into the offset.

For each size it times ``la.check_injective`` (Z3) and its brute twin
``layoutalg.verify.brute.check_injective`` (NumPy enumeration), and checks
they agree. Enumeration stops once the next size is estimated, from the
previous one, to exceed the memory or time budget. The last line proves
the grid injective for every M, N, PR, PC at once.

    python bench/prove_scaling.py [--max-exp 40] [--enum-seconds 60] [--enum-gb 2]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import sys
import time
import tracemalloc
from dataclasses import dataclass

import sympy
from rich.console import Console
from rich.table import Table

import layoutalg as la
from layoutalg.verify import brute

WSE2_ROWS, WSE2_COLS = 994, 750
GB = 1 << 30


def grid(m, n, pe_rows, pe_cols) -> la.IndexMap:
    """[i:m, j:n] → [pe_row, pe_col, offset] by ceil-division tiles; extents may be symbols."""
    tile_rows = _ceil(m, pe_rows)
    tile_cols = _ceil(n, pe_cols)
    tiles = la.split(la.Space(i=m, j=n), "i", tile_rows, names=("pe_row", "row"))
    tiles = la.split(tiles, "j", tile_cols, names=("pe_col", "col"))
    placed = la.linearize(la.permute(tiles, ["pe_row", "pe_col", "row", "col"]), ["row", "col"])
    padded = la.pad(la.pad(placed, "pe_row", to=pe_rows), "pe_col", to=pe_cols)
    return padded.renamed(f"grid[{m}x{n} on {pe_rows}x{pe_cols}]")


def fitted_pes(extent: int, most: int) -> int:
    """The fewest PEs (at most ``most``) that keep the tile ⌈extent/most⌉, so none is empty."""
    tile = _ceil(extent, min(most, extent))
    return _ceil(extent, tile)


def _ceil(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return sympy.ceiling(sympy.sympify(a) / b)


@contextlib.contextmanager
def enumeration_limit(limit: int):
    """Let the brute twins enumerate up to ``limit`` points.

    ``brute.points`` binds ``MAX_POINTS`` as its default when defined, so
    patching ``brute.MAX_POINTS`` has no effect; rebinding the module's
    ``points`` (which ``image_table`` looks up at call time) does.
    """
    original = brute.points
    brute.points = functools.partial(original, limit=limit)
    try:
        yield
    finally:
        brute.points = original


@dataclass
class Row:
    exponent: int
    pes: tuple[int, int]
    z3_seconds: float
    z3_status: str
    enum_seconds: float | None = None
    enum_status: str | None = None
    enum_bytes: int | None = None
    skipped: str = ""


def time_z3(m: la.IndexMap, repeat: int = 3) -> tuple[float, str]:
    """Best of ``repeat`` runs (each is a fresh Z3 context)."""
    results = [la.check_injective(m) for _ in range(repeat)]
    return min(r.seconds for r in results), results[0].status.value


def time_enumeration(m: la.IndexMap) -> tuple[float, str, int]:
    """Seconds, verdict and peak traced bytes (NumPy reports its buffers to tracemalloc)."""
    tracemalloc.start()
    try:
        start = time.perf_counter()
        result = brute.check_injective(m)
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return seconds, result.status.value, peak


def estimate(previous: Row, exponent: int) -> tuple[float, float]:
    """Seconds (n log n, the sort) and bytes (linear) for 2^exponent points."""
    n0, n1 = 2 ** previous.exponent, 2 ** exponent
    seconds = previous.enum_seconds * (n1 / n0) * (math.log(n1) / math.log(n0))
    return seconds, previous.enum_bytes * (n1 / n0)


def run(max_exp: int, enum_seconds: float, enum_bytes: float, console: Console) -> int:
    la.check_injective(grid(32, 32, 4, 4))  # warm up Z3 and SymPy caches
    rows: list[Row] = []
    last_measured: Row | None = None
    stopped = False
    for exponent in range(10, max_exp + 1, 2):
        side = 2 ** (exponent // 2)
        pes = (fitted_pes(side, WSE2_ROWS), fitted_pes(side, WSE2_COLS))
        m = grid(side, side, *pes)
        z3_seconds, z3_status = time_z3(m)
        row = Row(exponent, pes, z3_seconds, z3_status)
        rows.append(row)
        if last_measured is not None:
            seconds, needed = estimate(last_measured, exponent)
            if stopped or seconds > enum_seconds or needed > enum_bytes:
                row.skipped = f"skipped (est. {_duration(seconds)} / {needed / GB:.1f} GB)"
                stopped = True  # every larger size is skipped too
                continue
        with enumeration_limit(2 ** exponent):
            row.enum_seconds, row.enum_status, row.enum_bytes = time_enumeration(m)
        last_measured = row
        console.print(f"  2^{exponent}: z3 {z3_seconds:.3f}s, enumeration {row.enum_seconds:.3f}s",
                      style="dim")
    console.print(table(rows))
    start = time.perf_counter()
    verdict = parametric_proof()
    console.print(f"parametric grid (every M, N, PR, PC): injective {verdict.status} "
                  f"in {time.perf_counter() - start:.3f}s (check {verdict.seconds:.3f}s)")
    disagree = [r for r in rows if r.enum_status is not None and r.enum_status != r.z3_status]
    if disagree or verdict.status is not la.Status.PROVED:
        console.print("[red]Z3 and enumeration disagree, or the parametric proof failed[/]")
        return 1
    return 0


def parametric_proof() -> la.CheckResult:
    m, n, pe_rows, pe_cols = la.extents("M N PR PC")
    return la.check_injective(grid(m, n, pe_rows, pe_cols))


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f}s"


def table(rows: list[Row]) -> Table:
    out = Table(title="check_injective: Z3 vs enumeration, square grid layouts",
                header_style="bold")
    for column in ("elements", "PE grid", "Z3 s", "Z3 verdict", "enumeration s",
                   "enum. peak", "ratio enum/Z3"):
        out.add_column(column, justify="left" if column in ("PE grid", "Z3 verdict") else "right")
    for r in rows:
        grid_text = f"{r.pes[0]}×{r.pes[1]}"
        if r.enum_seconds is None:
            enum_text, peak, ratio = r.skipped, "", ""
        else:
            agree = "" if r.enum_status == r.z3_status else f" [red]{r.enum_status}![/]"
            enum_text = f"{r.enum_seconds:.3f}{agree}"
            peak = f"{r.enum_bytes / 2**20:.1f} MB"
            ratio = f"{r.enum_seconds / r.z3_seconds:.1f}×"
        out.add_row(f"2^{r.exponent}", grid_text, f"{r.z3_seconds:.3f}", r.z3_status,
                    enum_text, peak, ratio)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-exp", type=int, default=40,
                        help="largest size is 2^MAX_EXP elements (even, 10..40; default 40)")
    parser.add_argument("--enum-seconds", type=float, default=60.0,
                        help="skip enumeration estimated to take longer (default 60)")
    parser.add_argument("--enum-gb", type=float, default=2.0,
                        help="skip enumeration estimated to need more memory (default 2)")
    args = parser.parse_args(argv)
    if not 10 <= args.max_exp <= 40 or args.max_exp % 2:
        parser.error(f"--max-exp must be an even number from 10 to 40; got {args.max_exp}")
    console = Console(highlight=False, width=None if sys.stdout.isatty() else 120)
    return run(args.max_exp, args.enum_seconds, args.enum_gb * GB, console)


if __name__ == "__main__":
    sys.exit(main())
