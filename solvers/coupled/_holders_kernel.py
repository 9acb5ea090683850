"""Compiled (numba) scan of :mod:`.full_holders`: one iteration's completion on every allocation.

The definitions are :mod:`.full_holders`'s module docstring; ``count`` and ``since`` are the
tables of :func:`._chain_kernel.tables` (UP slots of ``q`` in ``[0, u)``, and ``L_q(u)``).
"""

from __future__ import annotations

from numba import njit

_UP, _DOWN = 0, 2


@njit(cache=True, nogil=True)
def completions(avail, count, since, members, tasks, work, start, holder, t_prog, t_data, last, out):
    """``out[a]``: the slot at whose end an iteration on allocation ``a``, entered at ``start``,
    completes (``-1`` if not by ``last``); returns the (allocation, slot) cells read.

    ``members[a]`` lists the enrolled processors (``-1`` pads), ``tasks[a]`` their task counts,
    ``work[a]`` the workload ``W(x)``; ``holder[q]``: ``q`` holds a complete program at ``start``.
    """
    horizon = min(avail.shape[1], last + 1)
    cells = 0
    for a in range(members.shape[0]):
        out[a] = -1
        done = 0
        for u in range(start, horizon):
            cells += 1
            ready = True
            down = False
            for k in range(members.shape[1]):
                q = members[a, k]
                if q < 0:
                    break
                state = avail[q, u]
                if state == _DOWN:
                    down = True
                    break
                if state != _UP:
                    ready = False
                    continue
                after = since[q, u]
                first = start if start > after else after
                need = tasks[a, k] * t_data
                if not (holder[q] and after <= start):
                    need += t_prog
                if count[q, u] - count[q, first] < need:
                    ready = False
            if down:
                done = 0
            elif ready:
                done += 1
                if done >= work[a]:
                    out[a] = u
                    break
    return cells
