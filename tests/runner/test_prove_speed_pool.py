"""``WorkerPool.submit_near``: specs of one module stay on one worker when they can.

``prove -j`` submits each spec with its module's path as its group; a worker
then takes the next spec of the module it is on (imported there, its maps'
facts remembered), else a module no other worker is on, else any task: an
idle worker never waits for its own group. Groupless tasks stay first in,
first out. Pinned on the pool's choice itself (no timing involved).
"""

from __future__ import annotations

from test_prove_schedule import pool_order  # equal costs: the order of modules alone

from layoutalg.runner.worker_pool import WorkerPool


def choose(worker_group, other_groups, queued_groups) -> list:
    """The groups in the order a pool hands queued tasks to a worker on
    ``worker_group`` while other workers sit on ``other_groups``."""
    return pool_order(worker_group, other_groups, [(g, 1.0) for g in queued_groups])


def test_a_worker_keeps_to_its_module_then_takes_one_nobody_is_on():
    order = choose("b.py", ["a.py"], ["a.py", "a.py", "b.py", "c.py", "b.py", "a.py"])
    # its own module first (b: tasks 2 and 4), then c (nobody on it), then a
    assert order == [("b.py", 2), ("b.py", 4), ("c.py", 3), ("a.py", 0), ("a.py", 1),
                     ("a.py", 5)]


def test_groupless_tasks_stay_first_in_first_out():
    order = choose(None, [None], [None, None, None])
    assert [k for _, k in order] == [0, 1, 2]


def test_a_pool_runs_grouped_tasks_to_the_right_answers():
    pool = WorkerPool(2)
    try:
        futures = [pool.submit_near(f"m{k % 3}", pow, k, 2) for k in range(9)]
        assert [f.result(timeout=60) for f in futures] == [k * k for k in range(9)]
    finally:
        pool.shutdown()
