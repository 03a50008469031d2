"""``layoutalg prove``: progress while proving, then a table and the counterexamples."""

from __future__ import annotations

import functools
import signal
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext, suppress
from pathlib import Path
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from layoutalg.errors import OutputError, SpecError
from layoutalg.runner import prover, reports
from layoutalg.runner.proof_cache import ProofCache, default_directory
from layoutalg.runner.spec_timing import SpecTimes
from layoutalg.runner.worker_pool import WorkerPool

STYLE = {"PROVED": "green", "REFUTED": "yellow", "UNKNOWN": "red", "ERROR": "red"}


class InterruptedRun(KeyboardInterrupt):
    """Ctrl-C, carrying what the CLI must still say (a report not written)."""

    def __init__(self, note: str | None = None) -> None:
        super().__init__(note)
        self.note = note


def run_prove(args, stream: TextIO) -> int:
    cache = open_cache(args)
    # -j workers are forked now, before the spec modules are imported here.
    # With --no-cache each imports its share of the modules meanwhile (about
    # equal in the last run's time) and proves their specs first, then helps
    # with the rest; with a cache maybe none will be needed, so they wait.
    parallel = args.jobs > 1 and not args.dask
    times = SpecTimes(args.cache_dir if args.cache_dir is not None else default_directory())
    homes = worker_homes(args, times) if parallel and cache is None else ()
    with worker_pool(args.jobs, warm=True, homes=homes) if parallel else nullcontext() as pool:
        return _run_prove(args, stream, cache, pool, times)


def worker_homes(args, times: SpecTimes) -> list[tuple[Callable[[], None], list[str]]]:
    """Each worker's initializer and modules (``WorkerPool``'s ``homes``);
    none when the paths are wrong (finding the specs then says why)."""
    try:
        files = prover.spec_files(args.paths or prover.default_paths())
    except SpecError:
        return []
    return [(functools.partial(_prepare_worker, tuple(map(str, share))), list(map(str, share)))
            for share in times.shares(files, args.jobs)]


def _run_prove(args, stream: TextIO, cache, pool, times: SpecTimes) -> int:
    try:
        found = prover.discover_some(args.paths)
    except KeyboardInterrupt:  # while importing the spec modules: nothing proved yet
        raise InterruptedRun(write_reports(args, [], partial=True)) from None
    console = Console(file=stream, width=None if stream.isatty() else 132, highlight=False)
    done: dict[int, list[prover.Outcome]] = {}
    order = {id(item): index for index, item in enumerate(found)}
    interrupted = False
    with progress_reporter(console, len(found), quiet=args.quiet) as advance:
        def on_done(item: prover.Found, outcomes: list[prover.Outcome]) -> None:
            done[order[id(item)]] = outcomes
            times.record(item, outcomes)
            advance(item, outcomes)

        try:
            prove_all(args, found, on_done, cache, pool, costs=times.estimate(found))
        except KeyboardInterrupt:
            interrupted = True
            if pool is not None:
                pool.terminate()  # stop the workers now, not after the report
    times.save()
    outcomes = [o for index in sorted(done) for o in done[index]]
    if outcomes and not args.quiet:
        console.print(result_table(outcomes))
    print_details(console, outcomes, quiet=args.quiet)
    counts = reports.summary(outcomes)
    unwritten = write_reports(args, outcomes, partial=interrupted)
    verdict = "[green]all as expected[/]" if not counts["unexpected"] else (
        f"[red]{counts['unexpected']} unexpected[/]")
    reused = f" ({counted(cache.hits, 'spec')} reused from the cache)" if cache is not None and cache.hits else ""
    if interrupted:
        console.print(f"[red]interrupted[/] after {len(done)} of {counted(len(found), 'spec')} "
                      f"({counted(counts['claims'], 'claim')}: {verdict}); the reports are "
                      "marked partial")
        raise InterruptedRun(unwritten)  # the CLI says so on stderr and exits 130
    console.print(f"{counted(counts['claims'], 'claim')} in {counted(len(found), 'spec')}: "
                  f"{verdict}{reused}")
    if unwritten:
        raise OutputError(unwritten)  # one line, exit 2, after the table and the summary
    return 0 if not counts["unexpected"] else 1


def open_cache(args) -> ProofCache | None:
    """The proof cache ``--no-cache`` / ``--cache-dir`` ask for. The cache is
    best-effort, but a ``--cache-dir`` naming a file is a mistake to report."""
    if args.no_cache:
        return None
    if args.cache_dir is not None and args.cache_dir.is_file():
        raise OutputError(f"--cache-dir: {str(args.cache_dir)!r} is a file, not a folder; "
                          "give a folder to keep the proof cache in")
    return ProofCache(args.cache_dir)


def prove_all(args, found, on_done, cache, pool: WorkerPool | None = None,
              costs=None) -> None:
    """Prove in this process, in ``-j`` worker processes (``pool`` when already
    started), or on a Dask cluster; ``costs`` orders the work (``prover.prove``)."""
    options = {"on_done": on_done, "cache": cache, "claim_seconds": args.claim_timeout,
               "costs": costs}
    if args.dask:
        with dask_client(args.dask) as client:
            prover.prove(found, executor=client.get_executor(), **options)
        return
    with worker_pool(args.jobs) if pool is None and args.jobs > 1 else nullcontext(pool) as workers:
        prover.prove(found, executor=workers, **options)


@contextmanager
def worker_pool(jobs: int, *, warm: bool = False, homes=()) -> Iterator[WorkerPool]:
    """Worker processes that leave Ctrl-C to this one, and are stopped at
    once (not waited for) when the run is interrupted or fails. A worker that
    dies fails only the spec it held (``layoutalg.runner.worker_pool``). ``warm``:
    start them now rather than at the first task; ``homes``: see ``WorkerPool``."""
    pool = WorkerPool(jobs, initializer=_leave_sigint_to_parent, warm=warm, homes=homes)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        raise
    pool.shutdown(wait=True)


def _leave_sigint_to_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _prepare_worker(files: tuple[str, ...]) -> None:
    """A worker's start: Ctrl-C is left to the parent, and it imports the
    spec modules ``files`` now, while the parent imports them all, so its
    tasks find them imported. A module that does not import is skipped:
    the parent reports it."""
    _leave_sigint_to_parent()
    for file in files:
        with suppress(SpecError):
            prover.load_module(Path(file))


@contextmanager
def progress_reporter(console: Console, total: int, *, quiet: bool
                      ) -> Iterator[Callable[[prover.Found, list[prover.Outcome]], None]]:
    """A live bar on a terminal; one line per spec when output is piped (CI)."""
    if console.is_terminal:
        with Progress(TextColumn("[bold]proving[/]"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.description}"), TimeElapsedColumn(),
                      console=console, transient=True) as progress:
            task = progress.add_task("", total=total)
            yield lambda item, _outcomes: progress.update(task, advance=1,
                                                          description=item.ident)
        return
    count = 0
    started = time.perf_counter()

    def line(item: prover.Found, outcomes: list[prover.Outcome]) -> None:
        nonlocal count
        count += 1
        if quiet:
            return
        bad = sum(not o.ok for o in outcomes)
        state = f", {bad} unexpected" if bad else " as expected"
        console.print(f"[{count}/{total}] {item.ident}: {counted(len(outcomes), 'claim')}"
                      f"{state} ({time.perf_counter() - started:.1f}s)", markup=False)

    yield line


def write_reports(args, outcomes, *, partial: bool) -> str | None:
    """Write the asked-for reports; the first failure's one-line message, or None."""
    failed = None
    for path, write in ((args.json, reports.write_json), (args.junit, reports.write_junit)):
        if path is None:
            continue
        try:
            write(outcomes, path, partial=partial)
        except OSError as exc:
            failed = failed or (f"--{'json' if path is args.json else 'junit'}: cannot write "
                                f"the report {str(path)!r}: {exc.strerror or exc}")
    return failed


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
    except (OSError, ValueError, TypeError) as exc:  # unreachable, or not an address
        raise SpecError(f"--dask: cannot reach a Dask scheduler at {address!r}: {exc}") from None


def result_table(outcomes: Sequence[prover.Outcome]) -> Table:
    """One row per claim. Cells are plain ``Text`` (a claim's name is never read
    as markup) and the mark and time columns have their width given: rich then
    neither parses nor measures those cells (0.27 s to 0.18 s for 438 rows)."""
    times = [f"{o.seconds:.3f}s" for o in outcomes]
    table = Table(show_lines=False, header_style="bold")
    for column in ("spec", "claim", "expected", "verdict"):
        table.add_column(column)
    table.add_column("", no_wrap=True, width=1)
    table.add_column("time", justify="right", no_wrap=True,
                     width=max(map(len, times), default=0) or None)
    for o, seconds in zip(outcomes, times):
        table.add_row(
            Text(f"{Path(o.path).stem}::{o.spec}"), Text(o.claim), Text(o.expected),
            Text(o.status, style=STYLE.get(o.status, "white")),
            _PASSED if o.ok else _FAILED, Text(seconds),
        )
    return table


_PASSED, _FAILED = Text("✓", style="green"), Text("✗", style="red")


def print_details(console: Console, outcomes: Sequence[prover.Outcome], *, quiet: bool) -> None:
    shown = [o for o in outcomes if not o.ok or (not quiet and o.status == "REFUTED")]
    if not shown:
        return
    console.print()
    for o in shown:
        head = "[red]UNEXPECTED[/]" if not o.ok else "[yellow]refuted as expected[/]"
        console.print(f"{head} {Path(o.path).stem}::{o.spec}::{o.claim} "
                      f"(expected {o.expected}, got {o.status})")
        console.print(f"    {o.reason}", markup=False)
    console.print()
