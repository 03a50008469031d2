"""What the solver's cheaper per-query path relies on (issue 17 item 2).

* The vacuity test's memo (``vacuity.ruled_out_sizes``) gives the verdict a
  fresh run gives, on an encoding that IS vacuous and one that is not; it
  never answers for another encoding of the same SymPy question, and keeps
  nothing an unknown had a part in.
* Checks run on long-lived worker threads (``verify.checker_threads``):
  Ctrl-C and the per-claim limit still stop a running check at once (the
  check answers "canceled"), the next check reuses the thread, and the one
  watchdog thread interrupts a check whose deadline passes.

No timed assertions: events say when a check runs; a generous wait on them
only guards against a hang.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest
import sympy
import z3

import layoutalg as la
from layoutalg.runner.claim_limit import ClaimTimeLimit
from layoutalg.verify.z3_backend import checker_threads, solver, vacuity
from layoutalg.verify.z3_backend.terms import Bounded

M = sympy.Symbol("M", integer=True, positive=True)
HANG_GUARD_S = 120


def old_naming(self, expr):
    """The bug of issue 8 item 3: a ceiling named before its inner one, so
    ceil(ceil(M/8)/3) and ceil(M/8) share one variable x, with x = ceil(M/8)
    and x = ceil(x/3): x is 0 or 1, so only M <= 8 is admitted."""
    var = z3.Int(f"extent#{len(self.definitions)}", self.ctx)
    self.definitions.append(var == self._term(expr))
    return var


def in_bounds_map():
    dom = la.Space(i=M)
    (i,) = dom.symbols
    return la.IndexMap(dom, la.Space(a=4, b=sympy.ceiling(sympy.ceiling(M / 8) / 3)),
                       [(i // 8) % 3 + 1, 0])


def vacuity_verdict(assumptions=()):
    """``vacuity.ruled_out_sizes`` of the query ``i // 8 >= ceil(ceil(M/8)/3) * 3 + 1``
    over 0 <= i < M (false for every M: i // 8 <= ceil(M/8) - 1)."""
    i = sympy.Symbol("i", integer=True)
    unknowns = [Bounded(i, 0, M)]
    tower = sympy.ceiling(sympy.ceiling(M / 8) / 3)
    built = solver._build(unknowns, [sympy.Ge(i // 8, tower * 3 + 1)], [M], list(assumptions),
                          None, quotients=False)
    _, translator = built
    return vacuity.ruled_out_sizes(translator, [M], list(assumptions), unknowns, 10_000)


@pytest.fixture
def fresh_memo(monkeypatch):
    monkeypatch.setattr(vacuity, "MEMO", {})
    return vacuity.MEMO


def counting_checks(monkeypatch):
    calls = []
    real = checker_threads.interruptible_check

    def counted(s, ctx):
        calls.append(s)
        return real(s, ctx)

    monkeypatch.setattr(checker_threads, "interruptible_check", counted)
    return calls


# -- the vacuity memo -----------------------------------------------------------

@pytest.mark.parametrize("assumptions", [[], [M <= 1000]], ids=["free", "assumed"])
def test_a_sound_encoding_is_admitted_with_and_without_the_memo(monkeypatch, fresh_memo,
                                                                 assumptions):
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 0)
    assert vacuity_verdict(assumptions) is None  # nothing remembered
    assert fresh_memo == {}
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 4096)
    assert vacuity_verdict(assumptions) is None
    calls = counting_checks(monkeypatch)
    assert vacuity_verdict(assumptions) is None  # the same question, from memory
    assert calls == []


def test_a_vacuous_encoding_is_caught_with_and_without_the_memo(monkeypatch, fresh_memo):
    monkeypatch.setattr(solver._Translator, "_named", old_naming)
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 0)
    fresh = vacuity_verdict()
    # the truth (see old_naming): sizes M >= 9 are ruled out, M = 1 (the first draw) is not
    assert fresh is not None and int(fresh.removeprefix("M=")) >= 9
    monkeypatch.setattr(vacuity, "MEMO_SIZE", 4096)
    assert vacuity_verdict() == fresh
    calls = counting_checks(monkeypatch)
    assert vacuity_verdict() == fresh
    assert calls == []


def test_the_memo_never_answers_for_another_encoding_of_the_same_question(fresh_memo,
                                                                          monkeypatch):
    m = in_bounds_map()
    assert la.check_in_bounds(m).status is la.Status.PROVED  # true: a <= 3 < 4
    assert fresh_memo  # the sound encoding's verdict is remembered
    monkeypatch.setattr(solver._Translator, "_named", old_naming)
    result = la.check_in_bounds(m)  # the same SymPy question, a vacuous encoding
    assert result.status is la.Status.UNKNOWN
    assert "does not admit the sizes" in result.reason


def test_the_memo_keys_on_the_timeout(fresh_memo):
    assert vacuity_verdict() is None
    (key,) = fresh_memo
    assert 10_000 in key


def test_nothing_an_unknown_had_a_part_in_is_remembered(monkeypatch, fresh_memo):
    monkeypatch.setattr(checker_threads, "interruptible_check", lambda s, ctx: z3.unknown)
    monkeypatch.setattr(vacuity, "holds_at", lambda *args: False)  # every draw to Z3
    vacuity_verdict([M <= 1000])  # the checks of sizes meeting the assumptions: unknown
    assert fresh_memo == {}
    # no assumptions: the first draw (M = 1) goes straight to the encoding's check
    assert vacuity_verdict() == "M=1"  # unknown: not shown to be admitted, so reported
    assert fresh_memo == {}


def test_no_size_drawn_is_not_a_pass(monkeypatch, fresh_memo):
    """When Z3 finds no size meeting the assumptions for any draw (unknown every
    time), nothing was tested: the guard must not let unsat stand as a proof."""
    monkeypatch.setattr(checker_threads, "interruptible_check", lambda s, ctx: z3.unknown)
    # no candidate size plugged in meets it either (M = 1 would show M <= 1000 at once)
    shown = vacuity_verdict([M >= 2**21])
    assert shown is not None and "did not find sizes" in shown


def test_the_vacuity_guard_still_answers_unknown_through_ask(fresh_memo, monkeypatch):
    monkeypatch.setattr(solver._Translator, "_named", old_naming)
    for _ in range(2):  # the second from memory
        result = la.check_in_bounds(in_bounds_map())
        assert result.status is la.Status.UNKNOWN


# -- checks on long-lived threads --------------------------------------------------

class StartedCheck:
    """A solver whose check sets ``started`` (on the thread it runs on) and
    then runs a question Z3 does not settle in any practical time: 15 pigeons
    in 14 holes as plain clauses (unsatisfiable; resolution needs exponentially
    many steps). Its SAT search looks at the cancel flag often, so an
    interrupt stops it at once; Fermat's x³ + y³ = z³, used before, sometimes
    ran for minutes in nonlinear arithmetic that does not look, under load."""

    def __init__(self, holes: int = 14):
        self.ctx = z3.Context()
        self.solver = z3.Solver(ctx=self.ctx)
        put = [[z3.Bool(f"p{i}_{h}", self.ctx) for h in range(holes)] for i in range(holes + 1)]
        self.solver.add(*(z3.Or(*row) for row in put))
        self.solver.add(*(z3.Or(z3.Not(put[a][h]), z3.Not(put[b][h]))
                          for h in range(holes) for a in range(holes + 1)
                          for b in range(a + 1, holes + 1)))
        self.started = threading.Event()
        self.finished = threading.Event()
        self.thread = None
        self.answer = None

    def set(self, *args):
        self.solver.set(*args)

    def check(self):
        self.thread = threading.current_thread()
        self.started.set()
        try:
            self.answer = self.solver.check()
            return self.answer
        finally:
            self.finished.set()


def raise_in_main_thread_once_started(check, exception):
    """Once ``check`` runs, deliver SIGUSR1 to the main thread, whose handler
    raises ``exception`` (as Ctrl-C and the per-claim limit's alarm do)."""
    raised = threading.Event()

    def handler(_signum, _frame):
        if not raised.is_set():  # once: a repeated signal after it is ignored
            raised.set()
            raise exception

    previous = signal.signal(signal.SIGUSR1, handler)

    def deliver():
        # repeated until the handler has run: in CI a single signal was once not
        # acted on, and the main thread waited for the never-ending check for good
        if check.started.wait(HANG_GUARD_S):
            while not raised.wait(0.05):
                signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)

    threading.Thread(target=deliver, daemon=True).start()
    return previous


def interrupt_scenario(kind: str) -> None:
    """Ctrl-C (``ctrl-c``) or the per-claim limit (``claim-limit``) arrives while a
    check runs on the shared thread: it is raised at once, the check ends
    interrupted, and the next checks run right. Runs in a fresh interpreter
    (see the test): a signal raised in a pytest-xdist worker's main thread
    also reaches the worker's own machinery."""
    exception = KeyboardInterrupt() if kind == "ctrl-c" else ClaimTimeLimit(3)
    check = StartedCheck()
    previous = raise_in_main_thread_once_started(check, exception)
    try:
        with pytest.raises(type(exception)):
            checker_threads.interruptible_check(check, check.ctx)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert check.thread is not threading.main_thread()
    assert check.finished.wait(HANG_GUARD_S), "the check was not interrupted"
    assert check.answer == z3.unknown
    assert check.solver.reason_unknown() in {"canceled", "interrupted"}
    # the worker lives on, and the next check runs on a worker and is right
    ctx = z3.Context()
    small = z3.Solver(ctx=ctx)
    x = z3.Int("x", ctx)
    small.add(x * x == 49, x < 0)
    assert checker_threads.interruptible_check(small, ctx) == z3.sat
    assert small.model()[x].as_long() == -7
    small.add(x > -7)
    assert checker_threads.interruptible_check(small, ctx) == z3.unsat


@pytest.mark.parametrize("kind", ["ctrl-c", "claim-limit"])
def test_an_interrupt_stops_a_check_on_the_shared_thread(kind):
    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.dirname(here)  # the shared helper modules
    code = (f"import sys; sys.path[:0] = [{here!r}, {tests!r}]; import test_solver_reuse as t; "
            f"t.interrupt_scenario({kind!r}); print('interrupted and recovered')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=4 * HANG_GUARD_S)  # a hang guard only, never an assertion
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == "interrupted and recovered"


def test_a_worker_is_reused_by_the_next_check():
    seen = []

    def job():
        seen.append(threading.current_thread())
        return len(seen)

    assert [checker_threads.call(job, lambda: None) for _ in range(5)] == [1, 2, 3, 4, 5]
    assert len(set(seen)) == 1 and seen[0] is not threading.main_thread()


def test_a_job_exception_is_raised_in_the_caller():
    def job():
        raise z3.Z3Exception("boom")

    with pytest.raises(z3.Z3Exception, match="boom"):
        checker_threads.call(job, lambda: None)


def test_the_watchdog_interrupts_a_check_past_its_deadline():
    check = StartedCheck()
    check.set("timeout", 10 ** 8)  # Z3's own timeout would not stop it
    fired = threading.Event()

    def interrupt():
        # Z3 drops an interrupt that comes before it is inside the check (``started``
        # is set just before), so, as checker_threads.call does, repeat it until the
        # check answers
        fired.set()

        def repeat():
            while not check.finished.wait(0.05):
                check.ctx.interrupt()
        check.ctx.interrupt()
        threading.Thread(target=repeat, daemon=True).start()

    worker = threading.Thread(target=check.check, daemon=True)
    worker.start()
    assert check.started.wait(HANG_GUARD_S)
    ticket = checker_threads.arm(0.0, interrupt)
    assert check.finished.wait(HANG_GUARD_S), "the watchdog did not interrupt the check"
    assert fired.is_set() and check.answer == z3.unknown
    checker_threads.disarm(ticket)  # after it fired: harmless


def test_a_disarmed_deadline_never_fires():
    fired = threading.Event()
    later = threading.Event()
    checker_threads.arm(3600, lambda: None)  # the watchdog thread is running
    with checker_threads._state.watch:  # the watchdog cannot fire meanwhile
        ticket = checker_threads.arm(0.0, fired.set)
        checker_threads.disarm(ticket)
    checker_threads.arm(0.0, later.set)  # due after the disarmed one
    assert later.wait(HANG_GUARD_S)
    assert not fired.is_set()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_starts_its_own_threads():
    checker_threads.call(lambda: None, lambda: None)  # the parent has a worker
    pid = os.fork()
    if pid == 0:  # the child: its inherited idle worker does not exist here
        ok = False
        try:
            signal.alarm(HANG_GUARD_S)  # a hang kills the child: a failure, not a hang
            ok = checker_threads.call(lambda: 42, lambda: None) == 42
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
