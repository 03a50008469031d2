"""How long ``layoutalg prove --no-cache`` takes over the shipped specs: serial
against ``-j N`` in one run, wall and CPU, and the slowest claims.

Usage::

    python bench/prove_speed.py [PATH ...] [--jobs 2] [--top 15] [--serial-only]
                                [--repeat N] [--baseline REV] [--json FILE] [--stages]

Each run is a fresh ``python -m layoutalg prove --no-cache -q --json`` in a
subprocess (cold: no proof cache, no SymPy cache, no answers remembered),
timed by its wall clock and by the CPU time of the process and its
children (``resource.getrusage``: Z3's threads are the process's own).
Worker processes of ``-j`` are forked by a forkserver, not by the process
itself, so their CPU is also read from the report (the claims' CPU seconds,
summed) and both are printed. On a shared machine wall time moves with the
load (printed before and after); the ratios and CPU times are the steadier
figures. ``--baseline REV`` runs the serial prove of git revision REV (its
own specs and library, from ``git archive``) in the same session first, so
before/after is measured under the same load. ``--repeat N`` alternates
serial and ``-j`` runs N times and prints the medians (the load moves less
between neighbouring runs). ``--stages`` first splits one serial prove's CPU
into start-up, finding the specs, building them and the claims. Every ``-j`` run's rows (claim, verdict, in
report order) are checked against the serial run's: the same whatever ``-j``.

The tree is compiled once first (``compileall``), as an installed package
is, and the children run without ``PYTHONDONTWRITEBYTECODE``: with it set
while modules change, their ``.pyc`` go stale and every run compiles them
again (200 modules: 0.34 s in a profiled run).

``-j`` hands the costly specs out first, by the time each took in the last
run (``layoutalg.runner.spec_timing``, kept in the cache folder even under
``--no-cache``): the serial run here records it for the ``-j`` run. The very
first ``-j`` run on a machine orders by the number of claims instead.

The target of issue 17: serial ≤ 20 s on the 2-core build machine, and
``-j 2`` at least 1.7× faster than serial.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Run:
    label: str
    wall: float
    cpu: float  # this subprocess and the children it waited for
    claims_cpu: float  # the report's per-claim CPU seconds, summed
    claims: int
    unexpected: int
    unknown: int
    report: dict


def child_env(cwd: Path) -> dict[str, str]:
    """The children's environment: ``cwd``'s layoutalg first on the path, its
    bytecode fresh (see the module docstring)."""
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "layoutalg", "specs", "proofs"],
                   cwd=cwd, env=env, check=True, capture_output=True)
    return env


def prove(label: str, paths: list[str], jobs: int, cwd: Path) -> Run:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "report.json"
        command = [sys.executable, "-m", "layoutalg", "prove", "--no-cache", "-q",
                   "--json", str(out), *(["-j", str(jobs)] if jobs > 1 else []), *paths]
        env = child_env(cwd)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if not out.exists():
            raise SystemExit(f"{label}: prove wrote no report (exit {done.returncode}):\n"
                             f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        report = json.loads(out.read_text())
    results = report["results"]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(label, wall, cpu, sum(r.get("cpu_seconds", 0.0) for r in results), len(results),
               report["summary"]["unexpected"], sum(r["status"] == "UNKNOWN" for r in results),
               report)


#: run in a fresh interpreter by ``stages``: the CPU seconds of each stage of a
#: serial prove, through the prover's own functions (``discover``, ``prove``)
STAGES = """
import json, sys, time
start = time.process_time()
import layoutalg.cli.prove  # what the CLI imports before it finds the specs
from layoutalg.runner import prover
imported = time.process_time()
found = prover.discover(sys.argv[1:])
discovered = time.process_time()
outcomes = prover.prove(found)
proved = time.process_time()
claims = sum(o.cpu_seconds for o in outcomes)
print(json.dumps({"start-up": imported - start, "finding specs": discovered - imported,
                  "building specs": proved - discovered - claims, "claims": claims,
                  "total": proved - start, "claims_count": len(outcomes)}))
"""


def stages(paths: list[str], cwd: Path) -> dict[str, float]:
    """CPU seconds of each stage of one cold serial prove (start-up: importing
    layoutalg and the CLI; finding specs: importing the spec modules, with
    the work they do at import; building specs: each spec's function and the
    prover's own cost; claims: the claims' CPU, Z3's threads included)."""
    env = child_env(cwd)
    done = subprocess.run([sys.executable, "-c", STAGES, *paths], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"stages: the prove failed (exit {done.returncode}):\n"
                         f"{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_tree(rev: str, into: Path) -> Path:
    """The library and specs of git revision ``rev``, unpacked into ``into``."""
    archive = into / "tree.tar"
    with archive.open("wb") as sink:
        subprocess.run(["git", "archive", rev], cwd=ROOT, stdout=sink, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return into / "tree"


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def line(run: Run) -> str:
    return (f"{run.label:<22} wall {run.wall:7.1f} s   CPU {run.cpu:7.1f} s   claims' CPU "
            f"{run.claims_cpu:7.1f} s   {run.claims} claims, {run.unexpected} unexpected, "
            f"{run.unknown} UNKNOWN")


def slowest(run: Run, top: int) -> list[str]:
    rows = sorted(run.report["results"], key=lambda r: r["seconds"], reverse=True)[:top]
    out = [f"{'wall s':>8} {'CPU s':>8}  {'method':<12} {'verdict':<8} claim"]
    for r in rows:
        ident = f"{Path(r['path']).parent.name}/{Path(r['path']).stem}::{r['spec']}::{r['claim']}"
        out.append(f"{r['seconds']:8.3f} {r.get('cpu_seconds', 0.0):8.3f}  "
                   f"{r.get('method', ''):<12} {r['status']:<8} {ident}")
    return out


def rows(run: Run) -> list[tuple[str, ...]]:
    """(module, spec, claim, verdict, first words of the reason) of each row, in report order."""
    return [(Path(r["path"]).stem, r["spec"], r["claim"], r["status"]) +
            ((r["reason"][:160],) if r["status"] != r["expected"] else ())
            for r in run.report["results"]]


def median_run(runs: list[Run]) -> Run:
    """The run of median wall time (of an odd count; the lower middle of an even one)."""
    return sorted(runs, key=lambda r: r.wall)[(len(runs) - 1) // 2]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=["specs", "proofs"])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--serial-only", action="store_true")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="alternate serial and -j N times; print the medians")
    parser.add_argument("--baseline", metavar="REV", help="also prove git revision REV, serial")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--stages", action="store_true",
                        help="first, the CPU seconds of each stage of one serial prove")
    args = parser.parse_args(argv)
    print(f"{os.cpu_count()} CPUs; load average {load()}")
    if args.stages:
        split = stages(args.paths, ROOT)
        print("stages of a serial prove (CPU s): " + ", ".join(
            f"{name} {split[name]:.2f}" for name in
            ("start-up", "finding specs", "building specs", "claims", "total")))
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            tree = baseline_tree(args.baseline, Path(tmp))
            runs.append(prove(f"baseline {args.baseline[:10]}", args.paths, 1, tree))
            print(line(runs[-1]))
    serials, parallels = [], []
    for _ in range(max(1, args.repeat)):
        serials.append(prove("serial", args.paths, 1, ROOT))
        print(line(serials[-1]), f"  (load {load()})")
        if not args.serial_only:
            parallels.append(prove(f"-j {args.jobs}", args.paths, args.jobs, ROOT))
            print(line(parallels[-1]), f"  (load {load()})")
            if rows(parallels[-1]) != rows(serials[0]):
                print(f"-j {args.jobs}: the rows (claim, verdict, in order) differ from serial's:")
                for one, other in zip(rows(serials[0]), rows(parallels[-1])):
                    if one != other:
                        print(f"  serial {one}\n  -j     {other}")
                return 1
    serial = median_run(serials)
    runs += [serial] + ([median_run(parallels)] if parallels else [])
    if parallels:
        ratios = sorted(s.wall / p.wall for s, p in zip(serials, parallels))
        spread = (f"; each pair {ratios[0]:.2f}–{ratios[-1]:.2f}×" if len(ratios) > 1 else "")
        print(f"-j {args.jobs} is {serial.wall / runs[-1].wall:.2f}× faster than serial "
              f"(median wall{spread}; target ≥ 1.7×); the same rows and verdicts as serial")
    if args.baseline:
        print(f"serial is {runs[0].wall / serial.wall:.2f}× faster than the baseline (wall), "
              f"{runs[0].cpu / serial.cpu:.2f}× (CPU)")
    print(f"load average after: {load()}")
    print(f"\nslowest {args.top} claims of the serial run (wall, and CPU of the process):")
    print("\n".join(slowest(serial, args.top)))
    if args.json:
        args.json.write_text(json.dumps([{k: v for k, v in vars(r).items() if k != "report"}
                                         for r in runs], indent=2) + "\n")
    return 0 if all(r.unexpected == 0 for r in runs[-2:]) else 1


if __name__ == "__main__":
    sys.exit(main())
