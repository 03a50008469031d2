"""checker_threads.MadeAhead: fresh values made ahead of need, never shared,
at most ``spare`` made beyond those taken, a forked child with its own."""

from __future__ import annotations

import itertools
import os
import threading
import time

import pytest

from layoutalg.verify.z3_backend.checker_threads import MadeAhead


class Counter:
    """make(): the next number, and who made it."""

    def __init__(self) -> None:
        self.numbers = itertools.count()
        self.lock = threading.Lock()
        self.made_by: list[str] = []

    def __call__(self) -> int:
        with self.lock:
            self.made_by.append(threading.current_thread().name)
            return next(self.numbers)


def _settle(made: Counter, count: int) -> None:
    deadline = time.monotonic() + 10
    while len(made.made_by) < count and time.monotonic() < deadline:
        time.sleep(0.005)


def test_each_value_is_taken_once_and_at_most_spare_are_made_ahead():
    made = Counter()
    ahead = MadeAhead(made, spare=3)
    taken = [ahead.take() for _ in range(20)]
    assert len(set(taken)) == 20  # nothing handed out twice
    _settle(made, 23)
    time.sleep(0.05)  # time to overshoot, if it would
    assert len(made.made_by) == 23  # 20 taken + 3 spare, no more
    assert "made ahead" in made.made_by  # the thread made some of them


def test_a_failing_make_is_seen_by_the_caller():
    def make():
        raise RuntimeError("no context")

    with pytest.raises(RuntimeError, match="no context"):
        MadeAhead(make).take()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_makes_its_own():
    made = Counter()
    ahead = MadeAhead(made, spare=2)
    ahead.take()
    _settle(made, 3)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the parent's spares are not handed out here
        try:
            value = ahead.take()
            os.write(write, str(value).encode())
        finally:
            os._exit(0)
    os.close(write)
    child_value = int(os.read(read, 100))
    os.waitpid(pid, 0)
    # the parent had made 0 (taken), 1 and 2 (spare); the child's counter starts
    # from the parent's at the fork and makes a new one: 3, not a spare of the parent
    assert child_value >= 3
