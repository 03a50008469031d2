"""The reference executor against plain NumPy, in one run.

1. A 1024³ fp32 matmul: ``numpy.matmul`` on the arrays, then the executor —
   SUMMA on a 16×16 PE mesh, and the OS / WS / IS schedules on the default
   KPU (256 KiB L2, 64 KiB of registers: 128–256 tiles) and on a large KPU
   (4 MiB L2, 1 MiB of registers: 512–1024 tiles). Every result is checked
   against numpy (allclose) and every KPU count against ``la.dataflow``.
2. Place and fetch of a 4096×4096 fp32 array by a 16×16 grid and a 16×16
   block-cyclic layout (blocks of 32) beside a plain NumPy copy (``np.copyto``
   into a preallocated array for place; ``array.copy()`` for fetch, which
   allocates its result as fetch does).
3. Peak traced memory (tracemalloc) of each, over the data size.

Times are the best of ``--repeat`` runs (the machine may be shared).
``--blas-threads N`` pins OpenBLAS/OpenMP threads (set before NumPy loads).

    python bench/executor.py [--repeat 3] [--blas-threads N]
"""

from __future__ import annotations

import argparse
import os
import sys


def _arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (best is kept)")
    parser.add_argument("--blas-threads", type=int, default=None,
                        help="threads for OpenBLAS / OpenMP (default: the library's choice)")
    return parser.parse_args()


ARGS = _arguments()
if ARGS.blas_threads is not None:   # must precede the NumPy import
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = str(ARGS.blas_threads)

import platform  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402
from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

import layoutalg as la  # noqa: E402
from layoutalg.execute import Hierarchy, Machine, fetch, matmul, place  # noqa: E402

MiB = 1 << 20
N_MM = 1024
N_PF = 4096
PES = 16


def best(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def peak(run) -> int:
    """Peak bytes traced while ``run`` executes (allocations made before are not counted)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    run()
    _, top = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return top


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


def matmul_rows(console: Console, repeat: int) -> Table:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N_MM, N_MM), dtype=np.float32)
    b = rng.standard_normal((N_MM, N_MM), dtype=np.float32)
    reference = a @ b
    numpy_s = best(lambda: np.matmul(a, b), repeat)
    data = 3 * a.nbytes
    def mesh():
        return Machine.wse(PES, PES, sram_bytes=80 * 1024)

    def kpu():
        return Hierarchy.kpu()

    def big():
        return Hierarchy(l2_bytes=4 * MiB, register_bytes=MiB)

    runs = [   # a Hierarchy allocates its memories per run; a mesh is reused when timing
        ("SUMMA", f"{PES}×{PES} PEs × 80 KiB", "summa", (64, 64, 64), mesh),
        ("OS", "KPU 256 KiB L2", "os", (128, 128, 128), kpu),
        ("WS", "KPU 256 KiB L2", "ws", (256, 128, 128), kpu),
        ("IS", "KPU 256 KiB L2", "is", (128, 256, 128), kpu),
        ("OS", "KPU 4 MiB L2", "os", (512, 512, 512), big),
        ("WS", "KPU 4 MiB L2", "ws", (1024, 512, 512), big),
        ("IS", "KPU 4 MiB L2", "is", (512, 1024, 512), big),
    ]
    table = Table(title=f"{N_MM}³ fp32 matmul (numpy.matmul {numpy_s * 1e3:.1f} ms)",
                  header_style="bold")
    for column in ("dataflow", "machine", "tiles", "steps", "executor ms", "× numpy",
                   "peak / data", "C ok", "counts = model"):
        table.add_column(column, justify="right")
    for name, where, dataflow, tiles, make in runs:
        machine = make()
        c, counters = matmul(a, b, dataflow=dataflow, tiles=tiles, machine=machine)
        seconds = best(lambda: matmul(a, b, dataflow=dataflow, tiles=tiles, machine=machine),
                       repeat)
        ok = np.allclose(c, reference, rtol=1e-3, atol=1e-2)
        if dataflow == "summa":
            model = "—"
        else:
            same = counters.traffic() == la.dataflow.traffic(counters.schedule)
            model = "yes" if same else "NO"
        top = peak(lambda: matmul(a, b, dataflow=dataflow, tiles=tiles, machine=make()))
        table.add_row(name, where, "×".join(map(str, tiles)), str(counters.steps),
                      f"{seconds * 1e3:.1f}", f"{seconds / numpy_s:.2f}", f"{top / data:.2f}",
                      "yes" if ok else "NO", model)
    return table


def placement_rows(repeat: int) -> Table:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((N_PF, N_PF), dtype=np.float32)
    y = np.empty_like(x)
    copy_into = best(lambda: np.copyto(y, x), repeat)
    copy_new = best(lambda: x.copy(), repeat)
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
        place_s = best(lambda: place(x, m, machine, offsets_in_bytes=in_bytes), repeat)
        fetch_s = best(lambda: fetch(m, machine, np.float32, offsets_in_bytes=in_bytes), repeat)
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
    console = Console(width=140)
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "library default")
    console.print(f"machine: {platform.machine()} {platform.processor() or ''}, "
                  f"{os.cpu_count()} cores; Python {platform.python_version()}, "
                  f"NumPy {np.__version__}; BLAS threads: {threads}; "
                  f"best of {ARGS.repeat}", markup=False)
    console.print(matmul_rows(console, ARGS.repeat))
    console.print(placement_rows(ARGS.repeat))
    console.print("peak / data: tracemalloc peak of one run on a fresh machine over the data "
                  "it moves (matmul: A + B + C; place + fetch: the array); it counts the "
                  "machine's memories and the result.", markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
