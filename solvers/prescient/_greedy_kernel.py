"""Compiled (numba) back-to-back completions of identical tasks, interval by interval (:mod:`.greedy`).

One pass over the CPU runs that overlap each availability interval clipped to
``[t0, until)``: work accumulates from the interval's start (and, without
suspension, restarts after each run of share 0); each time it reaches ``W``
a completion is emitted and the next task starts there. Each completion is
computed from its own task's start, the way :mod:`.verify` walks an attempt,
so no global running sum loses precision. :func:`fill` writes them
into room sized by an upper bound (the work at share 1). Kept apart so that importing :mod:`.greedy` does not
compile; numba caches the machine code beside this file.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _first_run(cpu_index, lo, hi, period, t):
    """The last run ``j`` in ``[lo, hi)`` with ``cpu_index[j] * period <= t`` (``lo``'s is 0)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if cpu_index[mid] * period <= t:
            lo = mid
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _walk(
    a, b, j, j_end, cpu_index, cpu_share, period, speed, work, suspension, out_start, out_end, pos, limit, fit
):
    """Back-to-back completions inside ``[a, b)`` from run ``j``, written from ``pos`` but never at or
    past ``limit``; returns the position after the last one (which may pass ``limit``: the caller's
    room was too small)."""
    t = a
    begin = a
    acc = 0.0
    while t < b:
        run_end = cpu_index[j + 1] * period if j + 1 < j_end else np.inf
        seg_end = min(run_end, b)
        share = cpu_share[j]
        if share == 0.0 and not suspension:
            acc = 0.0
            begin = seg_end
        elif share > 0.0:
            rate = speed * share
            while acc + rate * (seg_end - t) >= fit:
                t = t + (work - acc) / rate
                if t > seg_end:
                    t = seg_end
                if pos < limit:
                    out_start[pos] = begin
                    out_end[pos] = t
                pos += 1
                begin = t
                acc = 0.0
            acc += rate * (seg_end - t)
        t = seg_end
        j += 1
    return pos


@njit(cache=True, nogil=True)
def fill(
    iv_a,
    iv_b,
    iv_lo,
    iv_hi,
    cpu_index,
    cpu_share,
    period,
    iv_speed,
    work,
    suspension,
    offset,
    room,
    out_start,
    out_end,
    fit,
):
    """Write each interval's completions (starts and ends) from ``offset[i]`` on; returns their counts.

    ``room[i]`` entries from ``offset[i]`` are interval ``i``'s: at most
    ``speed * (b - a) / work`` completions fit (a share is at most 1); a count
    above ``room[i]`` (never seen) is returned as such and the caller refuses it. A task fits
    once the work reaches ``fit`` (``work`` less the rounding slack).
    """
    n = iv_a.shape[0]
    counts = np.zeros(n, dtype=np.int64)
    for i in range(n):
        j = _first_run(cpu_index, iv_lo[i], iv_hi[i], period, iv_a[i])
        counts[i] = (
            _walk(
                iv_a[i],
                iv_b[i],
                j,
                iv_hi[i],
                cpu_index,
                cpu_share,
                period,
                iv_speed[i],
                work,
                suspension,
                out_start,
                out_end,
                offset[i],
                offset[i] + room[i],
                fit,
            )
            - offset[i]
        )
    return counts
