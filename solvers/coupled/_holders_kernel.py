"""Compiled (numba) scan of :mod:`.full_holders`: one iteration's completion on every allocation.

The definitions are :mod:`.full_holders`'s module docstring; ``count`` and ``since`` are the
tables of :func:`._chain_kernel.tables` (UP slots of ``q`` in ``[0, u)``, and ``L_q(u)``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_UP, _DOWN = 0, 2


@njit(cache=True, nogil=True)
def readiness(avail, count, since, start, holder, t_prog, t_data, m, last):
    """``ready[q, u - start]``: the most tasks ``q`` could compute at ``u`` in an iteration entered at
    ``start`` (its UP slots since ``max(start, L_q(u))`` hold the program unless it keeps one, then
    ``T_data`` per task), at most ``m``; ``-1`` when it cannot compute, ``-2`` when it is DOWN."""
    p = avail.shape[0]
    horizon = min(avail.shape[1], last + 1)
    ready = np.full((p, max(horizon - start, 0)), -1, dtype=np.int64)
    for q in range(p):
        for u in range(start, horizon):
            state = avail[q, u]
            if state == _DOWN:
                ready[q, u - start] = -2
                continue
            if state != _UP:
                continue
            after = since[q, u]
            first = start if start > after else after
            have = count[q, u] - count[q, first]
            if not (holder[q] and after <= start):
                have -= t_prog
            if have < 0:
                continue
            ready[q, u - start] = m if t_data == 0 else min(have // t_data, m)
    return ready


@njit(cache=True, nogil=True)
def completions(ready, members, tasks, work, start, out):
    """``out[a]``: the slot at whose end an iteration on allocation ``a``, entered at ``start``,
    completes (``-1`` if not within ``ready``'s slots, :func:`readiness`); returns the
    (allocation, slot) cells read.

    ``members[a]`` lists the enrolled processors (``-1`` pads), ``tasks[a]`` their task counts,
    ``work[a]`` the workload ``W(x)``.
    """
    span = ready.shape[1]
    cells = 0
    for a in range(members.shape[0]):
        out[a] = -1
        done = 0
        need = work[a]
        for i in range(span):
            if need - done > span - i:  # one computing slot at most per slot
                break
            cells += 1
            ok = True
            down = False
            for k in range(members.shape[1]):
                q = members[a, k]
                if q < 0:
                    break
                level = ready[q, i]
                if level == -2:
                    down = True
                    break
                if level < tasks[a, k]:
                    ok = False
            if down:
                done = 0
            elif ok:
                done += 1
                if done >= need:
                    out[a] = start + i
                    break
    return cells
