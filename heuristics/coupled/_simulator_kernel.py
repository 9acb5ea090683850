"""Compiled (numba) slots of the coupled on-line simulator (:mod:`.simulator`).

Between two decision points a run is deterministic: the master serves its FIFO queue, the
configuration computes when it can, DOWN slots wipe programs and data. :func:`advance` plays
those slots exactly as :mod:`.simulator`'s rules say (the pure-Python loop it replaced is kept
as the oracle in ``tests/oracles/coupled/online.py``) and returns at the next decision point,
where :func:`._decision_kernel.play` decides (or asks Python). It shares no code with the replay
verifier's kernel (``volsched.solvers.coupled._replay_kernel``).

Kept apart so that importing the heuristics does not import numba; :mod:`.simulator` imports it
on first use (numba compiles it once, then caches it beside this file).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Slots of the scalar register ``st`` of :func:`advance` (``ITER_START``: the slot the iteration
#: began, for the proactive rule of :mod:`._proactive_kernel`).
#: :mod:`._decision_kernel` adds its own slots after these.
T, STOP, C, WORKLOAD, DONE, QUEUED, ONE_SLOT, N_COM, T_PROG, T_DATA, K, HELD, HOLD, ITER_START = range(14)
#: Rows of ``hold`` (int64 (6, p)): who was UP, who held the program, the needs, at the promise;
#: then scratch rows of :func:`advance` (allocated once per run, not once per call).
HOLD_UP, HOLD_PROGRAM, HOLD_NEEDS, _SEEN, _SENT, _KINDS = 0, 1, 2, 3, 4, 5
HOLD_ROWS = 6
#: Modes of ``st[HOLD]``: no promise; the policy keeps while the UP set is the same; while the UP
#: set and the programs are the same; and, besides, while no message is sent.
NO_HOLD, HOLD_UP_SET, HOLD_KEY, HOLD_KEY_NEEDS = 0, 1, 2, 3
#: Why :func:`advance` returned: the slots read so far (or the cap) end; an iteration completed
#: (not the last); an enrolled worker was DOWN; the ``K``-th iteration completed; one slot was
#: played and the policy is to be asked (``st[ONE_SLOT]``).
LIMIT, ITERATION, LOST, FINISHED, ONE = 0, 1, 2, 3, 4

_UP, _DOWN = 0, 2
_PROG, _DATA = 1, 2


@njit(cache=True, nogil=True)
def build_queue(order, g, d, t_prog, t_data, queue, needs):
    """The master's FIFO for a new configuration, in task-assignment order; returns its length.

    For each task of ``order`` (its worker ``q``): ``q``'s program if ``q`` lacks it and it
    is not queued yet, then one data message unless the data ``q`` holds covers it. ``queue``
    (int64 (3, capacity)) receives (worker, kind, slots left) columns; ``needs`` ``n_q``.
    """
    p = g.shape[0]
    held = d.copy()
    queued = np.zeros(p, dtype=np.bool_)
    needs[:] = 0
    n = 0
    for i in range(order.shape[0]):
        q = order[i]
        if g[q] < t_prog and not queued[q]:
            queued[q] = True
            queue[0, n], queue[1, n], queue[2, n] = q, _PROG, t_prog - g[q]
            needs[q] += t_prog - g[q]
            n += 1
        credit = min(held[q], t_data)
        held[q] -= credit
        if t_data - credit > 0:
            queue[0, n], queue[1, n], queue[2, n] = q, _DATA, t_data - credit
            needs[q] += t_data - credit
            n += 1
    return n


@njit(cache=True, nogil=True)
def _holds(states, t, g, needs, hold, mode, t_prog):
    """Whether the policy's promise (``st[HOLD]``) still covers the decision at slot ``t``."""
    for q in range(g.shape[0]):
        if (states[q, t] == _UP) != (hold[HOLD_UP, q] != 0):
            return False
        if mode >= HOLD_KEY and (g[q] >= t_prog) != (hold[HOLD_PROGRAM, q] != 0):
            return False
        if mode == HOLD_KEY_NEEDS and needs[q] != hold[HOLD_NEEDS, q]:
            return False
    return True


@njit(cache=True, nogil=True)
def advance(states, comm, x, g, d, needs, queue, st, hold):
    """Play slots from ``st[T]`` until the next decision point; returns why it stopped.

    Each slot ``t`` (:mod:`.simulator`'s rules): the master walks the queue and sends the first
    message of each enrolled UP worker, ``n_com`` at most (recorded in ``comm[q, t]``); the
    configuration computes if nothing was sent, nothing is queued and every enrolled worker
    is UP; the messages count from ``t + 1``; a DOWN slot wipes its worker's program and data.
    Then ``t + 1``: a completed iteration clears everybody's data and the progress
    (:data:`ITERATION`, or :data:`FINISHED` at the ``K``-th), an enrolled worker DOWN at ``t``
    clears the progress (:data:`LOST`); otherwise the next slot follows, unless the slots read
    end (``st[STOP]``, :data:`LIMIT`) or ``st[ONE_SLOT]`` asks for a return after each slot
    (:data:`ONE`) and no promise of the policy (``st[HOLD]``, ``hold``) covers the next
    decision; such a covered decision is counted in ``st[HELD]`` and the slots go on.

    ``x``, ``g``, ``d``, ``needs`` (int64 (p,)): allocation, program and data slots held,
    communication slots still needed; ``queue`` (int64 (3, capacity)) its first
    ``st[QUEUED]`` columns; ``st`` the scalar register (:data:`T` ...).
    """
    p = x.shape[0]
    t = st[T]
    stop, n_com, t_prog, big_k = st[STOP], st[N_COM], st[T_PROG], st[K]
    c, workload, done, n = st[C], st[WORKLOAD], st[DONE], st[QUEUED]
    seen, sent, kinds = hold[_SEEN], hold[_SENT], hold[_KINDS]
    code = LIMIT
    while True:
        n_sent = 0
        if n > 0:
            seen[:] = 0
            for i in range(n):
                if n_sent == n_com:
                    break
                q = queue[0, i]
                if seen[q]:
                    continue
                seen[q] = 1
                if states[q, t] == _UP and x[q] > 0:
                    sent[n_sent], kinds[n_sent] = q, queue[1, i]
                    n_sent += 1
                    queue[2, i] -= 1
            if n_sent > 0:
                kept = 0
                for i in range(n):
                    if queue[2, i] > 0:
                        queue[0, kept], queue[1, kept], queue[2, kept] = queue[0, i], queue[1, i], queue[2, i]
                        kept += 1
                n = kept
        completed = False
        if workload > 0 and n_sent == 0 and n == 0:
            ready = True
            for q in range(p):
                if x[q] > 0 and states[q, t] != _UP:
                    ready = False
                    break
            if ready:
                c += 1
                if c == workload:
                    completed = True
                    done += 1
        for i in range(n_sent):
            q = sent[i]
            comm[q, t] = kinds[i]
            needs[q] -= 1
            if kinds[i] == _PROG:
                g[q] += 1
            else:
                d[q] += 1
        lost = False
        for q in range(p):
            if states[q, t] == _DOWN:
                g[q] = 0
                d[q] = 0
                if x[q] > 0:
                    lost = True
        t += 1
        if completed:
            if done == big_k:
                code = FINISHED
                break
            d[:] = 0
            c = 0
            code = ITERATION
            break
        if lost:
            c = 0
            code = LOST
            break
        if t >= stop:
            code = LIMIT
            break
        if st[ONE_SLOT] != 0:
            if st[HOLD] != NO_HOLD and _holds(states, t, g, needs, hold, st[HOLD], t_prog):
                st[HELD] += 1
                continue
            code = ONE
            break
    st[T], st[C], st[DONE], st[QUEUED] = t, c, done, n
    return code
