"""``layoutalg run SPEC``: execute a spec's layout on the emulated machine.

A layout is placed as a random array on its family's machine and fetched
back (a generic layout over symbolic sizes runs at example sizes meeting
its assumptions); a ``Schedule`` runs its tiled matmul on the KPU hierarchy,
the executor's counts beside the model's. Exit 0 when the run is right
(round trip exact; counts equal the model and C equals numpy.matmul), 1
when it is not (what went wrong is printed).
"""

from __future__ import annotations

import time
from typing import TextIO

import numpy as np
from rich.console import Console
from rich.table import Table

from layoutalg.cli.show import find_spec
from layoutalg.core.index_map import IndexMap
from layoutalg.dataflow import traffic
from layoutalg.dataflow.schedule import Schedule
from layoutalg.dataflow.seed import SeedReuse
from layoutalg.dataflow.traffic import KEYS
from layoutalg.errors import PlacementError
from layoutalg.execute import CapacityError, MachineError, fetch, matmul, place
from layoutalg.execute.targets import target_for
from layoutalg.verify.chain import Chain
from layoutalg.verify.instance import example_instance, sizes_text
from layoutalg.verify.result import point_text


def run_run(args, stream: TextIO) -> int:
    """Run ``args.spec``; options ``seed``, ``capacity``, ``element_bytes``,
    ``offsets_in_bytes`` are read when present (argparse namespace)."""
    found = find_spec(args.spec)
    subject = found.subject()
    console = Console(file=stream, highlight=False, width=None if stream.isatty() else 132)
    rng = np.random.default_rng(getattr(args, "seed", 0) or 0)
    console.print(f"[bold]{found.ident}[/bold]", markup=True)
    # a dataflow spec builds a Schedule, or the seed's reuse model holding one
    schedule = subject.schedule if isinstance(subject, SeedReuse) else subject
    if isinstance(schedule, Schedule):
        return _run_schedule(schedule, rng, console)
    subject = _at_example_sizes(subject, found.spec, console)
    return _run_layout(subject, rng, console, args, _fits_claim(found.spec))


def _at_example_sizes(subject, spec, console: Console):
    """A generic layout (an IndexMap or a Chain) over symbolic sizes runs at
    example sizes that meet its assumptions, as ``show`` draws it; family
    layouts and maps without such sizes are returned as they are (the run
    then says why it needs numbers)."""
    m = subject.index_map() if isinstance(subject, Chain) else subject
    if not isinstance(m, IndexMap) or m.is_concrete:
        return subject
    instance = example_instance(m, spec.assume)
    if instance is None:
        return subject
    bound, sizes = instance
    console.print(f"(the claims hold for every size; running at {sizes_text(sizes)}, sizes "
                  "that meet the assumptions)", markup=False)
    return bound


def _fits_claim(spec) -> dict:
    """Capacity and element options of the spec's ``("fits", bytes, options)`` claim."""
    for claim in spec.claims:
        if claim.name == "fits" and claim.args and isinstance(claim.args[0], int):
            options = claim.args[1] if len(claim.args) > 1 and isinstance(claim.args[1], dict) else {}
            return {"capacity": claim.args[0],
                    **{key: options.get(key) for key in ("element_bytes", "offsets_in_bytes")}}
    return {}


def _run_layout(subject, rng, console: Console, args, claimed: dict) -> int:
    given = {"capacity": getattr(args, "capacity", None),
             "element_bytes": getattr(args, "element_bytes", None),
             "offsets_in_bytes": getattr(args, "offsets_in_bytes", None) or None}
    source = "--capacity" if given["capacity"] is not None else "the spec's fits claim"
    options = {**claimed, **{k: v for k, v in given.items() if v is not None}}
    try:
        target = target_for(subject, **options, source=source)
        m, machine = target.index_map, target.machine
        console.print(str(m), markup=False)
        console.print(f"machine: {machine} ({target.preset}); {target.itemsize} B elements, "
                      f"offsets in {'bytes' if target.offsets_in_bytes else 'elements'}",
                      markup=False)
        data = _random(tuple(int(e) for e in m.domain.extents), target.dtype, rng)
        # a fill that random data never equals exactly: NaN, or the largest int
        fill = np.nan if target.dtype.kind == "f" else int(np.iinfo(target.dtype).max)
        start = time.perf_counter()
        placed = place(data, m, machine, fill=fill, offsets_in_bytes=target.offsets_in_bytes)
    except (PlacementError, CapacityError) as exc:
        console.print(f"[red]placement failed[/red]: {exc}", markup=True)
        return 1
    placed_s = time.perf_counter() - start
    start = time.perf_counter()
    back = fetch(m, machine, target.dtype, offsets_in_bytes=target.offsets_in_bytes)
    fetched_s = time.perf_counter() - start
    wrong = np.flatnonzero((back != data).reshape(-1))
    console.print(_layout_table(placed, target, placed_s, fetched_s, fill))
    if wrong.size:
        first = np.unravel_index(wrong[0], data.shape)
        point = point_text(m.domain.names, map(int, first))
        console.print(f"[red]round trip FAILED[/red]: {wrong.size} of {data.size} elements read "
                      f"back another value, e.g. {point} wrote {data[first]} and read "
                      f"{back[first]} — some element overwrote it (not injective)", markup=True)
        return 1
    console.print(f"round trip exact: fetch returned all {data.size} elements", markup=False)
    return 0


def _layout_table(placed, target, placed_s: float, fetched_s: float, fill) -> Table:
    per_memory, machine = placed.bytes_per_memory(), target.machine
    padding = placed.slots_holding(fill)
    pct = 100.0 * padding / placed.slots if placed.slots else 0.0
    table = Table(title="placement", show_header=True, header_style="bold")
    table.add_column("counter")
    table.add_column("value", justify="right")
    for row in (
        ("elements placed", f"{placed.elements:,}"),
        (f"data bytes per {machine.name} (min / max)",
         f"{int(per_memory.min()):,} / {int(per_memory.max()):,}"),
        (f"{machine.plural} holding data",
         f"{int(np.count_nonzero(per_memory)):,} of {len(per_memory):,}"),
        (f"high-water mark (max over {machine.plural})",
         f"{int(placed.high_water().max()):,} of {machine.capacity:,} B"),
        (f"padding slots (still holding the fill {fill})",
         f"{padding:,} of {placed.slots:,} ({pct:.1f}%)"),
        ("plan", placed.method),
        ("place / fetch time", f"{placed_s * 1e3:.1f} ms / {fetched_s * 1e3:.1f} ms"),
    ):
        table.add_row(*row)
    return table


def _run_schedule(schedule, rng, console: Console) -> int:
    if not schedule.is_concrete:
        raise MachineError(f"run: schedule {schedule.label} has symbolic sizes; a run needs "
                           f"numbers (bind them in the spec)")
    M, N, K = schedule.problem
    dtype = np.dtype({2: "float16", 4: "float32", 8: "float64"}.get(schedule.element_bytes,
                                                                      "float32"))
    console.print(f"{schedule.label}; {schedule.element_bytes} B elements", markup=False)
    a, b = _random((M, K), dtype, rng), _random((K, N), dtype, rng)
    start = time.perf_counter()
    try:
        c, counters = matmul(a, b, dataflow=schedule.dataflow, tiles=schedule.tiles)
    except CapacityError as exc:
        console.print(f"[red]the schedule does not fit the KPU[/red]: {exc}", markup=True)
        return 1
    seconds = time.perf_counter() - start
    for note in counters.notes:
        console.print(note, markup=False)
    model = traffic(schedule)
    table = Table(title="accesses (elements): executor vs model", header_style="bold")
    for column in ("level", "kind", "operand", "executor", "model", ""):
        table.add_column(column, justify="right" if column in ("executor", "model") else "left")
    run = counters.traffic(schedule)
    rows = [(level, kind, operand, run.get(level, operand, kind), model.get(level, operand, kind))
            for level, operand, kind in KEYS] + [("mac", "op", "-", counters.macs, model.macs)]
    mismatches = 0
    for level, kind, operand, mine, theirs in rows:
        if mine or theirs:  # a zero row is left out (every matmul has its MACs)
            mismatches += mine != theirs
            table.add_row(level, kind, operand, f"{mine:,}", f"{theirs:,}",
                          "✓" if mine == theirs else "[red]✗[/red]")
    console.print(table)
    channels = counters.per_channel()
    console.print("DRAM bytes per channel: " + ", ".join(f"{b:,}" for b in channels)
                  + f" (total {sum(channels):,} = {counters.bytes('dram'):,} DRAM bytes)",
                  markup=False)
    tolerance = 1e-2 if dtype.itemsize < 4 else 1e-3
    right = np.allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=tolerance,
                        atol=tolerance * np.sqrt(K))
    console.print(f"C {'equals' if right else '[red]differs from[/red]'} numpy.matmul; "
                  f"{counters.steps} steps in {seconds * 1e3:.1f} ms", markup=True)
    if mismatches:
        console.print(f"[red]{mismatches} count(s) differ from the model[/red]", markup=True)
    return 0 if right and not mismatches else 1


def _random(shape, dtype: np.dtype, rng) -> np.ndarray:
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, np.iinfo(dtype).max, size=shape, dtype=dtype)
