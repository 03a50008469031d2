"""The reference executor against plain NumPy, in one run.

1. A 1024³ fp32 matmul: ``numpy.matmul`` on the arrays, then the executor —
   SUMMA on a 16×16 PE mesh, and the OS / WS / IS schedules on the default
   KPU (256 KiB L2, 64 KiB of registers: 128–256 tiles) and on a large KPU
   (4 MiB L2, 1 MiB of registers: 512–1024 tiles) — once per BLAS thread
   count (``--blas-threads 1,2``, set with threadpoolctl; SUMMA gets as many
   ``workers``). NumPy and the executor alternate, run by run, so load on the
   machine falls on both, each run starting ``SETTLE`` (0.2 s) after the one
   before (so BLAS threads spinning after NumPy's product are not counted in
   the executor's CPU time); each time is the median of ``--repeat`` runs, wall
   and CPU (all threads of the process), and the ratios are of those
   medians. "first" is the executor's first run (its per-schedule tables are
   made then). Every result is checked against numpy (allclose) and every
   KPU count against ``la.dataflow``; SUMMA's against a loop over steps,
   rows and columns written here.
2. Place and fetch of a 4096×4096 fp32 array by a 16×16 grid and a 16×16
   block-cyclic layout (blocks of 32) beside a plain NumPy copy (``np.copyto``
   into a preallocated array for place; ``array.copy()`` for fetch, which
   allocates its result as fetch does).
3. Peak traced memory (tracemalloc) of each, over the data size.

The load average is printed before and after: on a shared machine read the
ratios, and the CPU ratio most. Needs the ``bench`` extra (threadpoolctl).

    python bench/executor.py [--repeat 5] [--blas-threads 1,2] [--only summa,os]
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
import statistics
import sys
import time
import tracemalloc

import numpy as np
from rich.console import Console
from rich.table import Table
from threadpoolctl import threadpool_info, threadpool_limits

import layoutalg as la
from layoutalg.execute import Hierarchy, Machine, fetch, matmul, place

MiB = 1 << 20
N_MM = 1024
N_PF = 4096
PES = 16
TARGETS = {("SUMMA", 1): 1.5, ("SUMMA", 2): 2.0, ("OS", 1): 1.5, ("WS", 1): 1.5,
           ("IS", 1): 1.5, ("OS", 2): 1.5, ("WS", 2): 1.5,
           ("IS", 2): 1.5}   # issue 17 item 6: executor / numpy.matmul, default KPU rows
#: Seconds to wait before each timed run: OpenBLAS's idle pool threads busy-wait
#: for 2^THREAD_TIMEOUT = 2^28 cycles after a threaded product before sleeping
#: (OpenMathLib/OpenBLAS driver/others/blas_server.c), and that spinning would
#: otherwise count in the CPU time of whatever runs next in this process.
SETTLE = 0.2


def _arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing (median kept)")
    parser.add_argument("--blas-threads", default="1,2",
                        help="comma-separated BLAS thread counts to compare at (default 1,2)")
    parser.add_argument("--only", default="",
                        help="comma-separated rows to run (summa, os, ws, is, big-os, big-ws, "
                             "big-is, place); default all")
    return parser.parse_args()


def clocked(run) -> tuple[float, float]:
    """Wall and CPU seconds (CPU of every thread of this process) of one run,
    started once BLAS's idle threads have stopped spinning (``SETTLE``)."""
    time.sleep(SETTLE)
    wall, cpu = time.perf_counter(), time.process_time()
    run()
    return time.perf_counter() - wall, time.process_time() - cpu


def alternate(baseline, ours, repeat: int):
    """Medians (wall, cpu) of ``baseline`` and of ``ours``, run in turns."""
    base, mine = [], []
    for _ in range(repeat):
        base.append(clocked(baseline))
        mine.append(clocked(ours))
    median = lambda runs, k: statistics.median(r[k] for r in runs)   # noqa: E731
    return (median(base, 0), median(base, 1)), (median(mine, 0), median(mine, 1))


def peak(run) -> int:
    """Peak bytes traced while ``run`` executes (allocations made before are not counted)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    run()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


def summa_counts_by_loop(problem, tiles, e):
    """SUMMA's messages and SRAM accesses by a plain loop over steps, PE rows
    and PE columns, from the algorithm's description (not the executor's code)."""
    (M, N, K), (Ti, Tj, Tk) = problem, tiles
    rows, cols, steps = -(-M // Ti), -(-N // Tj), -(-K // Tk)
    sent = {x: [0] * 6 for x in "AB"}
    sram = dict.fromkeys([(x, k) for x in "ABC" for k in ("read", "write")], 0)
    for s in range(steps):
        depth = min(Tk, K - s * Tk)
        for r in range(rows):
            for c in range(cols):
                height, width = min(Ti, M - r * Ti), min(Tj, N - c * Tj)
                for x, owner, me, nbytes in (("A", s % cols, c, height * depth * e),
                                             ("B", s % rows, r, depth * width * e)):
                    if me != owner:
                        hops, wavelets = abs(me - owner), -(-nbytes // 4)
                        for i, v in enumerate((1, nbytes, wavelets, hops, nbytes * hops,
                                               wavelets * hops)):
                            sent[x][i] += v
                        sram[x, "write"] += nbytes // e
                sram["A", "read"] += height * depth
                sram["B", "read"] += depth * width
                sram["C", "read"] += height * width if s else 0
                sram["C", "write"] += height * width
    return ({x: la.execute.Messages(*v) for x, v in sent.items()},
            {("sram", x, k): n for (x, k), n in sram.items()})


def counts_agree(name, counters, problem, tiles, e) -> str:
    if name == "SUMMA":
        messages, sram = summa_counts_by_loop(problem, tiles, e)
        same = (all(counters.message(x) == m for x, m in messages.items())
                and dict(counters.accesses) == sram)
    else:
        same = counters.traffic() == la.dataflow.traffic(counters.schedule)
    return "yes" if same else "NO"


def matmul_rows(repeat: int, threads: int, only: set[str]) -> Table:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N_MM, N_MM), dtype=np.float32)
    b = rng.standard_normal((N_MM, N_MM), dtype=np.float32)
    reference = a @ b
    data = 3 * a.nbytes
    mesh = Machine.wse(PES, PES, sram_bytes=80 * 1024)

    def big():
        return Hierarchy(l2_bytes=4 * MiB, register_bytes=MiB)

    runs = [   # a Hierarchy allocates its memories per run; a mesh is reused when timing
        ("summa", "SUMMA", f"{PES}×{PES} PEs × 80 KiB", "summa", (64, 64, 64), lambda: mesh),
        ("os", "OS", "KPU 256 KiB L2", "os", (128, 128, 128), Hierarchy.kpu),
        ("ws", "WS", "KPU 256 KiB L2", "ws", (256, 128, 128), Hierarchy.kpu),
        ("is", "IS", "KPU 256 KiB L2", "is", (128, 256, 128), Hierarchy.kpu),
        ("big-os", "OS", "KPU 4 MiB L2", "os", (512, 512, 512), big),
        ("big-ws", "WS", "KPU 4 MiB L2", "ws", (1024, 512, 512), big),
        ("big-is", "IS", "KPU 4 MiB L2", "is", (512, 1024, 512), big),
    ]
    table = Table(title=f"{N_MM}³ fp32 matmul, {threads} BLAS thread(s): executor vs "
                        f"numpy.matmul, medians of {repeat} alternating runs",
                  header_style="bold")
    for column in ("dataflow", "machine", "tiles", "steps", "numpy ms wall / CPU",
                   "executor ms wall / CPU", "first ms", "× numpy wall", "× numpy CPU",
                   "target", "peak / data", "C ok", "counts"):
        table.add_column(column, justify="right")
    for key, name, where, dataflow, tiles, make in runs:
        if only and key not in only:
            continue
        # (an executor without ``workers``, e.g. an older checkout, runs with its defaults)
        shared = dataflow == "summa" and "workers" in inspect.signature(matmul).parameters
        workers = {"workers": threads} if shared else {}

        def ours():
            return matmul(a, b, dataflow=dataflow, tiles=tiles, machine=make(), **workers)

        first, _ = clocked(ours)
        c, counters = ours()
        (nw, nc), (w, cpu) = alternate(lambda: np.matmul(a, b), ours, repeat)
        ok = np.allclose(c, reference, rtol=1e-3, atol=1e-2)
        # the peak of a first run: without the tables and the DRAM a run of the
        # same schedule leaves for the next (the executor's private memo)
        memo = getattr(sys.modules["layoutalg.execute.matmul"], "_memo", None)
        if memo is not None:   # (an older executor has none)
            memo.cache_clear()
        top = peak(lambda: matmul(a, b, dataflow=dataflow, tiles=tiles,
                                  machine=Machine.wse(PES, PES, sram_bytes=80 * 1024)
                                  if dataflow == "summa" else make(), **workers))
        target = TARGETS.get((name, threads)) if key == dataflow else None
        met = "" if target is None else (f"≤ {target} " + ("met" if cpu / nc <= target
                                                            else "MISSED") + " (CPU)")
        table.add_row(name, where, "×".join(map(str, tiles)), str(counters.steps),
                      f"{nw * 1e3:.1f} / {nc * 1e3:.1f}", f"{w * 1e3:.1f} / {cpu * 1e3:.1f}",
                      f"{first * 1e3:.1f}", f"{w / nw:.2f}", f"{cpu / nc:.2f}", met,
                      f"{top / data:.2f}", "yes" if ok else "NO",
                      counts_agree(name, counters, (N_MM, N_MM, N_MM), tiles, 4))
    return table


def grid_layout(n: int, pes: int) -> la.IndexMap:
    """n×n on pes×pes PEs in (n/pes)² tiles, row-major inside a tile."""
    tile = n // pes
    dom = la.Space(i=n, j=n)
    i, j = dom.symbols
    return la.IndexMap(dom, la.Space(pe_row=pes, pe_col=pes, offset=tile * tile),
                       [i // tile, j // tile, (i % tile) * tile + j % tile], name="grid")


def block_cyclic_layout(n: int, pes: int, block: int) -> la.IndexMap:
    """n×n dealt to pes×pes PEs in block×block blocks, round robin in both dims."""
    local = n // pes
    dom = la.Space(i=n, j=n)
    i, j = dom.symbols
    row = (i // (block * pes)) * block + i % block
    col = (j // (block * pes)) * block + j % block
    return la.IndexMap(dom, la.Space(pe_row=pes, pe_col=pes, offset=local * local),
                       [(i // block) % pes, (j // block) % pes, row * local + col],
                       name="block-cyclic")


def mesh_layouts(n: int, pes: int, block: int):
    """The mesh family's own maps when it is importable (byte offsets), else ours."""
    try:
        from layoutalg.mesh.layout import MeshLayout
    except ImportError:
        return [(grid_layout(n, pes), False), (block_cyclic_layout(n, pes, block), False)]
    return [(MeshLayout.grid(pes, pes).index_map((n, n), element_size=4), True),
            (MeshLayout.block_cyclic(pes, pes, block, block).index_map((n, n), element_size=4),
             True)]


def median_wall(run, repeat: int) -> float:
    return statistics.median(clocked(run)[0] for _ in range(repeat))


def placement_rows(repeat: int) -> Table:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N_PF, N_PF), dtype=np.float32)
    y = np.empty_like(x)
    copy_into = median_wall(lambda: np.copyto(y, x), repeat)
    copy_new = median_wall(lambda: x.copy(), repeat)
    table = Table(title=f"place / fetch of {N_PF}×{N_PF} fp32 ({x.nbytes // MiB} MiB) on "
                        f"{PES}×{PES} PEs; np.copyto {copy_into * 1e3:.1f} ms, "
                        f"array.copy() {copy_new * 1e3:.1f} ms", header_style="bold")
    for column in ("layout", "plan", "place ms", "× copyto", "fetch ms", "× copy()",
                   "peak / data", "round trip"):
        table.add_column(column, justify="right")
    for m, in_bytes in mesh_layouts(N_PF, PES, 32):
        capacity = x.nbytes // (PES * PES)
        machine = Machine.wse(PES, PES, sram_bytes=capacity)
        placed = place(x, m, machine, offsets_in_bytes=in_bytes)
        place_s = median_wall(lambda: place(x, m, machine, offsets_in_bytes=in_bytes), repeat)
        fetch_s = median_wall(lambda: fetch(m, machine, np.float32, offsets_in_bytes=in_bytes),
                             repeat)
        ok = np.array_equal(fetch(m, machine, np.float32, offsets_in_bytes=in_bytes), x)

        def fresh_round_trip():
            fresh = Machine.wse(PES, PES, sram_bytes=capacity)
            place(x, m, fresh, offsets_in_bytes=in_bytes)
            fetch(m, fresh, np.float32, offsets_in_bytes=in_bytes)

        top = peak(fresh_round_trip)
        table.add_row(m.label.split(" of ")[0], placed.method, f"{place_s * 1e3:.1f}",
                      f"{place_s / copy_into:.2f}", f"{fetch_s * 1e3:.1f}",
                      f"{fetch_s / copy_new:.2f}", f"{top / x.nbytes:.2f}",
                      "exact" if ok else "WRONG")
    return table


def main() -> int:
    args = _arguments()
    only = {x for x in args.only.split(",") if x}
    console = Console(width=170)
    blas = [f"{i.get('internal_api')} {i.get('version')}" for i in threadpool_info()
            if i.get("user_api") == "blas"]
    console.print(f"machine: {platform.machine()} {platform.processor() or ''}, "
                  f"{os.cpu_count()} cores; Python {platform.python_version()}, "
                  f"NumPy {np.__version__}, BLAS {', '.join(blas) or 'unknown'}; "
                  f"load average {os.getloadavg()[0]:.2f} (1 min) at start", markup=False)
    for threads in (int(t) for t in args.blas_threads.split(",")):
        if only - {"place"} or not only:
            with threadpool_limits(limits=threads, user_api="blas"):
                console.print(matmul_rows(args.repeat, threads, only))
    if not only or "place" in only:
        console.print(placement_rows(args.repeat))
    console.print("CPU: process time of all threads, the steadier figure under load; SUMMA "
                  "runs with workers = BLAS threads. peak / data: tracemalloc peak of one run "
                  "on a fresh machine over the data it moves (matmul: A + B + C; place + "
                  "fetch: the array); it counts the machine's memories and the result.",
                  markup=False)
    console.print(f"load average {os.getloadavg()[0]:.2f} (1 min) at the end", markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
