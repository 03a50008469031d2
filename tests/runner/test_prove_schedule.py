"""How ``prove -j`` orders its work (issue 17): the costly specs go first,
the outcomes still come back in spec order, and the verdicts and the report
are the same whatever ``-j``.

The order is pinned on ``prover.prove``'s submissions to a recording
executor and on the pool's own choice (no timing involved); the verdicts
are those of small maps whose truth is checked by hand below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import Executor, Future
from pathlib import Path

import pytest

import layoutalg as la
from layoutalg.runner import prover, spec_timing
from layoutalg.runner.spec_timing import SpecTimes
from layoutalg.runner.worker_pool import WorkerPool, _Task, _Worker

HANG_GUARD = 120  # seconds; only a guard against a hang, never an assertion

# Two modules of specs with one to three claims each. cyclic(n=4k, parts=k)
# deals 4k slots round-robin over k parts of 4: a bijection; (8):(0) sends
# every index to 0 (not injective); (2,2):(2,1) is the transpose of 2×2
# (0, 2, 1, 3: a bijection onto [0, 4)).
MODULE_A = '''
import layoutalg as la


@la.spec(claims=["bijective"])
def deal_2():
    return la.cyclic(la.Space(n=8), "n", 2)


@la.spec(claims=["injective"], expect="REFUTED")
def zero():
    return la.strided((8,), (0,))


@la.spec(claims=["bijective", "injective", "in_bounds"])
def deal_3():
    return la.cyclic(la.Space(n=12), "n", 3)
'''

MODULE_B = '''
import layoutalg as la


@la.spec(claims=["bijective", "injective"])
def transpose_2x2():
    return la.strided((2, 2), (2, 1))


@la.spec(claims=["injective", "in_bounds"], expect=["REFUTED", "PROVED"])
def zero_4():
    return la.strided((4,), (0,))
'''


def test_the_true_verdicts():
    """The maps above, by plain Python."""
    assert sorted((n % 2, n // 2) for n in range(8)) == [(p, k) for p in range(2) for k in range(4)]
    assert sorted((n % 3, n // 3) for n in range(12)) == [(p, k) for p in range(3)
                                                          for k in range(4)]
    assert len({0 * i for i in range(8)}) == 1
    # (2,2):(2,1) takes i to (i mod 2, i div 2) (CuTe's column-major order) then 2a + b
    assert [2 * (i % 2) + i // 2 for i in range(4)] == [0, 2, 1, 3]
    # and the library's maps agree
    assert [la.strided((2, 2), (2, 1))(i) for i in range(4)] == [(0,), (2,), (1,), (3,)]
    assert [la.cyclic(la.Space(n=12), "n", 3)(n) for n in range(4)] == [(0, 0), (1, 0), (2, 0),
                                                                       (0, 1)]


def write_specs(folder: Path) -> Path:
    specs = folder / "specs"
    specs.mkdir(parents=True)
    (specs / "a_deals.py").write_text(textwrap.dedent(MODULE_A))
    (specs / "b_more.py").write_text(textwrap.dedent(MODULE_B))
    return specs


EXPECTED = [
    ("deal_2", "bijective", "PROVED"), ("zero", "injective", "REFUTED"),
    ("deal_3", "bijective", "PROVED"), ("deal_3", "injective", "PROVED"),
    ("deal_3", "in_bounds", "PROVED"), ("transpose_2x2", "bijective", "PROVED"),
    ("transpose_2x2", "injective", "PROVED"), ("zero_4", "injective", "REFUTED"),
    ("zero_4", "in_bounds", "PROVED"),
]


def cli(folder: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "LAYOUTALG_"))}
    env["XDG_CACHE_HOME"] = str(folder / "xdg-cache")
    return subprocess.run([sys.executable, "-m", "layoutalg", *argv], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=HANG_GUARD)


@pytest.mark.parametrize("jobs", [["-j", "2"], ["-j", "3"]], ids=["j2", "j3"])
def test_the_report_is_the_same_whatever_j(tmp_path, jobs):
    """Serial, then -j with the serial run's timing on record (so the costly
    specs go first): the same rows in the same order, and the right verdicts."""
    write_specs(tmp_path)
    rows = {}
    for label, extra in (("serial", []), ("parallel", jobs)):
        report = tmp_path / f"{label}.json"
        done = cli(tmp_path, "prove", "--no-cache", "-q", "--json", str(report), *extra)
        assert done.returncode == 0, done.stdout + done.stderr
        data = json.loads(report.read_text())
        rows[label] = [(r["spec"], r["claim"], r["status"]) for r in data["results"]]
        assert len(data["timing"]["claims"]) == len(EXPECTED)
    assert rows["serial"] == rows["parallel"] == EXPECTED
    # the timing of the specs is on record in the cache folder, beside (not among) its entries
    timing = tmp_path / "xdg-cache" / "layoutalg" / "timing" / "specs.json"
    assert len(json.loads(timing.read_text())["seconds"]) == 5
    assert list((tmp_path / "xdg-cache" / "layoutalg").glob("*.json")) == []


class Recording(Executor):
    """Submissions are recorded, and answered with made-up outcomes at once."""

    def __init__(self) -> None:
        self.submitted: list[tuple[float, str]] = []

    def submit_costed(self, cost, group, fn, /, *args, **kwargs) -> Future:
        path, name, _ = args
        self.submitted.append((cost, name))
        future: Future = Future()
        future.set_result([prover.Outcome(path, name, "c", "PROVED", "PROVED", "made up", 0.0)])
        return future


def test_the_costly_specs_are_handed_out_first_and_come_back_in_spec_order(tmp_path):
    found = prover.discover([write_specs(tmp_path)])
    names = [item.spec.name for item in found]
    assert names == ["deal_2", "zero", "deal_3", "transpose_2x2", "zero_4"]
    costs = [0.5, 0.1, 2.0, 0.1, 1.0]
    seen = []
    executor = Recording()
    outcomes = prover.prove(found, executor=executor, costs=costs,
                            on_done=lambda item, _: seen.append(item.spec.name))
    # most costly first; equal costs keep spec order
    assert executor.submitted == [(2.0, "deal_3"), (1.0, "zero_4"), (0.5, "deal_2"),
                                  (0.1, "zero"), (0.1, "transpose_2x2")]
    assert [o.spec for o in outcomes] == names
    assert sorted(seen) == sorted(names)


def test_without_costs_the_specs_with_more_claims_go_first(tmp_path):
    found = prover.discover([write_specs(tmp_path)])
    executor = Recording()
    prover.prove(found, executor=executor)
    assert executor.submitted == [(3.0, "deal_3"), (2.0, "transpose_2x2"), (2.0, "zero_4"),
                                  (1.0, "deal_2"), (1.0, "zero")]


def test_costs_must_be_one_per_spec(tmp_path):
    found = prover.discover([write_specs(tmp_path)])
    with pytest.raises(ValueError, match="costs: one per spec"):
        prover.prove(found, executor=Recording(), costs=[1.0])


def pool_order(worker_group, other_groups, queued) -> list:
    """The (group, number) of the queued tasks ``(group, cost)`` in the order
    a ``WorkerPool(2)`` hands them to a worker last on ``worker_group``."""
    pool = WorkerPool(2)
    try:
        return _taken(pool, worker_group, other_groups, queued)
    finally:
        pool.shutdown()


def _taken(pool: WorkerPool, worker_group, other_groups, queued) -> list:
    me = _Worker(process=None, pipe=None, groups={worker_group})
    others = [_Worker(process=None, pipe=None, groups={g}) for g in other_groups]
    tasks = [_Task(Future(), print, (k,), {}, g, c) for k, (g, c) in enumerate(queued)]
    with pool._lock:
        saved = pool._workers, pool._queued
        pool._workers, pool._queued = [me, *others], type(saved[1])(tasks)
        try:
            order = []
            while pool._queued:
                task = pool._take_for(me)
                order.append((task.group, task.args[0]))
                me.groups.add(task.group)
        finally:
            pool._workers, pool._queued = saved
    return order


def test_the_pool_takes_the_most_costly_task_of_its_modules_then_of_any():
    order = pool_order("b.py", ["a.py"], [("a.py", 1.0), ("a.py", 5.0), ("b.py", 1.0),
                                          ("c.py", 5.0), ("b.py", 0.5), ("a.py", 1.0)])
    # its own module b, costly first (1.0, 0.5); then the most costly of all, 5.0: a
    # (another worker's module) or c (nobody's): c; then a's, costly first, then first in
    assert order == [("b.py", 2), ("b.py", 4), ("c.py", 3), ("a.py", 1), ("a.py", 0),
                     ("a.py", 5)]


def test_without_modules_the_pool_takes_the_most_costly_first_in_first():
    order = pool_order(None, [None], [(None, 1.0), (None, 3.0), (None, 2.0), (None, 3.0),
                                      (None, 0.0)])
    assert [k for _, k in order] == [1, 3, 2, 0, 4]


def script_output(folder: Path, name: str, text: str) -> dict:
    """Run ``text`` as the script ``folder/name`` in a fresh interpreter; the
    JSON it prints (it must exit 0)."""
    script = folder / name
    script.write_text(text)
    done = subprocess.run([sys.executable, str(script)], cwd=folder, capture_output=True,
                          text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


WARM_POOL = """
import json, os
import layoutalg.cli  # what the CLI has imported before its workers start
from layoutalg.runner.worker_pool import WorkerPool

if __name__ == "__main__":
    pool = WorkerPool(2, warm=True)
    forked = pool.started_by_fork
    first = {w.process.pid for w in pool._workers}
    futures = [pool.submit(os.getppid), pool.submit(os._exit, 3),
               *(pool.submit(pow, 3, n) for n in range(6)), pool.submit(int, "x")]
    pool.shutdown(wait=True)
    print(json.dumps({"forked": forked, "parent": os.getpid(), "first": len(first),
                      "answers": [[type(f.exception()).__name__, str(f.exception())]
                                  if f.exception() else f.result() for f in futures]}))
"""


def test_a_warm_pool_forks_its_first_workers_and_replaces_a_dead_one(tmp_path):
    """In a single-threaded process the first workers are forks of it (their
    parent is this process, not a forkserver); one that dies fails only its
    task, and the tasks behind it are done by a replacement."""
    data = script_output(tmp_path, "pool.py", WARM_POOL)
    assert data["forked"] is True and data["first"] == 2
    assert data["answers"][0] == data["parent"]
    assert data["answers"][1:] == [["WorkerDied", "the worker process died (exit code 3)"],
                                   1, 3, 9, 27, 81, 243,
                                   ["ValueError", "invalid literal for int() with base 10: 'x'"]]


def test_a_pool_in_a_threaded_process_does_not_fork_itself():
    """With another thread running here, the workers come from the forkserver."""
    import threading

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        pool = WorkerPool(2, warm=True)
        try:
            assert pool.started_by_fork is False
            assert pool.submit(pow, 2, 5).result(timeout=HANG_GUARD) == 32
        finally:
            pool.shutdown()
    finally:
        stop.set()
        other.join()


# --------------------------------------------------------------------------
# the timing on record


def test_spec_times_round_trip_and_estimate(tmp_path):
    found = prover.discover([write_specs(tmp_path)])
    times = SpecTimes(tmp_path / "cache")
    assert times.estimate(found) == [spec_timing.PER_CLAIM * len(f.spec.claims) for f in found]
    made_up = {"deal_2": 0.4, "deal_3": 0.9}  # 0.4 s per claim, 0.3 s per claim
    for item in found:
        if item.spec.name in made_up:
            times.record(item, [prover.Outcome(str(item.path), item.spec.name, "c", "PROVED",
                                               "PROVED", "", 9.0, cpu_seconds=made_up[
                                                   item.spec.name])])
    times.save()
    again = SpecTimes(tmp_path / "cache")
    # known: as recorded; unknown: claims × the median per-claim rate of the known (0.35)
    assert again.estimate(found) == pytest.approx([0.4, 0.35, 0.9, 0.7, 0.7])


def test_two_runs_keep_each_others_times(tmp_path):
    """Each run writes its own times over what is on file when it ends, not
    over what it read at its start: a run ending later keeps the other's."""
    found = prover.discover([write_specs(tmp_path)])
    first, second = SpecTimes(tmp_path / "cache"), SpecTimes(tmp_path / "cache")
    outcome = [prover.Outcome("p", "s", "c", "PROVED", "PROVED", "", 1.0, cpu_seconds=0.5)]
    first.record(found[0], outcome)
    second.record(found[1], outcome)
    first.save()
    second.save()
    assert set(SpecTimes(tmp_path / "cache").seconds) == {spec_timing.key(found[0]),
                                                          spec_timing.key(found[1])}


@pytest.mark.parametrize("content", ["", "{", "[1, 2]", '{"seconds": {"x": "y"}}'])
def test_an_unreadable_timing_file_is_ignored(tmp_path, content):
    found = prover.discover([write_specs(tmp_path)])
    path = tmp_path / "cache" / spec_timing.FOLDER / spec_timing.FILE
    path.parent.mkdir(parents=True)
    path.write_text(content)
    assert SpecTimes(tmp_path / "cache").estimate(found) == [
        spec_timing.PER_CLAIM * len(f.spec.claims) for f in found]


def test_an_unwritable_timing_folder_is_skipped(tmp_path):
    (tmp_path / "cache").write_text("a file, not a folder")
    times = SpecTimes(tmp_path / "cache")
    times.recorded["x::y"] = 1.0
    times.save()  # no error
    assert (tmp_path / "cache").read_text() == "a file, not a folder"


def test_the_modules_are_shared_out_about_equal_in_time(tmp_path):
    """Known modules by their recorded seconds, an unknown one by its size
    at the known seconds per byte (0.01 here): 5, 3, 2 and 400 bytes → 4;
    the most costly first, each to the least loaded worker."""
    files = []
    for name, size in (("a", 500), ("b", 300), ("c", 200), ("d", 400)):
        files.append(tmp_path / f"{name}.py")
        files[-1].write_text("#" * size)
    times = SpecTimes(tmp_path / "cache")
    for file, seconds in zip(files[:3], (5.0, 3.0, 2.0)):
        times.seconds[f"{file.resolve()}::only"] = seconds
    a, b, c, d = files
    # a (5) → first; d (4) → second; b (3) → second (4 < 5); c (2) → first (5 < 7)
    assert times.shares(files, 2) == [[a, c], [b, d]]
    assert times.shares(files, 1) == [files]
    assert times.shares(files, 5) == [[a], [d], [b], [c], []]


HOMES = """
import functools, json, os
from layoutalg.runner.worker_pool import WorkerPool


def mark(name):
    open(name, "w").write(str(os.getpid()))


if __name__ == "__main__":
    pool = WorkerPool(2, warm=True, homes=[(functools.partial(mark, "A"), ["a.py"]),
                                           (functools.partial(mark, "B"), ["b.py", "c.py"])])
    groups = [sorted(w.groups) for w in pool._workers]
    pids = [w.process.pid for w in pool._workers]
    answers = [pool.submit_costed(1.0, g, pow, 2, k).result(timeout=60)
               for k, g in enumerate(["a.py", "b.py", "z.py"])]
    pool.shutdown(wait=True)
    print(json.dumps({"groups": groups, "pids": pids, "marks": [int(open(n).read())
                      for n in "AB"], "answers": answers}))
"""


def test_each_home_worker_runs_its_own_initializer_and_holds_its_modules(tmp_path):
    data = script_output(tmp_path, "homes.py", HOMES)
    assert data["groups"] == [["a.py"], ["b.py", "c.py"]]
    assert data["marks"] == data["pids"]  # worker k ran home k's initializer
    assert data["answers"] == [1, 2, 4]
