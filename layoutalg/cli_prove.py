"""``layoutalg prove``: progress while proving, then a table and the counterexamples."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from concurrent.futures import ProcessPoolExecutor

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from layoutalg import prover, reports
from layoutalg.errors import SpecError
from layoutalg.proof_cache import ProofCache

STYLE = {"PROVED": "green", "REFUTED": "yellow", "UNKNOWN": "red", "ERROR": "red"}


def run_prove(args, stream: TextIO) -> int:
    found = prover.discover(args.paths)
    console = Console(file=stream, width=None if stream.isatty() else 132, highlight=False)
    if not found:
        console.print("no specs found")
        return 1
    with Progress(
        TextColumn("[bold]proving[/]"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.description}"), TimeElapsedColumn(),
        console=console, transient=True,
    ) as progress:
        task = progress.add_task("", total=len(found))

        def advance(item, _outcomes):
            progress.update(task, advance=1, description=item.ident)

        cache = None if args.no_cache else ProofCache()
        if args.dask:
            with dask_client(args.dask) as client:
                outcomes = prover.prove(found, on_done=advance, executor=client.get_executor(),
                                        cache=cache)
        elif args.jobs > 1:
            with ProcessPoolExecutor(max_workers=args.jobs) as pool:
                outcomes = prover.prove(found, on_done=advance, executor=pool, cache=cache)
        else:
            outcomes = prover.prove(found, on_done=advance, cache=cache)
    if not args.quiet:
        console.print(result_table(outcomes))
    print_details(console, outcomes, quiet=args.quiet)
    counts = reports.summary(outcomes)
    if args.json:
        reports.write_json(outcomes, args.json)
    if args.junit:
        reports.write_junit(outcomes, args.junit)
    verdict = "[green]all as expected[/]" if not counts["unexpected"] else (
        f"[red]{counts['unexpected']} unexpected[/]")
    reused = f" ({counted(cache.hits, 'spec')} reused from the cache)" if cache is not None and cache.hits else ""
    console.print(f"{counted(counts['claims'], 'claim')} in {counted(len(found), 'spec')}: "
                  f"{verdict}{reused}")
    return 0 if not counts["unexpected"] else 1


def counted(n: int, noun: str) -> str:
    """``1 spec``, ``2 specs``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def dask_client(address: str):
    """A client of the Dask cluster at ``address`` (the optional 'dask' extra)."""
    try:
        from distributed import Client
    except ImportError:
        raise SpecError("--dask needs Dask: pip install 'layoutalg[dask]'") from None
    try:
        return Client(address, timeout=10)
    except OSError as exc:
        raise SpecError(f"--dask: cannot reach a Dask scheduler at {address!r}: {exc}") from None


def result_table(outcomes: Sequence[prover.Outcome]) -> Table:
    table = Table(show_lines=False, header_style="bold")
    for column in ("spec", "claim", "expected", "verdict", "", "time"):
        table.add_column(column, justify="right" if column == "time" else "left")
    for o in outcomes:
        mark = "[green]✓[/]" if o.ok else "[red]✗[/]"
        table.add_row(
            f"{_stem(o.path)}::{o.spec}", o.claim, o.expected,
            f"[{STYLE.get(o.status, 'white')}]{o.status}[/]", mark, f"{o.seconds:.3f}s",
        )
    return table


def print_details(console: Console, outcomes: Sequence[prover.Outcome], *, quiet: bool) -> None:
    shown = [o for o in outcomes if not o.ok or (not quiet and o.status == "REFUTED")]
    if not shown:
        return
    console.print()
    for o in shown:
        head = "[red]UNEXPECTED[/]" if not o.ok else "[yellow]refuted as expected[/]"
        console.print(f"{head} {_stem(o.path)}::{o.spec}::{o.claim} "
                      f"(expected {o.expected}, got {o.status})")
        console.print(f"    {o.reason}", markup=False)
    console.print()


def _stem(path: str) -> str:
    from pathlib import Path

    return Path(path).stem
