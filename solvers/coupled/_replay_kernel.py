"""Compiled (numba) slot loop of the coupled replay verifier (:mod:`.replay`).

The rules are :mod:`.replay`'s module docstring, read slot by slot exactly as the Python loop
did (``tests/oracles/coupled/online.py`` keeps that loop as the oracle). This module only
replays: the schedule's JSON is parsed and validated in Python first, and the first broken
rule comes back as a code that :mod:`.replay` turns into its message. It shares no code with
the on-line simulator (:mod:`volsched.heuristics.coupled`), whose compiled kernel is written
apart from this one: the two are independent readings of Section III.

Kept apart so that importing the verifier does not import numba; :mod:`.replay` imports it on
first use (numba compiles it once, about a second, then caches it beside this file).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Error codes of :func:`_replay_slots`, in the order the rules are checked within a slot.
OK, NOT_UP, NOT_ENROLLED, PROGRAM_HELD, DATA_HELD, BANDWIDTH = 0, 1, 2, 3, 4, 5

_UP, _DOWN = 0, 2
_PROG, _DATA = 1, 2


def replay_slots(starts, allocations, codes, avail, *rest):
    """:func:`_replay_slots` on ``avail`` made a read-only C-contiguous array: a realization shorter
    than the stored slots is a strided view, and numba would compile the kernel once per layout."""
    avail = np.ascontiguousarray(avail)
    if avail.flags.writeable:
        avail = avail.view()
        avail.flags.writeable = False
    return _replay_slots(starts, allocations, codes, avail, *rest)


@njit(cache=True, nogil=True)
def _replay_slots(
    starts,
    allocations,
    codes,
    avail,
    w,
    t_prog,
    t_data,
    n_com,
    big_k,
    entry,
    new_attempt,
    progress,
    compute,
    complete,
    completions,
    error,
):
    """Replay slots ``0 .. H-1``; fill the trace arrays and return the completions recorded.

    Parameters
    ----------
    starts : int64 (n,)
        Strictly increasing entry starts in ``[0, H)``.
    allocations : int64 (n, p)
        The entries' allocations (validated).
    codes : int8 (p, H)
        Transfers: 0 nothing, 1 a program slot, 2 a data slot.
    avail : int8 (p, H)
        The realization: 0 UP, 1 RECLAIMED, 2 DOWN.
    w : int64 (p,)
    t_prog, t_data, n_com, big_k : int
    entry, new_attempt, compute, complete : bool (H,)
    progress : int64 (H,)
        Filled: ``progress[t]`` is ``c`` at the start of ``t``.
    completions : int64 (K,)
        The first ``K`` completion slots.
    error : int64 (4,)
        Set to ``(code, t, q, extra)`` at the first broken rule (``extra``: the processor's
        task count for :data:`DATA_HELD`, the transfers of the slot for :data:`BANDWIDTH`);
        the replay stops there. Left at :data:`OK` otherwise.

    Returns
    -------
    int
        How many of ``completions`` are filled.
    """
    p, horizon = codes.shape
    x = np.zeros(p, dtype=np.int64)
    g = np.zeros(p, dtype=np.int64)
    d = np.zeros(p, dtype=np.int64)
    workload = 0
    c = 0
    restart = False
    found = 0
    nxt = 0
    for t in range(horizon):
        if nxt < starts.shape[0] and starts[nxt] == t:
            workload = 0
            for q in range(p):
                xq = allocations[nxt, q]
                if x[q] > 0 and xq == 0 and g[q] < t_prog:
                    g[q] = 0
                x[q] = xq
                if d[q] > xq * t_data:
                    d[q] = xq * t_data
                if xq * w[q] > workload:
                    workload = xq * w[q]
            nxt += 1
            entry[t] = True
            restart = True
        if restart:
            c = 0
            new_attempt[t] = True
        progress[t] = c

        busy = 0
        ready = workload > 0
        for q in range(p):
            code = codes[q, t]
            if code != 0:
                busy += 1
                if avail[q, t] != _UP:
                    error[0], error[1], error[2] = NOT_UP, t, q
                    return found
                if x[q] == 0:
                    error[0], error[1], error[2] = NOT_ENROLLED, t, q
                    return found
                if code == _PROG:
                    if g[q] >= t_prog:
                        error[0], error[1], error[2] = PROGRAM_HELD, t, q
                        return found
                elif d[q] >= x[q] * t_data:
                    error[0], error[1], error[2], error[3] = DATA_HELD, t, q, x[q]
                    return found
            # State at the start of t decides; this slot's transfers only count from t + 1.
            if x[q] > 0 and (avail[q, t] != _UP or g[q] < t_prog or d[q] < x[q] * t_data or code != 0):
                ready = False
        if busy > n_com:
            error[0], error[1], error[3] = BANDWIDTH, t, busy
            return found

        done = False
        if ready:
            compute[t] = True
            c += 1
            if c == workload:
                done = True
                complete[t] = True
                if found < big_k:
                    completions[found] = t
                    found += 1
        restart = done
        for q in range(p):
            code = codes[q, t]
            if code == _PROG:
                g[q] += 1
            elif code == _DATA:
                d[q] += 1
            if avail[q, t] == _DOWN:
                g[q] = 0
                d[q] = 0
                if x[q] > 0:
                    restart = True
            if done:
                d[q] = 0
    return found
