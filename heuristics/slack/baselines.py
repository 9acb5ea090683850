"""Two baselines without slack: LPT and plain list scheduling around the unavailabilities.

The paper runs only GAPS; these are the issue's additions, to show what the
slack buys. Both are list scheduling on all ``m`` machines (free ones
included) that respects the unavailabilities and nothing else: no slack is
reserved and the last-period rule is ignored, so their schedules belong to the
**plain** problem (``verify_plain``). Each job, in list order, goes to the
machine where it can start (hence finish) earliest, lowest index on ties,
after the last job already on that machine: in the availability period where
the machine's last job ended if it fits before the unavailability, otherwise at
the start ``e_i^{k-1}`` of the first later period ``a_i^k >= p_j``, or in the
machine's tail after its last interval (available for ever, so every job finds
a place). Jobs of a period therefore run back to back from its start.

* ``lpt`` (**LPT ignoring unavailability slack**): the list is the jobs by
  non-increasing ``p`` (ties by index), as GAPS' line 2;
* ``list`` (**plain list scheduling**): the jobs in their index order.
"""

from __future__ import annotations

import numpy as np

from volsched.instances.slack import SlackInstance

from .gaps import Schedule


def list_schedule(instance: SlackInstance, order: np.ndarray) -> Schedule:
    """List scheduling of the jobs in ``order`` (see the module docstring)."""
    m = instance.m
    p = instance.p.tolist()
    s = [instance.s(i).tolist() for i in range(m)]
    e = [instance.e(i).tolist() for i in range(m)]
    K = np.array([len(x) for x in s], dtype=np.int64)
    cur = np.zeros(m, dtype=np.int64)        # end of the machine's last job (0: none yet)
    per = np.zeros(m, dtype=np.int64)        # the period that end lies in
    cap = np.array([x[0] if x else np.iinfo(np.int64).max for x in s], dtype=np.int64)  # s of that period
    machine = np.full(instance.n, -1, dtype=np.int64)
    start = np.zeros(instance.n, dtype=np.int64)
    for j in order.tolist():
        pj = p[j]
        fits = cur + pj <= cap
        best_i, best_t = -1, None
        if fits.any():
            cand = np.where(fits, cur, np.iinfo(np.int64).max)
            best_i = int(np.argmin(cand))
            best_t = int(cand[best_i])
        # A machine whose current period is too short may still win with a later period that
        # starts before best_t; only those whose current end is below best_t can.
        late = np.flatnonzero(~fits & ((cur < best_t) if best_t is not None else True))
        for i in late.tolist():
            si, ei = s[i], e[i]
            k = int(per[i]) + 1
            while k < K[i] and si[k] - ei[k - 1] < pj:
                if best_t is not None and ei[k - 1] > best_t:
                    break
                k += 1
            t = ei[k - 1]
            if best_t is None or t < best_t or (t == best_t and i < best_i):
                best_i, best_t = i, t
        i, t = best_i, best_t
        machine[j], start[j] = i, t
        if t != cur[i]:
            k = int(np.searchsorted(e[i], t, side="right"))
            per[i] = k
            cap[i] = s[i][k] if k < K[i] else np.iinfo(np.int64).max
        cur[i] = t + pj
    return Schedule(machine, start, None)


def lpt(instance: SlackInstance) -> Schedule:
    """LPT: list scheduling of the jobs by non-increasing ``p`` (ties by index)."""
    return list_schedule(instance, np.argsort(-instance.p, kind="stable"))


def plain_list(instance: SlackInstance) -> Schedule:
    """Plain list scheduling: the jobs in index order."""
    return list_schedule(instance, np.arange(instance.n))
