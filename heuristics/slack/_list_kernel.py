"""Compiled earliest-start list scheduling (:func:`volsched.heuristics.slack.baselines.list_schedule`)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def list_kernel(order, p, S, E, off):
    """Each job of ``order`` at its earliest start after the last job of a machine (lowest index on ties).

    Machine ``i``'s unavailabilities are ``S[off[i]:off[i+1]]``, ``E[...]``; after the last one
    it is available for ever.
    """
    m = off.shape[0] - 1
    n = p.shape[0]
    cur = np.zeros(m, dtype=np.int64)
    per = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    start = np.empty(n, dtype=np.int64)
    for idx in range(order.shape[0]):
        j = order[idx]
        pj = p[j]
        best_i = -1
        best_t = 0
        for i in range(m):
            if best_i >= 0 and cur[i] >= best_t:
                continue
            K = off[i + 1] - off[i]
            k = per[i]
            t = cur[i]
            while k < K and t + pj > S[off[i] + k]:
                k += 1
                t = E[off[i] + k - 1]
                if best_i >= 0 and t >= best_t:
                    break
            if best_i < 0 or t < best_t:
                best_i = i
                best_t = t
        machine[j] = best_i
        start[j] = best_t
        i = best_i
        K = off[i + 1] - off[i]
        k = per[i]
        while k < K and E[off[i] + k] <= best_t:
            k += 1
        per[i] = k
        cur[i] = best_t + pj
    return machine, start
