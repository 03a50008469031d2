"""``prover.collecting_less``: the garbage collector's threshold raised while
specs import and prove, and given back afterwards (nested, and across threads)."""

from __future__ import annotations

import gc
import threading

from layoutalg.runner import prover


def test_the_threshold_is_raised_in_the_block_and_restored_after():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        with prover.collecting_less():
            assert gc.get_threshold() == (prover.COLLECT_AFTER, 10, 10)
            with prover.collecting_less():  # a spec proved inside another block
                assert gc.get_threshold()[0] == prover.COLLECT_AFTER
            assert gc.get_threshold()[0] == prover.COLLECT_AFTER  # the outer block still runs
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_a_higher_threshold_of_the_user_is_kept():
    before = gc.get_threshold()
    gc.set_threshold(prover.COLLECT_AFTER * 3, 5, 5)
    try:
        with prover.collecting_less():
            assert gc.get_threshold() == (prover.COLLECT_AFTER * 3, 5, 5)
        assert gc.get_threshold() == (prover.COLLECT_AFTER * 3, 5, 5)
    finally:
        gc.set_threshold(*before)


def test_threads_that_end_in_any_order_restore_the_threshold():
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    first_in, first_may_leave = threading.Event(), threading.Event()

    def first():
        with prover.collecting_less():
            first_in.set()
            first_may_leave.wait(30)

    try:
        thread = threading.Thread(target=first)
        thread.start()
        assert first_in.wait(30)
        with prover.collecting_less():  # entered second, left first
            assert gc.get_threshold()[0] == prover.COLLECT_AFTER
        assert gc.get_threshold()[0] == prover.COLLECT_AFTER  # the thread is still inside
        first_may_leave.set()
        thread.join(30)
        assert gc.get_threshold() == (700, 10, 10)
    finally:
        first_may_leave.set()
        gc.set_threshold(*before)
