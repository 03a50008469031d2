"""Every Z3 context the solver makes lets reference counts drop on any thread.

Python's cyclic GC runs on whichever thread allocates, so a Z3 object of a
context may be freed on one thread while a check uses that context on
another. Without Z3's concurrent dec-ref such a race corrupted the context
(found under a sampling profiler: ``Z3_del_context`` never returned and the
claim hung to its 300 s limit)."""

from __future__ import annotations

import threading

import z3

from layoutalg.verify.z3_backend import solver


def test_each_fresh_context_enables_concurrent_dec_ref(monkeypatch):
    enabled = []
    real = z3.Z3_enable_concurrent_dec_ref
    monkeypatch.setattr(z3, "Z3_enable_concurrent_dec_ref",
                        lambda ref: (enabled.append(ref), real(ref))[1])
    ctx = solver._new_context()
    assert enabled == [ctx.ref()]


def test_objects_freed_on_another_thread_during_a_check():
    """Terms made before a check and dropped on this thread while the check
    runs on a worker thread in the same context (only the counts drop here;
    nothing is made): the check answers, and answers right (x·y = 391 with
    1 < x ≤ y has the one solution 17·23)."""
    ctx = solver._new_context()
    x, y = z3.Ints("x y", ctx=ctx)
    terms = [x * k + y for k in range(20_000)]
    check = z3.Solver(ctx=ctx)
    check.add(x * y == 391, 1 < x, x <= y)
    answers = []
    worker = threading.Thread(target=lambda: answers.append(check.check()))
    worker.start()
    while terms:
        terms.pop()  # each drop decrements a count on this thread
    worker.join()
    assert answers == [z3.sat]
    model = check.model()
    assert (model[x].as_long(), model[y].as_long()) == (17, 23)
