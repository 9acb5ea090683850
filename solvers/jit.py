"""Compiling the numba kernels outside every clock, and saying so.

numba compiles a kernel on its first call and caches the machine code (``cache=True``) beside
the source, or, where that folder is read-only (a site-packages install, a shared cluster
image), in the user cache directory that :mod:`volsched` sets up (``NUMBA_CACHE_DIR``). A cold
cache costs tens of seconds on the first coupled solve, so :func:`volsched.solvers.problem.solve`
compiles a method's kernels before its clock starts (``Problem.warm``), and ``volsched compile``
compiles every kernel ahead of time, for CI images and cluster workers.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

#: A warm-up that takes longer than this (seconds) is compiling, not loading the cache: say so.
ANNOUNCE_AFTER_S = 1.0

_announced = False
_lock = threading.Lock()


def _say(message: str) -> None:
    print(f"volsched: {message}", file=sys.stderr, flush=True)


@contextmanager
def compiling(what: str, quiet: bool = False) -> Iterator[None]:
    """Run a warm-up; if it outlasts :data:`ANNOUNCE_AFTER_S`, say on stderr (once per process)
    that kernels are being compiled, and then how long it took."""
    global _announced
    begin = time.perf_counter()
    said = threading.Event()

    def announce():
        global _announced
        with _lock:
            if _announced or quiet:
                return
            _announced = True
        said.set()
        _say(
            f"compiling numba kernels for {what} (first use on this machine; cached afterwards; "
            "`volsched compile` does it ahead of time)"
        )

    timer = threading.Timer(ANNOUNCE_AFTER_S, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        if said.is_set():
            _say(f"compiled in {time.perf_counter() - begin:.1f} s")


__all__ = ["ANNOUNCE_AFTER_S", "compiling"]
