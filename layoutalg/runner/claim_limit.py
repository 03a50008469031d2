"""A wall-clock limit on one claim, so one runaway claim cannot hang a CI run.

``within(seconds)`` arms an interval timer around a block; when it fires,
``ClaimTimeLimit`` is raised in the main thread wherever the claim is (a Z3 check is
then interrupted: ``verify.z3_backend.solver.interruptible_check``). A
``BaseException``, so no ``except Exception`` on the way swallows it. Off the main
thread (a Dask worker's) the block runs unlimited; each Z3 query keeps its ``timeout_ms``.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager


class ClaimTimeLimit(BaseException):
    """The claim ran past its wall-clock limit."""


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Raise ``ClaimTimeLimit`` in the block once ``seconds`` have passed."""
    if seconds is None or not hasattr(signal, "setitimer") \
            or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum, _frame):
        raise ClaimTimeLimit(seconds)

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
