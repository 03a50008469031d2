"""Long-lived threads for the solver's checks: reused workers and one watchdog.

Each of a prove run's thousands of Z3 checks runs off the calling thread (so
Ctrl-C and the per-claim limit can interrupt it) under a deadline; a thread
and a ``threading.Timer`` per check cost ~8,500 thread starts a run.

* :func:`run_soon` (:func:`call` waits for the answer) runs a job on an idle
  worker, or a new one when all are busy, so an abandoned check still
  winding down never holds up the next one;
* :func:`arm` / :func:`disarm`: one watchdog calls ``interrupt()`` once a
  deadline passes, holding the lock :func:`disarm` takes, so once ``disarm``
  returns the interrupt never comes (nor hits a later check on the context).

A forked child starts with no threads.
"""

from __future__ import annotations

import heapq
import itertools
import os
import queue
import threading
import time
from collections.abc import Callable

INTERRUPT_AGAIN_S = 0.05


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle: list[queue.SimpleQueue] = []  # inboxes of workers waiting for a job
        self.watch = threading.Condition()
        self.deadlines: list[tuple[float, int]] = []  # a heap of (deadline, ticket)
        self.armed: dict[int, Callable[[], object]] = {}
        self.tickets = itertools.count()
        self.watchdog: threading.Thread | None = None


_state = _State()


def _forget_threads() -> None:
    global _state
    _state = _State()


os.register_at_fork(after_in_child=_forget_threads)


def run_soon(job: Callable[[], object],
             report: Callable[[tuple[bool, object]], object] | None = None) -> None:
    """Run ``job()`` on a worker thread, then ``report((True, result))`` or
    ``report((False, exception))``; the worker is free before it reports, so
    a caller that waits for the report and submits again gets the same one."""
    state = _state
    with state.lock:
        inbox = state.idle.pop() if state.idle else None
    if inbox is None:
        inbox = queue.SimpleQueue()
        threading.Thread(target=_work, args=(state, inbox), name="z3 check",
                         daemon=True).start()
    inbox.put((job, report))


def call(job: Callable[[], object], interrupt: Callable[[], object]) -> object:
    """``job()`` run on a worker thread while this one waits: its result, or
    its exception raised here. An exception while waiting (Ctrl-C, the
    per-claim limit's alarm) calls ``interrupt()`` and goes on up at once."""
    answer: queue.Queue = queue.Queue()  # its get() is interruptible by signals
    try:
        run_soon(job, answer.put)  # inside: a signal may come as soon as the job runs
        ok, result = answer.get()
    except BaseException:
        interrupt()
        _until_answered(answer, interrupt)
        raise
    if not ok:
        raise result
    return result


def interruptible_check(solver, ctx):
    """``solver.check()`` that Ctrl-C stops at once.

    Left to itself, Z3 catches SIGINT and answers "unknown (canceled)": the
    run went on and Ctrl-C was lost. Here Z3 leaves SIGINT alone (``ctrl_c``
    off) and the check runs on a worker (Z3 releases the GIL) while the main
    thread waits; KeyboardInterrupt there interrupts the check and goes on
    up to the CLI (exit 130).
    """
    solver.set("ctrl_c", False)
    if threading.current_thread() is not threading.main_thread():
        return solver.check()  # only the main thread receives SIGINT
    return call(solver.check, ctx.interrupt)  # a long-lived worker thread


def _until_answered(answer: queue.Queue, interrupt: Callable[[], object]) -> None:
    """An interrupt that comes before Z3 is inside the check is lost (Z3 does
    not keep it): the watchdog repeats it until the job has answered."""
    def again() -> None:
        if answer.empty():
            interrupt()
            arm(INTERRUPT_AGAIN_S, again)

    arm(INTERRUPT_AGAIN_S, again)


def _work(state: _State, inbox: queue.SimpleQueue) -> None:
    while True:
        job, report = inbox.get()
        try:
            result = (True, job())
        except BaseException as exc:  # noqa: BLE001 - handed to report
            result = (False, exc)
        with state.lock:
            state.idle.append(inbox)
        if report is not None:
            report(result)


def arm(seconds: float, interrupt: Callable[[], object]) -> int:
    """Call ``interrupt()`` ``seconds`` from now unless :func:`disarm` is
    called with the ticket returned first."""
    state = _state
    deadline = time.monotonic() + seconds
    with state.watch:
        ticket = next(state.tickets)
        state.armed[ticket] = interrupt
        earlier = not state.deadlines or deadline < state.deadlines[0][0]
        heapq.heappush(state.deadlines, (deadline, ticket))
        if state.watchdog is None:
            state.watchdog = threading.Thread(target=_watch, args=(state,),
                                              name="z3 watchdog", daemon=True)
            state.watchdog.start()
        elif earlier:
            state.watch.notify()
    return ticket


def disarm(ticket: int) -> None:
    """The deadline of ``ticket`` no longer applies; after this returns, its
    interrupt is not called."""
    state = _state
    with state.watch:
        state.armed.pop(ticket, None)


def _watch(state: _State) -> None:
    with state.watch:
        while True:
            while state.deadlines and state.deadlines[0][1] not in state.armed:
                heapq.heappop(state.deadlines)  # disarmed
            if not state.deadlines:
                state.watch.wait()
                continue
            wait = state.deadlines[0][0] - time.monotonic()
            if wait > 0:
                state.watch.wait(wait)
                continue
            _, ticket = heapq.heappop(state.deadlines)
            try:
                state.armed.pop(ticket)()
            except Exception:  # noqa: BLE001, S110 - the watchdog must outlive one failure
                pass


class MadeAhead:
    """Values of ``make()`` made ``spare`` ahead of need on a daemon thread.

    Making a fresh Z3 context took 1.3 s of an 18 s prove over the shipped
    specs; Z3 releases the GIL meanwhile, so a thread makes the next ones.
    :meth:`take` hands out one made ahead (unused until taken), or makes one
    when none is ready. A forked child starts with none and its own thread.
    """

    def __init__(self, make: Callable[[], object], spare: int = 2) -> None:
        self.make, self.spare = make, spare
        self._pid = None  # the process whose thread fills self._ready

    def take(self):
        if self._pid != os.getpid():
            self._pid, self._ready = os.getpid(), queue.SimpleQueue()
            self._room = threading.Semaphore(self.spare)
            threading.Thread(target=self._fill, args=(self._ready, self._room),
                             name="made ahead", daemon=True).start()
        try:
            value = self._ready.get_nowait()
        except queue.Empty:
            return self.make()
        self._room.release()
        return value

    def _fill(self, ready: queue.SimpleQueue, room: threading.Semaphore) -> None:
        while True:
            room.acquire()
            try:
                ready.put(self.make())
            except Exception:  # noqa: BLE001 - take() then makes its own (and sees the error)
                return
