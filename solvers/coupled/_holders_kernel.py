"""Compiled (numba) scans over every allocation from a state ``(s, H)``: one iteration's completions.

:func:`completions` serves the holder search of :mod:`.full_holders` (its definitions),
:func:`successors` the holder bound of :mod:`.full_holders_bound` (its definitions); ``count``
and ``since`` are the tables of :func:`._chain_kernel.tables` (UP slots of ``q`` in ``[0, u)``,
and ``L_q(u)``).
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


@njit(cache=True, nogil=True)
def successors(
    ready, count, since, members, tasks, work, masks, start, holders, lanes, m, t_prog, t_data, out
):
    """The relaxed successors ``(t, H')`` of state ``(start, holders)`` (:mod:`.full_holders_bound`),
    packed as ``t << p | H'`` into ``out``; returns how many there are (``out`` may be too short:
    then only its length is written).

    ``ready`` is :func:`readiness` with ``holders`` as the holder set, up to the last slot a
    completion may take; ``lanes`` is ``min(n_com, m)``, the transfers of one slot at most.
    """
    p = ready.shape[0]
    span = ready.shape[1]
    n = 0
    for a in range(members.shape[0]):
        done = 0
        need = work[a]
        for i in range(span):
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
                continue
            if ok:
                done += 1
            if done < need:
                continue
            t = start + i
            kept = masks[a]
            for q in range(p):
                if (holders >> q) & 1 and since[q, t + 1] <= start:
                    kept |= 1 << q
            receive = 0  # members that receive the program in this iteration
            for k in range(members.shape[1]):
                q = members[a, k]
                if q < 0:
                    break
                if not ((holders >> q) & 1 and since[q, t + 1] <= start):
                    receive += 1
            quiet = t + 1 - need  # no transfer from the final attempt's first computing slot on
            if lanes * (quiet - start) < m * t_data + t_prog * receive:
                continue
            grown = kept
            for q in range(p):
                if not (kept >> q) & 1:
                    lo = max(start, since[q, t + 1])
                    if quiet > lo and count[q, quiet] - count[q, lo] >= t_prog:
                        grown |= 1 << q
            if n < out.shape[0]:
                out[n] = (t << p) | grown
            n += 1
    return n
