"""The hard stop behind ``--time-limit``: a method that overruns its limit is interrupted.

A method honours its time limit cooperatively where its back end can (CP-SAT's
``max_time_in_seconds``, CBC's ``sec``, the bnb's deadline), but model building
in Python, enumeration and a back end's own start-up do not look at the clock.
:func:`hard_limit` arms ``SIGALRM`` at :func:`hard_seconds` of the limit; when
it fires, :class:`HardStop` is raised in whatever Python code runs, and
:func:`volsched.solvers.finish` reports ``unknown``. A call into native code
(CP-SAT's search) is interrupted only when it returns, which it does at its own
limit. Signals exist only in the main thread; elsewhere the limit stays
cooperative.

**The slack a user can expect:** ``solve`` returns within
``L + 1 s + 0.1 L`` of a limit ``L``, plus the time to read and verify.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

HARD_SLACK_S = 1.0
HARD_SLACK_FRACTION = 0.1


class HardStop(Exception):
    """The hard time limit fired."""


def hard_seconds(time_limit: float) -> float:
    """When the hard stop fires for a limit of ``time_limit`` seconds."""
    return time_limit + HARD_SLACK_S + HARD_SLACK_FRACTION * time_limit


def _raise(_signum, _frame):
    raise HardStop


@contextmanager
def hard_limit(seconds: float | None) -> Iterator[None]:
    """Raise :class:`HardStop` in this block after ``seconds`` (main thread only; nests)."""
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    outer = signal.getitimer(signal.ITIMER_REAL)[0]
    previous = signal.signal(signal.SIGALRM, _raise)
    begin = time.perf_counter()
    signal.setitimer(signal.ITIMER_REAL, min(seconds, outer) if outer > 0 else seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer > 0:  # give the enclosing limit back what is left of it (at least a tick)
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.perf_counter() - begin), 1e-6))


def kill_children(name: str) -> None:
    """SIGKILL this process's child processes called ``name`` (a back end left running by a stop).

    Linux only (``/proc``); elsewhere the child runs to its own limit.
    """
    pid = os.getpid()
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            children = [int(c) for c in fh.read().split()]
    except OSError:
        return
    for child in children:
        try:
            with open(f"/proc/{child}/comm") as fh:
                if fh.read().strip().startswith(name):
                    os.kill(child, signal.SIGKILL)
        except OSError:
            continue
