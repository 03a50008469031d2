"""Worker processes that run one task each at a time, so one that dies fails only its own task.

``ProcessPoolExecutor`` shares one task queue among its workers: when one
dies (SIGKILL, out of memory) it cannot tell which task the dead worker held,
so every running and queued task fails with ``BrokenProcessPool``. Here a
thread of this process hands each task to one idle worker over that worker's
own pipe: a worker that dies fails only its task's future, with
``WorkerDied``, and a fresh worker takes its place.

The first workers of a ``warm`` pool are forked from this process when it
runs a single thread (they start with everything it imported, at no cost);
any other worker comes from a forkserver, since a fork of a threaded process
may copy a lock another thread holds. An idle worker takes the most costly
task (``submit_costed``) of a group it holds, else the most costly of all:
the long ones start first and the short ones fill the end.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Executor, Future
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

# imported once in the forkserver, so each worker starts with them (a family
# that is not there is skipped by the forkserver)
PRELOAD = ["layoutalg.runner.prover", "layoutalg.mesh", "layoutalg.spyre", "layoutalg.tt",
           "layoutalg.channel", "layoutalg.dataflow", "layoutalg.dtensor"]


class WorkerDied(Exception):
    """The worker process running a task died before it answered (killed, or
    out of memory); ``cause`` says how. Only that task failed: run it alone
    to see whether it kills its worker every time."""

    def __init__(self, cause: str) -> None:
        super().__init__(f"the worker process died ({cause})")
        self.cause = cause


@dataclass(eq=False)
class _Task:
    future: Future
    fn: Callable
    args: tuple
    kwargs: dict
    group: object = None  # tasks of one group go to one worker when they can
    cost: float = 0.0  # the most costly queued task goes first


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    pipe: Connection  # this end: tasks go out, answers come back
    task: _Task | None = None
    groups: set = field(default_factory=set)  # of the tasks it ran, and its home's
    forked: bool = False  # from this process, not the forkserver


class WorkerPool(Executor):
    """At most ``jobs`` worker processes; ``initializer`` runs first in each.

    ``submit`` and ``shutdown`` as for any ``Executor``; ``terminate`` stops
    the workers at once (Ctrl-C), without waiting for their tasks. With
    ``warm`` the workers start now, not at the first ``submit`` (forked here
    when this process runs one thread, else from the forkserver by the pool's
    thread, overlapping whatever this process does meanwhile). ``homes``: for
    the workers forked now, each one's own ``(initializer, groups)``, run
    instead of ``initializer``; it takes the tasks of those groups first (the
    CLI's workers import a share of the spec modules each).
    """

    def __init__(self, jobs: int, initializer: Callable[[], None] | None = None, *,
                 warm: bool = False,
                 homes: Sequence[tuple[Callable[[], None], Collection]] = ()) -> None:
        self._jobs = jobs
        self._warm = warm
        self._initializer = initializer
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(PRELOAD)
        self._queued: deque[_Task] = deque()
        self._workers: list[_Worker] = []
        self._lock = threading.Lock()
        self._closing = False  # no more tasks: end once the queued ones are done
        self._stopped = False  # terminate(): end now
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_write, False)
        # fork here only where the platform forks and no other thread runs (no lock of
        # theirs to copy half-held)
        if warm and "fork" in multiprocessing.get_all_start_methods() \
                and threading.active_count() == 1:
            fork = multiprocessing.get_context("fork")
            for k in range(jobs):
                start, groups = homes[k] if k < len(homes) else (initializer, ())
                self._start_worker(fork, start).groups.update(groups)
        self._thread = threading.Thread(target=self._manage, name="layoutalg-worker-pool",
                                        daemon=True)
        self._thread.start()

    @property
    def started_by_fork(self) -> bool:
        """True when the first workers were forked from this process."""
        return any(w.forked for w in self._workers)

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return self.submit_near(None, fn, *args, **kwargs)

    def submit_near(self, group, fn, /, *args, **kwargs) -> Future:
        """``submit``, preferring a worker that holds ``group`` (it ran a task of it, or
        it is its home's), else a group no other worker holds; any idle worker takes
        any task rather than wait."""
        return self.submit_costed(0.0, group, fn, *args, **kwargs)

    def submit_costed(self, cost: float, group, fn, /, *args, **kwargs) -> Future:
        """``submit_near``, for a task that takes about ``cost`` (any unit; ``_take_for``)."""
        future: Future = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("WorkerPool.submit: the pool is shut down; submit before "
                                   "shutdown()")
            self._queued.append(_Task(future, fn, args, kwargs, group, float(cost)))
            self._wake()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closing = True
            if cancel_futures:
                self._cancel_queued()
            self._wake()
        if wait:
            self._thread.join()

    def terminate(self) -> None:
        """Cancel the queued tasks and stop every worker now (SIGTERM, then SIGKILL)."""
        with self._lock:
            self._closing = self._stopped = True
            self._cancel_queued()
            for worker in self._workers:
                worker.process.terminate()
            self._wake()
        self._thread.join()

    # -- the pool's thread --------------------------------------------------

    def _manage(self) -> None:
        try:
            if self._warm:
                with self._lock:
                    while not self._stopped and len(self._workers) < self._jobs:
                        self._start_worker()
            while self._step():
                pass
        except BaseException as exc:  # never leave a future waiting forever (re-raised)
            with self._lock:
                for task in [*self._queued, *(w.task for w in self._workers if w.task)]:
                    _settle(task.future, False, exc)
                self._queued.clear()
            raise
        finally:
            self._release_workers()
            with self._lock:
                os.close(self._wake_read)
                os.close(self._wake_write)
                self._wake_write = None

    def _step(self) -> bool:
        """Hand out tasks, wait for an answer, a death or a wake-up; False: done."""
        with self._lock:
            if self._stopped or (self._closing and not self._queued
                                 and not any(w.task for w in self._workers)):
                return False
            self._dispatch()
            watched: dict[object, _Worker | None] = {self._wake_read: None}
            for worker in self._workers:
                watched[worker.process.sentinel] = worker
                if worker.task is not None:
                    watched[worker.pipe] = worker
        ready = wait(list(watched))
        with self._lock:
            if self._wake_read in ready:
                os.read(self._wake_read, 4096)
            for worker in {watched[r] for r in ready} - {None}:
                if not self._stopped:
                    self._collect(worker)
        return True

    def _dispatch(self) -> None:
        """Give queued tasks to idle workers, starting workers up to ``jobs``."""
        while self._queued:
            worker = next((w for w in self._workers if w.task is None
                           and w.process.is_alive()), None)
            if worker is None and len(self._workers) >= self._jobs:
                return
            worker = worker or self._start_worker()
            task = self._take_for(worker)
            if task.future.cancelled():
                continue
            try:
                worker.pipe.send((task.fn, task.args, task.kwargs))
            except OSError:  # it died idle, just now: the task goes to the next worker
                self._queued.appendleft(task)
                self._forget(worker)
                continue
            except Exception as exc:  # noqa: BLE001 - the task does not pickle
                _settle(task.future, False, exc)
                continue
            task.future.set_running_or_notify_cancel()
            worker.task = task
            if task.group is not None:
                worker.groups.add(task.group)

    def _take_for(self, worker: _Worker) -> _Task:
        """The queued task for ``worker``, taken off the queue: the most costly of a
        group it holds, else of all; among equals, one of a group no other worker
        holds, else the first in."""
        own = [t for t in self._queued if t.group is not None and t.group in worker.groups]
        candidates = own or self._queued
        top = max(t.cost for t in candidates)
        equal = [t for t in candidates if t.cost == top]
        others = set().union(*(w.groups for w in self._workers if w is not worker))
        chosen = next((t for t in equal if t.group not in others), equal[0])
        self._queued.remove(chosen)
        return chosen

    def _collect(self, worker: _Worker) -> None:
        """Take the worker's answer, or learn it died and fail its task."""
        if worker.task is not None and worker.pipe.poll():
            try:
                ok, value = worker.pipe.recv()
            except (EOFError, OSError):
                ok = None  # it died before it answered: below
            except Exception as exc:  # noqa: BLE001 - an answer that does not unpickle
                ok, value = False, exc
            if ok is not None:
                _settle(worker.task.future, ok, value)
                worker.task = None
        if worker.process.is_alive():
            return
        if worker.task is not None:
            _settle(worker.task.future, False, WorkerDied(_cause(worker.process.exitcode)))
        self._forget(worker)

    def _start_worker(self, context=None, initializer=None) -> _Worker:
        """A new worker from ``context`` (a fork of this process, only while it runs one
        thread), else the forkserver; it runs ``initializer`` (default: the pool's) first."""
        context = context or self._context
        ours, theirs = context.Pipe()
        # a fork holds copies of this process's ends of the pool's pipes: it closes them
        ours_here = () if context is self._context else (
            self._wake_read, self._wake_write, ours.fileno(),
            *(w.pipe.fileno() for w in self._workers))
        process = context.Process(target=_serve,
                                  args=(theirs, initializer or self._initializer, ours_here),
                                  name="layoutalg-worker", daemon=True)
        process.start()
        theirs.close()
        worker = _Worker(process, ours, forked=context is not self._context)
        self._workers.append(worker)
        return worker

    def _forget(self, worker: _Worker) -> None:
        """Drop a worker that died (or is dying: its pipe broke)."""
        self._workers.remove(worker)
        worker.pipe.close()
        worker.process.kill()
        worker.process.join()

    def _release_workers(self) -> None:
        """Idle workers are told to end; after ``terminate`` all are stopped."""
        with self._lock:
            workers, self._workers = self._workers, []
        for worker in workers:
            if self._stopped:
                worker.process.terminate()
            else:
                with suppress(OSError):
                    worker.pipe.send(None)
        for worker in workers:
            worker.process.join(timeout=1)
            if worker.process.is_alive():  # a spec's code may catch SIGTERM
                worker.process.kill()
                worker.process.join()
            worker.pipe.close()
            if worker.task is not None:
                _settle(worker.task.future, False, WorkerDied("stopped with the run"))

    def _cancel_queued(self) -> None:
        for task in self._queued:
            task.future.cancel()
        self._queued.clear()

    def _wake(self) -> None:
        """Interrupt the thread's wait (called holding the lock)."""
        if self._wake_write is None:  # the thread has ended
            return
        with suppress(BlockingIOError):  # the pipe is full: a wake-up is pending anyway
            os.write(self._wake_write, b"!")


def _serve(pipe: Connection, initializer: Callable[[], None] | None,
           close: tuple[int, ...] = ()) -> None:
    """A worker: run each task sent, send back ``(True, result)`` or ``(False, exception)``.
    ``close``: the pool's file descriptors a fork inherited, pointed at /dev/null rather
    than closed, so a number is not reused while a copied object of the pool's holds it."""
    if close:
        null = os.open(os.devnull, os.O_RDWR)
        for fd in close:
            with suppress(OSError):
                os.dup2(null, fd)
        os.close(null)
    if initializer is not None:
        initializer()
    while True:
        try:
            message = pipe.recv()
        except EOFError:  # the pool is gone
            return
        if message is None:
            return
        fn, args, kwargs = message
        try:
            answer = (True, fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - the task's failure is its answer
            answer = (False, exc)
        try:
            pipe.send(answer)
        except Exception as exc:  # noqa: BLE001 - an answer that does not pickle
            pipe.send((False, RuntimeError(f"the answer could not be sent back: "
                                           f"{type(exc).__name__}: {exc}")))


def _settle(future: Future, ok: bool, value) -> None:
    if not future.done():  # else cancelled, or stopped with the run
        (future.set_result if ok else future.set_exception)(value)


def _cause(exitcode: int | None) -> str:
    """``killed by SIGKILL``, ``exit code 3``."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        note = ", as when out of memory" if name == "SIGKILL" else ""
        return f"killed by {name}{note}"
    return f"exit code {exitcode}"
