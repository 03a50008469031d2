"""Find spec modules, run their claims, and collect the outcomes."""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from layoutalg.core.index_map import IndexMap
from layoutalg.errors import LayoutError, SpecError
from layoutalg.runner.claim_limit import ClaimTimeLimit, within
from layoutalg.runner.dsl import Spec, run_claim
from layoutalg.runner.spec_imports import isolated
from layoutalg.runner.worker_pool import WorkerDied
from layoutalg.verify import query

DEFAULT_FOLDERS = ("specs", "proofs")


@dataclass(frozen=True)
class Found:
    """A spec and the file it came from."""

    path: Path
    spec: Spec

    @property
    def ident(self) -> str:
        return f"{self.path.stem}::{self.spec.name}"

    def subject(self):
        """Build the spec: an IndexMap or a family's layout. Whatever the
        spec's code raises (or a ``sys.exit`` in it) is a SpecError naming it."""
        try:
            with isolated(self.path.parent):
                return self.spec.build()
        except SystemExit as exc:
            raise SpecError(f"spec {self.ident} called sys.exit({exc.code!r})") from None
        except Exception as exc:  # noqa: BLE001 - the spec's own code failed: the user's input
            raise SpecError(f"spec {self.ident} did not build: {_why(exc, self.path)}") from None

    def built(self) -> tuple[object, IndexMap]:
        """The spec's subject (see ``subject``) and its index map."""
        subject = self.subject()
        try:
            return subject, subject if isinstance(subject, IndexMap) else subject.index_map()
        except Exception as exc:  # noqa: BLE001 - as above
            raise SpecError(f"spec {self.ident}: its layout gives no index map: "
                            f"{type(exc).__name__}: {exc}") from None


@dataclass(frozen=True)
class Outcome:
    """One claim of one spec: what was expected and what the check said.

    ``seconds`` is the claim's wall time and ``cpu_seconds`` the CPU time of
    its process meanwhile (every thread: Z3 solves in its own); ``method``
    says how the verdict was reached ("z3", "enumeration"; "" when none was).
    """

    path: str
    spec: str
    claim: str
    expected: str
    status: str
    reason: str
    seconds: float
    counterexample: dict[str, int] | None = None
    cpu_seconds: float = 0.0
    method: str = ""

    @property
    def ok(self) -> bool:
        return self.status == self.expected

    @property
    def ident(self) -> str:
        return f"{Path(self.path).stem}::{self.spec}::{self.claim}"


def default_paths() -> list[Path]:
    """``specs/`` and ``proofs/`` of the working directory, never the package's own (a
    user in the wrong folder must hear so, not see layoutalg's shipped specs pass)."""
    base = Path.cwd()
    found = [base / f for f in DEFAULT_FOLDERS if (base / f).is_dir()]
    if found:
        return found
    raise SpecError(f"paths: none given, and the working folder {base} has no specs/ or "
                    "proofs/ folder; pass spec modules or folders, e.g. layoutalg prove my_specs.py")


def spec_files(paths: Iterable[Path | str]) -> list[Path]:
    """Python files under ``paths`` (folders searched recursively, sorted)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise SpecError(f"path {str(raw)!r} does not exist")
        if path.is_dir():
            files.extend(
                p for p in sorted(path.rglob("*.py"))
                if not p.name.startswith("_") and "__pycache__" not in p.parts
            )
        elif path.suffix == ".py":
            files.append(path)
        else:
            raise SpecError(f"path {str(raw)!r} must be a .py spec module or a folder; it is neither")
    return files


def load_module(path: Path):
    """Import a spec module from its path; failures are SpecError (bad input)."""
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]
    name = f"layoutalg_specs_{path.stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise SpecError(f"spec module {path} cannot be loaded")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    try:
        # its helpers from its own folder (spec_imports)
        with isolated(path.parent), collecting_less():
            module_spec.loader.exec_module(module)
    except (SystemExit, Exception) as exc:  # noqa: BLE001 - any import failure is the user's input
        del sys.modules[name]
        why = (f"it calls sys.exit({exc.code!r})" if isinstance(exc, SystemExit)
               else _why(exc, path))
        raise SpecError(f"spec module {path} does not import: {why}") from None
    return module


def _why(exc: Exception, path: Path) -> str:
    """A LayoutError's message; else the exception's type and message, and
    `` (line N)`` of the spec file where it was raised, if known."""
    if isinstance(exc, LayoutError):
        return str(exc)
    if isinstance(exc, SyntaxError):  # its message already names the file and line
        return f"{type(exc).__name__}: {exc}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if Path(f.filename).resolve() == path.resolve()]
    return f"{type(exc).__name__}: {exc}" + (f" (line {frames[-1].lineno})" if frames else "")


def discover(paths: Sequence[Path | str] | None = None) -> list[Found]:
    """Every ``Spec`` defined at top level of the spec modules under ``paths``."""
    chosen = default_paths() if not paths else [Path(p) for p in paths]
    found = []
    for path in spec_files(chosen):
        module = load_module(path)
        found.extend(Found(path, v) for v in vars(module).values() if isinstance(v, Spec))
    return found


def discover_some(paths: Sequence[Path | str] | None, argument: str = "paths") -> list[Found]:
    """:func:`discover`, refusing paths that hold no spec: an empty module is
    bad input (exit 2), never an empty green run."""
    found = discover(paths)
    if not found:
        where = ", ".join(map(str, paths or ())) or "specs/ and proofs/"
        raise SpecError(f"{argument}: no specs found in {where}; a spec module defines "
                        "functions decorated with @la.spec")
    return found


def prove_spec(found: Found, claim_seconds: float | None = None) -> list[Outcome]:
    """Build the spec once and check each claim. ``claim_seconds`` limits the wall-clock
    time of the build and of each claim (``claim_limit``): past it, UNKNOWN. Queries
    asked before in this process are answered from memory and small concrete maps
    enumerated (``verify.query.shortcuts``): the same verdicts, sooner."""
    with query.shortcuts(), collecting_less():
        return _prove_spec(found, claim_seconds)


#: Python's cyclic garbage collector runs after every 700 new container
#: objects by default; a proof makes hundreds of thousands of short-lived
#: SymPy objects, hardly any in cycles, so over the shipped specs it ran
#: about 700 times for 0.6 s of CPU. While specs import and prove it runs
#: after every 50,000 instead (4 times; memory stays bounded, it still runs).
COLLECT_AFTER = 50_000
_COLLECTING = threading.Lock()
_collecting_depth = 0
_threshold_before: tuple[int, ...] = ()


@contextmanager
def collecting_less() -> Iterator[None]:
    """The collector's first threshold at least ``COLLECT_AFTER`` in the block,
    restored when the last block (of any thread) ends."""
    global _collecting_depth, _threshold_before
    with _COLLECTING:
        if _collecting_depth == 0:
            _threshold_before = gc.get_threshold()
            gc.set_threshold(max(_threshold_before[0], COLLECT_AFTER), *_threshold_before[1:])
        _collecting_depth += 1
    try:
        yield
    finally:
        with _COLLECTING:
            _collecting_depth -= 1
            if _collecting_depth == 0:
                gc.set_threshold(*_threshold_before)


def _prove_spec(found: Found, claim_seconds: float | None) -> list[Outcome]:
    start = time.perf_counter()
    try:
        # the build imports with the spec's folder first (spec_imports); the
        # claims then check the built value
        with within(claim_seconds), isolated(found.path.parent):
            subject = found.spec.build()
    except ClaimTimeLimit:
        return _all_failed(found, f"building the spec exceeded the per-claim limit of "
                           f"{claim_seconds:g} s (--claim-timeout)", start, status="UNKNOWN")
    except SystemExit as exc:  # a spec's sys.exit(0) must not end the run green
        return _all_failed(found, f"spec called sys.exit({exc.code!r})", start)
    except Exception as exc:  # noqa: BLE001 - reported as this spec's failure
        return _all_failed(found, f"spec raised {type(exc).__name__}: {exc}", start)
    maps: dict = {}  # the subject's index map, made once for all its claims
    return [_prove_claim(found, claim, subject, maps, claim_seconds) for claim in found.spec.claims]


def _prove_claim(found: Found, claim, subject, maps: dict, claim_seconds) -> Outcome:
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        with within(claim_seconds):
            result = run_claim(found.spec, claim, subject, maps)
    except ClaimTimeLimit:
        return _failed(found, claim, f"exceeded the per-claim limit of {claim_seconds:g} s "
                       f"(--claim-timeout)", start, status="UNKNOWN")
    except SystemExit as exc:
        return _failed(found, claim, f"the claim called sys.exit({exc.code!r})", start)
    except Exception as exc:  # noqa: BLE001 - reported as this claim's failure
        return _failed(found, claim, f"{type(exc).__name__}: {exc}", start)
    return _outcome(found, claim, result.status.value, result.reason,
                    time.perf_counter() - start, counterexample=result.counterexample,
                    cpu_seconds=time.process_time() - cpu_start,
                    method=getattr(result, "method", ""))


class OutcomeCache(Protocol):
    """What ``prove`` asks of a cache (``runner.proof_cache.ProofCache``)."""

    def get(self, found: Found) -> list[Outcome] | None: ...

    def put(self, found: Found, outcomes: list[Outcome]) -> None: ...


def prove(
    found: Sequence[Found],
    *,
    on_done: Callable[[Found, list[Outcome]], None] | None = None,
    executor: Executor | None = None,
    cache: OutcomeCache | None = None,
    claim_seconds: float | None = None,
    costs: Sequence[float] | None = None,
) -> list[Outcome]:
    """Prove every spec, calling ``on_done`` after each; outcomes in spec order.

    Args:
        executor: a ``concurrent.futures.Executor`` (local processes, or a
            Dask cluster's ``client.get_executor()``); None proves in-process.
        cache: an ``OutcomeCache`` (``get``, ``put``; ``runner.proof_cache.ProofCache``):
            unchanged specs are not redone.
        claim_seconds: wall-clock limit per claim (None: no limit).
        costs: each spec's expected time (``runner.spec_timing``; default: its
            number of claims): the costly are handed out first; never the order
            of the outcomes.

    A worker that dies makes its spec's claims ERROR; Ctrl-C goes up to the
    caller, which holds what ``on_done`` was given so far.
    """
    results: dict[int, list[Outcome]] = {}
    pending: dict[Future, int] = {}
    if costs is None:
        costs = [float(len(item.spec.claims)) for item in found]
    elif len(costs) != len(found):
        raise ValueError(f"costs: one per spec ({len(found)}); got {len(costs)}")
    todo = []
    for index, item in enumerate(found):
        cached = cache.get(item) if cache is not None else None
        if cached is not None:
            results[index] = cached
            if on_done is not None:
                on_done(item, cached)
        elif executor is None:
            results[index] = prove_spec(item, claim_seconds)
            _finish(item, results[index], cache, on_done)
        else:
            todo.append(index)
    # the costly first (a WorkerPool also keeps the specs of one module on one
    # worker when it can); the outcomes still come back in spec order
    submit = getattr(executor, "submit_costed", None)
    for index in sorted(todo, key=lambda k: -costs[k]):
        args = (prove_by_name, str(found[index].path), found[index].spec.name, claim_seconds)
        future = (submit(costs[index], str(found[index].path), *args) if submit
                  else executor.submit(*args))
        pending[future] = index
    for future in as_completed(pending):
        index = pending[future]
        try:
            results[index] = future.result()
        except WorkerDied as exc:  # this spec's worker only; the others carry on
            results[index] = _all_failed(found[index], f"the worker process proving this spec "
                                         f"died ({exc.cause})", time.perf_counter())
        except Exception as exc:  # noqa: BLE001 - the worker, not the claim, failed
            results[index] = _all_failed(found[index], f"the worker proving this spec failed: "
                                         f"{type(exc).__name__}: {exc}", time.perf_counter())
        _finish(found[index], results[index], cache, on_done)
    return [outcome for index in range(len(found)) for outcome in results[index]]


def prove_by_name(path: str, name: str, claim_seconds: float | None = None) -> list[Outcome]:
    """Prove one spec found by file and name (what worker processes run)."""
    for item in discover([path]):
        if item.spec.name == name:
            return prove_spec(item, claim_seconds)
    raise SpecError(f"spec {name!r} not found in {path}")


def _finish(item, outcomes, cache, on_done) -> None:
    if cache is not None:
        cache.put(item, outcomes)
    if on_done is not None:
        on_done(item, outcomes)


def _outcome(found: Found, claim, status: str, reason: str, seconds: float, **more) -> Outcome:
    return Outcome(path=str(found.path), spec=found.spec.name, claim=claim.label,
                   expected=claim.expect, status=status, reason=reason, seconds=seconds, **more)


def _failed(found: Found, claim, reason: str, start: float, status: str = "ERROR") -> Outcome:
    return _outcome(found, claim, status, reason, time.perf_counter() - start)


def _all_failed(found: Found, reason: str, start: float, status: str = "ERROR") -> list[Outcome]:
    """Every claim of the spec failed for one ``reason``."""
    return [_failed(found, claim, reason, start, status) for claim in found.spec.claims]
