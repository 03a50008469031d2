"""How proof cost grows: ``la.check_bijective`` time along four axes.

Each curve builds a family of bijective maps from the public combinators
(``la.split``, ``la.cyclic``, ``la.permute``, ``la.fuse``, ``la.linearize``)
and times ``la.check_bijective`` on each (Z3 answers: the public checks do
not enumerate). The axes, one changed at a time:

- **size**: a 2-D tensor of 2^e elements (e = 10 … 40, concrete extents)
  tiled over 16×16 PEs (split both dims, permute the PE dims first,
  linearize the tile into an offset);
- **dims**: d = 1 … 8 dims of extent 16, each split by the radix r, the
  outer parts first, the inner parts linearized into an offset;
- **depth**: 1 … 8 combinators chained on one dim of 2^24 elements
  (split the largest dim by r, deal the largest over r, reverse the dims,
  fuse the first two, in turn);
- **symbols**: six dims split by r, the first s (0 … 6) of extent r·n_k
  for a symbol n_k ≥ 1, the others of extent 2r.

The radix r (``--radix``, 2, 4 or 8; default 4) matters: Z3's work grows
with the number of digits of radix above 2 that the inverse reads back.

Every point is built anew and checked ``--repeat`` times (medians of wall
and CPU time kept; the first run's wall time is shown too); the ratio of
each CPU median to the one before is the growth per step (CPU time of the
process, Z3's threads included: steadier than wall time on a loaded
machine), and the fitted exponent says how time scales with the variable
(0: flat, 1: linear; least squares on log–log, points from 1 up); the CPU
time per unit of the variable is constant where growth is linear. Every
verdict must be PROVED. ``--profile``
profiles the slowest point of the run (cProfile, the top functions by
cumulative time).

    python bench/growth.py [--repeat 3] [--axis size --axis depth] [--radix 4] [--profile 15]
"""

from __future__ import annotations

import argparse
import cProfile
import math
import os
import pstats
import statistics
import sys
import time
from collections.abc import Callable

import sympy
from rich.console import Console
from rich.table import Table

import layoutalg as la

PES = 16
RADIX = 4   # the factor dims, depth and symbols split (and deal) by: --radix


def size_map(e: int) -> la.IndexMap:
    """[i: 2^⌊e/2⌋, j: 2^⌈e/2⌉] → [pe_row, pe_col, offset] on 16×16 PEs."""
    m, n = 1 << (e // 2), 1 << (e - e // 2)
    tiles = la.split(la.Space(i=m, j=n), "i", m // PES, names=("pe_row", "row"))
    tiles = la.split(tiles, "j", n // PES, names=("pe_col", "col"))
    ordered = la.permute(tiles, ["pe_row", "pe_col", "row", "col"])
    return la.linearize(ordered, ["row", "col"]).renamed(f"grid 2^{e} on {PES}x{PES}")


def dims_map(d: int, radix: int | None = None) -> la.IndexMap:
    """d dims of 16, each split by the radix (default RADIX): [p_0 … p_{d-1},
    offset of the x_k]. tests/verify/test_structure_first.py proves these too."""
    radix = radix or RADIX
    m: la.IndexMap | la.Space = la.Space(**{f"d{k}": 16 for k in range(d)})
    for k in range(d):
        m = la.split(m, f"d{k}", radix, names=(f"p{k}", f"x{k}"))
    m = la.permute(m, [f"p{k}" for k in range(d)] + [f"x{k}" for k in range(d)])
    return la.linearize(m, [f"x{k}" for k in range(d)]).renamed(f"{d} dims")


def depth_map(levels: int, radix: int | None = None, size: int = 1 << 24) -> la.IndexMap:
    """``levels`` combinators on [i: size]: split or deal the largest dim by
    the radix (default RADIX), reverse the dims, fuse the first two, in turn."""
    radix = radix or RADIX
    m: la.IndexMap | la.Space = la.Space(i=size)
    for level in range(1, levels + 1):
        space = m if isinstance(m, la.Space) else m.codomain
        names = space.names
        widest = max(names, key=space.extent)   # split and deal the largest dim
        kind = level % 4
        if kind == 1:
            m = la.split(m, widest, radix, names=(f"s{level}", f"t{level}"))
        elif kind == 2:
            m = la.cyclic(m, widest, radix, names=(f"part{level}", f"local{level}"))
        elif kind == 3:
            m = la.permute(m, list(reversed(names)))
        else:
            m = la.fuse(m, names[0], names[1], name=f"f{level}")
    return m.renamed(f"depth {levels}")


def symbols_map(s: int) -> la.IndexMap:
    """Six dims split by RADIX; the first s of extent RADIX·n_k (n_k a symbol
    ≥ 1), the rest 2·RADIX."""
    extents = {}
    for k in range(6):
        n = sympy.Symbol(f"n{k}", integer=True, positive=True)
        extents[f"d{k}"] = RADIX * n if k < s else 2 * RADIX
    m: la.IndexMap | la.Space = la.Space(**extents)
    for k in range(6):
        m = la.split(m, f"d{k}", RADIX, names=(f"o{k}", f"x{k}"))
    m = la.permute(m, [f"o{k}" for k in range(6)] + [f"x{k}" for k in range(6)])
    return la.linearize(m, [f"x{k}" for k in range(6)]).renamed(f"{s} symbols")


AXES: dict[str, tuple[str, list[int], Callable[[int], la.IndexMap]]] = {
    "size": ("elements 2^e", [10, 15, 20, 25, 30, 35, 40], size_map),
    "dims": ("dims", list(range(1, 9)), dims_map),
    "depth": ("chain depth", list(range(1, 9)), depth_map),
    "symbols": ("symbolic extents", list(range(7)), symbols_map),
}


def measure(build: Callable[[int], la.IndexMap], x: int, repeat: int):
    """(first, wall median, CPU median) seconds of la.check_bijective on fresh maps, and the verdicts."""
    walls, cpus, verdicts = [], [], set()
    for _ in range(repeat):
        m = build(x)
        wall, cpu = time.perf_counter(), time.process_time()
        result = la.check_bijective(m)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        verdicts.add(result.status.name)
    return walls[0], statistics.median(walls), statistics.median(cpus), verdicts


def exponent(xs: list[float], ts: list[float]) -> float:
    """Least-squares slope of log t against log x (time ∝ x^slope)."""
    lx, lt = [math.log(x) for x in xs], [math.log(t) for t in ts]
    mx, mt = statistics.fmean(lx), statistics.fmean(lt)
    return (sum((a - mx) * (b - mt) for a, b in zip(lx, lt))
            / sum((a - mx) ** 2 for a in lx))


def curve(name: str, repeat: int, console: Console):
    label, xs, build = AXES[name]
    table = Table(title=f"{name}: la.check_bijective against {label} "
                        f"(medians of {repeat})", header_style="bold")
    per = "CPU ms / 2^e" if name == "size" else f"CPU ms / {label}"
    for column in (label, "first ms", "wall ms", "CPU ms", "CPU × previous", per, "verdict"):
        table.add_column(column, justify="right")
    rows, previous, worst = [], None, None
    for x in xs:
        first, median, cpu, verdicts = measure(build, x, repeat)
        step = "—" if previous is None else f"{cpu / previous:.2f}"
        verdict = "/".join(sorted(verdicts))
        unit = 2.0 ** x if name == "size" else max(x, 1)
        table.add_row(str(x), f"{first * 1e3:.1f}", f"{median * 1e3:.1f}", f"{cpu * 1e3:.1f}",
                      step, f"{cpu * 1e3 / unit:.3g}",
                      verdict if verdict == "PROVED" else f"[red]{verdict}[/red]")
        rows.append((x, median, cpu))
        previous = cpu
        if worst is None or cpu > worst[1]:
            worst = (x, cpu)
    # fitted against the element count for size, else the variable itself (from 1 up)
    fitted = [(2.0 ** x if name == "size" else float(x), wall, cpu)
              for x, wall, cpu in rows if x >= 1]
    slopes = [exponent([f[0] for f in fitted], [f[k] for f in fitted]) for k in (1, 2)]
    span = rows[-1][2] / rows[0][2]
    console.print(table)
    console.print(f"  {name}: CPU last / first = {span:.2f}; CPU time ∝ "
                  f"{'elements' if name == 'size' else label}^{slopes[1]:.2f} "
                  f"(wall: ^{slopes[0]:.2f})", markup=False)
    return name, worst, span, slopes[1]


def profile(name: str, x: int, top: int, console: Console) -> None:
    _, _, build = AXES[name]
    m = build(x)
    profiler = cProfile.Profile()
    profiler.enable()
    result = la.check_bijective(m)
    profiler.disable()
    console.print(f"profile of the slowest point: {name} = {x} ({result.status.name}, "
                  f"{result.seconds * 1e3:.0f} ms)", markup=False)
    stats = pstats.Stats(profiler, stream=sys.stdout)
    stats.sort_stats("cumulative").print_stats("layoutalg|sympy|z3", top)


def main() -> int:
    global RADIX
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per point (median kept)")
    parser.add_argument("--axis", action="append", choices=sorted(AXES),
                        help="axes to run (repeatable; default all)")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="profile the slowest point, printing N functions")
    parser.add_argument("--radix", type=int, default=RADIX, choices=(2, 4, 8),
                        help="the split factor of dims, depth and symbols (default 4)")
    args = parser.parse_args()
    RADIX = args.radix
    console = Console(width=120)
    console.print(f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} (1 min) at "
                  f"start; radix {RADIX}",
                  markup=False)
    found = [curve(name, args.repeat, console) for name in args.axis or list(AXES)]
    console.print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end", markup=False)
    if args.profile:
        name, (x, _), _, _ = max(found, key=lambda f: f[1][1])
        profile(name, x, args.profile, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
