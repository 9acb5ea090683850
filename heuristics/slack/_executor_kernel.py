"""Compiled disturbed execution: the rules of ``disturbance.run_machine``, both executors.

One loop per (draw, machine), the same decisions in the same order as the
Python rules (the tests replay both on random disturbances); floats because
the sampled ``delta`` are real.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def _machine(P, R, KAP, S, E, delta, waiting):
    n = P.shape[0]
    K = S.shape[0]
    t = 0.0
    k = 0
    qi = 0
    nw = 0
    last = 0.0
    for j in range(n):
        waiting[j] = False
    while qi < n or nw > 0:
        if k < K:
            if S[k] + delta[k] <= t:
                t = E[k] + delta[k]
                k += 1
                continue
            limit = S[k]
        else:
            limit = np.inf
        x = -1
        q_ok = qi < n and KAP[qi] <= k and t + P[qi] <= limit
        if q_ok and R[qi] <= t:
            x = qi
        else:
            if nw > 0:
                for j in range(qi):
                    if waiting[j] and t + P[j] <= limit and ((not q_ok) or t + P[j] <= R[qi]):
                        x = j
                        break
            if x < 0 and q_ok:
                x = qi
        if x < 0:
            t = E[k] + delta[k]
            k += 1
            continue
        end = t + P[x]
        if k < K and S[k] + delta[k] < end:
            if x == qi:
                waiting[qi] = True
                nw += 1
                qi += 1
            t = E[k] + delta[k]
            k += 1
        else:
            if x == qi:
                qi += 1
            else:
                waiting[x] = False
                nw -= 1
            t = end
            last = end
    return last


@njit(cache=True)
def _machine_compact(P, KAP, S, E, delta):
    n = P.shape[0]
    K = S.shape[0]
    t = 0.0
    k = 0
    qi = 0
    last = 0.0
    while qi < n:
        if k < K and S[k] + delta[k] <= t:
            t = E[k] + delta[k]
            k += 1
            continue
        if k < K and (KAP[qi] > k or t + P[qi] > S[k]):
            t = E[k] + delta[k]
            k += 1
            continue
        end = t + P[qi]
        if k < K and S[k] + delta[k] < end:
            t = E[k] + delta[k]
            k += 1
        else:
            t = end
            last = end
            qi += 1
    return last


@njit(cache=True)
def disturbed_makespans(P, R, KAP, job_off, S, E, int_off, deltas, floor, compact):
    """Disturbed makespan of each draw (row of ``deltas``); ``floor`` is the undisturbed machines' end."""
    D = deltas.shape[0]
    M = job_off.shape[0] - 1
    out = np.empty(D)
    waiting = np.zeros(P.shape[0], dtype=np.bool_)
    for d in range(D):
        worst = floor
        for m in range(M):
            j0, j1 = job_off[m], job_off[m + 1]
            i0, i1 = int_off[m], int_off[m + 1]
            if compact:
                c = _machine_compact(P[j0:j1], KAP[j0:j1], S[i0:i1], E[i0:i1], deltas[d, i0:i1])
            else:
                c = _machine(
                    P[j0:j1], R[j0:j1], KAP[j0:j1], S[i0:i1], E[i0:i1], deltas[d, i0:i1], waiting[j0:j1]
                )
            if c > worst:
                worst = c
        out[d] = worst
    return out
